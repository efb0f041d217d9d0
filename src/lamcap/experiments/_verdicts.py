r"""Verdicts by agreement: how ``lamcap reproduce`` decides what its data say about a claim.

A :class:`Claim` is one judged statement of a run: a prediction, a
measurement, the deviation (measured − predicted) with its standard error on
the test's scale, the law's own stated error, and a point-null test of the
law's exactness.  :func:`judge` decides whether the measurement *agrees with
the prediction within the claim's tolerance* (:data:`TOLERANCES`, fixed per
quantity before any data are seen, or the user's), by an interval rule — the
interval form of two one-sided tests of equivalence (Schuirmann 1987; Wellek,
*Testing Statistical Hypotheses of Equivalence and Noninferiority*):

* every judged claim gets a **familywise interval** for its deviation: the
  simultaneous Bonferroni interval over the :math:`k` judged claims of the run,

  .. math::

      I = \bigl[\min_i(\hat\Delta_i - q\,s_i) - e,\;
               \max_i(\hat\Delta_i + q\,s_i) + e\bigr],
      \qquad q = t_\nu^{-1}\!\Bigl(1 - \frac{\alpha}{2k}\Bigr),

  the hull over the claim's estimates :math:`\hat\Delta_i` (one for a point
  measurement; the two ends of a bracket of certified bounds; the two
  extrapolations of a trend), widened on both sides by the law's own stated
  error :math:`e` (a model's measured error, a fitted law's band);
  the probability that any of the :math:`k` intervals misses its true deviation is
  at most :math:`\alpha` = :data:`LEVEL` (Bonferroni's inequality, whatever
  the dependence between the claims);
* ``consistent`` — :math:`I` lies inside :math:`[-\tau, \tau]` (τ the
  tolerance); ``inconsistent`` — :math:`I` lies wholly outside it;
  ``inconclusive`` — otherwise.

A claim whose truth lies within the tolerance is called inconsistent only when
its interval misses the truth, and one whose truth lies outside is called
consistent only then too: both errors are at most :math:`\alpha` per run,
familywise.  A real deviation smaller than the tolerance is *consistent*
once the data are plentiful, not "inconsistent"; whether the law is *exact*
is a separate question, answered beside the verdict (``exactness``): the
point-null test of no deviation (``p_value``), Holm-adjusted over the run
(Holm 1979), says "bias detected" with the estimate when it rejects.

Relative quantities (transition points, ratios) are tested on the log scale;
their intervals and tolerances are printed as relative deviations
:math:`e^{\Delta} - 1`.  One-sided claims (``alternative="greater"``: the
measurement is a lower bound on the quantity, as the two-layer trainer's
transition is on the rank-r capacity) have :math:`I = [\min_i(\hat\Delta_i -
q_1 s_i) - e, \infty)` with :math:`q_1 = t^{-1}_\nu(1 - \alpha/k)`: they can be
found inconsistent, never consistent.

The floor
---------
With unlimited instances the statistical part :math:`q s_i` vanishes and the
interval keeps the half-width

.. math::

    \phi = e + \tfrac12\bigl(\max_i \hat\Delta_i - \min_i \hat\Delta_i\bigr),

the law's error plus half the spread of the estimates (a bracket's half-width,
half the gap between two extrapolations): the **floor**, the smallest
tolerance the claim could reach.  When :math:`\phi \ge \tau` no sample size can
make the claim consistent, and an undecided row says so with the numbers,
without advising more instances.  Otherwise it says how many times the
instances would bring the interval to a decision at the current estimate,
:math:`(s/s')^2` with :math:`q s' = \tau - \phi - |c|` (or :math:`|c| - \phi -
\tau`), :math:`c` the centre of the estimates, since standard errors fall like
:math:`1/\sqrt N`.

Examples
--------
>>> claim = Claim("p_c(16)", "61.7", "62.3 [61.6, 63.0]", z=1.7, p_value=0.09,
...               test="LR shift", quantity="transition", estimates=(0.01,),
...               standard_errors=(0.003,), count=900, sample="instances")
>>> judged = judge([claim])[0]
>>> judged.verdict, [round(100 * end, 2) for end in judged.interval]
('consistent', [0.41, 1.6])
>>> judge([claim], tolerances={"transition": 0.003})[0].verdict
'inconsistent'
>>> judge([dataclasses.replace(claim, law_error=0.03)])[0].advice[:38]
'cannot be decided at a tolerance of 2%'
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

from lamcap._deprecation import renamed_keywords

LEVEL = 0.05
"""Familywise level: the largest accepted probability that any interval of a run misses."""

KINDS = ("finite-size", "asymptotic", "comparison")
"""What a claim is about: one size, the limit d → ∞ (judged by the trend), or a comparison."""

ALTERNATIVES = ("two-sided", "greater", "less")
"""Which deviations a claim's measurement can show: both sides, or only above / below
(a measured lower / upper bound on the quantity)."""

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
        if self.relative and not self.value < 1:
            msg = (
                f"a relative tolerance must lie in (0, 1), got {self.value!r} "
                f"for quantity {self.quantity!r}"
            )
            raise ValueError(msg)

    def text(self) -> str:
        """The tolerance in the quantity's units (``2%`` or ``0.05``)."""
        return f"{100 * self.value:g}%" if self.relative else f"{self.value:g}"

    def show(self, value: float, digits: int = 1) -> str:
        """A deviation in the tolerance's units: ``-1.0%`` or ``-0.012``."""
        if not math.isfinite(value):
            return "∞" if value > 0 else "-∞"
        if self.relative:
            return f"{100 * value:+.{digits}f}%"
        return f"{value:+.{digits + 2}f}"

    def to_units(self, deviation: float) -> float:
        """A deviation on the test scale in the tolerance's units (relative: :math:`e^\\Delta - 1`)."""
        if not self.relative or not math.isfinite(deviation):
            return deviation
        return math.expm1(deviation)

    def from_units(self, deviation: float) -> float:
        """A deviation in the tolerance's units on the test scale (relative: :math:`\\log(1 + x)`)."""
        return math.log1p(deviation) if self.relative else deviation

    def on_scale(self) -> float:
        """The tolerance on the test scale, the narrower side: :math:`\\log(1 + \\tau)` if relative."""
        return self.from_units(self.value)


TOLERANCES: dict[str, Tolerance] = {
    tolerance.quantity: tolerance
    for tolerance in (
        Tolerance("transition", 0.02, True, "transition point p_c (50% storable), relative"),
        Tolerance("ratio", 0.02, True, "ratio of two transitions (OP/DP, measured/Crofton)"),
        Tolerance("spectrum", 0.05, False, "E[s⁴]/E[s²]² of a weight matrix, absolute"),
        Tolerance("score", 0.05, False, "mean normalised target score, absolute"),
        Tolerance("recall", 0.01, False, "recall probability, absolute"),
        Tolerance(
            "accuracy",
            0.01,
            False,
            "best accuracy of the n associations, absolute (2% in p at 1.25-1.5 p_c)",
        ),
    )
}
"""Default tolerance of scientific interest per quantity, fixed before any data are seen."""


@dataclass(frozen=True)
class Claim:
    """One line of a reproduction report.

    Attributes
    ----------
    claim : what is claimed, at which size.
    prediction : the prediction, printed to its precision (or why there is none).
    measured : the measurement with its 95% interval.
    z : standardised distance of the point-null test (NaN: not tested).
    p_value : p-value of the point-null test "no deviation" (the law's exactness).
    test : the test that gave ``z`` and ``p_value``.
    kind : one of :data:`KINDS`.
    quantity : a key of :data:`TOLERANCES` (needed for every tested claim).
    estimates : measured − predicted on the test scale (log for relative
        quantities), one per standard error: one for a point measurement, the
        two ends of a bracket, the two extrapolations of a trend.
    standard_errors : the standard error of each estimate, on the same scale.
    law_error : the law's own stated error on the test scale (a model's
        measured error, a fitted band; 0 for an exact law), which widens the
        interval on both sides.
    df : degrees of freedom of the reference law (``inf``: normal).
    alternative : one of :data:`ALTERNATIVES`.
    count, sample : how many of what the measurement rests on (for the advice,
        e.g. ``64`` ``"decided instances"``).
    cell : the sweep cell the claim measures (``Cell.label()``; empty if none),
        where ``lamcap reproduce`` adds instances.
    untested : why the claim is not tested (empty when it is).
    undecidable : why the data cannot decide the claim although it has a test
        (e.g. too many undecided instances): the verdict is then inconclusive.
    bracket_width : width of the bracket of certified bounds the quantity lies
        in (0 for a point measurement), in the tolerance's units (shown only;
        the rule sees it as the spread of ``estimates``).
    note : anything a reader needs to interpret the row.
    added, allocation : instances added to the claim's cell after the planned
        rounds, and why the adding stopped (set by ``lamcap reproduce``).
    adjusted, interval, floor, tolerance, verdict, advice, exactness : set by
        :func:`judge` (``interval``: the familywise interval of the deviation and
        ``floor`` its half-width with unlimited data, both in the tolerance's units).
    """

    claim: str
    prediction: str
    measured: str
    z: float = math.nan
    p_value: float = math.nan
    test: str = ""
    kind: str = "finite-size"
    quantity: str = ""
    estimates: tuple[float, ...] = ()
    standard_errors: tuple[float, ...] = ()
    law_error: float = 0.0
    df: float = math.inf
    alternative: str = "two-sided"
    count: int = 0
    sample: str = ""
    cell: str = ""
    untested: str = ""
    undecidable: str = ""
    bracket_width: float = 0.0
    note: str = ""
    added: int = 0
    allocation: str = ""
    adjusted: float = math.nan
    interval: tuple[float, float] = (math.nan, math.nan)
    floor: float = math.nan
    tolerance: float = math.nan
    verdict: str = ""
    advice: str = ""
    exactness: str = ""

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
        if not (math.isfinite(self.law_error) and self.law_error >= 0.0):
            msg = f"law_error must be a finite number >= 0, got {self.law_error!r}"
            raise ValueError(msg)
        if self.estimates and len(self.estimates) != len(self.standard_errors):
            msg = (
                f"estimates must have one entry per standard error, got {len(self.estimates)} "
                f"estimates and {len(self.standard_errors)} standard errors"
            )
            raise ValueError(msg)

    @property
    def tested(self) -> bool:
        """Whether the claim is judged: it has a test, estimates and their standard errors."""
        return (
            self.kind != "comparison"
            and not self.untested
            and not self.undecidable
            and math.isfinite(self.p_value)
            and bool(self.estimates)
            and all(math.isfinite(e) for e in self.estimates)
            and all(math.isfinite(s) and s > 0 for s in self.standard_errors)
        )


# -- Holm's rule (exactness) ------------------------------------------------------------------


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


# -- the familywise interval ------------------------------------------------------------------


def _check_probability(name: str, value: float) -> None:
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        msg = f"{name} must lie in (0, 1), got {value!r}"
        raise ValueError(msg)


def familywise_quantile(
    claims: int, *, significance: float = LEVEL, df: float = math.inf, sides: int = 2
) -> float:
    r"""Bonferroni quantile of one of ``claims`` simultaneous intervals.

    :math:`t_\nu^{-1}(1 - \alpha/(\text{sides}\cdot k))` (normal for
    :math:`\nu = \infty`): with it, the chance that any of the :math:`k`
    intervals misses is at most :math:`\alpha`.

    Examples
    --------
    >>> round(familywise_quantile(1), 4), round(familywise_quantile(15), 4)
    (1.96, 2.9352)
    """
    _check_probability("significance", significance)
    if claims < 1:
        msg = f"claims must be an integer >= 1, got {claims!r}"
        raise ValueError(msg)
    tail = significance / (sides * claims)
    return float(stats.norm.isf(tail) if math.isinf(df) else stats.t.isf(tail, df))


def scale_interval(claim: Claim, quantile: float) -> tuple[float, float]:
    """The claim's interval on the test scale for a two-sided ``quantile`` (module docstring).

    One-sided claims use the one-sided quantile of the same family, which the
    caller passes as ``quantile`` (:func:`familywise_quantile` with ``sides=1``).
    """
    lows = [e - quantile * s for e, s in zip(claim.estimates, claim.standard_errors, strict=True)]
    highs = [e + quantile * s for e, s in zip(claim.estimates, claim.standard_errors, strict=True)]
    low, high = min(lows) - claim.law_error, max(highs) + claim.law_error
    if claim.alternative == "greater":
        return low, math.inf
    if claim.alternative == "less":
        return -math.inf, high
    return low, high


def floor_on_scale(claim: Claim) -> float:
    """Half-width of the claim's interval with unlimited data (``inf`` for a one-sided claim)."""
    if claim.alternative != "two-sided":
        return math.inf
    spread = max(claim.estimates) - min(claim.estimates) if claim.estimates else 0.0
    return claim.law_error + 0.5 * spread


# -- verdicts ----------------------------------------------------------------------------------


def chosen_tolerances(overrides: Mapping[str, float] | None = None) -> dict[str, Tolerance]:
    """:data:`TOLERANCES` with the user's ``overrides`` (quantity -> value), each checked."""
    chosen = dict(TOLERANCES)
    for quantity, value in (overrides or {}).items():
        if quantity not in TOLERANCES:
            msg = f"tolerances: quantity must be one of {tuple(TOLERANCES)}, got {quantity!r}"
            raise ValueError(msg)
        chosen[quantity] = dataclasses.replace(TOLERANCES[quantity], value=float(value))
    return chosen


def parse_tolerance(text: str) -> tuple[str, float]:
    """Read ``QUANTITY=VALUE`` (``lamcap reproduce --tolerance``) into a checked pair.

    Examples
    --------
    >>> parse_tolerance("transition=0.01")
    ('transition', 0.01)
    >>> parse_tolerance("spectra=0.1")
    Traceback (most recent call last):
        ...
    ValueError: tolerance: quantity must be one of ('transition', 'ratio', 'spectrum', 'score', 'recall', 'accuracy'), got 'spectra'
    """
    quantity, sign, value = text.partition("=")
    quantity = quantity.strip()
    if not sign:
        msg = f"tolerance must be QUANTITY=VALUE, e.g. transition=0.01, got {text!r}"
        raise ValueError(msg)
    if quantity not in TOLERANCES:
        msg = f"tolerance: quantity must be one of {tuple(TOLERANCES)}, got {quantity!r}"
        raise ValueError(msg)
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    upper = " and < 1 (a fraction)" if TOLERANCES[quantity].relative else ""
    if not (math.isfinite(number) and number > 0 and (number < 1 or not upper)):
        msg = f"tolerance {quantity} must be a number > 0{upper}, got {value.strip()!r}"
        raise ValueError(msg)
    return quantity, number


def _cannot_decide(claim: Claim, tolerance: Tolerance, floor: float) -> str:
    """Why no sample size decides ``claim`` at ``tolerance``: its floor, with the numbers."""
    head = f"cannot be decided at a tolerance of {tolerance.text()}"
    if claim.alternative != "two-sided":
        return (
            head + ": the measurement is a bound on one side only, so it can contradict the "
            "prediction but never show agreement"
        )
    parts = []
    if claim.law_error > 0:
        parts.append(
            f"the law's own error ±{tolerance.show(tolerance.to_units(claim.law_error))[1:]}"
        )
    spread = floor_on_scale(claim) - claim.law_error
    if spread > 0:
        what = (
            "the bracket's half-width"
            if claim.kind != "asymptotic"
            else ("half the gap between the 1/d and 1/log p extrapolations")
        )
        parts.append(f"{what} {tolerance.show(tolerance.to_units(spread))[1:]}")
    return f"{head}: its floor is {tolerance.show(floor)[1:]} ({' plus '.join(parts)})"


def _times(factor: float) -> str:
    """A factor to its precision: ``4.8×`` below 100, two significant digits above (``170000×``)."""
    return f"{factor:.1f}×" if factor < 100 else f"{float(f'{factor:.2g}'):.0f}×"


def _more_data(claim: Claim, tolerance: Tolerance, quantile: float) -> str:
    """What would decide an undecided claim whose floor is below its tolerance."""
    centre = 0.5 * (max(claim.estimates) + min(claim.estimates))
    room = tolerance.on_scale() - floor_on_scale(claim)
    inside, outside = room - abs(centre), abs(centre) - floor_on_scale(claim) - tolerance.on_scale()
    margin = max(inside, outside)
    if margin <= 0:
        floor = tolerance.show(tolerance.to_units(floor_on_scale(claim)))[1:]
        return (
            f"the estimate {tolerance.show(tolerance.to_units(centre))} lies within the floor "
            f"({floor}) of the tolerance's edge ±{tolerance.text()}: at the current estimate no "
            "sample size decides it"
        )
    factor = (quantile * max(claim.standard_errors) / margin) ** 2
    if claim.kind == "asymptotic":
        return (
            f"at the current estimate: needs about {_times(factor)} the information per size, "
            "or more and larger sizes"
        )
    more = f"about {_times(factor)} the {claim.sample or 'data'}"
    if claim.count:
        more += f" (≈ {math.ceil(factor * claim.count)})"
    return f"at the current estimate: needs {more}"


def _exactness(claim: Claim, tolerance: Tolerance, significance: float, quantile: float) -> str:
    """The answer about the law's exactness: the point-null test, Holm-adjusted over the run."""
    if not math.isfinite(claim.adjusted):
        return ""
    if claim.adjusted > significance:
        return f"no bias detected (Holm p = {claim.adjusted:.2g})"
    centre = 0.5 * (max(claim.estimates) + min(claim.estimates))
    statistical = dataclasses.replace(claim, law_error=0.0, alternative="two-sided")
    low, high = scale_interval(statistical, quantile)
    return (
        f"the law's bias is detected: {tolerance.show(tolerance.to_units(centre))} "
        f"[{tolerance.show(tolerance.to_units(low))}, {tolerance.show(tolerance.to_units(high))}]"
        f" (Holm p = {claim.adjusted:.2g})"
    )


def _judged(claim: Claim, tolerance: Tolerance, significance: float, family: int) -> Claim:
    """One tested claim with its interval, floor, verdict, advice and exactness."""
    sides = 2 if claim.alternative == "two-sided" else 1
    quantile = familywise_quantile(family, significance=significance, df=claim.df, sides=sides)
    two_sided = familywise_quantile(family, significance=significance, df=claim.df)
    low, high = (tolerance.to_units(end) for end in scale_interval(claim, quantile))
    floor = tolerance.to_units(floor_on_scale(claim))
    if -tolerance.value <= low and high <= tolerance.value:
        verdict, advice = "consistent", ""
    elif low > tolerance.value or high < -tolerance.value:
        verdict, advice = "inconsistent", ""
    elif floor >= tolerance.value:
        verdict, advice = "inconclusive", _cannot_decide(claim, tolerance, floor)
    else:
        verdict, advice = "inconclusive", _more_data(claim, tolerance, quantile)
    return dataclasses.replace(
        claim,
        interval=(low, high),
        floor=floor,
        tolerance=tolerance.value,
        verdict=verdict,
        advice=advice,
        exactness=_exactness(claim, tolerance, significance, two_sided),
    )


def _unjudged(claim: Claim, tolerance: Tolerance | None) -> Claim:
    """A claim outside the family: comparison, not tested, or undecidable from its data."""
    value = math.nan if tolerance is None else tolerance.value
    if claim.kind == "comparison":
        return dataclasses.replace(claim, tolerance=value, verdict="comparison (not judged)")
    if claim.undecidable:
        return dataclasses.replace(
            claim, tolerance=value, verdict="inconclusive", advice=claim.undecidable
        )
    reason = claim.untested or "no estimate with a finite standard error"
    return dataclasses.replace(claim, tolerance=value, verdict=f"not tested: {reason}")


@renamed_keywords(level="significance")
def judge(
    claims: Sequence[Claim],
    significance: float = LEVEL,
    *,
    tolerances: Mapping[str, float] | None = None,
) -> list[Claim]:
    """Verdicts for ``claims``: familywise intervals against the tolerances (module docstring).

    Parameters
    ----------
    claims : the claims of one run.
    significance : familywise level α in (0, 1): the largest accepted probability
        that any interval of the run misses its truth, and so of any false
        "inconsistent" or any false "consistent" (``level=`` is its deprecated name).
    tolerances : overrides of :data:`TOLERANCES` (quantity -> value > 0; relative
        tolerances below 1).

    Returns
    -------
    list of Claim
        With ``adjusted``, ``interval``, ``floor``, ``tolerance``, ``verdict``,
        ``advice`` and ``exactness`` set.
    """
    _check_probability("significance", significance)
    chosen = chosen_tolerances(tolerances)
    tested = [i for i, claim in enumerate(claims) if claim.tested]
    for index in tested:
        if not claims[index].quantity:
            msg = (
                f"claim {claims[index].claim!r} is tested but has no quantity; "
                f"accepted quantities: {tuple(chosen)}"
            )
            raise ValueError(msg)
    adjusted = dict(zip(tested, holm_adjusted([claims[i].p_value for i in tested]), strict=True))
    family = max(1, len(tested))
    judged = []
    for index, claim in enumerate(claims):
        tolerance = chosen.get(claim.quantity)
        if index in adjusted and tolerance is not None:
            with_p = dataclasses.replace(claim, adjusted=adjusted[index])
            judged.append(_judged(with_p, tolerance, significance, family))
        else:
            judged.append(_unjudged(claim, tolerance))
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
    """Markdown table of the tolerances used (the defaults, or with the user's overrides)."""
    lines = ["| quantity | tolerance | default | meaning |", "| --- | --- | --- | --- |"]
    for tolerance in chosen_tolerances(tolerances).values():
        default = TOLERANCES[tolerance.quantity]
        lines.append(
            f"| {tolerance.quantity} | {tolerance.text()} | {default.text()} | {tolerance.meaning} |"
        )
    return "\n".join(lines)
