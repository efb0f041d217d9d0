"""What kind of number a law returns (lamcap.theory._status): labels, errors, ranges, warnings.

The measured error and range of each cost model are recomputed here from the certified
transitions of docs/measurements/capacity.csv, so the status a user reads cannot drift
from the measurement it cites.
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import pytest

import lamcap
from lamcap.theory import COST_MODELS, ExtrapolationWarning, LawStatus, law_status

CAPACITY_CSV = Path(__file__).resolve().parents[2] / "docs" / "measurements" / "capacity.csv"


PAIRED_CSV = CAPACITY_CSV.with_name("unit_norm_paired.csv")


def _decoupled_full_rank(embeddings: str) -> list[tuple[int, float]]:
    """Certified decoupled full-rank transitions: the sweeps and the paired re-measurement."""
    found = []
    for path in (CAPACITY_CSV, PAIRED_CSV):
        with path.open(encoding="utf-8") as handle:
            found += [
                (int(row["d"]), float(row["p_c"]))
                for row in csv.DictReader(handle)
                if row["model"] == "decoupled"
                and row.get("method", "auto") == "auto"
                and float(row.get("kappa", 1.0)) == 1.0
                and row["embeddings"] == embeddings
            ]
    return found


@pytest.mark.parametrize("embeddings", sorted(COST_MODELS))
def test_measured_error_and_range_are_those_of_the_certified_transitions(embeddings: str) -> None:
    model = COST_MODELS[embeddings]
    rows = _decoupled_full_rank(embeddings)
    misses = [
        abs(p_c / float(lamcap.critical_p(d, embeddings=embeddings)) - 1.0) for d, p_c in rows
    ]
    assert model.measured_d == (min(d for d, _ in rows), max(d for d, _ in rows))
    assert round(max(misses), 3) == model.measured_error


def test_critical_p_status_in_and_beyond_its_range() -> None:
    inside = law_status(lamcap.critical_p, 64)
    assert inside.label == "model with measured error"
    assert not inside.extrapolated
    assert inside.measured_d == (8, 96)
    beyond = law_status(lamcap.critical_p, [64, 4096], embeddings="sphere")
    assert beyond.extrapolated
    assert beyond.extrapolation() == "extrapolated outside the measured d = 8-64"
    assert law_status(lamcap.critical_p, 64, accuracy=0.99).label == "asymptotic"
    assert law_status(lamcap.critical_p, 64, kappa=0.5).label == "asymptotic"


def test_laws_without_a_rule_take_their_docstring_label() -> None:
    assert law_status(lamcap.best_accuracy, 64, 1000).label == "asymptotic"
    assert law_status(lamcap.statistical_dimension, 10).label == "exact"
    assert law_status(lamcap.capacity).label == "asymptotic"
    assert law_status(lamcap.capacity, p=40, d=12).label == "model with measured error"


def test_extrapolation_warns_once_per_call_and_only_outside() -> None:
    with pytest.warns(ExtrapolationWarning, match=r"critical_p: .* outside the measured d = 8-96"):
        lamcap.critical_p(256)
    with pytest.warns(ExtrapolationWarning, match=r"feasibility_probability: .*d = 8-64"):
        lamcap.feasibility_probability(4, 9, embeddings="sphere")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        lamcap.critical_p(64)
        lamcap.critical_p(256, accuracy=0.9)  # asymptotic: no measured range to leave
        lamcap.feasibility_probability(12, 40)


def test_the_warning_can_be_filtered() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ExtrapolationWarning)
        lamcap.critical_p(1000)
    assert not caught


def test_significant_digits_follow_the_measured_error() -> None:
    assert LawStatus("exact").significant_digits() is None
    assert LawStatus("model with measured error", relative_error=0.014).significant_digits() == 4
    assert LawStatus("fitted", relative_error=0.2).significant_digits() == 3
    with pytest.raises(ValueError, match=r"label must be one of"):
        LawStatus("approximate")


def test_getting_started_quotes_the_measured_error_and_range() -> None:
    page = (CAPACITY_CSV.parents[1] / "getting-started.md").read_text(encoding="utf-8")
    gaussian = COST_MODELS["gaussian"]
    assert gaussian.measured_error is not None
    assert gaussian.measured_d is not None
    low, high = gaussian.measured_d
    assert f"the measured error ({100 * gaussian.measured_error:.1f}%)" in page
    assert f"measured on ({low}-{high})" in page
