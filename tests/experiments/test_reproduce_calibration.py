"""The verdict rule keeps its promise on simulated runs in which every claim is true.

The full measurement (hundreds of runs of the quick plan, the rate with its
interval) is ``measurements/reproduce_false_alarms.py``; this test runs a smaller plan
often enough to catch a rule without multiplicity correction, a miscalibrated
test or a broken simulation.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from lamcap.experiments._calibration import (
    SyntheticFamily,
    deviated_verdicts,
    equivalence_rates,
    false_inconsistent_rate,
    simulate_claims,
)
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


@pytest.fixture(scope="module")
def first_run() -> list[Any]:
    """The claims of one simulated run of :data:`_PLAN` (seed 1).

    The first run in a process pays a one-time cost (about 22 s on an idle core): the
    finite-size transition law of every cell, which ``lamcap.experiments._shift``
    caches per cell.  Paid here, in the fixture, every test of the plan after it
    costs only its own run (a few seconds).
    """
    return simulate_claims(_PLAN, seed=1)


def test_simulated_run_has_the_claims_of_a_real_run(first_run: list[Any]) -> None:
    claims = first_run
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


@pytest.mark.usefixtures("first_run")  # the cells' laws, computed once
def test_a_large_deviation_is_called_inconsistent() -> None:
    from lamcap.experiments._calibration import deviated_claims

    claims = simulate_claims(_PLAN, seed=3, deviations={"transition": 0.2})
    false = {c.claim: c for c in deviated_claims(claims, "transition")}
    dp16 = false["DP capacity: transition p, d = 16"]
    assert dp16.verdict == "inconsistent"
    assert dp16.interval[0] > 0.02
    # the deviation touches only its own quantity: spectra and scores stay true
    untouched = [c for c in claims if c.quantity in ("spectrum", "score") and c.tested]
    assert untouched
    assert all(c.verdict != "inconsistent" for c in untouched)


@pytest.mark.usefixtures("first_run")  # the cells' laws, computed once
def test_deviated_verdicts_count_every_deviated_claim_once_per_run() -> None:
    tally = deviated_verdicts(_PLAN, "score", 0.5, 2, first_seed=7)
    assert tally.runs == 2
    assert tally.verdicts
    assert all(sum(counts.values()) == 2 for counts in tally.verdicts.values())
    # half a unit off against a tolerance of 0.05: never called consistent
    assert all(counts.get("consistent", 0) == 0 for counts in tally.verdicts.values())


def test_equivalence_rates_follow_the_interval_rule() -> None:
    family = SyntheticFamily(claims=5, most=2000)
    inside = equivalence_rates(0.0, 60, family)
    outside = equivalence_rates(2.0, 60, family)
    # a precise family at no deviation is consistent; at twice the tolerance inconsistent
    assert inside.rate("consistent")[0] > 0.9
    assert inside.any_inconsistent == 0
    assert outside.rate("inconsistent")[0] > 0.9
    assert outside.any_consistent == 0
    # the precision target: about (q (spread) / (share x tolerance))^2 instances per claim
    assert 50 < inside.instances / inside.claims < 400
    fixed = equivalence_rates(0.0, 20, SyntheticFamily(claims=5, adaptive=False))
    assert fixed.instances == 20 * 5 * 20


@pytest.mark.slow
def test_equivalence_rates_keep_both_familywise_errors_below_five_percent() -> None:
    runs = 400
    for multiple in (0.5, 1.0):
        result = equivalence_rates(multiple, runs, seed=2)
        assert result.any_inconsistent <= stats.binom.ppf(0.99, runs, 0.05), multiple
        assert result.covered >= stats.binom.ppf(0.01, runs, 0.95), multiple
    for multiple in (1.05, 1.5):
        result = equivalence_rates(multiple, runs, seed=2)
        assert result.any_consistent <= stats.binom.ppf(0.99, runs, 0.05), multiple


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


def test_the_reproduce_page_shows_the_measured_rates_table() -> None:
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "_verdict_rates", root / "measurements" / "verdict_rates.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.table(root / "docs" / "measurements" / "verdict_rates.csv")
    page = (root / "docs" / "howto" / "reproduce.md").read_text(encoding="utf-8")
    assert table in page
