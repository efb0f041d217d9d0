r"""Instances where they decide: what ``lamcap reproduce`` adds after its planned rounds.

The planned sweeps give every cell the same seeds per point.  Afterwards
:class:`Allocator` adds instances to the transition cells whose finite-size
claim can still be decided, cheapest information first, until each has
reached its **precision target** or the **budget** is spent.

Which claims.  A claim is *eligible* when it is judged (tested, two-sided), its
measurement comes from a sweep cell (``Claim.cell``) and its floor
:math:`\phi` (:mod:`lamcap.experiments._verdicts`) is below its tolerance
:math:`\tau`: otherwise no number of instances decides it, and none are added.

The precision targets.  Instances are added until the claim's statistical
half-width :math:`q s` (:math:`q` its familywise quantile, :math:`s` the
standard error of the fitted shift) reaches a share of the room the floor
leaves, first half of it,

.. math::

    q\,s \le \tfrac12\,(\tau - \phi)

(on the test scale), then, while budget remains, the further shares of
:data:`TARGET_SHARES` (each halves the variance of the one before, down to an
eighth of the room), every eligible claim reaching one target before any goes
on to the next.  At a target of share :math:`h` a claim is decided whenever
its estimate lies within :math:`(1 - h)(\tau - \phi)` of the prediction
(consistent) or beyond :math:`\tau + \phi + h(\tau - \phi)` (inconsistent);
between the two the row says so.

Why the intervals keep their coverage.  The stopping rule and the order of
the cells depend only on the precision reached (:math:`s`), on the floor and
on the measured cost per instance — never on the estimate itself.  So the
data never decide *whether* to go on from where the estimate lies, which is
what makes "sample until it looks decided" biased: the final interval is the
fixed-size interval at a sample size chosen without looking at the estimate.
(For binary outcomes :math:`s` depends weakly on where the instances fall;
the simulation on docs/howto/reproduce.md measures the coverage this leaves.)

Cheapest first.  Per eligible cell the allocator estimates the instances
:math:`m = N\,((s/s^*)^2 - 1)` that bring :math:`s` to its target :math:`s^*`
(standard errors fall like :math:`1/\sqrt N`), and their cost :math:`m\,t`
from the mean stored CPU seconds :math:`t` per instance of the cell; cells are
served in decreasing order of the expected reduction of the interval per CPU
second, :math:`(s - s^*)/(m t)`; a cell is served only when its whole remaining
cost :math:`m t` fits in what is left of the budget (which it then reserves),
so a cell that the budget cannot bring to its next target gets nothing more and
says how much it would need; so does one that would hold more than
:data:`MAX_CELL_INSTANCES`.  Each round at most doubles a cell; then the fit is redone.  New instances go to the fitted law's 25%, 50% and 75% points
(:class:`~lamcap.experiments._shift.TransitionLaw` moved by the fitted shift),
with replicate numbers after every one the cell used at that p.

The budget counts the CPU seconds of the added instances as each trial
measured it (the ``seconds`` column of the store: one core per instance), so
it is the same on 2 cores and on a cluster; the round in flight when it runs
out finishes, so a run may exceed it by part of one round.

Resuming.  A round is planned only from the instances planned before it
(the sweeps' rounds, replayed by :func:`lamcap.experiments._runner.planned_tasks`,
and the earlier rounds of the allocator), with their stored verdicts and
seconds, so a rerun replays the same rounds, skips every stored instance and
stores nothing twice (the store's ``UNIQUE`` key).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lamcap.experiments._analysis import CellData, cell_data_of_rows, row_cell
from lamcap.experiments._runner import Key, ignore_progress, replicates_used
from lamcap.experiments._shift import cell_law
from lamcap.experiments._store import ResultsStore, row_key
from lamcap.experiments._sweep import Cell, Sweep, Task
from lamcap.experiments._verdicts import TOLERANCES, Claim, familywise_quantile, floor_on_scale

TARGET_SHARES = (0.5, 0.5 / math.sqrt(2.0), 0.25, 0.25 / math.sqrt(2.0), 0.125)
"""The precision targets, in turn: shares of the room τ − φ that the statistical
half-width q·s is brought to (each halves the variance of the one before)."""

TARGET_SHARE = TARGET_SHARES[0]
"""The first precision target: at it a claim is decided unless its estimate lies within
half the room of the tolerance's edge."""

PLACEMENT = (0.25, 0.5, 0.75)
"""Levels of the fitted law at which added instances are placed."""

MIN_ROUND = 12
"""Fewest instances a cell gets in one round (4 per placement level)."""

DEFAULT_SECONDS = 1.0
"""CPU seconds assumed per instance of a cell with no stored time."""

MAX_CELL_INSTANCES = 100_000
"""Most instances one cell may hold after the adding (planned and added).

The budget counts the workers' CPU seconds; each instance also costs the parent a
row in the store (about 250 bytes), written and read back every round.  A Hebbian
instance at d = 16 takes 25 µs on a worker, so a claim that needs millions of them
(its floor a hair below its tolerance) would fit the CPU budget yet fill the store
with gigabytes; such a cell gets nothing and says how many it would need."""

SWEEP_NAME = "added"
"""The ``sweep`` column of the instances the allocator adds."""


@dataclass(frozen=True)
class Need:
    """What one eligible cell still needs: its standard error, its scale, count and cost.

    ``scale`` is the room the floor leaves divided by the familywise quantile,
    :math:`(\tau - \\phi)/q`: the standard error at which the statistical
    half-width would fill the whole room; a precision target is a share of it.
    """

    cell: Cell
    standard_error: float
    scale: float
    count: int
    seconds: float
    estimate: float = 0.0
    """The claim's fitted shift of its law (log p): where the added instances go."""

    def target(self, share: float) -> float:
        """The standard error of the precision target ``share`` (:math:`q s^* = `share·room)."""
        return share * self.scale

    def stage(self) -> int | None:
        """The first of :data:`TARGET_SHARES` not yet reached (``None``: all reached)."""
        for index, share in enumerate(TARGET_SHARES):
            if self.standard_error > self.target(share):
                return index
        return None

    def instances(self, share: float) -> int:
        """Instances that bring the standard error to a target (:math:`N((s/s^*)^2 - 1)`)."""
        ratio = self.standard_error / self.target(share)
        return max(0, math.ceil(self.count * (ratio**2 - 1.0)))

    def rate(self, share: float) -> float:
        """Expected reduction of the standard error per CPU second, toward a target."""
        cost = max(1, self.instances(share)) * self.seconds
        return (self.standard_error - self.target(share)) / cost


def need(claim: Claim, cell: Cell, family: int, seconds: float) -> Need | None:
    """The :class:`Need` of an eligible judged claim, or ``None`` when none can be added.

    ``claim`` as :func:`~lamcap.experiments.judge` returned it (its ``tolerance``
    is the one the run used); ``family``: the number of judged claims of the run
    (the familywise quantile's :math:`k`); ``seconds``: mean CPU seconds per
    instance of ``cell``.
    """
    if not claim.tested or claim.alternative != "two-sided" or not claim.cell:
        return None
    room = TOLERANCES[claim.quantity].from_units(claim.tolerance) - floor_on_scale(claim)
    if not room > 0:  # NaN: a claim that was not judged
        return None
    return Need(
        cell=cell,
        standard_error=max(claim.standard_errors),
        scale=room / familywise_quantile(family, df=claim.df),
        count=claim.count,
        seconds=seconds,
        estimate=claim.estimates[0],
    )


@dataclass
class CellRecord:
    """Instances added to one cell and why the adding stopped."""

    added: int = 0
    reason: str = ""
    reached: int = 0
    """How many of :data:`TARGET_SHARES` the cell's claim has reached."""


@dataclass
class Allocator:
    """The rounds of added instances (module docstring); a runner planner.

    ``planned``: every task the sweeps planned, per cell; ``sweeps``: the
    sweep each cell belongs to (its seed draws the added instances);
    ``claims_of``: the judged claims of given cell data (the run's whole
    family, so that :math:`k` and the tolerances are the report's);
    ``budget``: CPU seconds.
    """

    planned: dict[Cell, list[Task]]
    sweeps: dict[Cell, Sweep]
    claims_of: Callable[[dict[Cell, CellData]], list[Claim]]
    budget: float
    store: ResultsStore
    added: dict[Cell, list[Task]] = field(default_factory=dict)
    records: dict[Cell, CellRecord] = field(default_factory=dict)
    spent: float = 0.0
    finished: bool = False
    excluded: set[Cell] = field(default_factory=set)
    """Cells the budget or the store's limit cannot bring to their next target: done."""
    on_round: Callable[[int, float], None] = ignore_progress

    def tasks(self) -> list[Task]:
        """Every task planned so far: the sweeps' and the added ones."""
        every = [task for tasks in self.planned.values() for task in tasks]
        return every + [task for tasks in self.added.values() for task in tasks]

    def rows(self) -> list[dict[str, Any]]:
        """Stored rows of the planned tasks (never those of rounds not replayed yet)."""
        keys = {task.key() for task in self.tasks()}
        return [row for row in self.store.rows() if row_key(row) in keys]

    def next_round(self, verdicts: dict[Key, str]) -> list[Task]:  # noqa: ARG002
        """Plan the next round from the stored results of every task planned so far.

        (The stored rows carry the verdicts, and the CPU seconds the budget counts.)
        """
        if self.finished:
            return []
        rows = self.rows()
        added = {task.key() for tasks in self.added.values() for task in tasks}
        self.spent = sum(row["seconds"] or 0.0 for row in rows if row_key(row) in added)
        tasks = self._plan(rows)
        if not tasks:
            self.finished = True
        self.on_round(len(tasks), self.spent)
        return tasks

    def _seconds(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """Mean stored CPU seconds per instance of each cell (by label)."""
        totals: dict[str, list[float]] = {}
        for row in rows:
            label = row_cell(row).label()
            if row["seconds"] is not None:
                totals.setdefault(label, []).append(float(row["seconds"]))
        return {label: sum(values) / len(values) for label, values in totals.items()}

    def _plan(self, rows: list[dict[str, Any]]) -> list[Task]:
        cells = cell_data_of_rows(rows)
        claims = self.claims_of(cells)
        family = sum(claim.tested for claim in claims)
        seconds = self._seconds(rows)
        by_label = {cell.label(): cell for cell in self.planned}
        pending: list[tuple[int, Need]] = []
        for claim in claims:
            cell = by_label.get(claim.cell)
            if cell is None or claim.kind != "finite-size":
                continue
            record = self.records.setdefault(cell, CellRecord())
            found = need(claim, cell, family, seconds.get(claim.cell, DEFAULT_SECONDS))
            if found is None:
                record.reason = _ineligible(claim)
                continue
            stage = found.stage()
            record.reached = len(TARGET_SHARES) if stage is None else stage
            if stage is None:
                record.reason = _reached(record.reached) + ", the last"
            elif cell not in self.excluded:
                pending.append((stage, found))
        while pending:
            tasks = self._serve(pending)
            if tasks:
                return tasks
            pending = [item for item in pending if item[1].cell not in self.excluded]
        return []

    def _serve(self, pending: list[tuple[int, Need]]) -> list[Task]:
        """A round toward the lowest pending target: cheapest information first, within budget."""
        stage = min(index for index, _ in pending)
        share = TARGET_SHARES[stage]
        left = self.budget - self.spent
        tasks: list[Task] = []
        serving = sorted(
            (found for index, found in pending if index == stage),
            key=lambda found: -found.rate(share),
        )
        for found in serving:
            record = self.records[found.cell]
            instances = found.instances(share)
            cost = instances * found.seconds
            prefix = _reached(record.reached) + "; " if record.reached else ""
            if found.count + instances > MAX_CELL_INSTANCES:
                self.excluded.add(found.cell)
                record.reason = (
                    f"{prefix}the next needs about {instances} more instances, beyond the "
                    f"{MAX_CELL_INSTANCES} a cell may hold"
                )
                continue
            if cost > left:
                self.excluded.add(found.cell)
                record.reason = (
                    f"{prefix}the next needs about {instances} more instances (about "
                    f"{cost:.0f} CPU s), more than the {max(0.0, left):.0f} CPU s of budget left"
                )
                continue
            left -= cost  # reserved whole: a cheaper cell is never starved by a dearer one
            count = max(MIN_ROUND, min(instances, max(found.count, MIN_ROUND)))
            new = self._new_tasks(found.cell, found.estimate, count)
            self.added.setdefault(found.cell, []).extend(new)
            record.added += len(new)
            record.reason = f"{prefix}adding toward target {stage + 1}"
            tasks += new
        return tasks

    def _new_tasks(self, cell: Cell, shift: float, count: int) -> list[Task]:
        """``count`` new instances at the :data:`PLACEMENT` levels of the law moved by ``shift``."""
        law = cell_law(cell)
        points = [max(2, round(math.exp(shift) * law.quantile(level))) for level in PLACEMENT]
        used = replicates_used([*self.planned[cell], *self.added.get(cell, [])])
        sweep = self.sweeps[cell]
        tasks = []
        for index in range(count):
            point = points[index % len(points)]
            tasks.append(sweep.task(cell, point, used.get(point, 0)))
            used[point] = used.get(point, 0) + 1
        return tasks


def _reached(count: int) -> str:
    """``"reached precision target 2 of 5 (q·s ≤ 0.354 of the room)"``."""
    if count == 0:
        return "reached no precision target"
    share = TARGET_SHARES[count - 1]
    return (
        f"reached precision target {count} of {len(TARGET_SHARES)} (q·s ≤ {share:.3g} of the room)"
    )


def _ineligible(claim: Claim) -> str:
    """Why no instances are added to the cell of ``claim``."""
    if claim.alternative != "two-sided":
        return "a one-sided bound: more instances cannot show agreement"
    if not claim.tested:
        return "not judged: " + (claim.undecidable or claim.untested or "no estimate")
    return "its floor is not below its tolerance: no number of instances decides it"
