"""The partial-recall claim of ``reproduce``: its test, its verdicts, its resumable runs, a real run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from lamcap import best_accuracy
from lamcap.experiments._executors import InlineExecutor
from lamcap.experiments._recall_fraction import (
    RecallDesign,
    RecallPoint,
    bracket_test,
    recall_fraction_claim,
    recall_summary,
    recall_tasks,
    run_recall,
)
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Task
from lamcap.experiments._verdicts import Claim, familywise_quantile, judge

# -- the test ----------------------------------------------------------------------------------


def test_bracket_test_is_two_one_sided_t_tests() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        lower = rng.uniform(0.7, 0.9, 9)
        upper = lower + rng.uniform(0.0, 0.1, 9)
        predicted = float(rng.uniform(0.7, 1.0))
        test = bracket_test(lower, upper, predicted, n=10**9)  # resolution floor out of play
        above = stats.ttest_1samp(lower, predicted, alternative="greater")
        below = stats.ttest_1samp(upper, predicted, alternative="less")
        assert test.t_lower == pytest.approx(above.statistic, rel=1e-12)
        assert test.p_lower == pytest.approx(above.pvalue, rel=1e-9)
        assert test.p_upper == pytest.approx(below.pvalue, rel=1e-9)
        assert test.p_value == pytest.approx(min(1.0, 2 * min(above.pvalue, below.pvalue)))
        assert test.width == pytest.approx(max(0.0, float(np.mean(upper) - np.mean(lower))))


def test_equal_counts_keep_a_standard_error_of_half_an_association() -> None:
    test = bracket_test(np.full(4, 0.5), np.full(4, 0.9), 0.7, n=50)
    assert test.lower_error == pytest.approx(0.5 / (50 * 2))
    assert test.upper_error == pytest.approx(0.5 / (50 * 2))
    assert test.z == 0.0  # the prediction lies inside the bracket


def test_the_bracket_test_holds_its_level_when_the_prediction_is_a_bound() -> None:
    # the lower bounds' mean equals the prediction (the least favourable true case):
    # the lower side rejects at 5% in about 2.5% of the draws, never much more
    rng = np.random.default_rng(7)
    draws = 4000
    rejected = 0
    for _ in range(draws):
        lower = rng.normal(0.8, 0.03, 8)
        rejected += bracket_test(lower, lower + 0.15, 0.8, n=10**9).p_value <= 0.05
    expected = 0.025
    assert abs(rejected / draws - expected) < 4 * math.sqrt(expected * (1 - expected) / draws)


# -- the verdicts ------------------------------------------------------------------------------


def _point(lower: list[int] | np.ndarray, upper: list[int] | np.ndarray, p: int) -> RecallPoint:
    return RecallPoint(
        d=16,
        p=p,
        critical_fraction=1.25,
        max_seconds=60.0,
        lower=np.asarray(lower, dtype=np.int64),
        upper=np.asarray(upper, dtype=np.int64),
    )


def _judged(point: RecallPoint, predicted: float) -> Claim:
    return judge([recall_fraction_claim(point, predicted=predicted)])[0]


def test_a_wide_bracket_around_the_prediction_is_inconclusive_and_says_why() -> None:
    # the shape of today's measurements: lower bounds a few points below the law,
    # upper bounds n - 1
    lower = [68, 67, 70, 66, 69, 68, 67, 70]
    claim = _judged(_point(lower, [76] * 8, 77), predicted=0.913)
    assert claim.verdict == "inconclusive"
    width = 76 / 77 - float(np.mean(lower)) / 77
    assert claim.bracket_width == pytest.approx(width)
    assert claim.floor == pytest.approx(width / 2, rel=1e-9)
    # the hull of both ends, each widened by the Bonferroni t quantile (one claim here)
    q = familywise_quantile(1, df=7.0)
    low = float(np.mean(lower)) / 77 - 0.913 - q * claim.standard_errors[0]
    high = 76 / 77 - 0.913 + q * claim.standard_errors[1]
    assert claim.interval == pytest.approx((low, high), rel=1e-9)
    assert f"cannot be decided at a tolerance of 0.01: its floor is {width / 2:.3f}" in claim.advice
    assert "×" not in claim.advice
    assert "tighter certified upper bound" in claim.note
    assert claim.test.startswith("bracket")


def test_lower_bounds_above_the_law_refute_it_as_an_upper_estimate() -> None:
    claim = _judged(_point([74, 75, 74, 76, 75, 74, 75, 76], [77] * 8, 77), predicted=0.913)
    assert claim.verdict == "inconsistent"
    assert claim.z > 0


def test_upper_bounds_below_the_law_are_inconsistent_too() -> None:
    claim = _judged(
        _point([60, 61, 60, 62, 61, 60, 59, 61], [63, 64, 63, 64, 63, 64, 63, 64], 77), 0.913
    )
    assert claim.verdict == "inconsistent"
    assert claim.z < 0


def test_a_closed_bracket_on_many_instances_is_consistent() -> None:
    # every instance solved to optimality (lower = upper), 64 instances of n = 500
    rng = np.random.default_rng(2)
    optimum = np.round(500 * rng.normal(0.9, 0.006, 64)).astype(np.int64)
    claim = _judged(_point(optimum, optimum, 500), predicted=float(np.mean(optimum)) / 500)
    assert claim.bracket_width == 0.0
    assert claim.floor < 1e-9
    assert claim.verdict == "consistent"


def test_a_closed_bracket_on_few_instances_is_inconclusive_for_the_statistics() -> None:
    counts = np.array([440, 452, 447, 459])
    claim = _judged(_point(counts, counts, 500), predicted=0.9)
    assert claim.verdict == "inconclusive"
    assert "× the instances" in claim.advice
    assert "bracket" not in claim.advice  # nothing to narrow


def test_a_bracket_is_consistent_when_its_hull_fits_and_undecidable_when_half_its_width_does_not() -> (
    None
):
    rng = np.random.default_rng(5)
    lower = np.round(500 * rng.normal(0.9, 0.004, 64)).astype(np.int64)
    claim = _judged(_point(lower, lower + 8, 500), predicted=float(np.mean(lower) + 4) / 500)
    # width 0.016: the hull [-0.008 - q s, 0.008 + q s] stays inside ±0.01 (s about 0.0005)
    assert claim.verdict == "consistent"
    assert claim.floor == pytest.approx(0.008, rel=1e-9)
    # 12 associations apart: width 0.024, half of it above the tolerance
    wide = _judged(_point(lower, lower + 12, 500), predicted=float(np.mean(lower) + 6) / 500)
    assert wide.verdict == "inconclusive"
    assert wide.advice.startswith("cannot be decided at a tolerance of 0.01: its floor is 0.012")
    # the same bounds 4 associations apart: width 0.008, the hull within the tolerance
    closer = _judged(_point(lower, lower + 4, 500), predicted=float(np.mean(lower) + 2) / 500)
    assert closer.verdict == "consistent"


def test_one_instance_is_not_tested() -> None:
    claim = _judged(_point([30], [37], 38), predicted=0.92)
    assert claim.verdict == "not tested: fewer than 2 solved instances"


def test_a_negative_bracket_width_is_refused() -> None:
    with pytest.raises(ValueError, match=r"bracket_width must be a finite number >= 0, got -0\.1"):
        Claim("a", "1", "1", bracket_width=-0.1)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"dims": (1,), "max_seconds": (5.0,)}, r"d must be an integer in \[2, 1024\], got 1"),
        ({"dims": (10, 12), "max_seconds": (5.0,)}, "max_seconds must give one time limit per d"),
        ({"dims": (10,), "max_seconds": (0.0,)}, r"max_seconds must be > 0\.0, got 0\.0"),
        (
            {"dims": (10,), "max_seconds": (5.0,), "critical_fractions": (-1.0,)},
            "critical_fraction must be",
        ),
        ({"dims": (10,), "max_seconds": (5.0,), "seeds": 1}, r"seeds must be .*got 1"),
    ],
)
def test_bad_designs_name_the_argument(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RecallDesign(**fields)


# -- resumable store ---------------------------------------------------------------------------

_DESIGN = RecallDesign(dims=(8,), max_seconds=(5.0,), critical_fractions=(1.25, 1.5), seeds=3)


def _fake_trial(task: Task) -> dict[str, Any]:
    """Deterministic bounds of a task (no solver): lower = p - 5 - replicate, upper = p - 1."""
    return {
        "n": task.p,
        "recall_lower": task.p - 5 - task.replicate,
        "recall_upper": task.p - 1,
        "verdict": "bounded",
        "upper_exact": True,
        "stopped": None,
        "start": "fake",
        "seconds": 0.0,
        "cpu_seconds": 0.0,
    }


class _Calls:
    def __init__(self, fail_at: int | None = None) -> None:
        self.calls = 0
        self.fail_at = fail_at

    def __call__(self, task: Task) -> dict[str, Any]:
        self.calls += 1
        if self.fail_at is not None and self.calls == self.fail_at:
            raise KeyboardInterrupt
        return _fake_trial(task)


def _count(path: Path) -> int:
    with ResultsStore(path, readonly=True) as store:
        return store.count(table="max_recall")


def test_an_interrupted_run_resumes_without_losing_or_repeating_a_solve(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    planned = len(recall_tasks(_DESIGN, seed=11))
    assert planned == 6
    interrupted = _Calls(fail_at=4)
    with pytest.raises(KeyboardInterrupt):
        run_recall(InlineExecutor(), _DESIGN, 11, path, trial=interrupted)
    assert _count(path) == 3  # the three finished before the interruption
    resumed = _Calls()
    points = run_recall(InlineExecutor(), _DESIGN, 11, path, trial=resumed)
    assert resumed.calls == planned - 3
    again = _Calls()
    rerun = run_recall(InlineExecutor(), _DESIGN, 11, path, trial=again)
    assert again.calls == 0
    assert [p.lower.tolist() for p in rerun] == [p.lower.tolist() for p in points]
    with ResultsStore(path, readonly=True) as store:
        rows = store.rows(table="max_recall")
        assert store.count() == 0  # no feasibility row: the solves have their own table
    assert len(rows) == planned
    assert len({(r["p"], r["seed"]) for r in rows}) == planned  # nothing twice
    assert {r["sweep"] for r in rows} == {"max_recall"}
    assert [(p.p, p.count) for p in points] == [(28, 3), (33, 3)]
    assert points[0].lower.tolist() == [23, 22, 21]
    assert points[0].upper.tolist() == [27, 27, 27]
    # the same points as an uninterrupted run
    whole = run_recall(InlineExecutor(), _DESIGN, 11, tmp_path / "whole.sqlite", trial=_fake_trial)
    assert [(p.lower.tolist(), p.upper.tolist()) for p in whole] == [
        (p.lower.tolist(), p.upper.tolist()) for p in points
    ]


def test_a_failing_solve_stops_the_run_naming_it_and_keeps_what_finished(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"

    def broken(task: Task) -> dict[str, Any]:
        if task.replicate == 1:
            msg = "no memory"
            raise MemoryError(msg)
        return _fake_trial(task)

    with pytest.raises(RuntimeError, match=r"failed, first Task\(d=8, .*MemoryError: no memory"):
        run_recall(InlineExecutor(), _DESIGN, 11, path, trial=broken)
    assert _count(path) == 4  # every other solve finished (submitted at once) and is kept
    rest = _Calls()
    run_recall(InlineExecutor(), _DESIGN, 11, path, trial=rest)
    assert rest.calls == 2
    assert _count(path) == 6


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    path.write_bytes(b"not a database, " * 100)
    with pytest.raises(ValueError, match="is not a lamcap results database"):
        run_recall(InlineExecutor(), _DESIGN, 11, path, trial=_fake_trial)


def test_only_the_designs_own_instances_make_its_points(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    run_recall(InlineExecutor(), _DESIGN, 11, path, trial=_fake_trial)
    other = RecallDesign(dims=(8,), max_seconds=(9.0,), critical_fractions=(1.25,), seeds=2)
    calls = _Calls()
    points = run_recall(InlineExecutor(), other, 11, path, trial=calls)
    assert calls.calls == 2  # another time limit is another measurement
    assert [(p.p, p.count, p.max_seconds) for p in points] == [(28, 2, 9.0)]
    assert _count(path) == 6 + 2


def test_the_summary_shows_the_solves_once_per_instance(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    run_recall(InlineExecutor(), _DESIGN, 11, path, trial=_fake_trial)
    lines = recall_summary([path, path]).splitlines()  # a solve in two stores counts once
    assert len(lines) == 2 + 2
    # p = 28: lower 23, 22, 21 and upper 27 of n = 28
    assert lines[2] == (
        f"| 8 | 28 | decoupled | gaussian | 5 | 3 | [{22 / 28:.3f}, {27 / 28:.3f}] | 0 | 3 | "
        f"{float(best_accuracy(8, 28)):.3f} |"
    )
    assert recall_summary([]) == ""


# -- a real run --------------------------------------------------------------------------------


def test_a_small_real_run_brackets_the_optimum(tmp_path: Path) -> None:
    from lamcap import critical_p
    from lamcap.problems import hebbian_weights, make_instance, recall_accuracy

    design = RecallDesign(dims=(6,), max_seconds=(20.0,), critical_fractions=(1.5,), seeds=3)
    (point,) = run_recall(InlineExecutor(), design, 3, tmp_path / "results.sqlite")
    assert point.p == round(1.5 * float(critical_p(6)))
    assert point.count == 3
    assert np.all(point.lower <= point.upper)
    assert np.all(point.upper <= point.p)
    assert np.all(point.upper < point.p)  # beyond capacity: at least one set is unrecallable
    # the lower bound is at least what the Hebbian W recalls on the same instance
    for (_, task), lower in zip(recall_tasks(design, 3), point.lower, strict=True):
        instance = make_instance(task.d, task.p, model="decoupled", seed=task.seed)
        assert lower >= round(float(recall_accuracy(instance, hebbian_weights(instance))) * task.p)
    claim = judge([recall_fraction_claim(point)])[0]
    assert claim.prediction.startswith(f"{float(best_accuracy(6, point.p)):.3f}")
    assert claim.verdict in ("consistent", "inconsistent", "inconclusive")
    assert claim.floor >= claim.bracket_width / 2 - 1e-12


def test_the_claims_of_a_run_end_with_the_recall_points() -> None:
    from lamcap.experiments._reproduce import FULL, QUICK, evaluate

    point = _point([68, 67, 70, 66, 69, 68, 67, 70], [76] * 8, 77)
    _, claims = evaluate({}, [], [point])
    assert claims[-1].claim == (
        "best accuracy beyond capacity (DP, Gaussian), d = 16, p = 77 (1.25 p_c)"
    )
    assert claims[-1].tested
    assert claims[-1].verdict == "inconclusive"
    assert not any(c.claim.startswith("best recall") for c in evaluate({}, [])[1])
    # the plans: a small d in the quick plan, d = 16 and 32 in the full one, beyond p_c
    assert QUICK.recall is not None
    assert FULL.recall is not None
    assert QUICK.recall.dims == (10,)
    assert FULL.recall.dims == (16, 32)
    for design in (QUICK.recall, FULL.recall):
        assert min(design.critical_fractions) > 1.0
        assert design.seeds >= 8
