"""Fixtures of the experiments' tests: a max-recall store as an earlier lamcap wrote it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

#: The layout of the separate max-recall store (``max_recall.sqlite``, layout version 1)
#: that lamcap wrote beside ``results.sqlite`` before schema version 4 of the results store.
RECALL_LAYOUT_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('layout_version', '1');
CREATE TABLE max_recall (
    d INTEGER NOT NULL, p INTEGER NOT NULL, n INTEGER NOT NULL,
    model TEXT NOT NULL, embeddings TEXT NOT NULL,
    replicate INTEGER NOT NULL, seed INTEGER NOT NULL, max_seconds REAL NOT NULL,
    recall_lower INTEGER NOT NULL, recall_upper INTEGER NOT NULL,
    verdict TEXT NOT NULL, upper_exact INTEGER, stopped TEXT, start TEXT,
    seconds REAL, cpu_seconds REAL, lamcap_version TEXT, git_commit TEXT, finished_at TEXT,
    UNIQUE (d, p, model, embeddings, seed, max_seconds)
);
"""

LegacyRecallStore = Callable[[Path, Sequence[Mapping[str, Any]]], None]


def _write_legacy_recall_store(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write ``rows`` (their columns of layout 1; a ``sweep`` key is left out) to ``path``."""
    names = [name for name in rows[0] if name != "sweep"] if rows else []
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executescript(RECALL_LAYOUT_1)
        if rows:
            connection.executemany(
                f"INSERT INTO max_recall ({', '.join(names)}) "
                f"VALUES ({', '.join(':' + name for name in names)})",
                [{name: row[name] for name in names} for row in rows],
            )


@pytest.fixture
def legacy_recall_store() -> LegacyRecallStore:
    """A function writing a ``max_recall.sqlite`` of layout 1 holding the given rows."""
    return _write_legacy_recall_store
