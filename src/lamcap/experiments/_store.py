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

Since schema version 3 every row says how its embeddings were drawn (column
``embeddings``, ``"gaussian"`` or ``"sphere"``; :func:`lamcap.make_instance`); the
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
unknown schema version before writing anything.

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
import sqlite3
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from lamcap import __version__
from lamcap.experiments._sweep import STORED_NAMES, Sweep, Task

SCHEMA_VERSION = 3
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

_MISSING = {"embeddings": "'gaussian'"}
"""What a column an older store lacks reads as (others read as ``NULL``)."""

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    + _TRIALS_TABLE.format(name="trials")
    + ";\nCREATE INDEX trials_cell ON trials (d, rank, model, method);\n"
)


class IncompatibleStoreError(ValueError):
    """The file is not a lamcap results database of a compatible schema version."""


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
    """Schema version of ``path``, or :class:`IncompatibleStoreError` (read-only check)."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        msg = f"cannot open results database {str(path)!r}: {error}"
        raise IncompatibleStoreError(msg) from None
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as error:
        msg = f"{str(path)!r} is not a lamcap results database ({error}); {hint}"
        raise IncompatibleStoreError(msg) from None
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


def check_store(
    path: str | os.PathLike[str], *, must_exist: bool = False, hint: str = "use another --db path"
) -> None:
    """Fail early (``ValueError``) if ``path`` cannot hold our results; never writes.

    Checks that an existing file is a lamcap database of a schema version this
    lamcap reads (older versions are migrated when opened for writing), that
    its directory exists, and, with ``must_exist``, that the file exists.
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
    if target.exists() and target.stat().st_size > 0:
        _check_existing(target, hint)
    elif must_exist:
        msg = f"results database {str(target)!r} does not exist (run `lamcap sweep` first)"
        raise ValueError(msg)
    elif not target.resolve().parent.is_dir():
        msg = f"directory of the results database {str(target)!r} does not exist"
        raise ValueError(msg)


class ResultsStore:
    """SQLite results database; use as a context manager (closes on exit).

    Parameters
    ----------
    path : database file; created with the current schema if missing.
    readonly : open without creating or writing (for analysis and export).
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._readonly = readonly
        exists = self.path.exists() and self.path.stat().st_size > 0
        check_store(self.path, must_exist=readonly)
        if readonly:
            self._connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        else:
            self._connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            if not exists:
                self._create()
            else:
                self._migrate()
        self._connection.row_factory = sqlite3.Row
        self._columns = {
            str(row[1]) for row in self._connection.execute("PRAGMA table_info(trials)")
        }

    @property
    def schema_version(self) -> int:
        """Schema version of the database (older than :data:`SCHEMA_VERSION` only read-only)."""
        row = self._connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        """Bring an older schema to :data:`SCHEMA_VERSION` in one transaction (rows kept)."""
        with self._transaction():
            version = self.schema_version
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

    def _create(self) -> None:
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._connection.execute(statement)
            self._connection.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("created_by", f"lamcap {__version__}"),
                    ("created_at", _now()),
                ],
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

    def add(self, task: Task, record: Mapping[str, Any], *, sweep: str = "sweep") -> bool:
        """Write one finished instance in its own transaction; False if already stored."""
        return self.add_many([task], [record], sweep=sweep) == 1

    def add_many(
        self,
        tasks: Sequence[Task],
        records: Sequence[Mapping[str, Any]],
        *,
        sweep: str = "sweep",
    ) -> int:
        """Write finished instances in one transaction (all or none); return how many were new.

        A batch of Hebbian instances, finished by one call on a worker, is written
        at once: thousands of rows per second, where a transaction per row
        takes about a quarter of a millisecond each.
        """
        if len(tasks) != len(records):
            msg = f"records must have one entry per task, got {len(records)} for {len(tasks)} tasks"
            raise ValueError(msg)
        rows = [
            _trial_row(task, record, sweep) for task, record in zip(tasks, records, strict=True)
        ]
        if not rows:
            return 0
        names = ", ".join(rows[0])
        marks = ", ".join(f":{name}" for name in rows[0])
        before = self._connection.total_changes
        with self._transaction():
            self._connection.executemany(
                f"INSERT OR IGNORE INTO trials ({names}) VALUES ({marks})", rows
            )
        return self._connection.total_changes - before

    def add_rows(self, rows: Sequence[Mapping[str, Any]]) -> int:
        """Copy stored rows (all :data:`COLUMNS`) in one transaction; return how many were new."""
        names = ", ".join(COLUMNS)
        marks = ", ".join(f":{name}" for name in COLUMNS)
        before = self.count()
        with self._transaction():
            self._connection.executemany(
                f"INSERT OR IGNORE INTO trials ({names}) VALUES ({marks})", rows
            )
        return self.count() - before

    def record_sweep(self, sweep: Sweep, shard: tuple[int, int] | None = None) -> None:
        """Record that ``sweep`` (or its shard ``(I, N)``) runs into this store."""
        entries = [(f"sweep:{sweep.digest()}", sweep.description())]
        if shard is not None:
            entries.append((f"shard:{sweep.digest()}:{shard[0]}/{shard[1]}", "1"))
        self._insert_meta(entries)

    def _insert_meta(self, entries: Sequence[tuple[str, str]]) -> None:
        with self._transaction():
            self._connection.executemany(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", entries
            )

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

    def done_keys(self) -> set[tuple[int, int, str, str, int, float, int, str]]:
        """Keys (:meth:`Task.key`) of every stored instance."""
        embeddings = "embeddings" if "embeddings" in self._columns else _MISSING["embeddings"]
        rows = self._connection.execute(
            f"SELECT d, rank, model, method, p, margin, seed, {embeddings} FROM trials"
        )
        return {(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows}

    def count(self) -> int:
        """Number of stored instances."""
        return int(self._connection.execute("SELECT COUNT(*) FROM trials").fetchone()[0])

    def rows(self, **equal: Any) -> list[dict[str, Any]]:
        """Stored rows (as dicts) matching ``column=value`` filters, in a fixed order."""
        unknown = set(equal) - set(COLUMNS)
        if unknown:
            msg = f"unknown column(s) {sorted(unknown)}; columns: {list(COLUMNS)}"
            raise ValueError(msg)

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

    def integrity_ok(self) -> bool:
        """True if ``PRAGMA integrity_check`` reports ``ok``."""
        return bool(self._connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def export_csv(self, path: str | os.PathLike[str]) -> int:
        """Write every row to a CSV file (atomically); return the number of rows."""
        rows = self.rows()
        target = Path(path)
        temporary = target.with_name(target.name + ".partial")
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        temporary.replace(target)
        return len(rows)

    def export_parquet(self, path: str | os.PathLike[str]) -> int:
        """Write every row to a Parquet file (needs pyarrow); return the number of rows."""
        try:
            import pyarrow as pa  # noqa: PLC0415
            import pyarrow.parquet as pq  # noqa: PLC0415
        except ImportError:
            msg = (
                "--parquet needs the optional package pyarrow, which is not installed; "
                "install it (python -m pip install pyarrow) or use --csv"
            )
            raise ValueError(msg) from None
        rows = self.rows()
        table = pa.table({name: [row[name] for row in rows] for name in COLUMNS})
        target = Path(path)
        temporary = target.with_name(target.name + ".partial")
        pq.write_table(table, temporary)
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
    if not (out.exists() and out.stat().st_size > 0):
        return
    with ResultsStore(out, readonly=True) as store:
        existing, rows = store.sweeps(), store.count()
    if (existing or rows) and existing != sweeps:
        msg = (
            f"the output store {str(out)!r} holds a different sweep than {str(sources[0])!r} "
            f"({_describe_difference(sweeps, existing)}); choose another output"
        )
        raise ValueError(msg)


def merge_stores(
    out: str | os.PathLike[str], sources: Sequence[str | os.PathLike[str]]
) -> MergeOutcome:
    """Merge the stores ``sources`` (shards of one sweep) into ``out``.

    Every row is copied as it is (including the solver time and the time it
    finished); an instance already in ``out`` is skipped, so merging twice adds
    nothing.  All checks run before anything is written: the sources must
    exist, have this lamcap's schema version and record the same sweep
    description, and an existing ``out`` must hold that sweep too; otherwise
    ``ValueError`` (exit code 2 on the command line) and no file changes.

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
    added = present = 0
    with ResultsStore(target) as merged:
        for path in paths:
            with ResultsStore(path, readonly=True) as source:
                rows, entries = source.rows(), list(source.meta("sweep:").items())
                entries += list(source.meta("shard:").items())
            written = merged.add_rows(rows)
            added, present = added + written, present + len(rows) - written
            merged._insert_meta(entries)
        shards = merged.shards()
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
