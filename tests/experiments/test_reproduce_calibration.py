"""The verdict rule keeps its promise on simulated runs in which every claim is true.

The full measurement (hundreds of runs of the quick plan, the rate with its
interval) is ``measurements/reproduce_false_alarms.py``; this test runs a smaller plan
often enough to catch a rule without multiplicity correction, a miscalibrated
test or a broken simulation.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

from lamcap.experiments._calibration import false_inconsistent_rate, simulate_claims
from lamcap.experiments._reproduce import Plan
from lamcap.experiments._sweep import Sweep

_PLAN = Plan(
    name="calibration",
    sweeps=(
        Sweep(
            name="optimal",
            dims=(8, 12, 16),
            models=("decoupled", "original"),
            seeds_per_point=8,
            rounds=2,
        ),
        Sweep(name="hebbian", dims=(16, 32), methods=("hebbian",), seeds_per_point=16, rounds=2),
    ),
    mechanism_dims=(8, 12, 16),
    mechanism_seeds=8,
)


def test_simulated_run_has_the_claims_of_a_real_run() -> None:
    claims = simulate_claims(_PLAN, seed=1)
    tested = [c for c in claims if c.tested]
    names = {c.claim for c in tested}
    assert "DP capacity: transition p, d = 12" in names
    assert "OP = DP as d → ∞ (same capacity)" in names
    assert any(name.startswith("quarter circle") for name in names)
    assert any(name.startswith("mean normalised target score of the max-margin") for name in names)
    assert len(tested) >= 9


@pytest.mark.slow
def test_whole_run_false_inconsistent_rate_is_at_most_five_percent() -> None:
    runs = 80
    result = false_inconsistent_rate(_PLAN, runs, first_seed=1000)
    tested = min(result.tested)
    # At a true whole-run rate of 5%, 10 or more false runs out of 80 has probability < 1%.
    assert result.false_runs <= stats.binom.ppf(0.99, runs, 0.05)
    # The same runs judged claim by claim at 5% fail far more often (1 - 0.95^k for
    # k independent exact tests): the simulation does produce small p-values.
    expected_uncorrected = 1 - 0.95**tested
    assert result.uncorrected_false_runs >= stats.binom.ppf(0.001, runs, expected_uncorrected)
    # every single claim is rejected at 5% in about 5% of the runs (none wildly off)
    for claim, count in result.rejections.items():
        assert count <= stats.binom.ppf(0.9999, runs, 0.05), claim
    assert math.isfinite(result.interval()[1])


def test_a_large_deviation_is_called_inconsistent_and_its_power_says_so() -> None:
    from lamcap.experiments._calibration import deviated_claims, predicted_power

    claims = simulate_claims(_PLAN, seed=3, deviations={"transition": 0.2})
    tested = sum(c.tested for c in claims)
    false = {c.claim: c for c in deviated_claims(claims, "transition")}
    dp16 = false["DP capacity: transition p, d = 16"]
    assert dp16.verdict == "inconsistent"
    assert predicted_power(dp16, 0.2, tested) > 0.99
    # the deviation touches only its own quantity: spectra and scores stay true
    untouched = [c for c in claims if c.quantity in ("spectrum", "score") and c.tested]
    assert untouched
    assert all(c.verdict != "inconsistent" for c in untouched)


@pytest.mark.parametrize(
    ("deviations", "message"),
    [
        ({"mass": 0.1}, r"deviations: quantity must be one of .*got 'mass'"),
        ({"ratio": -1.0}, r"deviations\['ratio'\] must be finite \(and > -1 for a ratio\)"),
        ({"spectrum": math.nan}, r"deviations\['spectrum'\] must be finite"),
    ],
)
def test_bad_deviations_name_themselves(deviations: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate_claims(_PLAN, seed=1, deviations=deviations)
