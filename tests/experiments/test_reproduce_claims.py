"""Claims of a reproduction: law shifts, trends, t tests, predictions, whole claim lists."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from lamcap.experiments._analysis import CellData
from lamcap.experiments._claims import (
    build_claims,
    hebbian_prediction,
    mean_test,
    op_dp_law,
    trend_claim,
)
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments._report import prediction_text
from lamcap.experiments._shift import TransitionLaw, shift_fit
from lamcap.experiments._sweep import Cell
from lamcap.experiments._verdicts import judge


def _logistic_law(p_c: float, slope: float = 12.0) -> TransitionLaw:
    return TransitionLaw(lambda p: float(special.expit(-slope * math.log(p / p_c))))


def test_transition_law_is_exact_at_integers_and_monotone_between() -> None:
    law = _logistic_law(40.0)
    integers = np.arange(20, 60)
    exact = 1.0 / (1.0 + (integers / 40.0) ** 12)
    assert np.allclose(law(integers), exact, rtol=0, atol=1e-15)
    values = law(np.linspace(20, 59, 1000))
    assert np.all(np.diff(values) <= 0)


@pytest.mark.parametrize("fits", [60, pytest.param(300, marks=pytest.mark.slow)])
def test_shift_fit_recovers_a_known_shift_with_calibrated_intervals(fits: int) -> None:
    # Independent check: draw from the law moved by a known delta, count how
    # often the 95% interval covers it and how often delta = 0 (true) is rejected.
    law = _logistic_law(40.0)
    rng = np.random.default_rng(5)
    ps = np.array([30, 34, 37, 40, 43, 46, 52])
    m = np.full(ps.size, 8)
    covered = rejected = 0
    for _ in range(fits):
        counts = rng.binomial(m, law(ps * math.exp(-0.05)))
        fit = shift_fit(ps, counts, m, law)
        covered += fit.low <= 0.05 <= fit.high
        null = shift_fit(ps, rng.binomial(m, law(ps)), m, law)
        rejected += null.p_value < 0.05
    # 95% expected; binomial sd 1.3% at 300 fits: both within 4 sd (the same 4 sd at 60)
    limit = 0.05 * math.sqrt(300 / fits)
    assert abs(covered / fits - 0.95) < limit
    assert abs(rejected / fits - 0.05) < limit


def test_shift_fit_interval_and_test_agree() -> None:
    law = _logistic_law(40.0)
    ps, m = np.array([30, 36, 40, 44, 50]), np.full(5, 10)
    for counts in ([10, 9, 5, 1, 0], [10, 10, 10, 6, 1], [10, 6, 2, 0, 0]):
        fit = shift_fit(ps, counts, m, law, draws=0)  # chi-square p-values: exact duality
        assert (fit.low > 0 or fit.high < 0) == (fit.p_value < 0.05)
        assert fit.low <= fit.delta <= fit.high
        assert math.copysign(1, fit.z) == math.copysign(1, fit.delta) or fit.z == 0


def test_bootstrap_p_value_is_reproducible_and_close_to_chi_square_for_many_instances() -> None:
    law = _logistic_law(40.0)
    ps, m = np.array([32, 36, 40, 44, 48]), np.full(5, 200)
    counts = [190, 160, 85, 30, 8]
    asymptotic = shift_fit(ps, counts, m, law, draws=0)
    assert asymptotic.p_value < 0.05
    bootstrap = shift_fit(ps, counts, m, law)
    assert bootstrap.p_value == shift_fit(ps, counts, m, law).p_value
    # 1000 instances: the chi-square law of the statistic is accurate; the
    # bootstrap p-value (4000 draws) agrees within its own Monte Carlo error.
    error = math.sqrt(asymptotic.p_value * (1 - asymptotic.p_value) / 4000)
    assert abs(bootstrap.p_value - asymptotic.p_value) < 4 * error + 1 / 4001


def test_shift_fit_without_information_is_untestable() -> None:
    law = _logistic_law(40.0, slope=200.0)
    fit = shift_fit([5, 500], [4, 0], [4, 4], law)
    assert math.isnan(fit.p_value)


def test_trend_claim_needs_three_sizes_and_takes_the_larger_p_value() -> None:
    few = trend_claim(
        "c", "→ 0", [8, 12], [0.1, 0.05], [0.01, 0.01], limit=0.0, show=str, quantity="ratio"
    )
    assert few.untested.startswith("needs ≥ 3 sizes")
    dims = [8, 12, 16, 24]
    # exactly 1/d with tiny errors: the 1/d line passes through 0 -> consistent
    on_line = [0.4 / d for d in dims]
    claim = trend_claim(
        "c", "→ 0", dims, on_line, [1e-4] * 4, limit=0.0, show=str, quantity="ratio"
    )
    assert claim.p_value > 0.5
    # constant 0.05 with tiny errors: both extrapolations exclude 0 -> p tiny
    flat = trend_claim(
        "c", "→ 0", dims, [0.05] * 4, [1e-3] * 4, limit=0.0, show=str, quantity="ratio"
    )
    assert flat.p_value < 1e-6
    assert judge([flat])[0].verdict == "inconsistent"


def test_trend_bracketing_the_limit_is_not_contradicted() -> None:
    # the finite-size spectral excess decays like (log d)/d: a line in 1/d puts the
    # limit above 0, a line in 1/log p below it; the claim is then not contradicted
    dims = [16, 24, 32, 48, 64]
    values = [math.log(d) / d for d in dims]
    claim = trend_claim("c", "→ 0", dims, values, [1e-4] * 5, limit=0.0, show=str, quantity="ratio")
    assert claim.p_value == 1.0
    assert "-" in claim.measured.split("in 1/d;")[1]  # the 1/log p line is below the limit


def test_trend_with_estimated_errors_uses_a_t_reference() -> None:
    dims, values, errors = [8, 12, 16], [0.06, 0.05, 0.048], [0.004, 0.004, 0.004]
    normal = trend_claim("c", "→ 0", dims, values, errors, limit=0.0, show=str, quantity="ratio")
    student = trend_claim(
        "c", "→ 0", dims, values, errors, limit=0.0, show=str, quantity="ratio", dfs=[4, 7, 9]
    )
    assert student.z == pytest.approx(normal.z)
    assert student.p_value == pytest.approx(2 * stats.t.sf(abs(student.z), 4))
    assert student.p_value > normal.p_value


def test_mean_test_matches_scipy() -> None:
    values = np.array([2.1, 2.4, 2.2, 2.6, 2.3, 2.5])
    mean, half, t, p_value = mean_test(values, 2.0)
    reference = stats.ttest_1samp(values, 2.0)
    assert t == pytest.approx(reference.statistic, rel=1e-12)
    assert p_value == pytest.approx(reference.pvalue, rel=1e-12)
    low, high = reference.confidence_interval(0.95)
    assert (mean - half, mean + half) == pytest.approx((low, high), rel=1e-12)


def test_prediction_text_prints_only_right_digits() -> None:
    assert prediction_text(61.682357, 1e-6, "Crofton") == "61.682 (Crofton)"
    assert prediction_text(92.7621, 0.4, "law") == "92.8 ± 0.4 (law)"
    assert prediction_text(10.13, 0.04, "law") == "10.13 ± 0.04 (law)"


def test_hebbian_prediction_precision_is_the_measured_model_error() -> None:
    from lamcap.theory._hebbian import hebbian_all_recalled_error, hebbian_recall_finite

    def law(p: int, d: int) -> float:
        return float(hebbian_recall_finite(p, d, all_associations=True, pairs=True))

    crossing, error = hebbian_prediction(32)
    below = math.floor(crossing)
    slope = law(below, 32) - law(below + 1, 32)
    assert error == pytest.approx(float(hebbian_all_recalled_error(32, pairs=True)) / slope)
    assert law(below, 32) >= 0.5
    assert law(below + 1, 32) < 0.5
    # the pair law's error is measured up to d = 128; beyond, no number is invented
    assert math.isfinite(hebbian_prediction(128)[1])
    assert math.isnan(hebbian_prediction(160)[1])


def test_op_dp_law_from_a_measurement_file(tmp_path: Path) -> None:
    lines = ["d,model,p_c,p_c_low,p_c_high,instances"]
    for d in (8, 16, 32, 64):
        ratio = math.exp(0.8 / d)
        lines += [
            f"{d},decoupled,100,99,101,200",
            f"{d},original,{100 * ratio},{99 * ratio},{101 * ratio},200",
        ]
    path = tmp_path / "op_vs_dp.csv"
    path.write_text("\n".join(lines) + "\n")
    law = op_dp_law(path)
    assert law is not None
    value, error = law(12)
    assert value == pytest.approx(0.8 / 12, abs=1e-9)
    assert 0 < error < 0.01
    path.write_text("\n".join(lines[:5]) + "\n")
    assert op_dp_law(path) is None  # two sizes are not a law


def _cell_data(cell: Cell, law: TransitionLaw, ps: list[int], seeds: int, rng) -> CellData:
    p = np.array(ps)
    return CellData(
        cell=cell,
        p=p,
        feasible=rng.binomial(seeds, law(p)),
        decided=np.full(p.size, seeds),
        undecided=np.zeros(p.size, dtype=np.int64),
        mean_accuracy=np.full(p.size, math.nan),
    )


def _solution_sample(
    method: str,
    ratios: np.ndarray,
    *,
    target: np.ndarray | None = None,
    hebbian: np.ndarray | None = None,
) -> SolutionSample:
    """Per-matrix statistics of ``ratios.size`` storing W at d = 16, p = 58."""
    count = ratios.size
    ones = np.ones(count)
    return SolutionSample(
        d=16,
        kappa=1.0,
        p=58,
        method=method,
        solved=count,
        feasible=count,
        singular_values=np.ones(16 * count),
        target=ones,
        competitors=ones,
        hebbian_target=ones,
        hebbian_competitors=ones,
        ratio_per_matrix=ratios,
        target_mean_per_matrix=ones if target is None else target,
        hebbian_target_mean_per_matrix=ones if hebbian is None else hebbian,
    )


def test_build_claims_on_synthetic_data() -> None:
    from lamcap.experiments._analysis import transition_rows
    from lamcap.experiments._shift import finite_size_law

    rng = np.random.default_rng(0)
    cells = {}
    for d, ps in ((8, range(16, 30, 2)), (12, range(32, 50, 2)), (16, range(52, 72, 2))):
        law = finite_size_law(d, 1.0)
        for model in ("decoupled", "original"):
            cell = Cell(d, 1.0, model, "auto")
            cells[cell] = _cell_data(cell, law, list(ps), 12, rng)
    sample = _solution_sample(
        "first_feasible",
        np.array([2.3, 2.4, 2.5, 2.35]),
        target=np.array([1.6, 1.7, 1.65, 1.62]),
        hebbian=np.array([1.8, 1.85, 1.75, 1.9]),
    )
    claims = judge(build_claims(cells, transition_rows(cells), [sample]))
    text = {c.claim: c for c in claims}
    assert text["DP capacity: transition p, d = 12"].test == "LR shift"
    assert text["DP capacity: transition p, d = 12"].verdict in {
        "consistent",
        "inconsistent",
        "inconclusive",
    }
    # OP = DP is a claim about d → ∞: per-size ratios are measurements, never judged
    assert text["OP/DP transition ratio, d = 16"].verdict == "comparison (not judged)"
    assert text["OP = DP as d → ∞ (same capacity)"].kind == "asymptotic"
    comparison = [c for c in claims if c.kind == "comparison"]
    assert comparison
    assert all(c.verdict == "comparison (not judged)" for c in comparison)
    assert not any(c.verdict == "no" for c in claims)


def _rank_cell(undecided_share: float, shift: float, rng: np.random.Generator) -> CellData:
    """A κ = 0.5 cell drawn from its law moved by ``shift`` (log p), some instances undecided."""
    from lamcap.experiments._shift import finite_size_law

    cell = Cell(12, 0.5, "decoupled", "two_layer")
    law = finite_size_law(12, 0.5)
    p = np.arange(28, 48, 2)
    seeds = 40
    undecided = np.full(p.size, round(undecided_share * seeds))
    decided = seeds - undecided
    return CellData(
        cell=cell,
        p=p,
        feasible=rng.binomial(decided, law(p * math.exp(-shift))),
        decided=decided,
        undecided=undecided.astype(np.int64),
        mean_accuracy=np.full(p.size, math.nan),
    )


def _rank_claim(data: CellData):  # type: ignore[no-untyped-def]
    from lamcap.experiments._analysis import transition_rows
    from lamcap.experiments._claims import transition_claims

    cells = {data.cell: data}
    return judge(transition_claims(cells, transition_rows(cells)))[0]


def test_rank_claims_are_one_sided_bounds() -> None:
    rng = np.random.default_rng(4)
    above = _rank_claim(_rank_cell(0.0, 0.12, rng))
    below = _rank_claim(_rank_cell(0.0, -0.12, rng))
    assert above.alternative == "greater"
    assert above.verdict == "inconsistent"  # a lower bound above the prediction refutes it
    assert below.verdict != "inconsistent"  # a trainer below the prediction refutes nothing
    assert below.p_value > 0.5


def test_undecided_instances_never_become_verdicts() -> None:
    rng = np.random.default_rng(8)
    data = _rank_cell(0.25, 0.0, rng)
    claim = _rank_claim(data)
    assert claim.verdict == "inconclusive"
    found = re.search(
        r"(\d+) of the (\d+) instances in the transition window \(p = (\d+)–(\d+)\) are "
        r"undecided, 25% \(more than 10%; (\d+) of all (\d+)\)",
        claim.advice,
    )
    assert found is not None, claim.advice
    window_undecided, window_total, first, last, undecided, instances = map(int, found.groups())
    # the counts agree with the share, and with the cell's own totals
    assert window_undecided / window_total == 0.25
    assert window_undecided <= undecided == int(data.undecided.sum())
    assert window_total <= instances == int(data.undecided.sum() + data.decided.sum())
    assert data.p.min() <= first <= last <= data.p.max()
    assert math.isnan(claim.adjusted)  # outside the familywise rule
    # the fit counts decided instances only: undecided ones are neither storable nor not
    _, _, total = data.counts()
    assert total.sum() == data.decided.sum()
    few = _rank_claim(_rank_cell(0.05, 0.0, rng))
    assert not few.undecidable


def test_measured_op_dp_claim_states_the_law_and_the_verdict_with_its_interval() -> None:
    from lamcap.experiments._claims import measured_op_dp_claim

    claim, text = measured_op_dp_claim()
    assert claim.verdict in {"consistent", "inconsistent", "inconclusive"}
    assert claim.quantity == "ratio"
    assert len(claim.standard_errors) == 2
    assert "limit e^c = " in text
    assert f"[{100 * claim.interval[0]:+.1f}%, {100 * claim.interval[1]:+.1f}%]" in text


def test_op_vs_dp_page_quotes_the_measured_verdict() -> None:
    from lamcap.experiments._claims import measured_op_dp_claim

    page = Path(__file__).resolve().parents[2] / "docs" / "measurements" / "op_vs_dp.md"
    _, text = measured_op_dp_claim()
    assert f"> {text}" in page.read_text(encoding="utf-8")


def test_spectrum_claims_carry_the_fitted_laws_error() -> None:
    from lamcap.experiments._claims import spectrum_claims, spectrum_prediction
    from lamcap.theory._spectrum import singular_value_moment

    value, half = singular_value_moment(4, 1.0, d=16, p=58, return_error=True)
    assert spectrum_prediction(1.0, 16, 58) == (float(value), float(half))
    ratios = float(value) + np.array([-0.1, 0.05, 0.0, 0.08, -0.02, 0.1, -0.04, 0.03])
    sample = _solution_sample("max_margin", ratios)
    claim = spectrum_claims([sample])[0]
    sampling = float(np.std(ratios, ddof=1)) / math.sqrt(ratios.size)
    model = float(half) / stats.norm.ppf(0.975)
    assert claim.test == "t ± model error"
    # the interval: the sampling error, widened by the law's 95% half-width
    assert claim.standard_errors == pytest.approx((sampling,))
    assert claim.law_error == pytest.approx(float(half))
    assert claim.estimates == pytest.approx((ratios.mean() - float(value),))
    # the exactness test adds the law's error (one standard deviation) in quadrature
    assert claim.z == pytest.approx((ratios.mean() - float(value)) / math.hypot(sampling, model))


def _unit_norm_claims(truth: str, seeds: int) -> dict[str, object]:
    """Claims of decoupled and original cells with unit-norm embeddings at d = 12 and 16,
    drawn from the law of ``truth`` embeddings."""
    from lamcap.experiments._analysis import transition_rows
    from lamcap.experiments._shift import finite_size_law

    rng = np.random.default_rng(1)
    cells = {}
    for d, ps in ((12, range(36, 50, 2)), (16, range(56, 74, 2))):
        law = finite_size_law(d, 1.0, embeddings=truth)
        for model in ("decoupled", "original"):
            cell = Cell(d, 1.0, model, "auto", "sphere")
            cells[cell] = _cell_data(cell, law, list(ps), seeds, rng)
    return {c.claim: c for c in judge(build_claims(cells, transition_rows(cells), []))}


@pytest.mark.slow  # the unit-norm law at about 140 values of p
def test_unit_norm_transitions_are_judged_against_the_unit_norm_law() -> None:
    claims = _unit_norm_claims("sphere", 40)
    claim = claims["DP capacity, unit-norm embeddings: transition p, d = 16"]
    assert claim.verdict != "inconsistent"  # type: ignore[attr-defined]
    assert "critical_p(d, embeddings='sphere') = 64.85" in claim.note  # type: ignore[attr-defined]
    # a unit-norm pair gives an OP/DP measurement row, never the Gaussian trend claim
    ratio = claims["OP/DP transition ratio, unit-norm embeddings, d = 16"]
    assert ratio.verdict == "comparison (not judged)"  # type: ignore[attr-defined]
    assert not any(name.startswith("OP/DP transition ratio, d =") for name in claims)


@pytest.mark.slow
def test_unit_norm_claim_detects_data_that_follow_the_gaussian_law() -> None:
    # the Gaussian law sits 4.9% below the unit-norm law at d = 16: with 40 instances a
    # point the unit-norm claim must call such data inconsistent, and say the shift
    claims = _unit_norm_claims("gaussian", 40)
    claim = claims["DP capacity, unit-norm embeddings: transition p, d = 16"]
    assert claim.verdict == "inconsistent"  # type: ignore[attr-defined]
    assert "shift -" in claim.note  # type: ignore[attr-defined]
