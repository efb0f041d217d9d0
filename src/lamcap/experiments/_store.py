r"""Resumable SQLite store of finished instances (``results.sqlite`` by default).

One row per solved instance, keyed by ``UNIQUE(d, rank, model, embeddings, method, p,
margin, seed)`` (the column ``margin`` holds the raw margin :math:`c`, ``Task.raw_margin``;
:data:`lamcap.experiments._sweep.STORED_NAMES`): a rerun or a restart after Ctrl-C or ``kill -9`` skips what is
done and never duplicates a row.  Every row is written in its own transaction
(``INSERT OR IGNORE`` + ``COMMIT``) by the parent process only; the database
runs in WAL mode while it is written, so a crash loses at most the instance
being solved, and is checkpointed back to one file when the store closes
(:meth:`ResultsStore.close`: no ``-wal`` or ``-shm`` file is left).  The
schema version is recorded in the ``meta`` table.  A database of an older
schema version is read as it is (columns it lacks read as ``NULL``) and
migrated in place, in one transaction, when it is opened for writing, so an old
sweep can be resumed (:data:`MIGRATIONS`); opening a database of an unknown
(newer) version raises :class:`IncompatibleStoreError` (a ``ValueError``: exit
code 2 on the command line) without modifying it.

Since schema version 4 the store also holds the max-recall solves of the
partial-recall claim (:mod:`lamcap.experiments._recall_fraction`), one row per
instance in the table ``max_recall`` (:data:`RECALL_COLUMNS`), keyed by
``UNIQUE(d, p, model, embeddings, seed, max_seconds)`` (a solve under one time
limit is another measurement than under another limit).  Every
method that reads or writes rows takes ``table="trials"`` (the default: the
feasibility solves of the sweeps) or ``table="max_recall"`` (:data:`TABLES`;
:meth:`ResultsStore.done_keys` is of the sweeps' table only);
the runner writes either kind through the same loop
(:func:`lamcap.experiments._runner.execute`).  Migrating an older store adds
the empty table and changes no row; the ``max_recall.sqlite`` files that
earlier versions wrote beside ``results.sqlite`` are copied in by
:func:`import_recall_store`.

Since schema version 3 every row says how its embeddings were drawn (column
``embeddings``, a name of :data:`lamcap.theory.COST_MODELS`; :func:`lamcap.make_instance`); the
rows of older stores, all Gaussian, read and migrate as ``"gaussian"``.

Since schema version 2 every row also says what an ``infeasible`` verdict
proves (column ``infeasible_proof``): ``"exact"`` when the Farkas certificate
was proven exact (no ``W`` recalls every association, :math:`\gamma^* \le 0`;
:func:`lamcap.solvers.prove_infeasible`), ``"bounded"`` when it
proves only :math:`\gamma^* \le \varepsilon` (``SolveResult.proven``), and
``NULL`` for every other verdict, for the Hebbian rule (whose "infeasible" is
a failed recall, not a certificate) and for rows written before version 2
(unknown).

The ``meta`` table also records each sweep run into the store (its canonical
description, key ``sweep:<digest>``) and each shard of it (``shard:<digest>:I/N``).
:func:`merge_stores` joins stores of the same sweep (the shards of a job array)
into one, idempotently, and refuses stores of different sweeps or of an
unknown schema version before writing anything; it writes into a temporary file
beside the output and renames it only on success, so a failed merge leaves
nothing behind.

Opening a store checks it first: a file that is empty, truncated or damaged
(``PRAGMA quick_check``), or that SQLite cannot read, raises
:class:`DamagedStoreError` (an :class:`IncompatibleStoreError`, so a
``ValueError``: one line and exit code 2 on the command line) naming the file
and what to do; so does a SQLite error met later while reading it.  A new store
is created whole (its tables are written into a temporary file, then linked into
place), so no process ever sees a half-created store, and several processes may
open and write one store at once (on a local file system: SQLite's locks are not
reliable on network file systems, ``docs/howto/job-arrays.md``).

Examples
--------
>>> import tempfile, pathlib
>>> from lamcap.experiments._sweep import Sweep, Cell
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
>>> task = Sweep(dims=(8,), seeds_per_point=1).tasks(Cell(8, 1.0, "decoupled", "auto"), [20])[0]
>>> with ResultsStore(path) as store:
...     store.add(task, {"verdict": "feasible", "min_margin": 1.0, "seconds": 0.1})
...     store.add(task, {"verdict": "feasible", "min_margin": 1.0, "seconds": 0.1})
...     print(store.count())
True
False
1
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import json
import math
import os
import secrets
import sqlite3
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from lamcap import __version__
from lamcap.experiments._sweep import STORED_NAMES, Sweep, Task

SCHEMA_VERSION = 4
"""Version of the table layout written by this lamcap; bumped on any change."""

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""Endings of SQLite's side files of a database (write-ahead log, its index, rollback journal)."""

INFEASIBLE_PROOFS = ("exact", "bounded")
"""Values of the ``infeasible_proof`` column (``NULL``: not an infeasible verdict, or unknown)."""

_TRIALS_TABLE = """
CREATE TABLE {name} (
    id INTEGER PRIMARY KEY,
    d INTEGER NOT NULL, kappa REAL NOT NULL, rank INTEGER NOT NULL,
    model TEXT NOT NULL, method TEXT NOT NULL,
    embeddings TEXT NOT NULL DEFAULT 'gaussian' CHECK (embeddings IN ('gaussian', 'sphere')),
    p INTEGER NOT NULL, n INTEGER NOT NULL,
    replicate INTEGER NOT NULL, seed INTEGER NOT NULL,
    margin REAL NOT NULL, max_seconds REAL,
    verdict TEXT NOT NULL CHECK (verdict IN ('feasible', 'infeasible', 'undecided')),
    min_margin REAL, accuracy REAL, seconds REAL, iterations INTEGER, solver_method TEXT,
    infeasible_proof TEXT CHECK (infeasible_proof IN ('exact', 'bounded')),
    sweep TEXT, lamcap_version TEXT, git_commit TEXT, finished_at TEXT,
    UNIQUE (d, rank, model, embeddings, method, p, margin, seed)
)"""

_RECALL_TABLE = """
CREATE TABLE IF NOT EXISTS max_recall (
    id INTEGER PRIMARY KEY,
    d INTEGER NOT NULL, p INTEGER NOT NULL, n INTEGER NOT NULL,
    model TEXT NOT NULL,
    embeddings TEXT NOT NULL DEFAULT 'gaussian' CHECK (embeddings IN ('gaussian', 'sphere')),
    replicate INTEGER NOT NULL, seed INTEGER NOT NULL, max_seconds REAL NOT NULL,
    recall_lower INTEGER NOT NULL, recall_upper INTEGER NOT NULL,
    verdict TEXT NOT NULL, upper_exact INTEGER, stopped TEXT, start TEXT,
    seconds REAL, cpu_seconds REAL,
    sweep TEXT, lamcap_version TEXT, git_commit TEXT, finished_at TEXT,
    UNIQUE (d, p, model, embeddings, seed, max_seconds)
)"""

_V2_COLUMNS = (
    "id, d, kappa, rank, model, method, p, n, replicate, seed, margin, max_seconds, verdict, "
    "min_margin, accuracy, seconds, iterations, solver_method, infeasible_proof, sweep, "
    "lamcap_version, git_commit, finished_at"
)

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        (
            "ALTER TABLE trials ADD COLUMN infeasible_proof TEXT "
            "CHECK (infeasible_proof IN ('exact', 'bounded'))"
        ),
    ),
    # the UNIQUE key gains embeddings: SQLite rebuilds the table (every row kept, as Gaussian)
    2: (
        _TRIALS_TABLE.format(name="trials_v3"),
        (
            f"INSERT INTO trials_v3 ({_V2_COLUMNS}, embeddings) "
            f"SELECT {_V2_COLUMNS}, 'gaussian' FROM trials"
        ),
        "DROP TABLE trials",
        "ALTER TABLE trials_v3 RENAME TO trials",
        "CREATE INDEX trials_cell ON trials (d, rank, model, method)",
    ),
    # the max-recall solves join the store in a table of their own (no trials row changes)
    3: (_RECALL_TABLE,),
}
"""SQL statements turning schema version ``v`` into ``v + 1`` (old rows keep ``NULL``)."""

COLUMNS = (
    "d",
    "kappa",
    "rank",
    "model",
    "embeddings",
    "method",
    "p",
    "n",
    "replicate",
    "seed",
    "margin",
    "max_seconds",
    "verdict",
    "min_margin",
    "accuracy",
    "seconds",
    "iterations",
    "solver_method",
    "infeasible_proof",
    "sweep",
    "lamcap_version",
    "git_commit",
    "finished_at",
)
"""Columns of the ``trials`` table, in export order."""

RECALL_COLUMNS = (
    "d",
    "p",
    "n",
    "model",
    "embeddings",
    "replicate",
    "seed",
    "max_seconds",
    "recall_lower",
    "recall_upper",
    "verdict",
    "upper_exact",
    "stopped",
    "start",
    "seconds",
    "cpu_seconds",
    "sweep",
    "lamcap_version",
    "git_commit",
    "finished_at",
)
"""Columns of the ``max_recall`` table, in export order (:math:`R_-`, :math:`R_+` are
``recall_lower``, ``recall_upper``; ``verdict`` is the solver's: ``"optimal"``,
``"bounded"`` or ``"undecided"``)."""

RECALL_VERDICTS = ("optimal", "bounded", "undecided")
"""Verdicts of ``lamcap.solve(objective="max_recall")``, the values of ``max_recall.verdict``."""

_MISSING = {"embeddings": "'gaussian'"}
"""What a column an older store lacks reads as (others read as ``NULL``)."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    _TRIALS_TABLE.format(name="trials").replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1),
    "CREATE INDEX IF NOT EXISTS trials_cell ON trials (d, rank, model, method)",
    _RECALL_TABLE,
)
"""Statements creating the tables of a new store (no-ops on an existing one)."""

BUSY_TIMEOUT = 30.0
"""Seconds a writer waits for another process's lock before giving up."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

_HEADER_BYTES = 100
"""Length of SQLite's database file header."""


class IncompatibleStoreError(ValueError):
    """The file is not a lamcap results database of a compatible schema version."""


class DamagedStoreError(IncompatibleStoreError):
    """The file is an empty, truncated or damaged database (SQLite cannot read it whole)."""


def _restore(path: Path) -> str:
    return f"restore {str(path)!r} from a copy, or rerun the sweep into a new file"


def _database_error(path: Path, error: sqlite3.Error) -> ValueError:
    """The one-line ``ValueError`` for a SQLite error met while opening or reading ``path``."""
    text = str(error)
    if "locked" in text or "busy" in text:
        msg = (
            f"results database {str(path)!r} stayed locked by another process for "
            f"{BUSY_TIMEOUT:g} s (SQLite: {text}); retry when the other writer is done"
        )
        return ValueError(msg)
    if "no such table" in text or "no such column" in text:
        msg = f"{str(path)!r} is not a lamcap results database (SQLite: {text}); use another path"
        return IncompatibleStoreError(msg)
    msg = f"results database {str(path)!r} is damaged (SQLite: {text}): {_restore(path)}"
    return DamagedStoreError(msg)


def _check_file(path: Path, hint: str) -> None:
    """DamagedStoreError if ``path`` is empty or truncated, IncompatibleStoreError if no SQLite file.

    Reads only SQLite's 100-byte header: a new store is created whole, so an
    empty file, a partial header or a partial page is what a failed copy or a
    full disk leaves, never a store being written.
    """
    size = path.stat().st_size
    log = path.with_name(path.name + "-wal")
    has_log = log.exists() and log.stat().st_size > 0
    if size == 0:
        if has_log:  # created by an older lamcap, its content still in the write-ahead log
            return
        msg = (
            f"results database {str(path)!r} is empty (0 bytes): it was truncated or never "
            f"written; {_restore(path)} (delete it first)"
        )
        raise DamagedStoreError(msg)
    with path.open("rb") as handle:
        header = handle.read(_HEADER_BYTES)
    if not header.startswith(_SQLITE_MAGIC[: len(header)]):
        msg = f"{str(path)!r} is not a lamcap results database (not a SQLite file); {hint}"
        raise IncompatibleStoreError(msg)
    if size < _HEADER_BYTES:
        msg = (
            f"results database {str(path)!r} is truncated ({size} bytes, shorter than SQLite's "
            f"{_HEADER_BYTES}-byte header): {_restore(path)}"
        )
        raise DamagedStoreError(msg)
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        msg = (
            f"results database {str(path)!r} is damaged (page size {page_size} in its header): "
            f"{_restore(path)}"
        )
        raise DamagedStoreError(msg)
    pages = int.from_bytes(header[28:32], "big")
    counted = pages > 0 and header[24:28] == header[92:96]  # SQLite's test of that count
    if size % page_size:
        what = f"not a whole number of {page_size}-byte pages"
    elif counted and pages * page_size > size and not has_log:
        what = f"{size // page_size} pages of {page_size} bytes where its header counts {pages}"
    else:
        return
    msg = f"results database {str(path)!r} is truncated ({size} bytes, {what}): {_restore(path)}"
    raise DamagedStoreError(msg)


@functools.cache
def git_commit() -> str | None:
    """Commit hash of the lamcap source tree, or ``None`` outside a git checkout."""
    source = Path(__file__).resolve().parent
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=source,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = completed.stdout.strip()
    return commit if completed.returncode == 0 and len(commit) == 40 else None


def _check_existing(path: Path, hint: str = "use another --db path") -> int:
    """Schema version of ``path``, or :class:`IncompatibleStoreError` (read-only check).

    Runs SQLite's ``PRAGMA quick_check`` (every page and row read once, without
    the cross-check of indexes that ``integrity_check`` adds) before reading.
    """
    _check_file(path, hint)
    connection = _read_only(path, "results database")
    try:
        verdict = str(connection.execute("PRAGMA quick_check(1)").fetchone()[0])
        if verdict != "ok":
            problems = [line for line in verdict.splitlines() if not line.startswith("***")]
            msg = (
                f"results database {str(path)!r} is damaged (SQLite quick_check: "
                f"{(problems or [verdict])[0].strip()}): {_restore(path)}"
            )
            raise DamagedStoreError(msg)
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as error:
        if "no such table" in str(error):
            msg = f"{str(path)!r} is not a lamcap results database ({error}); {hint}"
            raise IncompatibleStoreError(msg) from None
        raise _database_error(path, error) from None
    finally:
        connection.close()
    found = None if row is None else str(row[0])
    readable = [str(version) for version in range(1, SCHEMA_VERSION + 1)]
    if found not in readable:
        msg = (
            f"results database {str(path)!r} has schema version {found}, this lamcap "
            f"({__version__}) reads versions 1 to {SCHEMA_VERSION}; export it with the lamcap "
            f"that wrote it, or {hint.removeprefix('use ')}"
        )
        raise IncompatibleStoreError(msg)
    return int(found)


def _read_only(path: Path, what: str) -> sqlite3.Connection:
    """A read-only connection to ``path``, or :class:`IncompatibleStoreError` naming ``what``."""
    try:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        msg = f"cannot open {what} {str(path)!r}: {error}"
        raise IncompatibleStoreError(msg) from None


def check_store(
    path: str | os.PathLike[str], *, must_exist: bool = False, hint: str = "use another --db path"
) -> None:
    """Fail early (``ValueError``) if ``path`` cannot hold our results; never writes.

    Checks that an existing file is a lamcap database of a schema version this
    lamcap reads (older versions are migrated when opened for writing) and
    that SQLite reads whole (not empty, truncated nor damaged:
    :class:`DamagedStoreError`), that its directory exists, and, with
    ``must_exist``, that the file exists.
    ``hint`` ends the message about a file that is no store (default: the
    ``--db`` option of the commands that take one).
    """
    target = Path(path)
    if target.name.endswith(SIDE_FILE_SUFFIXES):
        msg = (
            f"{str(target)!r} is one of SQLite's side files of "
            f"{target.name.rsplit('-', 1)[0]!r}, not a results database (it is read with "
            f"its database); {hint}"
        )
        raise ValueError(msg)
    if target.exists():
        _check_existing(target, hint)
    elif must_exist:
        msg = f"results database {str(target)!r} does not exist (run `lamcap sweep` first)"
        raise ValueError(msg)
    elif not target.resolve().parent.is_dir():
        msg = f"directory of the results database {str(target)!r} does not exist"
        raise ValueError(msg)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(
    method: Callable[Concatenate[ResultsStore, _P], _R],
) -> Callable[Concatenate[ResultsStore, _P], _R]:
    """Turn a SQLite error of a store method into the one-line ``ValueError`` naming the file."""

    @functools.wraps(method)
    def guarded(store: ResultsStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(store, *args, **kwargs)
        except sqlite3.DatabaseError as error:
            raise _database_error(store.path, error) from error

    return guarded


def _ensure_schema(connection: sqlite3.Connection, path: Path) -> int:
    """Create the tables if missing, inside the caller's write transaction; the schema version.

    ``CREATE TABLE IF NOT EXISTS`` under ``BEGIN IMMEDIATE``: of several
    processes creating one store at once, the first creates it and the others
    find it; a SQLite file holding other tables is refused untouched.
    """
    tables = {str(row[0]) for row in connection.execute("SELECT name FROM sqlite_master")}
    if tables and "meta" not in tables:
        msg = f"{str(path)!r} is not a lamcap results database (it has no meta table)"
        raise IncompatibleStoreError(msg)
    for statement in _SCHEMA:
        connection.execute(statement)
    connection.executemany(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
        [
            ("schema_version", str(SCHEMA_VERSION)),
            ("created_by", f"lamcap {__version__}"),
            ("created_at", _now()),
        ],
    )
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    found = str(row[0])
    if found not in {str(version) for version in range(1, SCHEMA_VERSION + 1)}:
        msg = (
            f"results database {str(path)!r} has schema version {found}, this lamcap "
            f"({__version__}) writes versions 1 to {SCHEMA_VERSION}; use another path"
        )
        raise IncompatibleStoreError(msg)
    return int(found)


def _without_side_files(path: Path) -> None:
    for name in (path.name, *(path.name + suffix for suffix in SIDE_FILE_SUFFIXES)):
        path.with_name(name).unlink(missing_ok=True)


def _create_whole(path: Path) -> None:
    """Create the store ``path`` at once: its tables go into a new file, then hard-linked in place.

    Linking fails if ``path`` exists, so when several processes create one
    store at once the first link wins and the others open it; no process ever
    sees an empty or half-created file.  Where hard links are not supported
    the store is created in place instead (:func:`_ensure_schema`, under the
    write lock).
    """
    draft = path.with_name(f".{path.name}.{secrets.token_hex(6)}.new")
    try:
        connection = sqlite3.connect(draft, isolation_level=None)
        try:
            with _Transaction(connection):
                _ensure_schema(connection, path)
        finally:
            connection.close()
        try:
            os.link(draft, path)
        except FileExistsError:  # another process created it first: open theirs
            pass
        except OSError:  # no hard links on this file system: created in place
            pass
    finally:
        _without_side_files(draft)


def _set_write_ahead_log(connection: sqlite3.Connection, timeout: float = BUSY_TIMEOUT) -> None:
    """``PRAGMA journal_mode=WAL``, retried while another process holds the lock it needs.

    The switch takes an exclusive lock for a moment and, unlike other
    statements, does not wait for it through the busy timeout; it is retried
    with growing pauses (up to 0.1 s) for at most ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    pause = 0.002
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as error:
            locked = "locked" in str(error) or "busy" in str(error)
            if not locked or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(2 * pause, 0.1)
        else:
            return


class ResultsStore:
    """SQLite results database; use as a context manager (closes on exit).

    It holds two tables of solves (:data:`TABLES`): ``trials``, the instances of
    the sweeps, and ``max_recall``, the max-recall solves of the partial-recall
    claim; the methods that read or write rows take ``table=`` (default
    ``"trials"``).

    Parameters
    ----------
    path : database file; created with the current schema if missing.
    readonly : open without creating or writing (for analysis and export).

    Raises
    ------
    ValueError
        :class:`DamagedStoreError` for an empty, truncated or damaged file,
        :class:`IncompatibleStoreError` for another file or a newer schema
        version (each naming the file and what to do); also later, for a
        SQLite error met while reading or writing.
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._readonly = readonly
        check_store(self.path, must_exist=readonly)
        connection: sqlite3.Connection | None = None
        try:
            if readonly:
                connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            else:
                if not self.path.exists():
                    _create_whole(self.path)
                connection = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT)
                _set_write_ahead_log(connection)
                connection.execute("PRAGMA synchronous=NORMAL")
                self._connection = connection
                self._migrate()
            connection.row_factory = sqlite3.Row
            self._columns = {str(row[1]) for row in connection.execute("PRAGMA table_info(trials)")}
            self._tables = {
                str(row[0])
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except BaseException as error:
            if connection is not None:
                connection.close()
            if isinstance(error, sqlite3.DatabaseError):
                raise _database_error(self.path, error) from error
            raise
        self._connection = connection

    @property
    @_guarded
    def schema_version(self) -> int:
        """Schema version of the database (older than :data:`SCHEMA_VERSION` only read-only)."""
        row = self._connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        """Create a missing schema, or bring an older one to :data:`SCHEMA_VERSION` (rows kept).

        One ``BEGIN IMMEDIATE`` transaction: the version is read and changed
        under the write lock, so concurrent writers migrate once.
        """
        with self._transaction():
            version = _ensure_schema(self._connection, self.path)
            if version >= SCHEMA_VERSION:
                return
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step]:
                    self._connection.execute(statement)
            self._connection.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
            )
            self._connection.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (f"migrated:{version}->{SCHEMA_VERSION}", f"lamcap {__version__} at {_now()}"),
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (idempotent), leaving no ``-wal`` or ``-shm`` file behind.

        A store written to is checkpointed and switched back to the rollback
        journal before it closes, so that the database is one file again and
        read-only opens (``results summary``, ``merge``'s shards) create no side
        files either.  When another connection still has the database open
        (a sweep's other writers) the switch is left to the last one to close.
        """
        if not self._readonly:
            try:
                self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._connection.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.Error:  # still in use elsewhere, or already closed
                pass
        self._connection.close()

    def add(
        self,
        task: Task,
        record: Mapping[str, Any],
        *,
        sweep: str = "sweep",
        table: str = "trials",
    ) -> bool:
        """Write one finished instance in its own transaction; False if already stored."""
        return self.add_many([task], [record], sweep=sweep, table=table) == 1

    @_guarded
    def add_many(
        self,
        tasks: Sequence[Task],
        records: Sequence[Mapping[str, Any]],
        *,
        sweep: str = "sweep",
        table: str = "trials",
    ) -> int:
        """Write finished instances in one transaction (all or none); return how many were new.

        ``records`` are the trials' records of ``tasks``, one each: a feasibility
        solve's (:func:`~lamcap.experiments.solver_trial`) for ``table="trials"``,
        a max-recall solve's (:func:`lamcap.experiments._recall_fraction.recall_trial`)
        for ``table="max_recall"``; an unknown ``table`` or a record the table
        cannot hold raises ``ValueError``.  A batch of Hebbian instances,
        finished by one call on a worker, is written at once: thousands of rows
        per second, where a transaction per row takes about a quarter of a
        millisecond each.
        """
        kind = table_of(table)
        if len(tasks) != len(records):
            msg = f"records must have one entry per task, got {len(records)} for {len(tasks)} tasks"
            raise ValueError(msg)
        rows = [kind.row(task, record, sweep) for task, record in zip(tasks, records, strict=True)]
        if not rows:
            return 0
        return self._insert(kind.name, list(rows[0]), rows)

    def _insert(self, table: str, names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> int:
        """``INSERT OR IGNORE`` ``rows`` into ``table`` in one transaction; how many were new."""
        columns = ", ".join(names)
        marks = ", ".join(f":{name}" for name in names)
        before = self._connection.total_changes  # not count(): other writers add rows too
        with self._transaction():
            self._connection.executemany(
                f"INSERT OR IGNORE INTO {table} ({columns}) VALUES ({marks})", rows
            )
        return self._connection.total_changes - before

    @_guarded
    def add_rows(self, rows: Sequence[Mapping[str, Any]], *, table: str = "trials") -> int:
        """Copy stored rows (all the table's columns) in one transaction; return how many were new.

        ``table``: ``"trials"`` (rows with every :data:`COLUMNS`) or ``"max_recall"``
        (every :data:`RECALL_COLUMNS`).
        """
        kind = table_of(table)
        return self._insert(kind.name, kind.columns, rows)

    def record_sweep(self, sweep: Sweep, shard: tuple[int, int] | None = None) -> None:
        """Record that ``sweep`` (or its shard ``(I, N)``) runs into this store."""
        entries = [(f"sweep:{sweep.digest()}", sweep.description())]
        if shard is not None:
            entries.append((f"shard:{sweep.digest()}:{shard[0]}/{shard[1]}", "1"))
        self._insert_meta(entries)

    @_guarded
    def _insert_meta(self, entries: Sequence[tuple[str, str]]) -> None:
        with self._transaction():
            self._connection.executemany(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", entries
            )

    @_guarded
    def meta(self, prefix: str = "") -> dict[str, str]:
        """Entries of the ``meta`` table whose key starts with ``prefix``."""
        rows = self._connection.execute(
            "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key",
            (len(prefix), prefix),
        )
        return {str(row[0]): str(row[1]) for row in rows}

    def sweeps(self) -> dict[str, str]:
        """Descriptions (canonical JSON) of the sweeps run into this store, by digest."""
        return {key.removeprefix("sweep:"): value for key, value in self.meta("sweep:").items()}

    def shards(self) -> dict[str, set[tuple[int, int]]]:
        """Shards ``(I, N)`` run into this store (directly or merged), by sweep digest."""
        found: dict[str, set[tuple[int, int]]] = {}
        for key in self.meta("shard:"):
            _, digest, fraction = key.split(":")
            index, count = fraction.split("/")
            found.setdefault(digest, set()).add((int(index), int(count)))
        return found

    @_guarded
    def done_keys(self) -> set[tuple[int, int, str, str, int, float, int, str]]:
        """Keys (:meth:`Task.key`) of every stored instance."""
        embeddings = "embeddings" if "embeddings" in self._columns else _MISSING["embeddings"]
        rows = self._connection.execute(
            f"SELECT d, rank, model, method, p, margin, seed, {embeddings} FROM trials"
        )
        return {(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows}

    @_guarded
    def count(self, *, table: str = "trials") -> int:
        """Number of stored instances of ``table`` (``"trials"`` or ``"max_recall"``)."""
        kind = table_of(table)
        if kind.name not in self._tables:  # an older store, read-only: not migrated yet
            return 0
        return int(self._connection.execute(f"SELECT COUNT(*) FROM {kind.name}").fetchone()[0])

    def verdicts(self, *, table: str = "trials") -> dict[tuple[Any, ...], str]:
        """The verdict of every stored instance of ``table``, by its key.

        The keys are what :func:`table_key` gives a task: :meth:`Task.key` for
        ``"trials"``, ``(d, p, model, embeddings, seed, max_seconds)`` for
        ``"max_recall"``.
        """
        return {key: str(row["verdict"]) for key, row in self.keyed_rows(table=table).items()}

    def keyed_rows(self, *, table: str = "trials") -> dict[tuple[Any, ...], dict[str, Any]]:
        """Every stored row of ``table`` by its key (the keys of :meth:`verdicts`)."""
        kind = table_of(table)
        return {kind.row_key(row): row for row in self.rows(table=table)}

    @_guarded
    def rows(self, /, *, table: str = "trials", **equal: Any) -> list[dict[str, Any]]:
        """Stored rows (as dicts) of ``table`` matching ``column=value`` filters, in a fixed order.

        ``table``: ``"trials"`` (the default; :data:`COLUMNS`) or ``"max_recall"``
        (:data:`RECALL_COLUMNS`, ordered by d, p, model, embeddings, time limit,
        replicate); a column the table lacks raises ``ValueError`` naming it.
        """
        kind = table_of(table)
        unknown = set(equal) - set(kind.columns)
        if unknown:
            msg = f"unknown column(s) {sorted(unknown)}; columns: {list(kind.columns)}"
            raise ValueError(msg)
        if kind.name != "trials":
            return self._plain_rows(kind, equal)

        def column(name: str) -> str:
            return name if name in self._columns else _MISSING.get(name, "NULL")

        where = " AND ".join(f"{column(name)} = :{name}" for name in equal) or "1"
        selected = ", ".join(
            name if name in self._columns else f"{column(name)} AS {name}" for name in COLUMNS
        )
        order = "embeddings, " if "embeddings" in self._columns else ""
        query = (
            f"SELECT {selected} FROM trials WHERE {where} "
            f"ORDER BY d, rank, model, {order}method, p, margin, replicate, seed"
        )
        return [dict(row) for row in self._connection.execute(query, equal)]

    def _plain_rows(self, kind: _Table, equal: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Rows of a table that every readable schema version holds whole (or not at all)."""
        if kind.name not in self._tables:  # an older store, read-only: not migrated yet
            return []
        where = " AND ".join(f"{name} = :{name}" for name in equal) or "1"
        query = (
            f"SELECT {', '.join(kind.columns)} FROM {kind.name} WHERE {where} ORDER BY {kind.order}"
        )
        return [dict(row) for row in self._connection.execute(query, dict(equal))]

    def integrity_ok(self) -> bool:
        """True if ``PRAGMA integrity_check`` reports ``ok``."""
        return bool(self._connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def export_csv(self, path: str | os.PathLike[str], *, table: str = "trials") -> int:
        """Write every row of ``table`` to a CSV file (atomically); return the number of rows."""
        columns = table_of(table).columns
        rows = self.rows(table=table)
        target = Path(path)
        temporary = target.with_name(target.name + ".partial")
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        temporary.replace(target)
        return len(rows)

    def export_parquet(self, path: str | os.PathLike[str], *, table: str = "trials") -> int:
        """Write every row of ``table`` to a Parquet file (needs pyarrow); return the number of rows."""
        columns = table_of(table).columns
        try:
            import pyarrow as pa  # noqa: PLC0415
            import pyarrow.parquet as pq  # noqa: PLC0415
        except ImportError:
            msg = (
                "--parquet needs the optional package pyarrow, which is not installed; "
                "install it (python -m pip install pyarrow) or use --csv"
            )
            raise ValueError(msg) from None
        rows = self.rows(table=table)
        frame = pa.table({name: [row[name] for row in rows] for name in columns})
        target = Path(path)
        temporary = target.with_name(target.name + ".partial")
        pq.write_table(frame, temporary)
        temporary.replace(target)
        return len(rows)


@dataclass(frozen=True)
class MergeOutcome:
    """What :func:`merge_stores` did."""

    added: int
    """Rows written into the output store."""
    present: int
    """Rows skipped because the output already held that instance."""
    missing_shards: dict[str, list[str]]
    """Sweep name -> shards ``"I/N"`` not merged yet (empty when complete)."""


def _sweep_name(description: str) -> str:
    return str(json.loads(description).get("name", "?"))


def _describe_difference(first: dict[str, str], other: dict[str, str]) -> str:
    """Which parameters tell two stores' sweeps apart (for the error message)."""
    if len(first) != 1 or len(other) != 1:
        return f"{len(first)} vs {len(other)} sweeps"
    (a,), (b,) = (json.loads(v) for v in first.values()), (json.loads(v) for v in other.values())
    differing = sorted(key for key in set(a) | set(b) if a.get(key) != b.get(key))
    return "differs in " + ", ".join(differing)


def _sources_sweeps(sources: Sequence[Path]) -> dict[str, str]:
    """The sweeps every source records (all equal), or ValueError; reads only."""
    expected: dict[str, str] | None = None
    for source in sources:
        check_store(source, must_exist=True)
        with ResultsStore(source, readonly=True) as store:
            sweeps = store.sweeps()
        if not sweeps:
            msg = (
                f"{str(source)!r} records no sweep description (written by an older lamcap), "
                "so it cannot be matched with the other stores"
            )
            raise ValueError(msg)
        if expected is None:
            expected = sweeps
        elif sweeps != expected:
            msg = (
                f"cannot merge {str(source)!r} with {str(sources[0])!r}: they hold different "
                f"sweeps ({_describe_difference(expected, sweeps)})"
            )
            raise ValueError(msg)
    assert expected is not None
    return expected


def _check_target(out: Path, sources: Sequence[Path], sweeps: dict[str, str]) -> None:
    """ValueError unless ``out`` is a new store or one holding the same sweeps."""
    resolved = {source.resolve() for source in sources}
    if out.resolve() in resolved:
        msg = f"the output store {str(out)!r} is also one of the stores to merge"
        raise ValueError(msg)
    check_store(out, hint="choose another output")
    if not out.exists():
        return
    with ResultsStore(out, readonly=True) as store:
        existing, rows = store.sweeps(), sum(store.count(table=table) for table in TABLES)
    if (existing or rows) and existing != sweeps:
        msg = (
            f"the output store {str(out)!r} holds a different sweep than {str(sources[0])!r} "
            f"({_describe_difference(sweeps, existing)}); choose another output"
        )
        raise ValueError(msg)


def _copy_store(source: Path, copy: Path) -> None:
    """Copy the store ``source`` (read-only, with what its write-ahead log holds) to ``copy``."""
    reader = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        writer = sqlite3.connect(copy)
        try:
            reader.backup(writer)
        finally:
            writer.close()
    except sqlite3.DatabaseError as error:
        raise _database_error(source, error) from error
    finally:
        reader.close()


def _merge_into(
    target: Path, paths: Sequence[Path]
) -> tuple[int, int, dict[str, set[tuple[int, int]]]]:
    """Copy the rows (of every table) and sweep records of ``paths`` into ``target``;
    (added, present, shards)."""
    added = present = 0
    with ResultsStore(target) as merged:
        for path in paths:
            with ResultsStore(path, readonly=True) as source:
                tables = {table: source.rows(table=table) for table in TABLES}
                entries = list(source.meta("sweep:").items())
                entries += list(source.meta("shard:").items())
            for table, rows in tables.items():
                if not rows:  # e.g. a store without max-recall solves
                    continue
                written = merged.add_rows(rows, table=table)
                added, present = added + written, present + len(rows) - written
            merged._insert_meta(entries)
        shards = merged.shards()
    return added, present, shards


def merge_stores(
    out: str | os.PathLike[str], sources: Sequence[str | os.PathLike[str]]
) -> MergeOutcome:
    """Merge the stores ``sources`` (shards of one sweep) into ``out``.

    Every row is copied as it is (including the solver time and the time it
    finished), the sweeps' instances and the max-recall solves alike (both
    tables, :data:`TABLES`); an instance already in ``out`` is skipped, so merging twice adds
    nothing.  All checks run before anything is written: the sources must
    exist, have this lamcap's schema version and record the same sweep
    description, and an existing ``out`` must hold that sweep too; otherwise
    ``ValueError`` (exit code 2 on the command line) and no file changes.
    The merge is written into a temporary file beside ``out`` (a copy of
    ``out`` if it exists), which replaces ``out`` only when every store has
    been merged: a merge that fails (a damaged shard, a full disk, Ctrl-C)
    leaves ``out`` as it was and nothing else behind.  Do not merge into a
    store that a sweep is still writing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from lamcap.experiments._runner import run_sweep
    >>> from lamcap.experiments._trials import synthetic_trial
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> sweep = Sweep(dims=(8,), p_grid=(10, 20), seeds_per_point=2)
    >>> for i in (1, 2):
    ...     _ = run_sweep(sweep, folder / f"{i}.sqlite", trial=synthetic_trial, workers=0,
    ...                   shard=(i, 2))
    >>> merge_stores(folder / "all.sqlite", [folder / "1.sqlite", folder / "2.sqlite"])
    MergeOutcome(added=4, present=0, missing_shards={})
    """
    if not sources:
        msg = "give at least one store to merge"
        raise ValueError(msg)
    paths = [Path(source) for source in sources]
    for path in paths:
        check_store(path, must_exist=True, hint="give only lamcap results databases to merge")
    target = Path(out)
    sweeps = _sources_sweeps(paths)
    _check_target(target, paths, sweeps)
    draft = target.with_name(f".{target.name}.{secrets.token_hex(6)}.merging")
    try:
        if target.exists():
            _copy_store(target, draft)
        added, present, shards = _merge_into(draft, paths)
        draft.replace(target)
    finally:
        _without_side_files(draft)
    missing = {}
    for digest, description in sweeps.items():
        found = shards.get(digest, set())
        counts = {count for _, count in found}
        if len(counts) == 1:
            (count,) = counts
            absent = [f"{i}/{count}" for i in range(1, count + 1) if (i, count) not in found]
            if absent:
                missing[_sweep_name(description)] = absent
    return MergeOutcome(added=added, present=present, missing_shards=missing)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def __enter__(self) -> None:
        self._connection.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._connection.execute("ROLLBACK" if kind is not None else "COMMIT")


def _infeasible_proof(record: Mapping[str, Any]) -> str | None:
    """The record's ``infeasible_proof`` (``None`` unless an infeasible verdict says which)."""
    proof = record.get("infeasible_proof")
    if proof is None:
        return None
    if record["verdict"] != "infeasible" or proof not in INFEASIBLE_PROOFS:
        msg = (
            f"infeasible_proof must be one of {INFEASIBLE_PROOFS} for an infeasible verdict "
            f"(None otherwise), got {proof!r} with verdict {record['verdict']!r}"
        )
        raise ValueError(msg)
    return str(proof)


def _finite_or_none(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def row_key(row: Mapping[str, Any]) -> tuple[int, int, str, str, int, float, int, str]:
    """The store key of a stored row, as :meth:`lamcap.experiments.Task.key` gives it."""
    return (
        row["d"],
        row["rank"],
        row["model"],
        row["method"],
        row["p"],
        row["margin"],
        row["seed"],
        row.get("embeddings") or "gaussian",
    )


def _trial_row(task: Task, record: Mapping[str, Any], sweep: str) -> dict[str, Any]:
    """The stored row of one finished instance (its task, its trial's record, the sweep name)."""
    return {
        "d": task.d,
        "kappa": task.kappa,
        "rank": task.rank,
        "model": task.model,
        "embeddings": task.embeddings,
        "method": task.method,
        "p": task.p,
        "n": int(record.get("n", task.p)),
        "replicate": task.replicate,
        "seed": task.seed,
        STORED_NAMES["raw_margin"]: task.raw_margin,
        "max_seconds": task.max_seconds,
        "verdict": str(record["verdict"]),
        "min_margin": _finite_or_none(record.get("min_margin")),
        "accuracy": _finite_or_none(record.get("accuracy")),
        "seconds": _finite_or_none(record.get("seconds")),
        "iterations": record.get("iterations"),
        "solver_method": record.get("solver_method", task.method),
        "infeasible_proof": _infeasible_proof(record),
        "sweep": sweep,
        "lamcap_version": __version__,
        "git_commit": git_commit(),
        "finished_at": _now(),
    }


def recall_key(task: Task) -> tuple[int, int, str, str, int, float]:
    """The key of ``task``'s row in the ``max_recall`` table: d, p, model, embeddings, seed, limit."""
    return (task.d, task.p, task.model, task.embeddings, task.seed, float(task.max_seconds or 0.0))


def _recall_row_key(row: Mapping[str, Any]) -> tuple[int, int, str, str, int, float]:
    return (
        int(row["d"]),
        int(row["p"]),
        str(row["model"]),
        str(row["embeddings"]),
        int(row["seed"]),
        float(row["max_seconds"]),
    )


def _recall_row(task: Task, record: Mapping[str, Any], sweep: str) -> dict[str, Any]:
    """The stored row of one finished max-recall solve (its task, its trial's record, the sweep).

    ``ValueError`` unless the record's bounds satisfy
    ``0 <= recall_lower <= recall_upper <= n`` and its verdict is one of
    :data:`RECALL_VERDICTS`.
    """
    n, lower, upper = int(record["n"]), int(record["recall_lower"]), int(record["recall_upper"])
    if not 0 <= lower <= upper <= n:
        msg = (
            f"recall_lower and recall_upper must satisfy 0 <= recall_lower <= recall_upper <= n, "
            f"got {lower} and {upper} with n = {n} ({task})"
        )
        raise ValueError(msg)
    verdict = str(record["verdict"])
    if verdict not in RECALL_VERDICTS:
        msg = f"verdict of a max-recall solve must be one of {RECALL_VERDICTS}, got {verdict!r}"
        raise ValueError(msg)
    return {
        "d": task.d,
        "p": task.p,
        "n": n,
        "model": task.model,
        "embeddings": task.embeddings,
        "replicate": task.replicate,
        "seed": task.seed,
        "max_seconds": float(task.max_seconds or 0.0),
        "recall_lower": lower,
        "recall_upper": upper,
        "verdict": verdict,
        "upper_exact": int(bool(record.get("upper_exact"))),
        "stopped": record.get("stopped"),
        "start": record.get("start"),
        "seconds": _finite_or_none(record.get("seconds")),
        "cpu_seconds": _finite_or_none(record.get("cpu_seconds")),
        "sweep": sweep,
        "lamcap_version": __version__,
        "git_commit": git_commit(),
        "finished_at": _now(),
    }


@dataclass(frozen=True)
class _Table:
    """One table of solves: its columns, the key of a task and of a row, how a record is stored."""

    name: str
    columns: tuple[str, ...]
    key: Callable[[Task], tuple[Any, ...]]
    row_key: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    row: Callable[[Task, Mapping[str, Any], str], dict[str, Any]]
    order: str


TABLES: dict[str, _Table] = {
    "trials": _Table(
        "trials",
        COLUMNS,
        Task.key,
        row_key,
        _trial_row,
        "d, rank, model, embeddings, method, p, margin, replicate, seed",
    ),
    "max_recall": _Table(
        "max_recall",
        RECALL_COLUMNS,
        recall_key,
        _recall_row_key,
        _recall_row,
        "d, p, model, embeddings, max_seconds, replicate, seed",
    ),
}
"""The tables of solves of a store: ``"trials"`` (the feasibility solves of the sweeps,
:data:`COLUMNS`) and ``"max_recall"`` (the max-recall solves, :data:`RECALL_COLUMNS`)."""


def table_of(table: object) -> _Table:
    """The table named ``table``, or ``ValueError`` naming the accepted names."""
    found = TABLES.get(table) if isinstance(table, str) else None
    if found is None:
        msg = f"table must be one of {tuple(TABLES)}, got {table!r}"
        raise ValueError(msg)
    return found


def table_key(table: str) -> Callable[[Task], tuple[Any, ...]]:
    """The key of a task's row in ``table`` (the keys of :meth:`ResultsStore.verdicts`)."""
    return table_of(table).key


RECALL_FILE = "max_recall.sqlite"
"""The separate store of max-recall solves that lamcap wrote before schema version 4
beside a reproduction's ``results.sqlite`` (read by :func:`import_recall_store`)."""

_RECALL_LAYOUT = "1"
"""The only layout version (``meta.layout_version``) of such files."""


def import_recall_store(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Copy the rows of a max-recall store of an earlier lamcap into the store ``target``.

    ``source`` is a ``max_recall.sqlite`` written before schema version 4 (its
    own ``meta.layout_version`` 1, one row per solve); it is only read.  Every
    row is copied as it is (with ``sweep = "max_recall"``) into the
    ``max_recall`` table of ``target`` (created, or migrated, if needed), in
    one transaction; a solve already there is skipped, so importing twice adds
    nothing.  Returns the number of rows added.  ``ValueError`` naming
    ``source`` if it is not such a file.
    """
    path = Path(source)
    if not path.is_file():
        msg = f"max-recall store {str(path)!r} does not exist"
        raise ValueError(msg)
    legacy = tuple(name for name in RECALL_COLUMNS if name != "sweep")
    connection = _read_only(path, "the max-recall store")
    try:
        connection.row_factory = sqlite3.Row
        layout = connection.execute(
            "SELECT value FROM meta WHERE key = 'layout_version'"
        ).fetchone()
        if layout is None or str(layout[0]) != _RECALL_LAYOUT:
            found = None if layout is None else str(layout[0])
            msg = (
                f"{str(path)!r} is a max-recall store of layout version {found}; "
                f"this lamcap imports version {_RECALL_LAYOUT}"
            )
            raise ValueError(msg)
        rows = [
            {**dict(row), "sweep": "max_recall"}
            for row in connection.execute(f"SELECT {', '.join(legacy)} FROM max_recall")
        ]
    except sqlite3.DatabaseError as error:
        msg = f"{str(path)!r} is not a max-recall store of lamcap (SQLite: {error})"
        raise ValueError(msg) from None
    finally:
        connection.close()
    with ResultsStore(target) as store:
        return store.add_rows(rows, table="max_recall")
