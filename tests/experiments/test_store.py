"""SQLite results store: uniqueness, schema version, export, read-only checks."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from lamcap.experiments.store import ResultsStore, check_store
from lamcap.experiments.sweep import Cell, Sweep

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
    assert len(rows) == 3
    assert rows[0]["lamcap_version"]
    assert rows[0]["solver_method"] == "lp"
    assert {row["seed"] for row in rows} == {task.seed for task in _tasks()}
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


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
