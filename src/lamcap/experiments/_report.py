r"""Markdown report of a reproduction: claims, predictions, measurements, verdicts.

A :class:`Claim` is one line of the report: what is claimed, the finite-size
prediction (printed to its own precision), the measurement with its 95%
interval, a standardised distance ``z`` and the two-sided p-value of a stated
test.  :func:`judge` turns the p-values of *all* tested claims of a run into
verdicts with Holm's step-down rule, so that the probability of calling any
true claim "inconsistent" in a run is at most ``level`` (5%), whatever the
dependence between the claims:

.. math::

    \tilde p_{(i)} = \max_{j \le i} \min\{1, (k - j + 1)\, p_{(j)}\}, \qquad
    \text{inconsistent} \iff \tilde p \le \text{level},

with :math:`p_{(1)} \le \dots \le p_{(k)}` the sorted p-values of the
:math:`k` tested claims (Holm 1979).  Holm rather than Bonferroni because it
rejects everything Bonferroni rejects and more, under the same (no)
assumptions; rather than Hochberg or Benjamini–Hochberg because those need
positive dependence or control a different error rate.

Verdicts: ``consistent`` (the data do not contradict the prediction at the
familywise 5% level; not a proof, see the interval), ``inconsistent``,
``not tested: <reason>`` (no finite-size prediction, nothing measured, too few
sizes) and ``comparison`` (a labelled comparison that is not judged).

:func:`claims_table` renders the claims; :func:`markdown_table` the fitted
transitions.

Examples
--------
>>> claims = judge([Claim("p_c(12)", "40.0", "39.1 [37.0, 41.2]", z=-0.8, p_value=0.42, test="LR")])
>>> claims[0].verdict
'consistent'
>>> [round(v, 3) for v in holm_adjusted([0.01, 0.04, 0.03])]
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from lamcap.experiments._analysis import TransitionRow

LEVEL = 0.05
"""Familywise level: the largest accepted probability of any false "inconsistent" in a run."""

KINDS = ("finite-size", "asymptotic", "comparison")
"""What a claim is about: one size, the limit d → ∞ (judged by the trend), or a comparison."""


@dataclass(frozen=True)
class Claim:
    """One line of the report.

    Attributes
    ----------
    claim : what is claimed, at which size.
    prediction : the finite-size prediction, printed to its precision (or why there is none).
    measured : the measurement with its 95% interval.
    z : standardised distance (measured − predicted) / standard error (NaN: not tested).
    p_value : two-sided p-value of ``test`` (NaN: not tested).
    test : the test that gave ``z`` and ``p_value``.
    kind : one of :data:`KINDS`.
    untested : why the claim is not tested (empty when it is).
    note : anything a reader needs to interpret the row.
    adjusted : Holm-adjusted p-value (set by :func:`judge`).
    verdict : set by :func:`judge`.
    """

    claim: str
    prediction: str
    measured: str
    z: float = math.nan
    p_value: float = math.nan
    test: str = ""
    kind: str = "finite-size"
    untested: str = ""
    note: str = ""
    adjusted: float = math.nan
    verdict: str = ""

    @property
    def tested(self) -> bool:
        """Whether the claim enters the familywise rule."""
        return self.kind != "comparison" and not self.untested and math.isfinite(self.p_value)


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


def _verdict(claim: Claim, level: float) -> str:
    if claim.kind == "comparison":
        return "comparison (not judged)"
    if not claim.tested:
        return f"not tested: {claim.untested or 'no p-value'}"
    return "inconsistent" if claim.adjusted <= level else "consistent"


def judge(claims: Sequence[Claim], level: float = LEVEL) -> list[Claim]:
    """Verdicts for ``claims`` with Holm's rule over all tested claims (module docstring)."""
    tested = [i for i, claim in enumerate(claims) if claim.tested]
    adjusted = dict(zip(tested, holm_adjusted([claims[i].p_value for i in tested]), strict=True))
    judged = []
    for index, claim in enumerate(claims):
        with_p = dataclasses.replace(claim, adjusted=adjusted.get(index, math.nan))
        judged.append(dataclasses.replace(with_p, verdict=_verdict(with_p, level)))
    return judged


def verdict_counts(claims: Sequence[Claim]) -> dict[str, int]:
    """Number of claims per verdict word (``not tested`` pooled over reasons)."""
    counts: dict[str, int] = {}
    for claim in claims:
        word = claim.verdict.split(":")[0].split(" (")[0]
        counts[word] = counts.get(word, 0) + 1
    return counts


def _statistic(value: float, digits: int) -> str:
    return "–" if not math.isfinite(value) else f"{value:.{digits}f}"


def _p_value(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def claims_table(claims: Sequence[Claim]) -> str:
    """Markdown table: claim, prediction, measured, test, z, p, Holm p, verdict."""
    lines = [
        (
            "| claim | kind | finite-size prediction | measured [95% interval] | test | z | p "
            "| Holm p | verdict |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for claim in claims:
        verdict = f"**{claim.verdict}**" if claim.verdict == "inconsistent" else claim.verdict
        if claim.note:
            verdict += f" — {claim.note}"
        lines.append(
            f"| {claim.claim} | {claim.kind} | {claim.prediction} | {claim.measured} | "
            f"{claim.test or '–'} | {_statistic(claim.z, 2)} | {_p_value(claim.p_value)} | "
            f"{_p_value(claim.adjusted)} | {verdict} |"
        )
    return "\n".join(lines)


def _number(value: float, digits: int = 2) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(rows: Sequence[TransitionRow]) -> str:
    """Markdown table of fitted transitions next to the predictions.

    "theory p" is ``critical_p(d, κ)`` (Hebbian: the d → ∞ law); "finite-size
    p" the Crofton median (Hebbian: the exact finite-d law); "gap" compares the
    measurement with the reference prediction (:attr:`TransitionRow.reference`).
    """
    lines = [
        (
            "| d | κ | model | method | instances | p_c [95% CI] | α_c [95% CI] | "
            "theory p | finite-size p | gap |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        alpha, alpha_low, alpha_high = row.alpha
        bracket = "" if row.bracketed else " (not bracketed)"
        gap = "–" if math.isnan(row.reference) else f"{100 * row.relative_gap:+.1f}%"
        lines.append(
            f"| {row.cell.d} | {row.cell.kappa:g} | {row.cell.model} | {row.cell.method} | "
            f"{row.instances} | {row.p_c:.2f} [{row.low:.2f}, {row.high:.2f}]{bracket} | "
            f"{alpha:.3f} [{alpha_low:.3f}, {alpha_high:.3f}] | {_number(row.theory)} | "
            f"{_number(row.finite_theory)} | {gap} |"
        )
    return "\n".join(lines)
