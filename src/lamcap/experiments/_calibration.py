r"""Does the verdict rule keep its promises?  Whole runs simulated with true and false claims.

:func:`simulate_claims` draws one synthetic reproduction in which every tested
claim holds exactly (or, with ``deviations``, in which the claims of chosen
quantities are off by a known amount), and judges it with the code of a real run
(:func:`lamcap.experiments._claims.build_claims`, then
:func:`lamcap.experiments.judge`):

* every transition cell goes through the runner's own adaptive design
  (:class:`lamcap.experiments._runner.CellState`, same seeds, rounds and
  refinements), each instance storable with the probability of its
  finite-size law: the Crofton law ``feasibility_probability(d, p, κ)`` for
  the decoupled problem (Gordon width below full rank), the finite-d Hebbian law
  ``hebbian_recall_finite(p, d, all_associations=True)`` for the Hebbian rule;
* the original problem follows the Crofton law shifted by a ratio
  :math:`e^{c/d}` (:data:`OP_LOG_RATIO`, about 1.045 at d = 16 as measured), which
  tends to 1: OP = DP holds as d → ∞; the per-size OP/DP rows are judged against
  that ratio given as a measured law with error :data:`OP_LAW_ERROR`;
* per-matrix statistics are Gaussian around their predictions (the
  finite-size law where lamcap has one: the spectrum's finite-size model,
  whose excess over 2 tends to 0; else the excess :math:`c/d` of
  :data:`SPECTRUM_EXCESS`), with the spreads between matrices of a quick run.

So, without deviations, any "inconsistent" in a simulated run is false.
:func:`false_inconsistent_rate` repeats runs and counts those with at least one,
with a 95% Wilson interval; it also counts the runs that a per-claim 5% rule (no
multiplicity correction) would have failed.

With ``deviations`` (:data:`DEVIATIONS`: quantity -> size of the deviation) the
claims of that quantity are off by a known amount: every decoupled transition
(optimal, Hebbian, rank) at :math:`(1 + \Delta)` times its law's p, a constant
OP/DP ratio :math:`1 + \Delta` at every d (so OP/DP does not tend to 1), or
per-matrix spectra and scores whose means are off by :math:`\Delta`.
:func:`deviated_verdicts` counts the verdicts of each such claim.

:func:`equivalence_rates` is the cheap synthetic check of the interval rule
itself (docs/howto/reproduce.md, "The verdict rule, simulated"): families of
:math:`k` claims whose true deviation is a chosen multiple of the tolerance,
measured by Gaussian instances with an estimated spread, brought to the
allocation stage's precision target by the same precision-only rule
(:mod:`lamcap.experiments._allocation`), and judged by
:func:`lamcap.experiments.judge`.

Examples
--------
>>> round(math.exp(OP_LOG_RATIO / 16), 3)  # the simulated OP/DP ratio at d = 16
1.045
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from lamcap import critical_p
from lamcap.experiments._allocation import TARGET_SHARES
from lamcap.experiments._analysis import CellData, transition_rows
from lamcap.experiments._claims import (
    build_claims,
    hebbian_target_prediction,
    score_prediction,
    spectrum_prediction,
)
from lamcap.experiments._fitting import wilson_interval
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments._reproduce import Plan, _mechanism_runs
from lamcap.experiments._runner import CellState, theory_guess
from lamcap.experiments._shift import cell_law
from lamcap.experiments._sweep import Cell, Sweep
from lamcap.experiments._verdicts import (
    LEVEL,
    TOLERANCES,
    Claim,
    Tolerance,
    familywise_quantile,
    judge,
    verdict_word,
)
from lamcap.theory._crofton import feasibility_probability

OP_LOG_RATIO = 0.7
"""Simulated :math:`\\log(p_c^{OP}/p_c^{DP}) = c/d` (1.045 at d = 16, 1.09 at d = 8)."""

OP_LAW_ERROR = 0.005
"""Standard error of the simulated measured OP/DP law (docs/measurements/op_vs_dp.csv: 0.004–0.01)."""

SPECTRUM_EXCESS = 8.0
"""Simulated :math:`E[s^4]/E[s^2]^2 - 2 = c/d` of the max-margin W (0.5 at d = 16)."""

_SPREAD = {"ratio": 4.8, "target": 0.065, "hebbian": 0.06}
"""Standard deviations between matrices of the simulated per-matrix statistics, as
measured in a quick run (``ratio``: divided by d, i.e. 0.6 at d = 8 and 0.3 at d = 16)."""


DEVIATIONS = ("transition", "ratio", "spectrum", "score")
"""Quantities whose claims :func:`simulate_claims` can make false (keys of ``deviations``)."""


def _probability(cell: Cell, p: int, deviations: Mapping[str, float] | None = None) -> float:
    """The cell's law, moved by the deviations; the original problem's is the decoupled
    one at p / ratio, with ratio e^{c/d} (true claims) or 1 + Δ_ratio times the
    decoupled transition (a false OP = DP)."""
    deviations = deviations or {}
    decoupled = dataclasses.replace(cell, model="decoupled")
    log_shift = math.log1p(deviations.get("transition", 0.0))
    if cell.model == "decoupled":
        if log_shift == 0.0:
            return cell_law(cell).at_integer(p)
        return float(cell_law(decoupled)(p / math.exp(log_shift)))
    if "ratio" in deviations:
        log_ratio = log_shift + math.log1p(deviations["ratio"])
    else:
        log_ratio = log_shift + OP_LOG_RATIO / cell.d
    return float(cell_law(decoupled)(p / math.exp(log_ratio)))


def _simulate_cell(
    sweep: Sweep,
    cell: Cell,
    rng: np.random.Generator,
    deviations: Mapping[str, float] | None = None,
) -> CellData:
    """Run the adaptive design of ``cell`` with instances drawn from its finite-size law."""
    state = CellState(cell, sweep, theory_guess(cell))
    verdicts: dict[tuple[int, int, str, str, int, float, int, str], str] = {}
    while tasks := state.next_round(verdicts):
        for task in tasks:
            storable = rng.random() < _probability(cell, task.p, deviations)
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
    d: int,
    kappa: float,
    p: int,
    solution: str,
    seeds: int,
    rng: np.random.Generator,
    deviations: Mapping[str, float] | None = None,
) -> SolutionSample:
    """Per-matrix statistics drawn around their predictions (see the module docstring)."""

    count = int(rng.binomial(seeds, float(feasibility_probability(d, p, kappa=kappa))))
    finite = spectrum_prediction(kappa, d, p)
    ratio = finite[0] if finite is not None else 2.0 + SPECTRUM_EXCESS / d
    deviations = deviations or {}
    ratio += deviations.get("spectrum", 0.0)
    score = deviations.get("score", 0.0)
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
        target_mean_per_matrix=rng.normal(
            score_prediction(d, p)[0] + score, _SPREAD["target"], count
        ),
        hebbian_target_mean_per_matrix=rng.normal(
            hebbian_target_prediction(d, p) + score, _SPREAD["hebbian"], count
        ),
    )


def _op_dp_law(d: int) -> tuple[float, float]:
    """The simulated OP/DP law as a "measured convergence law" with a measurement's error."""
    return OP_LOG_RATIO / d, OP_LAW_ERROR


def _check_deviations(deviations: Mapping[str, float] | None) -> dict[str, float]:
    chosen = dict(deviations or {})
    for quantity, value in chosen.items():
        if quantity not in DEVIATIONS:
            msg = f"deviations: quantity must be one of {DEVIATIONS}, got {quantity!r}"
            raise ValueError(msg)
        if not math.isfinite(value) or (quantity in ("transition", "ratio") and value <= -1):
            msg = f"deviations[{quantity!r}] must be finite (and > -1 for a ratio), got {value!r}"
            raise ValueError(msg)
    return chosen


def simulate_claims(
    plan: object, seed: int, deviations: Mapping[str, float] | None = None
) -> list[Claim]:
    """One synthetic run of ``plan`` (a :class:`~lamcap.experiments._reproduce.Plan`), judged.

    ``deviations``: quantity (one of :data:`DEVIATIONS`) -> the size by which its
    claims are made false (module docstring); none: every claim true.
    """

    if not isinstance(plan, Plan):
        msg = f"plan must be a reproduce Plan, got {type(plan).__name__}"
        raise ValueError(msg)
    chosen = _check_deviations(deviations)
    rng = np.random.default_rng([seed, 20_260_511])
    cells = {}
    for sweep in plan.sweeps:
        shifted = Sweep.from_mapping({**sweep.to_mapping(), "seed": seed})
        for cell in shifted.cells():
            cells[cell] = _simulate_cell(shifted, cell, rng, chosen)
    samples = []
    for d, kappa, solution in _mechanism_runs(plan):
        p = max(2, int(plan.critical_fraction * float(critical_p(d, kappa=kappa))))
        samples.append(_sample(d, kappa, p, solution, plan.mechanism_seeds, rng, chosen))
    rows = transition_rows(cells)
    return judge(build_claims(cells, rows, samples, law=_op_dp_law))


def deviated_claims(claims: list[Claim], quantity: str) -> list[Claim]:
    """The judged claims that a deviation of ``quantity`` makes false.

    A transition deviation moves every decoupled transition (and so the α_c
    trend, a ratio of transitions to their laws); a ratio deviation only the
    OP = DP trend; spectrum and score deviations the claims of that quantity.
    """
    tested = [c for c in claims if c.kind != "comparison" and c.standard_errors]
    if quantity == "transition":
        return [c for c in tested if c.quantity == "transition" or c.claim.startswith("α_c")]
    if quantity == "ratio":
        return [c for c in tested if c.claim.startswith("OP = DP")]
    if quantity == "spectrum":
        # the quarter-circle trend's excess stays true-in-the-limit only without a deviation
        return [c for c in tested if c.quantity == "spectrum"]
    return [c for c in tested if c.quantity == quantity]


@dataclass
class VerdictTally:
    """Verdicts of the deviated claims of one quantity at one deviation, over runs."""

    quantity: str
    deviation: float
    runs: int = 0
    verdicts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per claim: verdict word -> runs."""


def deviated_verdicts(
    plan: object, quantity: str, deviation: float, runs: int, *, first_seed: int = 1
) -> VerdictTally:
    """Simulate ``runs`` runs with the claims of ``quantity`` off by ``deviation``; count verdicts."""
    tally = VerdictTally(quantity, deviation)
    for seed in range(first_seed, first_seed + runs):
        claims = simulate_claims(plan, seed, {quantity: deviation})
        tally.runs += 1
        for claim in deviated_claims(claims, quantity):
            counts = tally.verdicts.setdefault(claim.claim, {})
            word = verdict_word(claim.verdict)
            counts[word] = counts.get(word, 0) + 1
    return tally


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


# -- the interval rule on synthetic families ----------------------------------------------------


@dataclass(frozen=True)
class SyntheticFamily:
    r"""A family of :math:`k` synthetic claims for :func:`equivalence_rates`.

    Each claim's measurement is the mean of instances drawn from
    :math:`N(\Delta, \sigma^2)` on the test scale of ``quantity`` (:math:`\sigma`
    = ``spread`` × the tolerance; the spread is estimated from the data, Student
    t with n − 1 degrees of freedom), against a prediction of 0 whose stated
    error is ``law_error`` × the tolerance.  ``start`` instances first; with
    ``adaptive``, ``batch`` more at a time while the claim's statistical
    half-width is above ``target`` × the room the floor leaves (one of the
    allocation stage's :data:`~lamcap.experiments._allocation.TARGET_SHARES`;
    never looking at the estimate), up to ``most`` instances.
    """

    claims: int = 15
    quantity: str = "transition"
    spread: float = 2.0
    start: int = 20
    batch: int = 20
    most: int = 4000
    law_error: float = 0.0
    adaptive: bool = True
    target: float = TARGET_SHARES[0]


def _synthetic_claim(
    family: SyntheticFamily, truth: float, tolerance: Tolerance, rng: np.random.Generator
) -> Claim:
    """One claim: instances until its precision target (adaptive), then estimate and test."""
    from scipy import stats  # noqa: PLC0415

    sigma = family.spread * tolerance.value
    law_error = tolerance.from_units(family.law_error * tolerance.value)
    values = list(rng.normal(truth, sigma, family.start))
    room = tolerance.on_scale() - law_error
    while family.adaptive and room > 0 and len(values) < family.most:
        error = float(np.std(values, ddof=1)) / math.sqrt(len(values))
        quantile = familywise_quantile(family.claims, df=len(values) - 1)
        if quantile * error <= family.target * room:
            break
        values += list(rng.normal(truth, sigma, family.batch))
    data = np.asarray(values)
    mean, error = float(data.mean()), float(data.std(ddof=1)) / math.sqrt(data.size)
    t = mean / math.hypot(error, law_error / 1.959963984540054)
    return Claim(
        "synthetic",
        "0",
        f"{mean:.4f}",
        z=t,
        p_value=float(2 * stats.t.sf(abs(t), data.size - 1)),
        test="t",
        quantity=family.quantity,
        estimates=(mean,),
        standard_errors=(error,),
        law_error=law_error,
        df=float(data.size - 1),
        count=int(data.size),
        sample="instances",
    )


@dataclass
class EquivalenceRates:
    """Outcome of :func:`equivalence_rates` at one true deviation (in tolerance units)."""

    multiple: float
    runs: int = 0
    claims: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    """Verdict word -> claims, pooled over runs."""
    any_inconsistent: int = 0
    any_consistent: int = 0
    covered: int = 0
    """Runs in which every claim's interval held its true deviation."""
    instances: int = 0

    def rate(self, word: str) -> tuple[float, float, float]:
        """Share of claims with verdict ``word`` and its 95% Wilson interval."""
        count = self.verdicts.get(word, 0)
        low, high = wilson_interval(count, self.claims)
        return count / max(1, self.claims), float(low), float(high)

    def familywise(self, count: int) -> tuple[float, float, float]:
        """A share of runs with its 95% Wilson interval."""
        low, high = wilson_interval(count, self.runs)
        return count / max(1, self.runs), float(low), float(high)


def equivalence_rates(
    multiple: float, runs: int, family: SyntheticFamily | None = None, *, seed: int = 1
) -> EquivalenceRates:
    r"""Verdicts of ``runs`` synthetic families whose claims are all off by ``multiple`` × τ.

    Each claim's true deviation is :math:`\pm` ``multiple`` × the tolerance (sign
    drawn per claim).  Counted: the verdicts pooled over the claims, the runs
    with any "inconsistent" (false when ``multiple`` ≤ 1) and with any
    "consistent" (false when ``multiple`` > 1), the runs whose intervals all
    held the truth, and the instances used.
    """
    chosen = family or SyntheticFamily()
    tolerance = TOLERANCES[chosen.quantity]
    rng = np.random.default_rng([seed, 34, round(1000 * multiple)])
    outcome = EquivalenceRates(multiple)
    for _ in range(runs):
        signs = rng.choice((-1.0, 1.0), chosen.claims)
        truths = [tolerance.from_units(sign * multiple * tolerance.value) for sign in signs]
        claims = judge([_synthetic_claim(chosen, truth, tolerance, rng) for truth in truths])
        words = [verdict_word(claim.verdict) for claim in claims]
        outcome.runs += 1
        outcome.claims += len(claims)
        for word in words:
            outcome.verdicts[word] = outcome.verdicts.get(word, 0) + 1
        outcome.any_inconsistent += "inconsistent" in words
        outcome.any_consistent += "consistent" in words
        outcome.instances += sum(claim.count for claim in claims)
        outcome.covered += all(
            claim.interval[0] <= tolerance.to_units(truth) <= claim.interval[1]
            for claim, truth in zip(claims, truths, strict=True)
        )
    return outcome
