"""The Hebbian pair law for P(all associations recalled) (docs/theory/hebbian.md,
"All associations: the pair law"): against fresh Monte Carlo of actual memories, against
its own held-out measurement, and its limits."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import special

from lamcap.theory._hebbian import (
    _pair_correlation,
    hebbian_all_recalled_error,
    hebbian_recall_finite,
)

REPO = Path(__file__).resolve().parents[2]
POINTS_CSV = REPO / "docs" / "measurements" / "hebbian_all_pairs.csv"
TRANSITION_CSV = REPO / "docs" / "measurements" / "hebbian_all_pairs_transition.csv"
PAGE = REPO / "docs" / "theory" / "hebbian.md"


def _normalised_targets(p, d, instances, seed, n=None, batch=500):
    """X_mu = sqrt(d) u_mu.h_mu/|h_mu| of actual decoupled memories, shape (instances, n)."""
    n = p if n is None else n
    rng = np.random.default_rng(seed)
    values = []
    for start in range(0, instances, batch):
        size = min(batch, instances - start)
        e = rng.standard_normal((size, n, d)) / math.sqrt(d)
        u = rng.standard_normal((size, n, d)) / math.sqrt(d)
        h = (e @ e.transpose(0, 2, 1)) @ u  # h_mu = sum_nu (e_nu . e_mu) u_nu
        values.append(math.sqrt(d) * np.sum(u * h, axis=2) / np.linalg.norm(h, axis=2))
    return np.concatenate(values)


def _conditional_all(p, d, instances, seed):
    """P(all | E, U) = prod_mu Phi(X_mu)^(p-1) per memory (exact given the memory)."""
    x = _normalised_targets(p, d, instances, seed)
    return np.exp((p - 1) * special.log_ndtr(x).sum(axis=1))


@pytest.mark.parametrize(("p", "d", "seed"), [(9, 12, 1209), (13, 16, 1613)])
def test_pair_law_matches_fresh_monte_carlo(p, d, seed):
    # Fresh memories (seeds used nowhere else): the pair law is within its stated error
    # plus 3 standard errors (about 0.002), where P_1^n is off by many standard errors.
    values = _conditional_all(p, d, 40000, seed)
    mean, error = values.mean(), values.std() / math.sqrt(values.size)
    pairs = hebbian_recall_finite(p, d, all_associations=True, pairs=True)
    power = hebbian_recall_finite(p, d, all_associations=True)
    assert abs(pairs - mean) < hebbian_all_recalled_error(d, pairs=True) + 3 * error
    assert power - mean > 10 * error  # the independence power is measurably high here
    assert abs(pairs - mean) < 0.25 * (power - mean)


def test_pair_correlation_matches_actual_memories():
    # rho = N(r) / (d D(r)) is the leading order at fixed r = (n - 1)/d; at d = n = 64
    # (r about 1) actual memories give -0.0069 (measured with other seeds).  Tolerance:
    # 3 standard errors of the Monte Carlo correlation plus the 5% that the first-order
    # expansion leaves out at r >= 1 (docs/theory/hebbian.md).
    d = n = 64
    x = _normalised_targets(n, d, 4000, seed=6464)
    centred = x - x.mean()
    totals = centred.sum(axis=1)
    pair = (totals**2 - (centred**2).sum(axis=1)) / (n * (n - 1))  # mean over mu != nu
    rho, error = pair.mean() / centred.var(), pair.std() / math.sqrt(pair.size) / centred.var()
    law = _pair_correlation(d, n)
    assert law < 0
    assert abs(rho - law) < 3 * error + 0.05 * abs(law)


def test_pair_correlation_limits():
    assert _pair_correlation(16, 1) == 0.0  # one association: no pair
    # d rho depends on r = (n - 1)/d alone: -(Q^2 + 2Q - 2)/(Q (2Q^2 - 1)), Q = 1 + r
    assert 32 * _pair_correlation(32, 33) == pytest.approx(64 * _pair_correlation(64, 65))
    assert 32 * _pair_correlation(32, 33) == pytest.approx(-3 / 7, rel=1e-14)  # Q = 2
    assert _pair_correlation(10**6, 2) * 10**6 == pytest.approx(-1.0, rel=1e-5)  # Q -> 1
    r = 10**6  # Q -> infinity: rho -> -1/(2 Q d)
    assert _pair_correlation(1, r + 1) * (r + 1) == pytest.approx(-0.5, rel=1e-5)


def test_pair_law_structure():
    # n = 1: nothing to correct; otherwise below P_1^n (rho < 0) and the complement exact
    single = hebbian_recall_finite(20, 16, n=1, all_associations=True, pairs=True)
    assert single == pytest.approx(hebbian_recall_finite(20, 16, n=1), rel=1e-14)
    p = np.array([6, 14])
    pairs = hebbian_recall_finite(p, 16, all_associations=True, pairs=True)
    power = hebbian_recall_finite(p, 16, all_associations=True)
    assert np.all(pairs < power)
    miss = hebbian_recall_finite(p, 16, all_associations=True, pairs=True, error=True)
    np.testing.assert_allclose(pairs + miss, 1.0, rtol=0, atol=1e-14)
    # n = 2: exactly P_1^2 + rho c_1^2 (the pair truncation is exact for one pair)
    two = hebbian_recall_finite(10, 16, n=2, all_associations=True, pairs=True)
    assert hebbian_recall_finite(10, 16, n=2) ** 2 > two > 0


def test_pair_law_rejects_bad_input():
    with pytest.raises(ValueError, match=r"needs all_associations=True, got all_associations="):
        hebbian_recall_finite(10, 16, pairs=True)
    with pytest.raises(ValueError, match=r"pairs must be True or False, got 1"):
        hebbian_recall_finite(10, 16, all_associations=True, pairs=1)
    with pytest.raises(ValueError, match=r"d must be an integer in \[8, 128\], got 7"):
        hebbian_all_recalled_error(7, pairs=True)
    with pytest.raises(ValueError, match=r"d must be an integer in \[8, 128\], got 129"):
        hebbian_all_recalled_error(129, pairs=True)


def _rows(path):
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_held_out_points_are_covered_by_the_stated_error():
    # every held-out point: |pair law - P(all)| plus two standard errors within the
    # stated error; the exact-competitor count agrees with the conditional estimate
    rows = _rows(POINTS_CSV)
    assert {int(row["d"]) for row in rows} == {10, 16, 20, 28, 40, 56, 80, 96, 128}
    for row in rows:
        d = int(row["d"])
        miss = abs(float(row["law_pairs"]) - float(row["p_all_conditional"]))
        assert miss + 2 * float(row["se_conditional"]) <= hebbian_all_recalled_error(
            d, pairs=True
        ), (d, row["p"])
        gap = abs(float(row["p_all_count"]) - float(row["p_all_conditional"]))
        assert gap < 5 * float(row["se_count"]), (d, row["p"])


@pytest.mark.parametrize("d", [10, 20, 28])
def test_held_out_law_values_are_the_current_law(d):
    # the CSV's law column is what the function returns today (one point per d)
    row = next(row for row in _rows(POINTS_CSV) if int(row["d"]) == d)
    law = hebbian_recall_finite(int(row["p"]), d, all_associations=True, pairs=True)
    assert float(row["law_pairs"]) == pytest.approx(float(law), abs=6e-6)


def test_held_out_transition_meets_the_target():
    # the p_c of the pair law within 0.5% of the measured one at every held-out d >= 16
    # (the target of issue 36), within the 0.17% the docs state at every held-out d, and
    # closer than P_1^n's wherever P_1^n is off by 0.2% or more (d <= 56; at d >= 80 both
    # are within 0.15% and P_1^n is the closer, as docs/theory/hebbian.md says)
    for row in _rows(TRANSITION_CSV):
        d = int(row["d"])
        pairs, power = float(row["error_pairs_percent"]), float(row["error_power_percent"])
        assert abs(pairs) <= 0.17, d
        if d >= 16:
            assert abs(pairs) <= 0.5, d
        if d <= 56:
            assert abs(pairs) < abs(power), d
        else:
            assert max(abs(pairs), abs(power)) < 0.15, d


def test_page_table_equals_the_transition_csv():
    # docs/theory/hebbian.md quotes docs/measurements/hebbian_all_pairs_transition.csv
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("| $d$ | points | memories per point | $p_c$ measured (95%)")
    lines = [line for line in text[start:].splitlines()[2:] if line.startswith("|")]
    table = []
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        table.append(cells)
    rows = _rows(TRANSITION_CSV)
    assert len(table) == len(rows)
    for cells, row in zip(table, rows, strict=True):
        low, high = re.fullmatch(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", cells[3]).groups()[1:]
        assert int(cells[0]) == int(row["d"])
        assert int(cells[1]) == int(row["points"])
        assert int(cells[2].replace(" ", "")) == int(row["instances"])
        assert cells[3].split()[0] == f"{float(row['p_c']):.2f}"
        assert (low, high) == (f"{float(row['p_c_low']):.2f}", f"{float(row['p_c_high']):.2f}")
        assert cells[4] == f"{float(row['p_c_pairs']):.2f}"
        assert cells[5] == f"{float(row['error_pairs_percent']):+.2f}%"
        assert cells[6] == f"{float(row['p_c_power']):.2f}"
        assert cells[7] == f"{float(row['error_power_percent']):+.2f}%"
