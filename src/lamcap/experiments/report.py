"""Markdown report of a reproduction: claims, predictions, measurements.

:func:`markdown_table` renders the fitted transitions (one line per cell);
:func:`claims_table` renders the "claim — theory — measured — agrees?" table
from :class:`Claim` records; :func:`write_report` assembles ``report.md``.

Examples
--------
>>> print(claims_table([Claim("p_c(12)", "40.0", "39.1 [37, 41]", True)]))
| claim | theory | measured | agrees? |
| --- | --- | --- | --- |
| p_c(12) | 40.0 | 39.1 [37, 41] | yes |
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lamcap.experiments.analysis import TransitionRow

__all__ = ["Claim", "claims_table", "markdown_table"]


@dataclass(frozen=True)
class Claim:
    """One line of the report table; ``agrees`` None means "not measured"."""

    claim: str
    theory: str
    measured: str
    agrees: bool | None
    note: str = ""


def _yes_no(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "**no**")


def claims_table(claims: Sequence[Claim]) -> str:
    """Markdown table "claim — theory — measured — agrees?"."""
    lines = ["| claim | theory | measured | agrees? |", "| --- | --- | --- | --- |"]
    for claim in claims:
        agrees = _yes_no(claim.agrees) + (f" ({claim.note})" if claim.note else "")
        lines.append(f"| {claim.claim} | {claim.theory} | {claim.measured} | {agrees} |")
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
