r"""Markdown tables of a reproduction: the judged claims and the fitted transitions.

The verdict logic (claims, familywise intervals, floors, tolerances) lives in
:mod:`lamcap.experiments._verdicts`; this module only renders.
:func:`claims_table` prints one row per claim with its familywise interval,
floor, verdict and exactness; :func:`markdown_table` the fitted transitions.

Examples
--------
>>> from lamcap.experiments._verdicts import Claim, judge
>>> claims = judge([Claim("p_c(12)", "40.0", "39.1 [37.0, 41.2]", z=-0.8, p_value=0.42,
...                       test="LR", quantity="transition", estimates=(-0.023,),
...                       standard_errors=(0.027,))])
>>> print(claims_table(claims).splitlines()[2])  # doctest: +NORMALIZE_WHITESPACE
| p_c(12) | finite-size | 40.0 | 39.1 [37.0, 41.2] | LR | -0.80 | 0.420 | 0.420 |
[-7.3%, +3.0%] (±2%) | 0.0% | inconclusive — at the current estimate: needs about 270× the
data | no bias detected (Holm p = 0.42) | – |
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments._verdicts import TOLERANCES, Claim


def prediction_text(value: float, error: float, source: str) -> str:
    """``value`` printed to its precision ``error`` (absolute), then the source.

    Errors below 5e-4 print three decimals (every digit right); larger ones
    print one digit more than the error allows, followed by ``± error``.

    Examples
    --------
    >>> prediction_text(92.7621, 0.41, "finite-d law")
    '92.8 ± 0.4 (finite-d law)'
    >>> prediction_text(61.68236, 1e-6, "Crofton median")
    '61.682 (Crofton median)'
    """
    if error < 5e-4:
        return f"{value:.3f} ({source})"
    digits = max(0, math.floor(-math.log10(2 * error))) + 1
    return f"{value:.{digits}f} ± {error:.1g} ({source})"


def _statistic(value: float, digits: int) -> str:
    return "–" if not math.isfinite(value) else f"{value:.{digits}f}"


def _p_value(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _interval(claim: Claim) -> str:
    """The familywise interval of the deviation next to the tolerance, in the claim's units."""
    tolerance = TOLERANCES.get(claim.quantity)
    low, high = claim.interval
    if tolerance is None or math.isnan(low) or math.isnan(high):
        return "–"
    return f"[{tolerance.show(low)}, {tolerance.show(high)}] (±{tolerance.text()})"


def _floor(claim: Claim) -> str:
    """The claim's floor in its units (the interval's half-width with unlimited data)."""
    tolerance = TOLERANCES.get(claim.quantity)
    if tolerance is None or math.isnan(claim.floor):
        return "–"
    return "∞ (one-sided)" if math.isinf(claim.floor) else tolerance.show(claim.floor)[1:]


def _added(claim: Claim) -> str:
    """Instances added after the planned rounds, and why the adding stopped."""
    if not claim.allocation:
        return "–"
    return f"{claim.added} ({claim.allocation})"


def claims_summary(claims: Sequence[Claim]) -> str:
    """One line per claim: its verdict and what decided it, or what would.

    Consistent and inconsistent lines give the familywise interval against the
    tolerance; the others the advice (more instances, or the floor that keeps any
    sample size from deciding) or why the claim is not tested.  Measurements shown for
    comparison are counted in one closing line.
    """
    lines = []
    for claim in claims:
        if claim.kind == "comparison":
            continue
        decided = claim.verdict in ("consistent", "inconsistent")
        reason = f"interval {_interval(claim)}" if decided else (claim.advice or claim.untested)
        lines.append(f"- **{claim.verdict}**: {claim.claim}" + (f"; {reason}" if reason else ""))
    shown = sum(claim.kind == "comparison" for claim in claims)
    if shown:
        lines.append(f"- and {shown} measurements shown for comparison, not judged")
    return "\n".join(lines)


def claims_table(claims: Sequence[Claim]) -> str:
    """Markdown table: claim, prediction, measurement, tests, interval, floor, verdict, exactness."""
    lines = [
        (
            "| claim | kind | finite-size prediction | measured [95% interval] | test | z | p "
            "| Holm p | deviation: familywise interval (tolerance) | floor | verdict "
            "| exactness | instances added |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for claim in claims:
        verdict = claim.verdict
        if verdict in ("consistent", "inconsistent"):
            verdict = f"**{verdict}**"
        details = [text for text in (claim.advice, claim.note) if text]
        if details:
            verdict += " — " + "; ".join(details)
        lines.append(
            f"| {claim.claim} | {claim.kind} | {claim.prediction} | {claim.measured} | "
            f"{claim.test or '–'} | {_statistic(claim.z, 2)} | {_p_value(claim.p_value)} | "
            f"{_p_value(claim.adjusted)} | {_interval(claim)} | {_floor(claim)} | {verdict} | "
            f"{claim.exactness or '–'} | {_added(claim)} |"
        )
    return "\n".join(lines)


def _number(value: float, digits: int = 2) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(rows: Sequence[TransitionRow]) -> str:
    """Markdown table of fitted transitions next to the predictions.

    "theory p" is ``critical_p(d, κ)`` (Hebbian: the d → ∞ law); "finite-size
    p" the Crofton median (Hebbian: the finite-d pair law of P(all)); "gap" compares the
    measurement with the reference prediction (:attr:`TransitionRow.reference`).
    """
    lines = [
        (
            "| d | κ | model | embeddings | method | instances | undecided | p_c [95% CI] | "
            "α_c [95% CI] | theory p | finite-size p | gap |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        alpha, alpha_low, alpha_high = row.alpha
        bracket = "" if row.bracketed else " (not bracketed)"
        gap = "–" if math.isnan(row.reference) else f"{100 * row.relative_gap:+.1f}%"
        lines.append(
            f"| {row.cell.d} | {row.cell.kappa:g} | {row.cell.model} | {row.cell.embeddings} | "
            f"{row.cell.method} | "
            f"{row.instances} | {row.undecided} | {row.p_c:.2f} [{row.low:.2f}, {row.high:.2f}]{bracket} | "
            f"{alpha:.3f} [{alpha_low:.3f}, {alpha_high:.3f}] | {_number(row.theory)} | "
            f"{_number(row.finite_theory)} | {gap} |"
        )
    return "\n".join(lines)
