r"""Does the verdict rule keep its promise?  Whole runs simulated with every claim true.

:func:`simulate_claims` draws one synthetic reproduction in which every tested
claim holds exactly, and judges it with the code of a real run
(:func:`lamcap.experiments._claims.build_claims`, then
:func:`lamcap.experiments.judge`):

* every transition cell goes through the runner's own adaptive design
  (:class:`lamcap.experiments._runner.CellState`, same seeds, rounds and
  refinements), each instance storable with the probability of its
  finite-size law: the Crofton law ``feasibility_probability(d, p, κ)`` for
  the decoupled problem (Gordon width below full rank), the exact Hebbian law
  ``hebbian_recall_finite(p, d, all_associations=True)`` for the Hebbian rule;
* the original problem follows the Crofton law shifted by a ratio
  :math:`e^{c/d}` (:data:`OP_LOG_RATIO`, about 1.045 at d = 16 as measured), which
  tends to 1: OP = DP holds as d → ∞; the per-size OP/DP rows are judged against
  that ratio given as a measured law with error :data:`OP_LAW_ERROR`;
* per-matrix statistics are Gaussian around their predictions (the
  finite-size law where lamcap has one: the spectrum's finite-size model,
  whose excess over 2 tends to 0; else the excess :math:`c/d` of
  :data:`SPECTRUM_EXCESS`), with the spreads between matrices of a quick run.

So any "inconsistent" in a simulated run is false.  :func:`false_inconsistent_rate`
repeats runs and counts those with at least one, with a 95% Wilson interval;
it also counts the runs that a per-claim 5% rule (no multiplicity correction)
would have failed, the rule ``lamcap reproduce`` used before.

Examples
--------
>>> round(math.exp(OP_LOG_RATIO / 16), 3)  # the simulated OP/DP ratio at d = 16
1.045
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from lamcap.experiments._analysis import CellData, transition_rows
from lamcap.experiments._claims import (
    build_claims,
    hebbian_target_prediction,
    score_prediction,
    spectrum_prediction,
)
from lamcap.experiments._fitting import wilson_interval
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments._report import LEVEL, Claim, judge
from lamcap.experiments._runner import CellState, theory_guess
from lamcap.experiments._sweep import Cell, Sweep

OP_LOG_RATIO = 0.7
"""Simulated :math:`\\log(p_c^{OP}/p_c^{DP}) = c/d` (1.045 at d = 16, 1.09 at d = 8)."""

OP_LAW_ERROR = 0.005
"""Standard error of the simulated measured OP/DP law (docs/measurements/op_vs_dp.csv: 0.004–0.01)."""

SPECTRUM_EXCESS = 8.0
"""Simulated :math:`E[s^4]/E[s^2]^2 - 2 = c/d` of the max-margin W (0.5 at d = 16)."""

_SPREAD = {"ratio": 4.8, "target": 0.065, "hebbian": 0.06}
"""Standard deviations between matrices of the simulated per-matrix statistics, as
measured in a quick run (``ratio``: divided by d, i.e. 0.6 at d = 8 and 0.3 at d = 16)."""


@functools.lru_cache(maxsize=4096)
def _law(cell: Cell, p: int) -> float:
    """P(storable) of one instance of ``cell`` with ``p`` associations (integer p)."""
    if cell.method == "hebbian":
        from lamcap.theory._hebbian import hebbian_recall_finite  # noqa: PLC0415

        return float(hebbian_recall_finite(p, cell.d, all_associations=True))
    from lamcap.theory._crofton import feasibility_probability  # noqa: PLC0415

    return float(feasibility_probability(cell.d, p, kappa=cell.kappa))


def _probability(cell: Cell, p: int) -> float:
    """The cell's law; the original problem's is the decoupled one at p / e^{c/d}."""
    if cell.model == "decoupled":
        return _law(cell, p)
    decoupled = Cell(cell.d, cell.kappa, "decoupled", cell.method)
    shifted = math.log(p) - OP_LOG_RATIO / cell.d  # log of p / ratio
    below = max(2, math.floor(math.exp(shifted)))
    if below + 1 <= 2:
        return _law(decoupled, 2)
    weight = (shifted - math.log(below)) / (math.log(below + 1) - math.log(below))
    weight = min(1.0, max(0.0, weight))
    return (1 - weight) * _law(decoupled, below) + weight * _law(decoupled, below + 1)


def _simulate_cell(sweep: Sweep, cell: Cell, rng: np.random.Generator) -> CellData:
    """Run the adaptive design of ``cell`` with instances drawn from its finite-size law."""
    state = CellState(cell, sweep, theory_guess(cell))
    verdicts: dict[tuple[int, int, str, str, int, float, int], str] = {}
    while tasks := state.next_round(verdicts):
        for task in tasks:
            storable = rng.random() < _probability(cell, task.p)
            verdicts[task.key()] = "feasible" if storable else "infeasible"
    by_p: dict[int, list[int]] = {}
    for task in state.planned:
        by_p.setdefault(task.p, []).append(verdicts[task.key()] == "feasible")
    ps = sorted(by_p)
    return CellData(
        cell=cell,
        p=np.array(ps, dtype=np.int64),
        feasible=np.array([sum(by_p[p]) for p in ps], dtype=np.int64),
        decided=np.array([len(by_p[p]) for p in ps], dtype=np.int64),
        undecided=np.zeros(len(ps), dtype=np.int64),
        mean_accuracy=np.full(len(ps), math.nan),
    )


def _sample(
    d: int, kappa: float, p: int, solution: str, seeds: int, rng: np.random.Generator
) -> SolutionSample:
    """Per-matrix statistics drawn around their predictions (see the module docstring)."""
    from lamcap.theory._crofton import feasibility_probability  # noqa: PLC0415

    count = int(rng.binomial(seeds, float(feasibility_probability(d, p, kappa=kappa))))
    finite = spectrum_prediction(kappa, d, p)
    ratio = finite[0] if finite is not None else 2.0 + SPECTRUM_EXCESS / d
    empty = np.empty(0)
    return SolutionSample(
        d=d,
        kappa=kappa,
        p=p,
        method=solution,
        solved=seeds,
        feasible=count,
        singular_values=empty,
        target=empty,
        competitors=empty,
        hebbian_target=empty,
        hebbian_competitors=empty,
        ratio_per_matrix=rng.normal(ratio, _SPREAD["ratio"] / d, count),
        target_mean_per_matrix=rng.normal(score_prediction(d, p)[0], _SPREAD["target"], count),
        hebbian_target_mean_per_matrix=rng.normal(
            hebbian_target_prediction(d, p), _SPREAD["hebbian"], count
        ),
    )


def _op_dp_law(d: int) -> tuple[float, float]:
    """The simulated OP/DP law as a "measured convergence law" with a measurement's error."""
    return OP_LOG_RATIO / d, OP_LAW_ERROR


def simulate_claims(plan: object, seed: int) -> list[Claim]:
    """One synthetic run of ``plan`` (a :class:`~lamcap.experiments._reproduce.Plan`), judged."""
    from lamcap import critical_p  # noqa: PLC0415
    from lamcap.experiments._reproduce import Plan, _mechanism_runs  # noqa: PLC0415

    if not isinstance(plan, Plan):
        msg = f"plan must be a reproduce Plan, got {type(plan).__name__}"
        raise ValueError(msg)
    rng = np.random.default_rng([seed, 20_260_511])
    cells = {}
    for sweep in plan.sweeps:
        shifted = Sweep.from_mapping({**sweep.to_mapping(), "seed": seed})
        for cell in shifted.cells():
            cells[cell] = _simulate_cell(shifted, cell, rng)
    samples = []
    for d, kappa, solution in _mechanism_runs(plan):
        p = max(2, int(plan.critical_fraction * float(critical_p(d, kappa=kappa))))
        samples.append(_sample(d, kappa, p, solution, plan.mechanism_seeds, rng))
    rows = transition_rows(cells)
    return judge(build_claims(cells, rows, samples, law=_op_dp_law))


@dataclass
class CalibrationResult:
    """Outcome of :func:`false_inconsistent_rate`."""

    runs: int = 0
    false_runs: int = 0
    uncorrected_false_runs: int = 0
    tested: list[int] = field(default_factory=list)
    rejections: dict[str, int] = field(default_factory=dict)
    """Per tested claim: runs in which its own p-value was below 5% (no correction)."""
    tail: dict[str, int] = field(default_factory=dict)
    """Per tested claim: runs in which its p-value was at most 5% / (claims tested in the run)."""

    def interval(self, uncorrected: bool = False) -> tuple[float, float]:
        """95% Wilson interval of the whole-run false-"inconsistent" rate."""
        count = self.uncorrected_false_runs if uncorrected else self.false_runs
        low, high = wilson_interval(count, self.runs)
        return float(low), float(high)


def false_inconsistent_rate(
    plan: object, runs: int, *, first_seed: int = 1, result: CalibrationResult | None = None
) -> CalibrationResult:
    """Simulate ``runs`` whole runs (seeds ``first_seed``, ...) and count false verdicts."""
    outcome = CalibrationResult() if result is None else result
    for seed in range(first_seed, first_seed + runs):
        claims = simulate_claims(plan, seed)
        tested = [c for c in claims if c.tested]
        outcome.runs += 1
        outcome.tested.append(len(tested))
        outcome.false_runs += any(c.verdict == "inconsistent" for c in tested)
        outcome.uncorrected_false_runs += any(c.p_value < LEVEL for c in tested)
        for claim in tested:
            rejected = int(claim.p_value < LEVEL)
            outcome.rejections[claim.claim] = outcome.rejections.get(claim.claim, 0) + rejected
            extreme = int(claim.p_value <= LEVEL / len(tested))
            outcome.tail[claim.claim] = outcome.tail.get(claim.claim, 0) + extreme
    return outcome
