"""Verdicts by agreement: familywise intervals, the floor, exactness and the three verdict words."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from lamcap.experiments._verdicts import (
    Claim,
    Tolerance,
    counts_text,
    familywise_quantile,
    holm_adjusted,
    judge,
    parse_tolerance,
    tolerance_table,
    verdict_counts,
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


# -- the familywise interval -------------------------------------------------------------------


def test_familywise_quantile_is_bonferronis() -> None:
    assert familywise_quantile(1) == pytest.approx(stats.norm.isf(0.025), rel=1e-12)
    assert familywise_quantile(15) == pytest.approx(stats.norm.isf(0.05 / 30), rel=1e-12)
    assert familywise_quantile(15, df=7) == pytest.approx(stats.t.isf(0.05 / 30, 7), rel=1e-12)
    assert familywise_quantile(4, sides=1) == pytest.approx(stats.norm.isf(0.05 / 4), rel=1e-12)


def test_simultaneous_intervals_cover_every_truth_in_95_percent_of_runs() -> None:
    # 12 independent normal estimates per run, judged as one family: the chance that any
    # interval misses is at most 5% (Bonferroni; 1 - (1 - 0.05/12)^12 = 4.89% here)
    rng = np.random.default_rng(17)
    runs, claims, error = 2000, 12, 0.004
    truths = rng.uniform(-0.03, 0.03, claims)
    missed = 0
    for _ in range(runs):
        estimates = truths + rng.normal(0.0, error, claims)
        judged = judge(
            [_claim(f"c{i}", 0.5, error, estimates=(e,)) for i, e in enumerate(estimates)]
        )
        missed += any(
            not c.interval[0] <= math.expm1(t) <= c.interval[1]
            for c, t in zip(judged, truths, strict=True)
        )
    expected = 1 - (1 - 0.05 / claims) ** claims
    assert abs(missed / runs - expected) < 4 * math.sqrt(expected * (1 - expected) / runs)


# -- verdicts ----------------------------------------------------------------------------------


def _claim(name: str, p_value: float, error: float, **fields: object) -> Claim:
    defaults: dict[str, object] = {
        "z": stats.norm.isf(p_value / 2),
        "p_value": p_value,
        "test": "z",
        "quantity": "transition",
        "standard_errors": (error,),
        "estimates": (0.0 if p_value >= 0.5 else stats.norm.isf(p_value / 2) * error,),
        "count": 100,
        "sample": "instances",
    }
    defaults.update(fields)
    return Claim(name, "1", "1", **defaults)  # type: ignore[arg-type]


def test_three_verdicts_and_rows_outside_the_family() -> None:
    claims = judge(
        [
            _claim("precise, agrees", 0.6, 0.002),
            _claim("imprecise, agrees", 0.6, 0.05),
            _claim("rejected", 1e-9, 0.002, estimates=(0.05,)),
            _claim("undecided", 0.5, 0.002, undecidable="40% undecided in the window"),
            Claim("untested", "–", "2.0", untested="no finite-size prediction yet"),
            Claim("other W", "1", "5.0", z=20.0, p_value=1e-12, test="t", kind="comparison"),
        ]
    )
    assert [c.verdict for c in claims] == [
        "consistent",
        "inconclusive",
        "inconsistent",
        "inconclusive",
        "not tested: no finite-size prediction yet",
        "comparison (not judged)",
    ]
    # three claims in the family: Holm multiplies the smallest p by 3
    assert claims[2].adjusted == pytest.approx(3e-9)
    assert math.isnan(claims[3].adjusted)
    assert math.isnan(claims[5].adjusted)
    assert claims[3].advice == "40% undecided in the window"
    assert claims[2].exactness.startswith("the law's bias is detected: +5.1%")
    assert claims[0].exactness == "no bias detected (Holm p = 1)"
    assert "× the instances" in claims[1].advice
    assert verdict_counts(claims) == {
        "consistent": 1,
        "inconsistent": 1,
        "inconclusive": 2,
        "not tested": 1,
        "comparison": 1,
    }
    assert counts_text(claims) == (
        "1 consistent, 1 inconsistent, 2 inconclusive, 1 not tested, 1 comparison"
    )


def test_a_true_one_percent_bias_is_consistent_at_two_and_inconsistent_at_half_a_percent() -> None:
    # plenty of data (se 0.1%): the interval is about [0.7%, 1.3%]
    claim = _claim("law off by 1%", 1e-12, 0.001, estimates=(math.log1p(0.01),), z=10.0)
    judged = judge([claim])[0]
    assert judged.verdict == "consistent"
    assert judged.exactness.startswith("the law's bias is detected: +1.0%")
    assert judge([claim], tolerances={"transition": 0.005})[0].verdict == "inconsistent"


def test_the_interval_is_the_estimate_plus_minus_the_bonferroni_quantile_and_the_law_error() -> (
    None
):
    claims = [_claim(f"c{i}", 0.5, 0.01, estimates=(0.001 * i,), law_error=0.002) for i in range(5)]
    judged = judge(claims)
    q = stats.norm.isf(0.05 / 10)
    low, high = judged[3].interval
    assert low == pytest.approx(math.expm1(0.003 - q * 0.01 - 0.002), rel=1e-12)
    assert high == pytest.approx(math.expm1(0.003 + q * 0.01 + 0.002), rel=1e-12)
    assert judged[3].floor == pytest.approx(math.expm1(0.002), rel=1e-12)
    spectrum = judge([_claim("s", 0.5, 0.01, quantity="spectrum", df=7.0, estimates=(0.02,))])[0]
    assert spectrum.interval[1] == pytest.approx(0.02 + stats.t.isf(0.025, 7) * 0.01, rel=1e-12)


def test_a_claim_becomes_consistent_exactly_when_its_interval_enters_the_tolerance() -> None:
    boundary = math.log1p(0.02) / stats.norm.isf(0.025)
    below = judge([_claim("a", 0.5, boundary * 0.999, estimates=(0.0,))])[0]
    above = judge([_claim("a", 0.5, boundary * 1.001, estimates=(0.0,))])[0]
    assert (below.verdict, above.verdict) == ("consistent", "inconclusive")


def test_a_law_error_above_the_tolerance_is_never_consistent_and_gets_no_advice_for_more() -> None:
    for error in (0.1, 0.01, 0.0001):
        claim = _claim("wide law", 0.5, error, estimates=(0.0,), law_error=0.025)
        judged = judge([claim])[0]
        assert judged.verdict == "inconclusive"
        assert judged.advice.startswith("cannot be decided at a tolerance of 2%: its floor is 2.5%")
        assert "the law's own error ±2.5%" in judged.advice
        assert "×" not in judged.advice
    far = judge([_claim("far", 1e-9, 0.001, estimates=(0.1,), law_error=0.025)])[0]
    assert far.verdict == "inconsistent"  # a floor above the tolerance can still be contradicted


def test_a_bracket_is_judged_by_its_hull_and_its_floor_is_half_its_width() -> None:
    claim = _claim(
        "bracket",
        0.5,
        0.001,
        quantity="accuracy",
        estimates=(-0.03, 0.04),
        standard_errors=(0.001, 0.001),
    )
    judged = judge([claim])[0]
    q = stats.norm.isf(0.025)
    assert judged.interval == pytest.approx((-0.03 - q * 0.001, 0.04 + q * 0.001), rel=1e-12)
    assert judged.floor == pytest.approx(0.035, rel=1e-12)
    assert "the bracket's half-width 0.035" in judged.advice


def test_one_sided_bounds_can_be_inconsistent_but_never_consistent() -> None:
    claim = _claim("bound", 0.5, 0.001, alternative="greater", estimates=(0.0,))
    judged = judge([claim])[0]
    assert judged.interval[1] == math.inf
    assert judged.verdict == "inconclusive"
    assert "never show agreement" in judged.advice
    assert judged.interval[0] == pytest.approx(math.expm1(-stats.norm.isf(0.05) * 0.001))
    above = judge([dataclasses.replace(claim, estimates=(0.1,))])[0]
    assert above.verdict == "inconsistent"


def test_advice_counts_what_remains_after_the_floor() -> None:
    # estimate 0.5%, floor 0.5%, tolerance 2%: the statistics must fit in about 1% of room
    claim = _claim("a", 0.5, 0.01, estimates=(0.005,), law_error=0.005, count=100)
    judged = judge([claim])[0]
    room = math.log1p(0.02) - 0.005 - 0.005
    factor = (stats.norm.isf(0.025) * 0.01 / room) ** 2
    assert f"needs about {factor:.1f}× the instances (≈ {math.ceil(factor * 100)})" in judged.advice


def test_tolerances_are_listed_and_overridable() -> None:
    table = tolerance_table()
    assert "| transition | 2% | 2% |" in table
    assert "| spectrum | 0.05 | 0.05 |" in table
    assert "| transition | 1% | 2% |" in tolerance_table({"transition": 0.01})
    loose = judge([_claim("a", 0.6, 0.05)], tolerances={"transition": 0.5})[0]
    assert loose.verdict == "consistent"
    assert loose.tolerance == 0.5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("transition", "tolerance must be QUANTITY=VALUE, e.g. transition=0.01, got 'transition'"),
        ("mass=0.1", "tolerance: quantity must be one of .*got 'mass'"),
        ("transition=abc", "tolerance transition must be a number > 0 and < 1 .*got 'abc'"),
        ("transition=1.5", "tolerance transition must be a number > 0 and < 1"),
        ("spectrum=-0.1", "tolerance spectrum must be a number > 0, got '-0.1'"),
        ("score=nan", "tolerance score must be a number > 0, got 'nan'"),
    ],
)
def test_parse_tolerance_refuses_bad_text_by_name(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_tolerance(text)
    assert parse_tolerance(" spectrum = 0.2") == ("spectrum", 0.2)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"significance": 0.0}, "significance must lie in \\(0, 1\\), got 0.0"),
        ({"significance": math.nan}, "significance must lie in"),
        ({"tolerances": {"transition": 0.0}}, "tolerance must be a finite number > 0, got 0.0"),
        ({"tolerances": {"transition": math.inf}}, "tolerance must be a finite number > 0"),
        ({"tolerances": {"mass": 0.1}}, "quantity must be one of .*got 'mass'"),
    ],
)
def test_bad_arguments_name_themselves(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        judge([_claim("a", 0.5, 0.01)], **arguments)  # type: ignore[arg-type]


def test_level_is_the_deprecated_name_of_significance() -> None:
    claims = [_claim("a", 0.04, 0.01), _claim("b", 0.5, 0.01)]
    with pytest.deprecated_call(match=r"judge\(significance=\.\.\.\)"):
        old = judge(claims, level=0.01)
    assert [c.verdict for c in old] == [c.verdict for c in judge(claims, significance=0.01)]
    with pytest.raises(TypeError, match="got both 'level'"):
        judge(claims, level=0.01, significance=0.01)


def test_bad_claims_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"quantity must be one of .*got 'mass'"):
        Claim("a", "1", "1", quantity="mass")
    with pytest.raises(ValueError, match=r"kind must be one of .*got 'limit'"):
        Claim("a", "1", "1", kind="limit")
    with pytest.raises(ValueError, match=r"alternative must be one of .*got 'above'"):
        Claim("a", "1", "1", alternative="above")
    with pytest.raises(ValueError, match="claim 'a' is tested but has no quantity"):
        judge(
            [
                Claim(
                    "a",
                    "1",
                    "1",
                    z=1.0,
                    p_value=0.3,
                    test="t",
                    estimates=(0.1,),
                    standard_errors=(0.1,),
                )
            ]
        )
    with pytest.raises(ValueError, match="tolerance must be a finite number > 0, got -1"):
        Tolerance("x", -1, relative=False, meaning="")
    with pytest.raises(ValueError, match=r"a relative tolerance must lie in \(0, 1\), got 1\.5"):
        Tolerance("x", 1.5, relative=True, meaning="")
    with pytest.raises(ValueError, match="estimates must have one entry per standard error"):
        Claim("a", "1", "1", estimates=(0.1,), standard_errors=(0.1, 0.2))
    with pytest.raises(ValueError, match=r"law_error must be a finite number >= 0, got -0\.1"):
        Claim("a", "1", "1", law_error=-0.1)
