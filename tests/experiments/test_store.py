"""SQLite results store: uniqueness, schema version, export, read-only checks."""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lamcap.experiments._store import COLUMNS, SCHEMA_VERSION, ResultsStore, check_store
from lamcap.experiments._sweep import Cell, Sweep, Task

RECORD = {
    "verdict": "feasible",
    "min_margin": 1.0,
    "seconds": 0.25,
    "accuracy": 1.0,
    "iterations": 3,
    "solver_method": "lp",
}


def _tasks(count: int = 3) -> list:
    sweep = Sweep(dims=(8,), seeds_per_point=count)
    return sweep.tasks(Cell(8, 1.0, "decoupled", "auto"), [20])


def test_rows_are_unique_and_complete(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultsStore(path) as store:
        for task in _tasks():
            assert store.add(task, RECORD)
        assert not store.add(_tasks()[0], RECORD)
        rows = store.rows()
        assert store.integrity_ok()
        with closing(sqlite3.connect(path)) as connection:  # WAL while written ...
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert len(rows) == 3
    assert rows[0]["lamcap_version"]
    assert rows[0]["solver_method"] == "lp"
    assert {row["seed"] for row in rows} == {task.seed for task in _tasks()}
    with closing(sqlite3.connect(path)) as connection:  # ... one file again once closed
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_incompatible_version_is_refused_without_modification(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultsStore(path) as store:
        store.add(_tasks()[0], RECORD)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    before = path.read_bytes()
    with pytest.raises(ValueError, match="schema version 999"):
        ResultsStore(path)
    assert path.read_bytes() == before


def test_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database at all, just text " * 10)
    with pytest.raises(ValueError, match="not a lamcap results database"):
        check_store(path)


def test_missing_database_for_reading(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        ResultsStore(tmp_path / "absent.sqlite", readonly=True)
    assert not (tmp_path / "absent.sqlite").exists()


def test_export_csv_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultsStore(path) as store:
        for task in _tasks():
            store.add(task, RECORD)
        assert store.export_csv(tmp_path / "out.csv") == 3
    with (tmp_path / "out.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3
    assert rows[0]["verdict"] == "feasible"
    assert not (tmp_path / "out.csv.partial").exists()


def test_parquet_needs_pyarrow(tmp_path: Path) -> None:
    pytest.importorskip("sqlite3")
    try:
        import pyarrow as pa  # noqa: F401
    except ImportError:
        with (
            ResultsStore(tmp_path / "r.sqlite") as store,
            pytest.raises(ValueError, match="pyarrow"),
        ):
            store.export_parquet(tmp_path / "out.parquet")
        assert not (tmp_path / "out.parquet").exists()
    else:  # pragma: no cover - pyarrow present
        with ResultsStore(tmp_path / "r.sqlite") as store:
            assert store.export_parquet(tmp_path / "out.parquet") == 0


# ------------------------------------------------------------------------ merging


def _sharded(folder: Path, sweep: Sweep, count: int) -> list[Path]:
    from lamcap.experiments._runner import run_sweep
    from lamcap.experiments._trials import synthetic_trial

    paths = [folder / f"shard-{i}.sqlite" for i in range(1, count + 1)]
    for i, path in enumerate(paths, start=1):
        run_sweep(sweep, path, trial=synthetic_trial, workers=0, shard=(i, count))
    return paths


GRID = Sweep(dims=(8, 10), p_grid=(12, 16, 20, 24), seeds_per_point=3, name="grid")


def test_merge_is_idempotent_and_reports_missing_shards(tmp_path: Path) -> None:
    from lamcap.experiments._store import merge_stores

    shards = _sharded(tmp_path, GRID, 4)
    out = tmp_path / "all.sqlite"
    partial = merge_stores(out, shards[:3])
    assert partial.missing_shards == {"grid": ["4/4"]}
    complete = merge_stores(out, shards)
    assert partial.added + complete.added == 2 * 4 * 3
    assert complete.present == partial.added
    assert complete.missing_shards == {}
    again = merge_stores(out, shards)
    assert (again.added, again.present) == (0, 24)
    with ResultsStore(out, readonly=True) as store:
        assert store.count() == 24
        assert store.sweeps() == {GRID.digest(): GRID.description()}
        assert store.shards() == {GRID.digest(): {(1, 4), (2, 4), (3, 4), (4, 4)}}


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Database files (a WAL reader may add -shm/-wal side files; the database stays)."""
    return {path.name: path.read_bytes() for path in sorted(folder.glob("*.sqlite"))}


def test_merge_refuses_stores_of_different_sweeps_and_writes_nothing(tmp_path: Path) -> None:
    from lamcap.experiments._store import merge_stores

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _sharded(tmp_path / "a", GRID, 2)
    other = Sweep(dims=(8, 10), p_grid=(12, 16, 20, 24), seeds_per_point=3, seed=1, name="grid")
    second = _sharded(tmp_path / "b", other, 2)
    before = _snapshot(tmp_path / "a") | _snapshot(tmp_path / "b")
    with pytest.raises(ValueError, match=r"hold different sweeps \(differs in seed\)"):
        merge_stores(tmp_path / "all.sqlite", [first[0], second[1]])
    assert not (tmp_path / "all.sqlite").exists()
    merge_stores(tmp_path / "all.sqlite", first)
    merged = (tmp_path / "all.sqlite").read_bytes()
    with pytest.raises(ValueError, match=r"output store .* holds a different sweep"):
        merge_stores(tmp_path / "all.sqlite", second)
    assert (tmp_path / "all.sqlite").read_bytes() == merged
    assert _snapshot(tmp_path / "a") | _snapshot(tmp_path / "b") == before


def test_merge_refuses_other_schema_versions_and_unknown_sweeps(tmp_path: Path) -> None:
    from lamcap.experiments._store import merge_stores

    (shard,) = _sharded(tmp_path, GRID, 1)
    old = tmp_path / "old.sqlite"
    with ResultsStore(old) as store:  # rows but no recorded sweep
        store.add(_tasks(1)[0], RECORD)
    with pytest.raises(ValueError, match="records no sweep description"):
        merge_stores(tmp_path / "all.sqlite", [shard, old])
    with sqlite3.connect(old) as connection:
        connection.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    with pytest.raises(ValueError, match="schema version 0"):
        merge_stores(tmp_path / "all.sqlite", [shard, old])
    with pytest.raises(ValueError, match="also one of the stores"):
        merge_stores(shard, [shard])
    with pytest.raises(ValueError, match="does not exist"):
        merge_stores(tmp_path / "all.sqlite", [tmp_path / "none.sqlite"])
    assert not (tmp_path / "all.sqlite").exists()


# The table layout of schema version 1 (lamcap 0.1.0), as such databases exist on disk.
_SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE trials (
    id INTEGER PRIMARY KEY,
    d INTEGER NOT NULL, kappa REAL NOT NULL, rank INTEGER NOT NULL,
    model TEXT NOT NULL, method TEXT NOT NULL,
    p INTEGER NOT NULL, n INTEGER NOT NULL,
    replicate INTEGER NOT NULL, seed INTEGER NOT NULL,
    margin REAL NOT NULL, max_seconds REAL,
    verdict TEXT NOT NULL CHECK (verdict IN ('feasible', 'infeasible', 'undecided')),
    min_margin REAL, accuracy REAL, seconds REAL, iterations INTEGER, solver_method TEXT,
    sweep TEXT, lamcap_version TEXT, git_commit TEXT, finished_at TEXT,
    UNIQUE (d, rank, model, method, p, margin, seed)
);
CREATE INDEX trials_cell ON trials (d, rank, model, method);
"""
_V1_COLUMNS = [name for name in COLUMNS if name not in ("infeasible_proof", "embeddings")]
_MIGRATION_SWEEP = Sweep(dims=(8,), p_grid=(12, 16, 20), seeds_per_point=6, name="old")


def _old_store(path: Path, rows: list[dict]) -> None:
    """A schema-version-1 database holding ``rows`` (an interrupted sweep of an older lamcap)."""
    with sqlite3.connect(path) as connection:
        connection.executescript(_SCHEMA_V1)
        connection.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("schema_version", "1"),
                (f"sweep:{_MIGRATION_SWEEP.digest()}", _MIGRATION_SWEEP.description()),
            ],
        )
        connection.executemany(
            f"INSERT INTO trials ({', '.join(_V1_COLUMNS)}) "
            f"VALUES ({', '.join(':' + name for name in _V1_COLUMNS)})",
            rows,
        )
    connection.close()


def _keys(rows: list[dict]) -> list[tuple]:
    return [(r["p"], r["replicate"], r["seed"], r["verdict"]) for r in rows]


def test_old_schema_is_read_unchanged_then_migrated_and_resumed(tmp_path: Path) -> None:
    from lamcap.experiments._runner import run_sweep
    from lamcap.experiments._trials import synthetic_trial

    reference = tmp_path / "ref.sqlite"
    run_sweep(_MIGRATION_SWEEP, reference, trial=synthetic_trial, workers=0)
    with ResultsStore(reference, readonly=True) as store:
        complete = store.rows()
        assert store.schema_version == SCHEMA_VERSION == 4
    assert {r["infeasible_proof"] for r in complete if r["verdict"] == "infeasible"} == {
        "exact",
        "bounded",
    }
    assert {r["infeasible_proof"] for r in complete if r["verdict"] == "feasible"} == {None}

    old = tmp_path / "old.sqlite"
    first = complete[::2]  # half the instances, as an interrupted old sweep left them
    _old_store(old, [{name: row[name] for name in _V1_COLUMNS} for row in first])
    before = old.read_bytes()
    with ResultsStore(old, readonly=True) as store:  # reading never migrates
        assert store.schema_version == 1
        read = store.rows()
    assert old.read_bytes() == before
    assert _keys(read) == _keys(first)
    assert {r["infeasible_proof"] for r in read} == {None}
    assert {r["embeddings"] for r in read} == {"gaussian"}

    outcome = run_sweep(_MIGRATION_SWEEP, old, trial=synthetic_trial, workers=0)
    assert (outcome.ran, outcome.skipped) == (len(complete) - len(first), len(first))
    with ResultsStore(old, readonly=True) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.integrity_ok()
        assert "migrated:1->4" in store.meta("migrated:")
        resumed = store.rows()
    assert _keys(resumed) == _keys(complete)  # nothing lost, nothing twice
    old_seeds = {r["seed"] for r in first}
    for row, fresh in zip(resumed, complete, strict=True):
        expected = None if row["seed"] in old_seeds else fresh["infeasible_proof"]
        assert row["infeasible_proof"] == expected
    again = run_sweep(_MIGRATION_SWEEP, old, trial=synthetic_trial, workers=0)
    assert again.ran == 0


def test_infeasible_proof_is_checked(tmp_path: Path) -> None:
    task = _tasks(1)[0]
    with ResultsStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(ValueError, match="infeasible_proof must be one of"):
            store.add(task, {**RECORD, "infeasible_proof": "exact"})  # verdict feasible
        with pytest.raises(ValueError, match="got 'maybe'"):
            store.add(task, {"verdict": "infeasible", "infeasible_proof": "maybe"})
        assert store.add(task, {"verdict": "infeasible", "infeasible_proof": "bounded"})
        assert store.rows()[0]["infeasible_proof"] == "bounded"
        assert store.rows(infeasible_proof="bounded")


# --- no side files, and merge refuses them by name (issue 23) -------------------------------


def _side_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(("-wal", "-shm", "-journal")))


def test_sweep_and_merge_leave_no_wal_or_shm(tmp_path: Path) -> None:
    from lamcap.experiments._store import merge_stores

    shards = _sharded(tmp_path, GRID, 2)
    assert _side_files(tmp_path) == []
    merge_stores(tmp_path / "all.sqlite", shards)
    assert _side_files(tmp_path) == []
    with closing(sqlite3.connect(shards[0])) as connection:  # the store is one file again
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    with ResultsStore(tmp_path / "all.sqlite", readonly=True) as store:
        assert store.count() == 24
    assert _side_files(tmp_path) == []


def test_close_leaves_wal_to_the_last_connection(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    first, second = ResultsStore(path), ResultsStore(path)
    first.close()  # the other still writes: the log stays
    second.add(_tasks(1)[0], {"verdict": "feasible", "min_margin": 1.0, "seconds": 0.1})
    second.close()
    assert _side_files(tmp_path) == []
    with ResultsStore(path, readonly=True) as store:
        assert store.count() == 1


def test_merge_refuses_side_files_and_foreign_files_naming_real_options(tmp_path: Path) -> None:
    from lamcap.experiments._store import merge_stores

    shards = _sharded(tmp_path, GRID, 2)
    side = tmp_path / "shard-1.sqlite-shm"
    side.write_bytes(b"\0" * 32768)
    with pytest.raises(ValueError, match=r"side files of 'shard-1\.sqlite'") as error:
        merge_stores(tmp_path / "all.sqlite", [*shards, side])
    assert "give only lamcap results databases to merge" in str(error.value)
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a database at all, just text " * 10)
    with pytest.raises(ValueError, match="not a lamcap results database") as error:
        merge_stores(tmp_path / "all.sqlite", [shards[0], foreign])
    assert "--db" not in str(error.value)
    assert not (tmp_path / "all.sqlite").exists()


# --- schema version 3: embeddings per row; a version-2 store reads and migrates as Gaussian ---

# The table layout of schema version 2, as such databases exist on disk.
_SCHEMA_V2 = _SCHEMA_V1.replace(
    "solver_method TEXT,\n",
    "solver_method TEXT,\n    infeasible_proof TEXT CHECK (infeasible_proof IN ('exact', 'bounded')),\n",
)
_V2_COLUMNS = [name for name in COLUMNS if name != "embeddings"]


def test_version_2_store_reads_as_gaussian_and_migrates_losing_nothing(tmp_path: Path) -> None:
    from lamcap.experiments._runner import run_sweep
    from lamcap.experiments._trials import synthetic_trial

    assert "infeasible_proof TEXT" in _SCHEMA_V2
    reference = tmp_path / "ref.sqlite"
    run_sweep(_MIGRATION_SWEEP, reference, trial=synthetic_trial, workers=0)
    with ResultsStore(reference, readonly=True) as store:
        complete = store.rows()
    old = tmp_path / "v2.sqlite"
    _written_by_an_older_lamcap(old, _SCHEMA_V2, 2, _V2_COLUMNS, complete)
    before = old.read_bytes()
    with ResultsStore(old, readonly=True) as store:
        assert store.schema_version == 2
        read = store.rows()
        assert store.rows(embeddings="gaussian") == read
        assert store.rows(embeddings="sphere") == []
    assert old.read_bytes() == before
    assert read == complete  # every column, embeddings read as "gaussian"

    both = Sweep(
        dims=(8,),
        p_grid=(12, 16, 20),
        seeds_per_point=6,
        name="old",
        embeddings=("gaussian", "sphere"),
    )
    assert both.digest() != _MIGRATION_SWEEP.digest()
    outcome = run_sweep(both, old, trial=synthetic_trial, workers=0)
    assert (outcome.ran, outcome.skipped) == (len(complete), len(complete))
    with ResultsStore(old, readonly=True) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.integrity_ok()
        assert "migrated:2->4" in store.meta("migrated:")
        gaussian = store.rows(embeddings="gaussian")
        sphere = store.rows(embeddings="sphere")
    assert gaussian == complete  # the old rows, untouched
    # a unit-norm instance has the seed of its Gaussian twin
    assert [(r["p"], r["seed"]) for r in sphere] == [(r["p"], r["seed"]) for r in complete]


def test_gaussian_sweep_digest_is_unchanged_by_the_option() -> None:
    plain_sweep = Sweep(dims=(8,), p_grid=(12,), seeds_per_point=2)
    explicit = Sweep(dims=(8,), p_grid=(12,), seeds_per_point=2, embeddings="gaussian")
    assert plain_sweep.description() == explicit.description()
    assert "embeddings" not in plain_sweep.description()
    with pytest.raises(ValueError, match="embeddings must be one of 'gaussian', 'sphere', got "):
        Sweep(dims=(8,), embeddings=("unit",))


# --- schema version 4: the max-recall solves are rows of the store (table max_recall) -------

# The table layout of schema version 3 (the store of lamcap before max-recall rows joined
# it), as such databases exist on disk.
_SCHEMA_V3 = _SCHEMA_V2.replace(
    "model TEXT NOT NULL, method TEXT NOT NULL,\n",
    "model TEXT NOT NULL, method TEXT NOT NULL,\n    embeddings TEXT NOT NULL DEFAULT 'gaussian' "
    "CHECK (embeddings IN ('gaussian', 'sphere')),\n",
).replace("UNIQUE (d, rank, model, method,", "UNIQUE (d, rank, model, embeddings, method,")


def _written_by_an_older_lamcap(
    path: Path, schema: str, version: int, columns: list[str], rows: list[dict]
) -> None:
    """A database of schema ``version`` (tables ``schema``) holding ``rows`` of a recorded sweep."""
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executescript(schema)
        connection.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("schema_version", str(version)),
                (f"sweep:{_MIGRATION_SWEEP.digest()}", _MIGRATION_SWEEP.description()),
            ],
        )
        connection.executemany(
            f"INSERT INTO trials ({', '.join(columns)}) "
            f"VALUES ({', '.join(':' + name for name in columns)})",
            [{name: row[name] for name in columns} for row in rows],
        )


_RECALL_DESIGN_FIELDS = {"dims": (8,), "max_seconds": (5.0,), "critical_fractions": (1.25, 1.5)}


def _bounds(task) -> dict:
    """Deterministic certified bounds of a max-recall task (no solver)."""
    return {
        "n": task.p,
        "recall_lower": task.p - 5 - task.replicate,
        "recall_upper": task.p - 1,
        "verdict": "bounded",
        "upper_exact": task.replicate % 2 == 0,
        "stopped": "time" if task.replicate == 2 else None,
        "start": "drop",
        "seconds": 0.5,
        "cpu_seconds": 0.25,
    }


def _recall_design(seeds: int = 3):
    from lamcap.experiments._recall_fraction import RecallDesign

    return RecallDesign(**_RECALL_DESIGN_FIELDS, seeds=seeds)


def test_version_3_store_reads_then_migrates_keeping_every_row(tmp_path: Path) -> None:
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._recall_fraction import run_recall
    from lamcap.experiments._runner import run_sweep
    from lamcap.experiments._trials import synthetic_trial

    reference = tmp_path / "ref.sqlite"
    run_sweep(_MIGRATION_SWEEP, reference, trial=synthetic_trial, workers=0)
    with ResultsStore(reference, readonly=True) as store:
        complete = store.rows()
    old = tmp_path / "v3.sqlite"
    _written_by_an_older_lamcap(old, _SCHEMA_V3, 3, list(COLUMNS), complete)
    assert "embeddings TEXT NOT NULL" in _SCHEMA_V3
    assert "UNIQUE (d, rank, model, embeddings, method, p, margin, seed)" in _SCHEMA_V3
    before = old.read_bytes()
    with ResultsStore(old, readonly=True) as store:  # reading never migrates
        assert store.schema_version == 3
        assert store.rows() == complete
        assert store.rows(table="max_recall") == []
        assert store.count(table="max_recall") == 0
        assert store.verdicts(table="max_recall") == {}
    assert old.read_bytes() == before

    # a recall run into the old store migrates it, and its rows join the sweep's
    points = run_recall(InlineExecutor(), _recall_design(), 11, old, trial=_bounds)
    assert [point.count for point in points] == [3, 3]
    with ResultsStore(old, readonly=True) as store:
        assert store.schema_version == SCHEMA_VERSION == 4
        assert store.integrity_ok()
        assert "migrated:3->4" in store.meta("migrated:")
        assert store.rows() == complete  # every trials row, every column, untouched
        assert store.count(table="max_recall") == 6
        assert GRID.digest() not in store.sweeps()
        assert _MIGRATION_SWEEP.digest() in store.sweeps()
    assert run_sweep(_MIGRATION_SWEEP, old, trial=synthetic_trial, workers=0).ran == 0


def test_recall_rows_keep_every_value_and_are_keyed_with_their_time_limit(tmp_path: Path) -> None:
    from lamcap.experiments._recall_fraction import recall_tasks
    from lamcap.experiments._store import RECALL_COLUMNS, recall_key

    (_, task), *_ = recall_tasks(_recall_design(), 11)
    with ResultsStore(tmp_path / "r.sqlite") as store:
        assert store.add(task, _bounds(task), sweep="max_recall", table="max_recall")
        longer = Task(**{**task.__dict__, "max_seconds": 9.0})
        assert store.add(longer, _bounds(longer), sweep="max_recall", table="max_recall")
        assert not store.add(longer, _bounds(longer), table="max_recall")
        (row, other) = store.rows(table="max_recall")
        assert store.verdicts(table="max_recall") == {
            recall_key(task): "bounded",
            recall_key(longer): "bounded",
        }
        assert store.rows(table="max_recall", max_seconds=9.0) == [other]
        assert store.count() == 0
    assert tuple(row) == RECALL_COLUMNS
    assert {name: row[name] for name in ("d", "p", "n", "seed", "replicate", "max_seconds")} == {
        "d": task.d,
        "p": task.p,
        "n": task.p,
        "seed": task.seed,
        "replicate": task.replicate,
        "max_seconds": 5.0,
    }
    expected = _bounds(task)
    assert (row["recall_lower"], row["recall_upper"], row["verdict"]) == (
        expected["recall_lower"],
        expected["recall_upper"],
        "bounded",
    )
    assert (row["upper_exact"], row["stopped"], row["start"]) == (1, None, "drop")
    assert (row["seconds"], row["cpu_seconds"], row["sweep"]) == (0.5, 0.25, "max_recall")
    assert row["lamcap_version"]
    assert row["finished_at"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"recall_lower": 30}, r"recall_lower <= recall_upper <= n, got 30 and 27 with n = 28"),
        ({"recall_upper": 29}, r"got 23 and 29 with n = 28"),
        ({"recall_lower": -1}, r"got -1 and 27"),
        ({"verdict": "feasible"}, r"one of \('optimal', 'bounded', 'undecided'\), got 'feasible'"),
    ],
)
def test_impossible_bounds_are_refused_naming_them(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    from lamcap.experiments._recall_fraction import recall_tasks

    (_, task), *_ = recall_tasks(_recall_design(), 11)
    with ResultsStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(ValueError, match=message):
            store.add(task, {**_bounds(task), **change}, table="max_recall")
        assert store.count(table="max_recall") == 0


def test_an_unknown_table_or_column_is_refused_naming_it(tmp_path: Path) -> None:
    with ResultsStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(
            ValueError, match=r"table must be one of \('trials', 'max_recall'\), got 'x'"
        ):
            store.rows(table="x")
        with pytest.raises(ValueError, match=r"unknown column\(s\) \['rank'\]"):
            store.rows(table="max_recall", rank=1)
        with pytest.raises(ValueError, match="table must be one of"):
            store.add(_tasks(1)[0], RECORD, table="recall")


def test_a_max_recall_store_of_an_earlier_lamcap_is_imported_whole_once(
    tmp_path: Path, legacy_recall_store: Callable[[Path, list[dict]], None]
) -> None:
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._recall_fraction import run_recall
    from lamcap.experiments._store import import_recall_store

    reference = tmp_path / "ref.sqlite"
    run_recall(InlineExecutor(), _recall_design(), 11, reference, trial=_bounds)
    with ResultsStore(reference, readonly=True) as store:
        complete = store.rows(table="max_recall")
    legacy = tmp_path / "max_recall.sqlite"
    legacy_recall_store(legacy, complete[::2])  # an interrupted run of an earlier lamcap
    before = legacy.read_bytes()
    target = tmp_path / "results.sqlite"
    assert import_recall_store(legacy, target) == 3
    assert import_recall_store(legacy, target) == 0  # twice adds nothing
    assert legacy.read_bytes() == before  # only read
    with ResultsStore(target, readonly=True) as store:
        assert store.rows(table="max_recall") == complete[::2]  # every column, as it was

    calls = []

    def counted(task):
        calls.append(task)
        return _bounds(task)

    run_recall(InlineExecutor(), _recall_design(), 11, target, trial=counted)
    assert len(calls) == 3  # only the solves the old store did not hold
    with ResultsStore(target, readonly=True) as store:
        resumed = store.rows(table="max_recall")
    drop = ("lamcap_version", "git_commit", "finished_at")
    assert [{k: v for k, v in r.items() if k not in drop} for r in resumed] == [
        {k: v for k, v in r.items() if k not in drop} for r in complete
    ]


def test_a_file_that_is_no_earlier_max_recall_store_is_not_imported(
    tmp_path: Path, legacy_recall_store: Callable[[Path, list[dict]], None]
) -> None:
    from lamcap.experiments._store import import_recall_store

    target = tmp_path / "results.sqlite"
    with pytest.raises(ValueError, match="does not exist"):
        import_recall_store(tmp_path / "absent.sqlite", target)
    other = tmp_path / "other.sqlite"
    legacy_recall_store(other, [])
    with closing(sqlite3.connect(other)) as connection, connection:
        connection.execute("UPDATE meta SET value = '2' WHERE key = 'layout_version'")
    with pytest.raises(ValueError, match="layout version 2; this lamcap imports version 1"):
        import_recall_store(other, target)
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all, just text " * 10)
    with pytest.raises(ValueError, match="is not a max-recall store of lamcap"):
        import_recall_store(text, target)
    assert not target.exists()


def test_merge_and_export_carry_the_max_recall_rows(tmp_path: Path) -> None:
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._recall_fraction import run_recall
    from lamcap.experiments._store import RECALL_COLUMNS, merge_stores

    shards = _sharded(tmp_path, GRID, 2)
    run_recall(InlineExecutor(), _recall_design(), 11, shards[0], trial=_bounds)
    calls = []

    def interrupted(task):  # shard 2's run stops after two solves
        calls.append(task)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return _bounds(task)

    with pytest.raises(KeyboardInterrupt):
        run_recall(InlineExecutor(), _recall_design(), 11, shards[1], trial=interrupted)
    (tmp_path / "other").mkdir()
    (other,) = _sharded(tmp_path / "other", GRID, 1)
    run_recall(InlineExecutor(), _recall_design(seeds=2), 11, other, trial=_bounds)
    with pytest.raises(ValueError, match="hold different sweeps"):  # another recall design
        merge_stores(tmp_path / "all.sqlite", [shards[0], other])
    outcome = merge_stores(tmp_path / "all.sqlite", shards)
    # 24 sweep instances and 6 max-recall solves, 2 of which shard 2 held as well
    assert (outcome.added, outcome.present) == (24 + 6, 2)
    with ResultsStore(tmp_path / "all.sqlite", readonly=True) as store:
        assert store.count() == 24
        assert store.count(table="max_recall") == 6
        assert store.export_csv(tmp_path / "recall.csv", table="max_recall") == 6
    with ResultsStore(shards[0], readonly=True) as store:
        expected = store.rows(table="max_recall")
    with (tmp_path / "recall.csv").open() as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == RECALL_COLUMNS
        exported = list(reader)
    assert [int(r["recall_lower"]) for r in exported] == [r["recall_lower"] for r in expected]
    assert [int(r["seed"]) for r in exported] == [r["seed"] for r in expected]
