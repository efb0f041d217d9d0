"""Verdicts with power: Holm's rule, the power of each claim and the three verdict words."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from lamcap.experiments._verdicts import (
    LEVEL,
    TOLERANCES,
    Claim,
    Tolerance,
    counts_text,
    detectable_deviation,
    holm_adjusted,
    judge,
    power,
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


# -- power -------------------------------------------------------------------------------------


def test_power_without_deviation_is_the_level() -> None:
    assert power(0.0, [0.3], significance=0.01) == pytest.approx(0.01, rel=1e-12)
    assert power(0.0, [0.3], significance=0.01, df=5) == pytest.approx(0.01, rel=1e-9)
    assert power(0.0, [0.3], significance=0.01, alternative="greater") == pytest.approx(
        0.01, rel=1e-12
    )


def test_detectable_deviation_of_a_normal_test_is_the_textbook_sum_of_quantiles() -> None:
    for level, target in ((0.05, 0.8), (0.05 / 17, 0.8), (0.01, 0.9)):
        expected = stats.norm.isf(level / 2) + stats.norm.ppf(target)
        assert detectable_deviation([1.0], significance=level, target=target) == pytest.approx(
            expected,
            abs=2e-4,  # the far tail adds at most Phi(-2 z) to the power
        )
        one_sided = stats.norm.isf(level) + stats.norm.ppf(target)
        found = detectable_deviation(
            [2.0], significance=level, target=target, alternative="greater"
        )
        assert found == pytest.approx(2.0 * one_sided, rel=1e-9)


def test_power_of_a_t_test_matches_monte_carlo() -> None:
    # one-sample t over 8 values whose mean is off by 0.9 standard deviations / sqrt(8) * 2.5
    rng = np.random.default_rng(5)
    n, runs, sigma = 8, 40000, 1.0
    shift = 2.5 * sigma / math.sqrt(n)
    samples = rng.normal(shift, sigma, size=(runs, n))
    t = samples.mean(axis=1) / (samples.std(axis=1, ddof=1) / math.sqrt(n))
    level = 0.05 / 6
    rejected = np.mean(np.abs(t) > stats.t.isf(level / 2, n - 1))
    predicted = power(shift, [sigma / math.sqrt(n)], significance=level, df=n - 1)
    assert abs(rejected - predicted) < 4 * math.sqrt(predicted * (1 - predicted) / runs)


def test_intersection_union_power_is_a_lower_bound_for_positively_dependent_tests() -> None:
    rng = np.random.default_rng(9)
    runs, rho, errors, level = 40000, 0.6, (1.0, 1.7), 0.05 / 4
    deviation = detectable_deviation(errors, significance=level)
    normal = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=runs)
    z = deviation / np.array(errors) + normal
    q = stats.norm.isf(level / 2)
    both = np.mean(np.all(z > q, axis=1) | np.all(z < -q, axis=1))
    assert power(deviation, errors, significance=level) == pytest.approx(0.8, abs=1e-9)
    assert both >= 0.8 - 4 * math.sqrt(0.16 / runs)


def test_detectable_deviation_is_infinite_without_a_finite_error() -> None:
    assert detectable_deviation([math.inf], significance=0.05) == math.inf
    assert detectable_deviation([], significance=0.05) == math.inf
    assert power(0.1, [math.nan], significance=0.05) == 0.0


# -- verdicts ----------------------------------------------------------------------------------


def _claim(name: str, p_value: float, error: float, **fields: object) -> Claim:
    defaults: dict[str, object] = {
        "z": stats.norm.isf(p_value / 2),
        "p_value": p_value,
        "test": "z",
        "quantity": "transition",
        "standard_errors": (error,),
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
            _claim("rejected", 1e-9, 0.002),
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


def test_detectable_deviation_uses_holms_first_threshold_and_the_quantity_units() -> None:
    claims = [_claim(f"c{i}", 0.5, 0.01) for i in range(5)]
    judged = judge(claims)
    expected = math.expm1(detectable_deviation([0.01], significance=LEVEL / 5))
    assert judged[0].detectable == pytest.approx(expected, rel=1e-9)
    assert judged[0].tolerance == TOLERANCES["transition"].value
    spectrum = judge([_claim("s", 0.5, 0.01, quantity="spectrum", df=7.0)])[0]
    assert spectrum.detectable == pytest.approx(
        detectable_deviation([0.01], significance=LEVEL, df=7.0), rel=1e-9
    )


def test_a_claim_becomes_consistent_exactly_when_its_power_reaches_the_tolerance() -> None:
    level = LEVEL
    boundary = math.log1p(0.02) / detectable_deviation([1.0], significance=level)
    below = judge([_claim("a", 0.5, boundary * 0.999)])[0]
    above = judge([_claim("a", 0.5, boundary * 1.001)])[0]
    assert (below.verdict, above.verdict) == ("consistent", "inconclusive")


def test_one_sided_claims_use_one_tail() -> None:
    claim = _claim("bound", 0.5, 0.01, alternative="greater")
    judged = judge([claim])[0]
    assert judged.detectable == pytest.approx(
        math.expm1(detectable_deviation([0.01], significance=LEVEL, alternative="greater")),
        rel=1e-9,
    )
    assert (
        judged.detectable
        < judge([dataclasses.replace(claim, alternative="two-sided")])[0].detectable
    )


def test_tolerances_are_listed_and_overridable() -> None:
    table = tolerance_table()
    assert "| transition | 2% |" in table
    assert "| spectrum | 0.05 |" in table
    loose = judge([_claim("a", 0.6, 0.05)], tolerances={"transition": 0.5})[0]
    assert loose.verdict == "consistent"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"significance": 0.0}, "significance must lie in \\(0, 1\\), got 0.0"),
        ({"significance": math.nan}, "significance must lie in"),
        ({"target_power": 1.0}, "target_power must lie in \\(0, 1\\), got 1.0"),
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
        judge([Claim("a", "1", "1", z=1.0, p_value=0.3, test="t")])
    with pytest.raises(ValueError, match="tolerance must be a finite number > 0, got -1"):
        Tolerance("x", -1, relative=False, meaning="")
