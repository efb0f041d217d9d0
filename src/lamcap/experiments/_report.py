r"""Markdown tables of a reproduction: the judged claims and the fitted transitions.

The verdict logic (claims, Holm's rule, power, tolerances) lives in
:mod:`lamcap.experiments._verdicts`; this module only renders.
:func:`claims_table` prints one row per claim with its detectable deviation
and verdict; :func:`markdown_table` the fitted transitions.

Examples
--------
>>> from lamcap.experiments._verdicts import Claim, judge
>>> claims = judge([Claim("p_c(12)", "40.0", "39.1 [37.0, 41.2]", z=-0.8, p_value=0.42,
...                       test="LR", quantity="transition", standard_errors=(0.027,))])
>>> print(claims_table(claims).splitlines()[2])
| p_c(12) | finite-size | 40.0 | 39.1 [37.0, 41.2] | LR | -0.80 | 0.420 | 0.420 | 7.9% (2%) | inconclusive — detects 7.9% > 2%: needs about 15.4× the data |
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments._verdicts import TOLERANCES, Claim


def _statistic(value: float, digits: int) -> str:
    return "–" if not math.isfinite(value) else f"{value:.{digits}f}"


def _p_value(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _detectable(claim: Claim) -> str:
    """The detectable deviation at 80% power next to the tolerance, in the claim's units."""
    tolerance = TOLERANCES.get(claim.quantity)
    if tolerance is None or claim.kind == "comparison" or not claim.standard_errors:
        return "–"
    if not math.isfinite(claim.detectable):
        return "∞"
    if tolerance.relative:
        return f"{100 * claim.detectable:.1f}% ({tolerance.text()})"
    return f"{claim.detectable:.3f} ({tolerance.text()})"


def claims_table(claims: Sequence[Claim]) -> str:
    """Markdown table: claim, prediction, measured, test, z, p, Holm p, detectable, verdict."""
    lines = [
        (
            "| claim | kind | finite-size prediction | measured [95% interval] | test | z | p "
            "| Holm p | detectable at 80% (tolerance) | verdict |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for claim in claims:
        verdict = f"**{claim.verdict}**" if claim.verdict == "inconsistent" else claim.verdict
        details = [text for text in (claim.advice, claim.note) if text]
        if details:
            verdict += " — " + "; ".join(details)
        lines.append(
            f"| {claim.claim} | {claim.kind} | {claim.prediction} | {claim.measured} | "
            f"{claim.test or '–'} | {_statistic(claim.z, 2)} | {_p_value(claim.p_value)} | "
            f"{_p_value(claim.adjusted)} | {_detectable(claim)} | {verdict} |"
        )
    return "\n".join(lines)


def _number(value: float, digits: int = 2) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(rows: Sequence[TransitionRow]) -> str:
    """Markdown table of fitted transitions next to the predictions.

    "theory p" is ``critical_p(d, κ)`` (Hebbian: the d → ∞ law); "finite-size
    p" the Crofton median (Hebbian: the finite-d law, P₁ⁿ); "gap" compares the
    measurement with the reference prediction (:attr:`TransitionRow.reference`).
    """
    lines = [
        (
            "| d | κ | model | method | instances | undecided | p_c [95% CI] | α_c [95% CI] | "
            "theory p | finite-size p | gap |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        alpha, alpha_low, alpha_high = row.alpha
        bracket = "" if row.bracketed else " (not bracketed)"
        gap = "–" if math.isnan(row.reference) else f"{100 * row.relative_gap:+.1f}%"
        lines.append(
            f"| {row.cell.d} | {row.cell.kappa:g} | {row.cell.model} | {row.cell.method} | "
            f"{row.instances} | {row.undecided} | {row.p_c:.2f} [{row.low:.2f}, {row.high:.2f}]{bracket} | "
            f"{alpha:.3f} [{alpha_low:.3f}, {alpha_high:.3f}] | {_number(row.theory)} | "
            f"{_number(row.finite_theory)} | {gap} |"
        )
    return "\n".join(lines)
