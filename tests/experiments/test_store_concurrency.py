"""Several processes writing one results store at once (issue 37, item 2).

Four processes are released together by a barrier and each writes its own rows,
one transaction per row, into one store: a path that does not exist yet (they all
create it at the same instant) and an existing store in rollback-journal mode (they
all switch it to WAL at once). Every row must be stored exactly once, no process
may fail, and SQLite's ``integrity_check`` must pass; each case is repeated 20
times.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import traceback
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lamcap.experiments._store import COLUMNS, ResultsStore

PROCESSES = 4
ROWS = 12
REPEATS = 20


def _row(seed: int) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row |= {
        "d": 8,
        "kappa": 1.0,
        "rank": 8,
        "model": "decoupled",
        "embeddings": "gaussian",
        "method": "auto",
        "p": 20,
        "n": 20,
        "replicate": seed,
        "seed": seed,
        "margin": 1.0,
        "verdict": "feasible",
    }
    return row


def _write(path: Path, worker: int, barrier: Any, errors: Path) -> None:
    """Wait for the others, then write this worker's rows one transaction each."""
    try:
        barrier.wait(timeout=60)
        with ResultsStore(path) as store:
            added = sum(store.add_rows([_row(1000 * worker + index)]) for index in range(ROWS))
        if added != ROWS:
            msg = f"worker {worker} added {added} rows, not {ROWS}"
            raise AssertionError(msg)
    except BaseException:
        errors.joinpath(f"worker-{worker}.txt").write_text(traceback.format_exc())
        raise


def _run_writers(path: Path, errors: Path) -> list[int | None]:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(PROCESSES)
    workers = [
        context.Process(target=_write, args=(path, worker, barrier, errors))
        for worker in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return [worker.exitcode for worker in workers]


def _check(path: Path, expected: set[int]) -> None:
    with closing(sqlite3.connect(path)) as connection:
        seeds = [row[0] for row in connection.execute("SELECT seed FROM trials")]
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(seeds) == sorted(expected)  # every row, each exactly once


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
@pytest.mark.parametrize("existing", [False, True], ids=["new-path", "existing-store"])
def test_concurrent_writers_store_every_row_once(tmp_path: Path, existing: bool) -> None:
    written = {1000 * worker + index for worker in range(PROCESSES) for index in range(ROWS)}
    failed = []
    for repeat in range(REPEATS):
        folder = tmp_path / str(repeat)
        errors = folder / "errors"
        errors.mkdir(parents=True)
        path = folder / "results.sqlite"
        before = set()
        if existing:
            before = {-1, -2}
            with ResultsStore(path) as store:
                store.add_rows([_row(seed) for seed in before])
        codes = _run_writers(path, errors)
        reports = [report.read_text() for report in errors.iterdir()]
        if codes != [0] * PROCESSES or reports:
            failed.append((repeat, codes, reports))
            continue
        _check(path, written | before)
        assert sorted(p.name for p in folder.iterdir()) == ["errors", "results.sqlite"]
    assert not failed, failed
