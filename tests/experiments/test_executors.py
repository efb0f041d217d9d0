"""Executors: Dask LocalCluster, process pool and in-process runs store identical results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lamcap.experiments._executors import InlineExecutor, default_workers, open_executor
from lamcap.experiments._runner import run_sweep
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Sweep
from lamcap.experiments._trials import solver_trial, synthetic_trial

_COLUMNS = ("d", "rank", "model", "method", "p", "replicate", "seed", "verdict", "n")


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with ResultsStore(path, readonly=True) as store:
        return [tuple(row[c] for c in _COLUMNS) for row in store.rows()]


def test_inline_executor_delivers_exceptions() -> None:
    future = InlineExecutor().submit(int, "not a number")
    assert isinstance(future.exception(), ValueError)


def test_unreachable_scheduler_is_a_value_error() -> None:
    with (
        pytest.raises(ValueError, match="cannot reach the Dask scheduler"),
        open_executor(scheduler="tcp://127.0.0.1:9", connect_timeout=1),
    ):
        pass


def test_pool_workers_share_the_cpus_between_their_numba_threads() -> None:
    expected = os.environ.get("NUMBA_NUM_THREADS", str(max(1, default_workers() // 2)))
    with open_executor(workers=2) as executor:
        seen = executor.submit(os.getenv, "NUMBA_NUM_THREADS").result()
    assert seen == expected


def _busy_pool_receives_sigterm(workers: list[Any]) -> None:
    """Open a pool of one worker, hand it a 10-minute instance, then receive SIGTERM."""
    import signal
    import time

    with open_executor(workers=1, grace=30) as executor:
        future = executor.submit(time.sleep, 600)
        while not future.running():
            time.sleep(0.01)
        workers += executor._processes.values()
        signal.raise_signal(signal.SIGTERM)


def test_interrupted_pool_ends_its_busy_workers_instead_of_waiting() -> None:
    import signal

    from lamcap.experiments._executors import Terminated

    before = signal.getsignal(signal.SIGTERM)
    workers: list[Any] = []
    with pytest.raises(Terminated, match="terminated by SIGTERM"):
        _busy_pool_receives_sigterm(workers)
    (worker,) = workers
    assert not worker.is_alive()  # terminated and joined, not awaited for 10 min
    assert worker.exitcode == -signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is restored


def _busy_pool_cancels_waiting_work_then_receives_sigterm(seen: dict[str, Any]) -> None:
    """As a sweep does on Ctrl-C: cancel the work not yet started, then the pool is ended."""
    import signal
    import time

    with open_executor(workers=1, grace=30) as executor:
        busy = executor.submit(time.sleep, 600)
        waiting = [executor.submit(time.sleep, 600) for _ in range(4)]
        while not busy.running():
            time.sleep(0.01)
        time.sleep(0.5)  # the pool's manager thread has taken its wake-ups and sleeps
        seen["workers"] = list(executor._processes.values())
        seen["cancelled"] = [future.cancel() for future in waiting]
        signal.raise_signal(signal.SIGTERM)


def test_interrupted_pool_with_cancelled_work_winds_down_without_a_thread_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import signal
    import threading

    from lamcap.experiments._executors import Terminated

    errors: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    seen: dict[str, Any] = {}
    with pytest.raises(Terminated):
        _busy_pool_cancels_waiting_work_then_receives_sigterm(seen)
    assert any(seen["cancelled"])  # some work was still waiting in the pool's table
    assert errors == []  # the pool's manager thread did not crash on a cancelled future
    assert [worker.exitcode for worker in seen["workers"]] == [-signal.SIGTERM]


def test_bad_executor_arguments() -> None:
    with (
        pytest.raises(ValueError, match="not both"),
        open_executor(dask_local=True, scheduler="tcp://127.0.0.1:9"),
    ):
        pass
    with pytest.raises(ValueError, match="tcp://host"), open_executor(scheduler="localhost"):
        pass


@pytest.mark.slow
@pytest.mark.parametrize("trial", [synthetic_trial, solver_trial], ids=["synthetic", "solver"])
def test_dask_local_cluster_matches_process_pool(tmp_path: Path, trial: Any) -> None:
    sweep = Sweep(
        dims=(6,), models=("decoupled", "original"), p_grid=(8, 14, 20), seeds_per_point=3
    )
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        run_sweep(
            sweep,
            tmp_path / "dask.sqlite",
            executor=client.get_executor(),
            trial=trial,
            progress=False,
        )
    run_sweep(sweep, tmp_path / "pool.sqlite", workers=2, trial=trial, progress=False)
    dask_rows = _rows(tmp_path / "dask.sqlite")
    assert len(dask_rows) == 18
    assert dask_rows == _rows(tmp_path / "pool.sqlite")


_KILLED_PARENT = """
import os, sys, time
from lamcap.experiments._executors import open_executor

with open_executor(workers=2) as executor:
    futures = [executor.submit(time.sleep, 600) for _ in range(2)]
    while not all(future.running() for future in futures):
        time.sleep(0.01)
    print(*(process.pid for process in executor._processes.values()), flush=True)
    time.sleep(600)
"""


def test_pool_workers_end_when_their_parent_is_killed() -> None:
    # SIGKILL gives the parent no chance to end its workers: each must notice alone
    import signal
    import subprocess
    import sys
    import time

    parent = subprocess.Popen(
        [sys.executable, "-c", _KILLED_PARENT], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(workers) == 2
    parent.send_signal(signal.SIGKILL)
    parent.wait()

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # a zombie awaiting its reaper counts as ended
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"

    deadline = time.monotonic() + 60.0
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)
