"""Report: the claims table, Holm's rule and the verdict words."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments._report import (
    Claim,
    claims_table,
    holm_adjusted,
    judge,
    markdown_table,
    verdict_counts,
)
from lamcap.experiments._sweep import Cell


def _row(model: str, p_c: float, low: float, high: float, theory: float) -> TransitionRow:
    return TransitionRow(
        cell=Cell(12, 1.0, model, "auto"),
        instances=60,
        undecided=0,
        p_c=p_c,
        low=low,
        high=high,
        bracketed=True,
        theory=theory,
        finite_theory=theory,
    )


def _holm_by_definition(p_values: list[float], level: float) -> list[bool]:
    """Holm's step-down procedure as stated in Holm (1979): reject while p_(j) <= level/(k-j+1)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, index in enumerate(order):
        if p_values[index] > level / (len(p_values) - rank):
            break
        rejected[index] = True
    return rejected


def test_holm_adjusted_matches_the_step_down_procedure() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        count = int(rng.integers(1, 12))
        p_values = list(rng.uniform(0, 0.1, count) ** rng.uniform(0.5, 2))
        adjusted = holm_adjusted(p_values)
        for level in (0.01, 0.05, 0.1):
            assert [a <= level for a in adjusted] == _holm_by_definition(p_values, level)


def test_holm_controls_the_familywise_rate_and_the_uncorrected_rule_does_not() -> None:
    # 14 true claims with exact (uniform) p-values: Holm's familywise rate is
    # 1 - (1 - 0.05/14)^14 = 4.88% under independence; the per-claim rule gives 51%.
    rng = np.random.default_rng(11)
    runs = 20000
    p_values = rng.uniform(size=(runs, 14))
    holm = sum(any(a <= 0.05 for a in holm_adjusted(list(row))) for row in p_values)
    uncorrected = int(np.sum(np.any(p_values < 0.05, axis=1)))
    expected = 1 - (1 - 0.05 / 14) ** 14
    tolerance = 4 * math.sqrt(expected * (1 - expected) / runs)
    assert abs(holm / runs - expected) < tolerance
    assert uncorrected / runs > 0.45


def test_judge_words_and_what_is_judged() -> None:
    claims = judge(
        [
            Claim("a", "1", "1.1 [0.9, 1.3]", z=0.5, p_value=0.6, test="t"),
            Claim("b", "1", "3.0 [2.8, 3.2]", z=9.0, p_value=1e-9, test="t"),
            Claim("c", "–", "2.0", untested="no finite-size prediction yet"),
            Claim("d", "1", "5.0", z=20.0, p_value=1e-12, test="t", kind="comparison"),
        ]
    )
    assert [c.verdict for c in claims] == [
        "consistent",
        "inconsistent",
        "not tested: no finite-size prediction yet",
        "comparison (not judged)",
    ]
    # only a and b are in the family: Holm multiplies the smallest by 2
    assert claims[1].adjusted == pytest.approx(2e-9)
    assert math.isnan(claims[3].adjusted)
    assert verdict_counts(claims) == {
        "consistent": 1,
        "inconsistent": 1,
        "not tested": 1,
        "comparison": 1,
    }


def test_claims_table_layout() -> None:
    claims = judge(
        [Claim("b", "1.000 (law)", "3 [2, 4]", z=2.5, p_value=0.0004, test="t", note="n")]
    )
    lines = claims_table(claims).splitlines()
    assert lines[0].startswith("| claim | kind | finite-size prediction | measured [95% interval]")
    assert lines[2] == (
        "| b | finite-size | 1.000 (law) | 3 [2, 4] | t | 2.50 | <0.001 | <0.001 | "
        "**inconsistent** — n |"
    )


def test_no_claim_can_be_called_no() -> None:
    words = {
        judge([c])[0].verdict.split(":")[0]
        for c in itertools.chain(
            [Claim("x", "1", "1", z=z, p_value=p, test="t") for z, p in ((0, 1), (5, 1e-7))],
            [Claim("x", "1", "1", untested="why")],
        )
    }
    assert words == {"consistent", "inconsistent", "not tested"}


def test_transition_table_markdown() -> None:
    text = markdown_table([_row("decoupled", 40.5, 39, 42, 40.0)])
    assert "| 12 | 1 | decoupled | auto | 60 | 40.50 [39.00, 42.00] |" in text
    assert "+1.2%" in text
