r"""Run a :class:`~lamcap.experiments.Sweep` on any executor, resumably.

Algorithm for each cell (d, κ, model, method), in rounds:

1. **Bracket.**  Start from a guess :math:`p_0` of the transition
   (:func:`theory_guess`: ``critical_p(d, κ)``, or the Hebbian prediction) and
   solve ``seeds_per_point`` instances at :math:`p_0 \times` ``sweep.bracket``.
   While the smallest p is mostly unstorable, add points below (×0.5, ×0.7);
   while the largest is mostly storable, add points above (×1.4, ×2); at most
   six extensions.
2. **Refine** (``sweep.rounds`` times).  Fit the transition model of
   :mod:`lamcap.experiments._fitting` (logistic; complementary log-log for the
   Hebbian rule, :attr:`~lamcap.experiments.Cell.link`) to all decided instances of the cell and
   add ``seeds_per_point`` new replicates at the fitted 20%, 50% and 80%
   points (the most informative p for location and slope).

A round is planned only when the previous one is complete and only from the
instances planned before it, so the trajectory is a deterministic function of
the instance results: on a restart the runner replays it, skipping every
instance already in the store, and ends with the same rows as an uninterrupted
run.  Fixed grids (``p_grid`` / ``loads``) are a single round; with
``shard=(I, N)`` only the I-th of N disjoint slices of that round runs
(:meth:`~lamcap.experiments.Sweep.shard_keys`), for job arrays whose
stores are joined afterwards by :func:`~lamcap.experiments.merge_stores`.
Only this (parent) process writes to the store, one transaction per finished
instance; the store records the sweep description (and the shard) it holds.

Examples
--------
>>> import tempfile, pathlib
>>> from lamcap.experiments import Sweep
>>> from lamcap.experiments._trials import synthetic_trial
>>> from lamcap.experiments._trials import synthetic_transition
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
>>> sweep = Sweep(dims=(8,), seeds_per_point=4, rounds=1)
>>> outcome = run_sweep(sweep, path, trial=synthetic_trial, workers=0, progress=False,
...                     guess=lambda cell: synthetic_transition(cell.d))
>>> outcome.ran > 0, run_sweep(sweep, path, trial=synthetic_trial, workers=0,
...     progress=False, guess=lambda cell: synthetic_transition(cell.d)).ran
(True, 0)
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any, Protocol

from lamcap import critical_p
from lamcap._progress import Progress
from lamcap.experiments._analysis import hebbian_transition
from lamcap.experiments._executors import open_executor
from lamcap.experiments._fitting import TransitionFit, fit_transition
from lamcap.experiments._hebbian_trials import hebbian_trials
from lamcap.experiments._store import ResultsStore, table_key
from lamcap.experiments._sweep import Cell, Sweep, Task
from lamcap.experiments._trials import solver_trial
from lamcap.theory._cost_models import GAUSSIAN, cost_model

TrialFunction = Callable[[Task], dict[str, Any]]
Key = tuple[int, int, str, str, int, float, int, str]

_MAX_EXTENSIONS = 6
_REFINE_PROBABILITIES = (0.2, 0.5, 0.8)


def theory_guess(cell: Cell) -> float:
    """Theoretical transition used to start the bracket of ``cell``.

    ``critical_p(d, κ, embeddings=...)`` (docs/theory/capacity.md, docs/theory/rank.md) for
    the optimal solvers, with the cell's cost model where it has a law at the cell's rank
    (:class:`lamcap.theory.CostModel`; below full rank a full-rank-only model starts from the
    Gaussian value);
    for ``method="hebbian"`` the p at which the finite-d Hebbian law (P₁ exact, P(all) the pair law, a model)
    (``hebbian_recall_finite``, decoupled; else ``hebbian_recall``) recalls
    all associations with probability 1/2.
    """
    if cell.method == "hebbian":
        return hebbian_transition(cell.d, finite=cell.model == "decoupled")
    model = cost_model(cell.embeddings)
    if model.full_rank_only and cell.rank < cell.d:
        model = GAUSSIAN
    return float(critical_p(cell.d, kappa=cell.rank / cell.d, embeddings=model.name))


def replicates_used(tasks: Sequence[Task]) -> dict[int, int]:
    """Per p, the number of replicates ``tasks`` use (one more than the largest): new
    instances at that p take the replicates from there on, so no instance repeats."""
    used: dict[int, int] = {}
    for task in tasks:
        used[task.p] = max(used.get(task.p, 0), task.replicate + 1)
    return used


@dataclass
class CellState:
    """Progress of one cell through its rounds (see the module docstring)."""

    cell: Cell
    sweep: Sweep
    guess: float
    planned: list[Task] = field(default_factory=list)
    keep: frozenset[Key] | None = None
    round_index: int = 0
    extensions: int = 0
    refinements: int = 0
    finished: bool = False

    def _counts(self, verdicts: dict[Key, str]) -> dict[int, tuple[int, int]]:
        counts: dict[int, tuple[int, int]] = {}
        for task in self.planned:
            verdict = verdicts[task.key()]
            if verdict == "undecided" and self.cell.kappa == 1.0:
                continue  # as in lamcap.experiments._analysis: a failure only for κ < 1
            feasible, total = counts.get(task.p, (0, 0))
            counts[task.p] = (feasible + (verdict == "feasible"), total + 1)
        return counts

    def fit(self, verdicts: dict[Key, str]) -> TransitionFit | None:
        """Transition fit of the planned instances, the cell's link (None if nothing is decided)."""
        counts = self._counts(verdicts)
        if not counts:
            return None
        ps = sorted(counts)
        feasible, total = [counts[p][0] for p in ps], [counts[p][1] for p in ps]
        return fit_transition(ps, feasible, total, link=self.cell.link)

    def _new_tasks(self, p_values: list[int]) -> list[Task]:
        used = replicates_used(self.planned)
        return [
            self.sweep.task(self.cell, p, used.get(p, 0) + r)
            for p in sorted(set(p_values))
            for r in range(self.sweep.seeds_per_point)
        ]

    def next_round(self, verdicts: dict[Key, str]) -> list[Task]:
        """Plan the next round from the finished ones; empty when the cell is done."""
        if self.finished:
            return []
        tasks = self._plan(verdicts)
        self.round_index += 1
        if not tasks:
            self.finished = True
        self.planned += tasks
        return tasks

    def _plan(self, verdicts: dict[Key, str]) -> list[Task]:
        if self.round_index == 0:
            grid = self.sweep.fixed_grid(self.cell.d)
            if grid:
                tasks = self._new_tasks(list(grid))
                return [t for t in tasks if self.keep is None or t.key() in self.keep]
            return self._new_tasks([max(2, round(self.guess * f)) for f in self.sweep.bracket])
        if not self.sweep.adaptive:
            return []
        counts = self._counts(verdicts)
        if not counts:
            return []
        ps = sorted(counts)
        low_fraction = counts[ps[0]][0] / counts[ps[0]][1]
        high_fraction = counts[ps[-1]][0] / counts[ps[-1]][1]
        need_lower = low_fraction < 0.5 and ps[0] > 2
        need_higher = high_fraction > 0.5
        if self.extensions < _MAX_EXTENSIONS and (need_lower or need_higher):
            self.extensions += 1
            extra = []
            if need_lower:
                extra += [max(2, math.floor(ps[0] * f)) for f in (0.5, 0.7)]
            if need_higher:
                extra += [math.ceil(ps[-1] * f) for f in (1.4, 2.0)]
            extra = [p for p in extra if p not in counts]
            if extra:
                return self._new_tasks(extra)
        if self.refinements >= self.sweep.rounds:
            return []
        self.refinements += 1
        fit = self.fit(verdicts)
        if fit is None:
            return []
        lowest, highest = ps[0], ps[-1]
        targets = {
            min(highest, max(lowest, 2, round(fit.quantile(q)))) for q in _REFINE_PROBABILITIES
        }
        return self._new_tasks(sorted(targets))


@dataclass(frozen=True)
class SweepOutcome:
    """What a call to :func:`run_sweep` did."""

    ran: int
    skipped: int
    seconds: float
    fits: dict[Cell, TransitionFit | None]


class _SweepProgress:
    """Instances done of those planned so far, and the round the slowest cell is in.

    The total counts planned instances only (no estimate), so it never shrinks;
    for adaptive sweeps the note says ``round k of K``: ``k`` is the round of the
    slowest unfinished cell and ``K`` its planned rounds (bracket, extensions
    so far, ``sweep.rounds`` refinements).  A cell may end before round K (when
    nothing is left to refine); the last note then says how many rounds ran.
    """

    def __init__(self, enabled: bool, sweep: Sweep, states: list[CellState]) -> None:
        self._sweep = sweep
        self._states = states
        self.bar = Progress(sweep.name, unit="instances", enabled=enabled)
        self._held: list[int] | None = [0, 0]  # first rounds of every cell: shown as one total

    def planned(self, tasks: int, already_done: int) -> None:
        if self._held is not None:
            self._held[0] += tasks
            self._held[1] += already_done
            return
        self.bar.grow(tasks, done=already_done)
        self.update_note()

    def release(self) -> None:
        """Show the first rounds of all cells at once (not ``0/5`` for the first cell, then ``1/9``)."""
        if self._held is not None:
            tasks, done = self._held
            self._held = None
            self.bar.grow(tasks, done=done)
            self.update_note()

    def update_note(self) -> None:
        if not self._sweep.adaptive:
            return
        started = [state for state in self._states if state.round_index > 0]
        running = [state for state in started if not state.finished]
        if len(started) < len(self._states):
            return  # the first rounds are still being planned
        if running:
            slowest = min(running, key=lambda state: state.round_index)
            rounds = 1 + slowest.extensions + self._sweep.rounds
            self.bar.note(f"round {slowest.round_index} of {rounds}")
        else:
            ran = sorted({state.round_index - 1 for state in self._states})
            counts = str(ran[0]) if len(ran) == 1 else f"{ran[0]}-{ran[-1]}"
            self.bar.note(f"done after {counts} rounds")


def run_sweep(
    sweep: Sweep,
    database: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    trial: TrialFunction = solver_trial,
    progress: bool = False,
    guess: Callable[[Cell], float] = theory_guess,
    shard: tuple[int, int] | None = None,
) -> SweepOutcome:
    """Run (or resume) ``sweep``, storing every finished instance in ``database``.

    Parameters
    ----------
    sweep : the validated description.
    database : SQLite results file (created if missing).
    executor : where instances run; default a local process pool of ``workers``.
    workers : local processes when ``executor`` is None (0: in-process).
    trial : picklable ``trial(task) -> record`` (default :func:`solver_trial`).
    progress : show progress on stderr (a bar with ETA on a terminal, plain
        lines otherwise; see :mod:`lamcap._progress`).  Off by default.
    guess : starting estimate of the transition of a cell (adaptive sweeps).
    shard : ``(I, N)``: run only the I-th of N disjoint slices of a fixed-grid
        sweep (``ValueError`` for an adaptive sweep or I outside 1..N); the
        fits then describe this shard's instances only.

    Raises
    ------
    ValueError
        When an instance's trial raises one (bad or impossible input, e.g. an
        instance too large for memory: exit code 2 on the command line); what
        already finished is stored.
    RuntimeError
        When a trial raises anything else, naming the error (finished
        instances stored too).
    """
    keep = None if shard is None else sweep.shard_keys(*shard)
    with ResultsStore(database) as store:
        store.record_sweep(sweep, shard)
        if executor is not None:
            return _run(sweep, store, executor, trial, progress, guess, keep)
        with open_executor(workers=workers) as local:
            return _run(sweep, store, local, trial, progress, guess, keep)


def ignore_progress(*_arguments: object) -> None:
    """Do nothing (the default progress callbacks of :func:`execute`)."""


def batch_trial(
    trial: Callable[[Task], dict[str, Any]], tasks: Sequence[Task]
) -> list[dict[str, Any]]:
    """The records of ``tasks`` in one call on a worker, in their order.

    Hebbian tasks of the default trial go through
    :func:`lamcap.experiments._hebbian_trials.hebbian_trials` (many instances
    per call, the same verdicts as :func:`solver_trial`); any other trial is
    called once per task.
    """
    if trial is solver_trial and tasks and all(task.method == "hebbian" for task in tasks):
        return hebbian_trials(tasks)
    return [trial(task) for task in tasks]


class Planner(Protocol):
    """What plans rounds of instances: a cell's :class:`CellState`, or an allocator.

    ``next_round(verdicts)`` returns the next round's tasks, planned only from
    the verdicts of the tasks it planned before (all finished), or an empty
    list when it is done: so a restart replays the same rounds.
    """

    def next_round(self, verdicts: dict[Key, str]) -> list[Task]: ...


class OneRound:
    """A :class:`Planner` of one fixed round: ``tasks``, then nothing (a fixed list of instances).

    Examples
    --------
    >>> from lamcap.experiments import Cell, Sweep
    >>> tasks = Sweep(dims=(8,), seeds_per_point=2).tasks(Cell(8, 1.0, "decoupled", "auto"), [12])
    >>> planner = OneRound(tasks)
    >>> len(planner.next_round({})), planner.next_round({})
    (2, [])
    """

    def __init__(self, tasks: Sequence[Task]) -> None:
        self._tasks: list[Task] | None = list(tasks)

    def next_round(self, verdicts: dict[Key, str]) -> list[Task]:  # noqa: ARG002 - one fixed round
        """The tasks on the first call, an empty list on every later one."""
        tasks, self._tasks = self._tasks or [], None
        return tasks


BATCH_SIZE = 128
"""Hebbian instances per submitted call (:func:`batch_trial`):
one Hebbian instance costs milliseconds, far less than a round trip to a worker."""


def _batches(tasks: list[Task], trial: TrialFunction) -> list[list[Task]]:
    """Tasks grouped per call: Hebbian tasks of the default trial by :data:`BATCH_SIZE`, others alone."""
    if trial is not solver_trial:
        return [[task] for task in tasks]
    cheap = [task for task in tasks if task.method == "hebbian"]
    batches = [cheap[i : i + BATCH_SIZE] for i in range(0, len(cheap), BATCH_SIZE)]
    return batches + [[task] for task in tasks if task.method != "hebbian"]


Pending = dict[Future[list[dict[str, Any]]], tuple[int, list[Task]]]


def _drain(pending: Pending, record: Callable[[Future[list[dict[str, Any]]]], object]) -> None:
    """On interruption: cancel what has not started, keep what already finished."""
    for future in list(pending):
        if not future.cancel() and future.done() and future in pending:
            with contextlib.suppress(BaseException):
                record(future)


def _raise_failure(failures: list[tuple[Task, BaseException]]) -> None:
    """Stop the run on a failed trial: ValueError for bad input (exit 2), else RuntimeError."""
    task, error = failures[0]
    if isinstance(error, ValueError):  # bad or impossible input: exit 2, one line
        msg = f"{len(failures)} instance(s) cannot run, first {task}: {error}"
        raise ValueError(msg) from error
    msg = f"{len(failures)} instance(s) failed, first {task}: {type(error).__name__}: {error}"
    raise RuntimeError(msg) from error


def execute(
    planners: list[Planner],
    store: ResultsStore,
    executor: Executor,
    trial: TrialFunction,
    *,
    sweep_name: str,
    table: str = "trials",
    on_planned: Callable[[int, int], None] = ignore_progress,
    on_recorded: Callable[[int], None] = ignore_progress,
    on_exhausted: Callable[[], None] = ignore_progress,
    on_started: Callable[[], None] = ignore_progress,
) -> tuple[int, int, dict[Key, str]]:
    """Run the rounds of every planner on ``executor``, resumably.

    Each planner's next round is planned when its previous one has finished;
    instances already in ``store`` are skipped (their stored verdicts stand),
    and every finished call is written by this (parent) process in its own
    transaction: one instance, or the batch of Hebbian instances of the default
    trial that went to a worker together (:data:`BATCH_SIZE` at a time).
    ``table`` is where the records go (:data:`lamcap.experiments._store.TABLES`):
    ``"trials"``, the feasibility solves of the sweeps (records of
    :func:`solver_trial`), or ``"max_recall"``, the max-recall solves (records
    of :func:`lamcap.experiments._recall_fraction.recall_trial`); an instance
    counts as stored when its key in that table
    (:func:`~lamcap.experiments._store.table_key`) is.
    Returns the instances run, those skipped, and the verdict of every stored
    instance of ``table``, by that key (:meth:`Task.key` for ``"trials"``).
    The callbacks report progress: instances
    planned and already done, instances recorded, a planner with nothing left,
    and the end of the first rounds of all planners.
    """
    key = table_key(table)
    verdicts: dict[Any, str] = store.verdicts(table=table)
    pending: Pending = {}
    outstanding: dict[int, int] = {}
    ran = skipped = 0

    def advance(index: int) -> None:
        nonlocal skipped
        while True:
            tasks = planners[index].next_round(verdicts)
            if not tasks:
                on_exhausted()
                return
            todo = [task for task in tasks if key(task) not in verdicts]
            skipped += len(tasks) - len(todo)
            on_planned(len(tasks), len(tasks) - len(todo))
            if todo:
                outstanding[index] = len(todo)
                for batch in _batches(todo, trial):
                    pending[executor.submit(batch_trial, trial, batch)] = (index, batch)
                return

    def record(future: Future[list[dict[str, Any]]]) -> tuple[Task, BaseException] | None:
        nonlocal ran
        index, batch = pending.pop(future)
        error = future.exception()
        if error is not None:
            return batch[0], error
        results = future.result()
        store.add_many(batch, results, sweep=sweep_name, table=table)
        for task, result in zip(batch, results, strict=True):
            verdicts[key(task)] = str(result["verdict"])
        ran += len(batch)
        on_recorded(len(batch))
        outstanding[index] -= len(batch)
        if outstanding[index] == 0:
            advance(index)
        return None

    try:
        for index in range(len(planners)):
            advance(index)
        on_started()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            failures = [failure for future in finished if (failure := record(future)) is not None]
            if failures:
                _raise_failure(failures)
    except BaseException:
        _drain(pending, record)
        raise
    return ran, skipped, verdicts


def _state(
    cell: Cell, sweep: Sweep, guess: Callable[[Cell], float], keep: frozenset[Key] | None = None
) -> CellState:
    """A cell's state before its first round (the guess only matters to adaptive sweeps)."""
    return CellState(cell, sweep, guess(cell) if sweep.adaptive else 0.0, keep=keep)


def _run(
    sweep: Sweep,
    store: ResultsStore,
    executor: Executor,
    trial: TrialFunction,
    progress: bool,
    guess: Callable[[Cell], float],
    keep: frozenset[Key] | None,
) -> SweepOutcome:
    started = time.perf_counter()
    states = [_state(cell, sweep, guess, keep) for cell in sweep.cells()]
    bar = _SweepProgress(progress, sweep, states)
    try:
        ran, skipped, verdicts = execute(
            list(states),
            store,
            executor,
            trial,
            sweep_name=sweep.name,
            on_planned=bar.planned,
            on_recorded=bar.bar.advance,
            on_exhausted=bar.update_note,
            on_started=bar.release,
        )
    except BaseException:
        bar.bar.close(interrupted=True)
        raise
    bar.bar.close()
    fits = {state.cell: state.fit(verdicts) for state in states}
    return SweepOutcome(ran=ran, skipped=skipped, seconds=time.perf_counter() - started, fits=fits)


def planned_tasks(
    sweep: Sweep, verdicts: dict[Key, str], guess: Callable[[Cell], float] = theory_guess
) -> dict[Cell, list[Task]]:
    """Every task the runner planned for each cell of a finished ``sweep``, replayed from ``verdicts``.

    The rounds are a deterministic function of the results (module docstring),
    so replaying them from the stored verdicts gives exactly the planned
    instances; ``ValueError`` if a planned instance is not in ``verdicts``
    (the sweep has not finished).
    """
    planned = {}
    for cell in sweep.cells():
        state = _state(cell, sweep, guess)
        while tasks := state.next_round(verdicts):
            missing = [task for task in tasks if task.key() not in verdicts]
            if missing:
                msg = f"sweep {sweep.name!r} has not finished: {missing[0]} is not stored"
                raise ValueError(msg)
        planned[cell] = list(state.planned)
    return planned
