r"""Verdicts with power: how ``lamcap reproduce`` decides what its data say about a claim.

A :class:`Claim` is one judged statement of a run: a prediction, a
measurement, a test (standardised distance ``z``, p-value) and the standard
error(s) of the measured quantity on the test's scale.  :func:`judge` gives
every claim one of three verdicts:

* ``inconsistent`` — the test rejects the prediction under Holm's step-down
  rule over all tested claims of the run, so that the chance of calling any
  true claim inconsistent in a run is at most ``significance`` (5%), whatever the
  dependence between the claims (Holm 1979):

  .. math::

      \tilde p_{(i)} = \max_{j \le i} \min\{1, (k - j + 1)\, p_{(j)}\}, \qquad
      \text{inconsistent} \iff \tilde p \le \text{significance};

* ``consistent`` — the test does not reject *and* it could have: the smallest
  deviation it detects with probability :data:`POWER` (80%) under the same
  familywise rule, :math:`\Delta_{80}`, is at most the claim's tolerance of
  scientific interest (:data:`TOLERANCES`, fixed per quantity before any data
  are seen);
* ``inconclusive`` — the test does not reject but :math:`\Delta_{80}` exceeds
  the tolerance (or the data cannot decide, e.g. too many undecided
  instances): the row says what would make it conclusive.

A *bracketing* measurement (``bracket_width > 0``: certified bounds that
enclose the quantity, as the max-recall solver's lower and upper bounds
enclose the best recall fraction) cannot see a deviation that stays inside
its bracket: the quantity may lie anywhere between the bounds.  Its detectable
deviation is the statistical one plus the bracket's width,
:math:`\Delta_{80} + w`, the worst case over the quantity's place in the
bracket, so such a claim is consistent only when the bracket is narrow.

``not tested: <reason>`` and ``comparison (not judged)`` mark rows outside the
family.

The detectable deviation
------------------------
A deviating claim is rejected by Holm's rule at the latest when its p-value is
below :math:`\text{significance}/k` (the rule's first step; :math:`k` tested claims),
so its power is computed at that level.  For one test with standard error
:math:`s` on the test's scale, a true deviation :math:`\Delta` shifts the
statistic by :math:`\Delta/s` and the two-sided power is

.. math::

    \pi(\Delta) = P(T_{\nu,\Delta/s} > q) + P(T_{\nu,\Delta/s} < -q),
    \qquad q = t_{\nu}^{-1}(1 - \text{significance}/2k),

with :math:`T_{\nu,\lambda}` a noncentral Student t with :math:`\nu` degrees
of freedom (normal for :math:`\nu = \infty`); one-sided claims use one tail
at :math:`1 - \text{significance}/k`.  An intersection–union claim (rejected only
when every one of its tests rejects on the same side) gets
:math:`\prod_j \pi_j(\Delta)`, a lower bound on its power when the tests are
positively dependent (Slepian's inequality for normal statistics), so its
:math:`\Delta_{80}` is an upper bound.  :math:`\Delta_{80}` solves
:math:`\pi(\Delta) = 0.8` (:func:`detectable_deviation`).  Quantities tested
on a log scale (transition points, ratios) are reported as a relative
deviation :math:`e^{\Delta} - 1`.

What would make an inconclusive claim conclusive: the standard error of a
mean or a fitted location falls like :math:`1/\sqrt{N}`, so about
:math:`(\Delta_{80}/\text{tolerance})^2` times the instances (or matrices);
trends need more or larger sizes.

Examples
--------
>>> claim = Claim("p_c(16)", "61.7", "61.9 [60.7, 63.3]", z=0.4, p_value=0.7, test="LR shift",
...               quantity="transition", standard_errors=(0.005,), count=64, sample="instances")
>>> judged = judge([claim])[0]
>>> judged.verdict, round(100 * judged.detectable, 1)
('consistent', 1.4)
>>> judge([dataclasses.replace(claim, standard_errors=(0.02,))])[0].verdict
'inconclusive'
>>> [round(v, 3) for v in holm_adjusted([0.01, 0.04, 0.03])]
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lamcap._deprecation import renamed_keywords

LEVEL = 0.05
"""Familywise level: the largest accepted probability of any false "inconsistent" in a run."""

POWER = 0.8
"""Power at which the detectable deviation of a claim is stated."""

KINDS = ("finite-size", "asymptotic", "comparison")
"""What a claim is about: one size, the limit d → ∞ (judged by the trend), or a comparison."""

ALTERNATIVES = ("two-sided", "greater", "less")
"""Direction of a claim's test: any deviation, or only a measurement above / below the prediction."""

VERDICTS = ("consistent", "inconsistent", "inconclusive", "not tested", "comparison")
"""The verdict words, as :func:`verdict_counts` counts them."""


@dataclass(frozen=True)
class Tolerance:
    """The smallest deviation from a prediction that matters, for one kind of quantity.

    ``relative``: the quantity is tested on a log scale and the tolerance is a
    fraction of it (0.02 = 2%); otherwise it is absolute, in the quantity's units.
    """

    quantity: str
    value: float
    relative: bool
    meaning: str

    def __post_init__(self) -> None:
        if not (math.isfinite(self.value) and self.value > 0):
            msg = (
                f"tolerance must be a finite number > 0, got {self.value!r} "
                f"for quantity {self.quantity!r}"
            )
            raise ValueError(msg)

    def text(self) -> str:
        """The tolerance in the quantity's units (``2%`` or ``0.05``)."""
        return f"{100 * self.value:g}%" if self.relative else f"{self.value:g}"


TOLERANCES: dict[str, Tolerance] = {
    tolerance.quantity: tolerance
    for tolerance in (
        Tolerance("transition", 0.02, True, "transition point p_c (50% storable), relative"),
        Tolerance("ratio", 0.02, True, "ratio of two transitions (OP/DP, measured/Crofton)"),
        Tolerance("spectrum", 0.05, False, "E[s⁴]/E[s²]² of a weight matrix, absolute"),
        Tolerance("score", 0.05, False, "mean normalised target score, absolute"),
        Tolerance("recall", 0.01, False, "recall probability, absolute"),
        Tolerance(
            "recall_fraction",
            0.01,
            False,
            "best recalled fraction of the n associations, absolute (2% in p at 1.25-1.5 p_c)",
        ),
    )
}
"""Tolerance of scientific interest per quantity, fixed before any data are seen."""


@dataclass(frozen=True)
class Claim:
    """One line of a reproduction report.

    Attributes
    ----------
    claim : what is claimed, at which size.
    prediction : the prediction, printed to its precision (or why there is none).
    measured : the measurement with its 95% interval.
    z : standardised distance (measured − predicted) / standard error (NaN: not tested).
    p_value : p-value of ``test`` in the direction ``alternative`` (NaN: not tested).
    test : the test that gave ``z`` and ``p_value``.
    kind : one of :data:`KINDS`.
    quantity : a key of :data:`TOLERANCES` (needed for every tested claim).
    standard_errors : standard error of each test the claim rests on, on the test's
        scale (log for relative quantities); several for an intersection–union claim.
    df : degrees of freedom of the reference law (``inf``: normal).
    alternative : one of :data:`ALTERNATIVES`.
    count, sample : how many of what the measurement rests on (for the advice of
        an inconclusive claim, e.g. ``64`` ``"instances"``).
    untested : why the claim is not tested (empty when it is).
    undecidable : why the data cannot decide the claim although it has a test
        (e.g. too many undecided instances): the verdict is then inconclusive.
    bracket_width : width of the interval a bracketing measurement leaves the
        quantity in (certified lower and upper bounds; 0 for a point
        measurement), in the tolerance's units: added to the detectable
        deviation, since a deviation inside the bracket cannot be seen.
    note : anything a reader needs to interpret the row.
    adjusted, detectable, tolerance, verdict, advice : set by :func:`judge`
        (``detectable``: the deviation detected with probability :data:`POWER`,
        in the units of ``tolerance``).
    """

    claim: str
    prediction: str
    measured: str
    z: float = math.nan
    p_value: float = math.nan
    test: str = ""
    kind: str = "finite-size"
    quantity: str = ""
    standard_errors: tuple[float, ...] = ()
    df: float = math.inf
    alternative: str = "two-sided"
    count: int = 0
    sample: str = ""
    untested: str = ""
    undecidable: str = ""
    bracket_width: float = 0.0
    note: str = ""
    adjusted: float = math.nan
    detectable: float = math.nan
    tolerance: float = math.nan
    verdict: str = ""
    advice: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            msg = f"kind must be one of {KINDS}, got {self.kind!r}"
            raise ValueError(msg)
        if self.alternative not in ALTERNATIVES:
            msg = f"alternative must be one of {ALTERNATIVES}, got {self.alternative!r}"
            raise ValueError(msg)
        if self.quantity and self.quantity not in TOLERANCES:
            msg = f"quantity must be one of {tuple(TOLERANCES)}, got {self.quantity!r}"
            raise ValueError(msg)
        if not (math.isfinite(self.bracket_width) and self.bracket_width >= 0.0):
            msg = f"bracket_width must be a finite number >= 0, got {self.bracket_width!r}"
            raise ValueError(msg)

    @property
    def tested(self) -> bool:
        """Whether the claim enters the familywise rule."""
        return (
            self.kind != "comparison"
            and not self.untested
            and not self.undecidable
            and math.isfinite(self.p_value)
        )


# -- Holm's rule -------------------------------------------------------------------------------


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as the input)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    count = len(p_values)
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (count - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


# -- power -------------------------------------------------------------------------------------


def _check_probability(name: str, value: float) -> None:
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        msg = f"{name} must lie in (0, 1), got {value!r}"
        raise ValueError(msg)


def _one_test_power(shift: float, df: float, significance: float, alternative: str) -> float:
    """Rejection probability of one test whose statistic is shifted by ``shift`` (units of se)."""
    from scipy import stats  # noqa: PLC0415

    tails = 2.0 if alternative == "two-sided" else 1.0
    if math.isinf(df):
        q = float(stats.norm.isf(significance / tails))
        upper, lower = float(stats.norm.sf(q - shift)), float(stats.norm.cdf(-q - shift))
    else:
        q = float(stats.t.isf(significance / tails, df))
        upper, lower = float(stats.nct.sf(q, df, shift)), float(stats.nct.cdf(-q, df, shift))
        if not (math.isfinite(upper) and math.isfinite(lower)):
            # far tails where scipy's noncentral t gives NaN: the statistic is then
            # all but surely on the side of the shift
            upper, lower = (1.0, 0.0) if shift > 0 else (0.0, 1.0)
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return upper + lower


def power(
    deviation: float,
    standard_errors: Sequence[float],
    *,
    significance: float,
    df: float = math.inf,
    alternative: str = "two-sided",
) -> float:
    r"""Probability that a claim off by ``deviation`` (test scale) is rejected at ``significance``.

    Product over the claim's tests (intersection–union; a lower bound for
    positively dependent tests, see the module docstring).  For ``"less"`` the
    deviation is the distance below the prediction (a positive number).

    Examples
    --------
    >>> round(power(2.8016 * 0.01, [0.01], significance=0.05), 3)  # 1.96 + 0.84 standard errors
    0.8
    """
    _check_probability("significance", significance)
    if alternative not in ALTERNATIVES:
        msg = f"alternative must be one of {ALTERNATIVES}, got {alternative!r}"
        raise ValueError(msg)
    signed = -deviation if alternative == "less" else deviation
    result = 1.0
    for error in standard_errors:
        if not (math.isfinite(error) and error > 0):
            return 0.0
        result *= _one_test_power(signed / error, df, significance, alternative)
    return result


def detectable_deviation(
    standard_errors: Sequence[float],
    *,
    significance: float,
    df: float = math.inf,
    alternative: str = "two-sided",
    target: float = POWER,
) -> float:
    r"""Smallest deviation (test scale) rejected with probability ``target`` at ``significance``.

    ``inf`` when a standard error is not finite or no deviation reaches the target.

    Examples
    --------
    >>> round(detectable_deviation([1.0], significance=0.05), 4)  # z_0.975 + z_0.8
    2.8016
    >>> round(detectable_deviation([1.0], significance=0.05, alternative="greater"), 4)
    2.4865
    """
    from scipy import optimize  # noqa: PLC0415

    _check_probability("target", target)
    _check_probability("significance", significance)
    if not standard_errors or not all(math.isfinite(e) and e > 0 for e in standard_errors):
        return math.inf
    scale = max(standard_errors)

    def gap(deviation: float) -> float:
        return power(
            deviation, standard_errors, significance=significance, df=df, alternative=alternative
        ) - (target)

    high = scale
    while gap(high) < 0:
        high *= 2.0
        if high > 1e6 * scale:
            return math.inf
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-12 * scale, rtol=1e-12))


def in_units(deviation: float, tolerance: Tolerance) -> float:
    """A deviation on the test scale in the tolerance's units (relative: :math:`e^\\Delta - 1`)."""
    return math.expm1(deviation) if tolerance.relative else deviation


# -- verdicts ----------------------------------------------------------------------------------


def _tolerances(overrides: Mapping[str, float] | None) -> dict[str, Tolerance]:
    chosen = dict(TOLERANCES)
    for quantity, value in (overrides or {}).items():
        if quantity not in TOLERANCES:
            msg = f"tolerances: quantity must be one of {tuple(TOLERANCES)}, got {quantity!r}"
            raise ValueError(msg)
        chosen[quantity] = dataclasses.replace(TOLERANCES[quantity], value=float(value))
    return chosen


def _bracket_advice(claim: Claim, detectable: float, tolerance: Tolerance) -> str:
    """What would make an inconclusive bracketing claim conclusive (its width, then its statistics)."""

    def show(value: float) -> str:
        return f"{100 * value:.1f}%" if tolerance.relative else f"{value:.3f}"

    width = claim.bracket_width
    statistical = detectable - width
    text = (
        f"detects {show(detectable)} > {tolerance.text()}: {show(width)} of it is the bracket's "
        f"width (the quantity may lie anywhere inside), {show(statistical)} the statistics"
    )
    if statistical < tolerance.value:
        return text + f"; needs a bracket narrower than {show(tolerance.value - statistical)}"
    factor = (statistical / tolerance.value) ** 2
    more = f"about {factor:.1f}× the {claim.sample or 'data'}"
    if claim.count:
        more += f" (≈ {math.ceil(factor * claim.count)})"
    return text + f"; needs a narrower bracket, and {more} to bring the statistics alone to it"


def _advice(claim: Claim, detectable: float, tolerance: Tolerance) -> str:
    """What would make an inconclusive claim conclusive."""
    shown = f"{100 * detectable:.1f}%" if tolerance.relative else f"{detectable:.3f}"
    if not math.isfinite(detectable):
        return "the measurement has no finite standard error: more data near the prediction"
    if claim.bracket_width > 0.0:
        return _bracket_advice(claim, detectable, tolerance)
    factor = (detectable / tolerance.value) ** 2
    if claim.kind == "asymptotic":
        return (
            f"detects {shown} > {tolerance.text()}: needs about {factor:.0f}× the information "
            "per size, or more and larger sizes"
        )
    more = f"about {factor:.1f}× the {claim.sample or 'data'}"
    if claim.count:
        more += f" (≈ {math.ceil(factor * claim.count)})"
    return f"detects {shown} > {tolerance.text()}: needs {more}"


def _verdict(claim: Claim, significance: float, tolerance: Tolerance | None) -> tuple[str, str]:
    if claim.kind == "comparison":
        return "comparison (not judged)", ""
    if claim.undecidable:
        return "inconclusive", claim.undecidable
    if not claim.tested:
        return f"not tested: {claim.untested or 'no p-value'}", ""
    if claim.adjusted <= significance:
        return "inconsistent", ""
    assert tolerance is not None  # a tested claim has a quantity (checked in judge)
    if claim.detectable <= tolerance.value:
        return "consistent", ""
    return "inconclusive", _advice(claim, claim.detectable, tolerance)


@renamed_keywords(level="significance")
def judge(
    claims: Sequence[Claim],
    significance: float = LEVEL,
    *,
    target_power: float = POWER,
    tolerances: Mapping[str, float] | None = None,
) -> list[Claim]:
    """Verdicts for ``claims``: Holm's rule over all tested claims and each claim's power.

    Parameters
    ----------
    claims : the claims of one run.
    significance : familywise significance level, in (0, 1): the largest accepted
        probability of any false "inconsistent" in a run (``level=`` is its deprecated
        name).
    target_power : power at which the detectable deviation is stated, in (0, 1).
    tolerances : overrides of :data:`TOLERANCES` (quantity -> value > 0).

    Returns
    -------
    list of Claim
        With ``adjusted``, ``detectable``, ``tolerance``, ``verdict`` and ``advice`` set.
    """
    _check_probability("significance", significance)
    _check_probability("target_power", target_power)
    chosen = _tolerances(tolerances)
    tested = [i for i, claim in enumerate(claims) if claim.tested]
    for index in tested:
        if not claims[index].quantity:
            msg = (
                f"claim {claims[index].claim!r} is tested but has no quantity; "
                f"accepted quantities: {tuple(chosen)}"
            )
            raise ValueError(msg)
    adjusted = dict(zip(tested, holm_adjusted([claims[i].p_value for i in tested]), strict=True))
    first_step = significance / max(1, len(tested))
    judged = []
    for index, claim in enumerate(claims):
        tolerance = chosen.get(claim.quantity)
        detectable = math.nan
        if tolerance is not None and claim.kind != "comparison" and claim.standard_errors:
            deviation = detectable_deviation(
                claim.standard_errors,
                significance=first_step,
                df=claim.df,
                alternative=claim.alternative,
                target=target_power,
            )
            detectable = in_units(deviation, tolerance) + claim.bracket_width
        with_numbers = dataclasses.replace(
            claim,
            adjusted=adjusted.get(index, math.nan),
            detectable=detectable,
            tolerance=math.nan if tolerance is None else tolerance.value,
        )
        verdict, advice = _verdict(with_numbers, significance, tolerance)
        judged.append(dataclasses.replace(with_numbers, verdict=verdict, advice=advice))
    return judged


def verdict_word(verdict: str) -> str:
    """The word of a verdict (one of :data:`VERDICTS`), without its reason."""
    return verdict.split(":", maxsplit=1)[0].split(" (", maxsplit=1)[0]


def verdict_counts(claims: Sequence[Claim]) -> dict[str, int]:
    """Number of claims per verdict word, the three verdicts always present."""
    counts = {"consistent": 0, "inconsistent": 0, "inconclusive": 0}
    for claim in claims:
        word = verdict_word(claim.verdict)
        counts[word] = counts.get(word, 0) + 1
    return counts


def counts_text(claims: Sequence[Claim]) -> str:
    """``"3 consistent, 0 inconsistent, 12 inconclusive, 2 not tested, 5 comparison"``."""
    counts = verdict_counts(claims)
    order = [word for word in VERDICTS if word in counts]
    return ", ".join(f"{counts[word]} {word}" for word in order)


def tolerance_table(tolerances: Mapping[str, float] | None = None) -> str:
    """Markdown table of the tolerances of scientific interest (report and docs)."""
    lines = ["| quantity | tolerance | meaning |", "| --- | --- | --- |"]
    for tolerance in _tolerances(tolerances).values():
        lines.append(f"| {tolerance.quantity} | {tolerance.text()} | {tolerance.meaning} |")
    return "\n".join(lines)
