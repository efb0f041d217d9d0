"""Executors that run sweep instances: in-process, a local process pool, or Dask.

Every executor is a :class:`concurrent.futures.Executor`; the runner only calls
``submit`` and waits on the futures, so any other executor (e.g. MPI's) works
too.  Results are written by the parent process only, so the choice of
executor never changes what is stored (instance seeds are fixed in advance).

* :class:`InlineExecutor` — runs each task immediately in the calling process
  (``--workers 0``; debugging and tiny tests).
* :func:`open_executor` with ``workers=N`` — a ``ProcessPoolExecutor`` with the
  ``spawn`` start method (safe with numba and threads); each worker draws
  decoupled outputs on ``max(1, cpus // N)`` numba threads (``NUMBA_NUM_THREADS``,
  unless already set), so N workers do not oversubscribe the machine.
* ``dask_local=True`` — a ``distributed.LocalCluster`` of process workers
  (one thread each) and its ``Client.get_executor()``.
* ``scheduler="tcp://host:port"`` — an existing Dask cluster; an unreachable
  address raises ``ValueError`` after ``connect_timeout`` seconds.

Stopping: while an executor is open (in the main thread), SIGTERM raises
:class:`Terminated` (a ``KeyboardInterrupt``) in the calling process, as
SIGINT raises ``KeyboardInterrupt``.  Either way the local pool's worker
processes are terminated (SIGTERM, then SIGKILL after ``grace`` seconds) and
joined before the exception leaves :func:`open_executor`, so no worker
outlives the sweep and keeps solving an instance nobody will store; the
runner has already stored every finished instance, so rerunning the sweep
resumes it.  A parent killed outright (SIGKILL) cannot do this: each worker
then ends itself within a second (a watchdog thread that sees it has lost its
parent).  ``lamcap sweep`` turns this into a one-line message and exit
code 143 (SIGTERM) or 130 (SIGINT).

Examples
--------
>>> with open_executor(workers=0) as executor:
...     print(executor.submit(pow, 2, 10).result())
1024
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing.connection import wait
from types import FrameType
from typing import Any, ParamSpec, TypeVar

_P = ParamSpec("_P")
_T = TypeVar("_T")


class InlineExecutor(Executor):
    """Run each submitted call at once in the calling process (no parallelism)."""

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:  # noqa: BLE001 - delivered through the future
            future.set_exception(error)
        return future


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while an executor was open (handled like Ctrl-C, exit code 143)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def _raise_terminated(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`Terminated` (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _shielded() -> Iterator[None]:
    """Ignore SIGTERM and SIGINT within the block (main thread), so cleanup is not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in _STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _end_workers(executor: ProcessPoolExecutor, grace: float) -> int:
    """Terminate the pool's workers, wait until they have exited, and let the pool wind down.

    The pool's manager thread reaps its workers too, so a worker's exit is read
    from its sentinel (closed by the kernel at exit, whoever reaps it), never
    from ``Process.is_alive`` racing that thread; the manager thread is then
    joined, so every worker's ``exitcode`` is set when this returns.  Work the
    caller cancelled is first withdrawn (see :class:`_Withdrawn`).  Returns how
    many workers were running.
    """
    processes = list((executor._processes or {}).values())  # the pool has no public handle
    manager: threading.Thread | None = executor._executor_manager_thread  # type: ignore[assignment]
    _withdraw_cancelled(executor)
    running = _still_running(processes, timeout=0.0)
    for process in running:
        process.terminate()
    for process in _still_running(running, timeout=grace):
        process.kill()
    _still_running(running, timeout=grace)
    executor.shutdown(wait=False)
    if manager is not None:
        manager.join(grace)
    for process in processes:
        process.join(grace)
    return len(running)


class _Withdrawn(Future[Any]):
    """A cancelled stand-in future whose ``set_exception`` does nothing.

    Python 3.11's pool fails every pending future when a worker dies and
    crashes its manager thread with ``InvalidStateError`` on one that was
    cancelled (3.12 ignores those); cancelled work keeps its place in the pool's
    table but gets this stand-in, so the pool winds down cleanly.
    """

    def __init__(self) -> None:
        super().__init__()
        self.cancel()

    def set_exception(self, exception: BaseException | None) -> None:
        """Ignore the failure: nobody waits on withdrawn work."""


def _withdraw_cancelled(executor: ProcessPoolExecutor) -> None:
    """Give each cancelled future in the pool's table of unsent work a :class:`_Withdrawn` stand-in."""
    for item in list(executor._pending_work_items.values()):
        if item.future.cancelled():
            item.future = _Withdrawn()


def _still_running(processes: list[Any], timeout: float) -> list[Any]:
    """The processes that have not exited after waiting up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    running = list(processes)
    while running:
        ready = set(
            wait([process.sentinel for process in running], max(0.0, deadline - time.monotonic()))
        )
        running = [process for process in running if process.sentinel not in ready]
        if time.monotonic() >= deadline:
            break
    return running


def default_workers() -> int:
    """Number of local worker processes by default: the usable CPU count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def _dask_executor(
    scheduler: str | None, workers: int, connect_timeout: float
) -> Iterator[Executor]:
    try:
        from distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError:  # pragma: no cover - dask is a dependency
        msg = "Dask execution needs dask[distributed]: python -m pip install 'dask[distributed]'"
        raise ValueError(msg) from None
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(
                LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
            )
            address: Any = cluster
        else:
            if "://" not in scheduler:
                msg = f"scheduler must be an address like tcp://host:8786, got {scheduler!r}"
                raise ValueError(msg)
            address = scheduler
        try:
            client = Client(address, timeout=f"{connect_timeout}s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as error:
            msg = (
                f"cannot reach the Dask scheduler at {scheduler!r} within "
                f"{connect_timeout:g} s ({type(error).__name__}: {error}); start one with "
                "`dask scheduler` or use --dask-local / --workers N"
            )
            raise ValueError(msg) from None
        stack.enter_context(client)
        yield client.get_executor()  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def open_executor(
    *,
    workers: int | None = None,
    dask_local: bool = False,
    scheduler: str | None = None,
    connect_timeout: float = 5.0,
    grace: float = 5.0,
) -> Iterator[Executor]:
    """Open the executor a sweep runs on and close it (and its cluster) on exit.

    Parameters
    ----------
    workers : local worker processes (``None``: :func:`default_workers`);
        ``0`` runs in-process.  With ``dask_local`` it is the number of Dask
        workers.
    dask_local : start a Dask ``LocalCluster`` of process workers.
    scheduler : address of an existing Dask scheduler (``tcp://host:port``).
    connect_timeout : seconds to wait for the scheduler before failing.
    grace : seconds a terminated local worker gets before it is killed, when the
        block ends with an exception (Ctrl-C, SIGTERM, a failure); a normal end
        waits for the submitted work instead.
    """
    if dask_local and scheduler is not None:
        msg = "give either dask_local (--dask-local) or scheduler (--scheduler), not both"
        raise ValueError(msg)
    count = default_workers() if workers is None else workers
    if count < 0:
        msg = f"workers must be an integer >= 0, got {workers!r}"
        raise ValueError(msg)
    with _sigterm_raises():
        if dask_local or scheduler is not None:
            with _dask_executor(scheduler, max(1, count), connect_timeout) as executor:
                yield executor
        elif count == 0:
            yield InlineExecutor()
        else:
            with _process_pool(count, grace) as pool:
                yield pool


@contextlib.contextmanager
def _process_pool(count: int, grace: float) -> Iterator[ProcessPoolExecutor]:
    """A spawn-based pool whose workers are ended, not awaited, when the block is interrupted."""
    context = multiprocessing.get_context("spawn")
    threads = max(1, default_workers() // count)
    pool = ProcessPoolExecutor(
        max_workers=count,
        mp_context=context,
        initializer=_start_worker,
        initargs=(threads, os.getpid()),
    )
    try:
        yield pool
    except BaseException:
        with _shielded():
            _end_workers(pool, grace)
        raise
    pool.shutdown(wait=True)


PARENT_POLL_SECONDS = 1.0
"""How often a pool worker checks that the process that started it is still alive."""


def _start_worker(threads: int, parent: int) -> None:
    """Worker initialiser: numba threads per worker (before numba is imported there), and
    a watchdog that ends the worker when its parent is gone.

    A parent killed outright (SIGKILL, the out-of-memory killer) cannot end its
    workers; the watchdog thread sees the worker adopted by another process and
    exits within :data:`PARENT_POLL_SECONDS`, so no worker goes on solving an
    instance nobody will store.
    """
    os.environ.setdefault("NUMBA_NUM_THREADS", str(threads))
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)
