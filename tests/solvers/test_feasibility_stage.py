"""Feasibility-first stage of the certified solver (lamcap.solvers._feasibility_stage).

References are independent: verdicts and margins are recomputed by
``lamcap.solvers.verify`` / ``certificates`` (plain numpy), the loss against
``numpy.logaddexp`` and central differences, the L-BFGS direction against the
explicit inverse-BFGS matrix, and every compiled kernel against its py_func.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamcap.problems import hebbian_weights, make_instance
from lamcap.solvers import _feasibility_stage as stage_module
from lamcap.solvers import solve, verify
from lamcap.solvers._certificates import FEASIBILITY_TOLERANCE, min_margin
from lamcap.solvers._constraints import LossRows, WorkingSet, score_pass
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._feasibility_stage import (
    _NOT_SEPARABLE,
    _SEPARATED,
    FeasibilityOptions,
    _descent_direction,
    _lbfgs_iterations,
    _loss_levels,
    _Memory,
    _remember,
    _separate,
    _weighted_rows,
    exp_nonpositive,
    lbfgs_direction,
    run_feasibility_stage,
    softmin_loss,
    working_set_loss,
)


def _critical(d: int) -> float:
    import lamcap

    return float(lamcap.critical_p(d))


def _solve(instance, **options):  # type: ignore[no-untyped-def]
    return solve_cutting_plane(
        instance,
        rank=instance.d,
        raw_margin=1.0,
        max_seconds=None,
        seed=0,
        options=CuttingPlaneOptions(**options),
    )


def _stage(instance, options=None, deadline=math.inf):  # type: ignore[no-untyped-def]
    return run_feasibility_stage(instance, hebbian_weights(instance), deadline, options)


# --------------------------------------------------------------------------- kernels
def _working_set(n: int, d: int, per: int, seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, per + 1, size=n)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pool = rng.standard_normal((3 * n, d)) / math.sqrt(d)
    target_rows = rng.integers(0, 3 * n, size=n).astype(np.int64)
    rows = rng.integers(0, 3 * n, size=int(offsets[-1])).astype(np.int64)
    scales = rng.uniform(0.5, 2.0, size=rows.size)
    hidden = rng.standard_normal((n, d)) * 3.0
    return hidden, offsets, pool, target_rows, rows, scales


def _reference_loss(hidden, offsets, pool, target_rows, rows, scales):  # type: ignore[no-untyped-def]
    total = 0.0
    for mu in range(hidden.shape[0]):
        block = slice(offsets[mu], offsets[mu + 1])
        directions = scales[block, None] * (pool[target_rows[mu]] - pool[rows[block]])
        margins = directions @ hidden[mu]
        total += np.logaddexp.reduce(np.concatenate([[0.0], -margins]))
    return total


@pytest.mark.parametrize("kernel", [softmin_loss, softmin_loss.py_func])
def test_softmin_loss_matches_logaddexp_and_central_differences(kernel) -> None:  # type: ignore[no-untyped-def]
    hidden, offsets, pool, target_rows, rows, scales = _working_set(12, 5, 4, seed=1)
    gradient = np.empty_like(hidden)
    levels = np.empty(rows.size)
    loss, lowest = kernel(hidden, offsets, pool, target_rows, rows, scales, gradient, levels)
    reference = _reference_loss(hidden, offsets, pool, target_rows, rows, scales)
    assert loss == pytest.approx(reference, rel=1e-13)
    owners = np.repeat(np.arange(12), np.diff(offsets))
    expected_levels = scales * np.einsum(
        "kd,kd->k", pool[target_rows[owners]] - pool[rows], hidden[owners]
    )
    np.testing.assert_allclose(levels, expected_levels, rtol=1e-12, atol=1e-12)
    assert lowest == levels.min()
    step = 1e-6
    for mu, t in [(0, 0), (3, 2), (11, 4)]:
        shifted = [hidden.copy(), hidden.copy()]
        shifted[0][mu, t] += step
        shifted[1][mu, t] -= step
        values = [_reference_loss(h, offsets, pool, target_rows, rows, scales) for h in shifted]
        assert gradient[mu, t] == pytest.approx((values[0] - values[1]) / (2 * step), abs=1e-7)


@pytest.mark.parametrize("kernel", [exp_nonpositive, exp_nonpositive.py_func])
def test_exp_nonpositive_within_two_units_in_the_last_place(kernel) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    arguments = np.concatenate(
        [-rng.exponential(30.0, 5000), -rng.uniform(0.0, 708.0, 2000), [0.0, -0.0, -5e-324]]
    )
    values = arguments.copy()
    kernel(values, np.empty(values.size), values.size)
    exact = np.array([math.exp(x) for x in arguments])
    assert np.all(np.abs(values - exact) <= 2.0 * np.spacing(exact))
    tail = np.array([-708.5, -745.2, -1e300, -np.inf, np.nan, -3.0])
    kernel(tail, np.empty(tail.size), 5)  # the last entry is beyond count: untouched
    floor = math.exp(-708.0)  # arguments below -708 give e^-708
    assert np.all(tail[:4] == tail[0])
    assert abs(tail[0] - floor) <= 2.0 * np.spacing(floor)
    assert math.isnan(tail[4])
    assert tail[5] == -3.0


def test_softmin_helpers_match_their_py_funcs() -> None:
    hidden, offsets, pool, target_rows, rows, scales = _working_set(9, 6, 5, seed=3)
    outputs = []
    for levels_kernel, rows_kernel in [
        (_loss_levels, _weighted_rows),
        (_loss_levels.py_func, _weighted_rows.py_func),
    ]:
        levels, shifts, gradient = np.empty(rows.size), np.empty(9), np.empty_like(hidden)
        lowest = levels_kernel(hidden, offsets, pool, target_rows, rows, scales, levels, shifts)
        rows_kernel(scales, offsets, pool, target_rows, rows, gradient)
        outputs.append((lowest, levels, shifts, gradient))
    (lowest, levels, shifts, gradient), (lowest_py, levels_py, shifts_py, gradient_py) = outputs
    assert lowest == pytest.approx(lowest_py, rel=1e-13)
    np.testing.assert_allclose(levels, levels_py, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(shifts, shifts_py, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gradient, gradient_py, rtol=1e-12, atol=1e-13)
    owners = np.repeat(np.arange(9), np.diff(offsets))
    for mu in range(9):
        block = levels[offsets[mu] : offsets[mu + 1]]
        assert shifts[mu] == max(0.0, -float(block.min(initial=math.inf)))
    expected = np.zeros_like(hidden)
    np.add.at(expected, owners, scales[:, None] * (pool[rows] - pool[target_rows[owners]]))
    np.testing.assert_allclose(gradient, expected, rtol=1e-12, atol=1e-13)


def test_softmin_loss_survives_huge_margins_and_empty_blocks() -> None:
    hidden, offsets, pool, target_rows, rows, scales = _working_set(6, 4, 3, seed=2)
    hidden *= 1e6  # exp(-margin) over- and underflows without the shift
    offsets[3] = offsets[2]  # association 2 owns nothing (its rows go to 3)
    gradient = np.full_like(hidden, np.nan)
    levels = np.empty(rows.size)
    loss, _ = softmin_loss(hidden, offsets, pool, target_rows, rows, scales, gradient, levels)
    assert math.isfinite(loss)
    assert np.all(np.isfinite(gradient))
    assert np.all(gradient[2] == 0.0)


@pytest.mark.parametrize("compiled", [True, False])
def test_memory_direction_is_the_inverse_bfgs_matrix_times_the_gradient(
    monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    remember, descent_direction = _remember, _descent_direction
    if not compiled:  # the memory's kernels and the two-loop recursion, all as Python
        monkeypatch.setattr(stage_module, "lbfgs_direction", lbfgs_direction.py_func)
        remember, descent_direction = _remember.py_func, _descent_direction.py_func
    rng = np.random.default_rng(5)
    memory = _Memory(size=3, length=6)
    arrays = (memory.steps, memory.changes, memory.inverses, memory.ring)
    pairs = []
    for _ in range(5):
        step = rng.standard_normal(6)
        change = step + 0.3 * rng.standard_normal(6)  # s.y > 0 with high probability
        if step @ change > 0:
            remember(*arrays, step, change)
            pairs.append((step, change))
    pairs = pairs[-3:]
    step, change = pairs[-1]
    inverse = (step @ change) / (change @ change) * np.eye(6)
    for step, change in pairs:  # H <- (I - r s y^T) H (I - r y s^T) + r s s^T
        r = 1.0 / (step @ change)
        left = np.eye(6) - r * np.outer(step, change)
        inverse = left @ inverse @ left.T + r * np.outer(step, step)
    gradient = rng.standard_normal(6)
    direction = descent_direction(*arrays, gradient)
    np.testing.assert_allclose(direction, -inverse @ gradient, rtol=1e-12)


@pytest.mark.parametrize("kernel", [working_set_loss, working_set_loss.py_func])
def test_working_set_loss_is_the_mean_loss_of_w_and_its_gradient(kernel) -> None:  # type: ignore[no-untyped-def]
    _, offsets, pool, target_rows, rows, scales = _working_set(7, 5, 4, seed=3)
    rng = np.random.default_rng(4)
    unit_inputs = rng.standard_normal((7, 5))
    unit_inputs /= np.linalg.norm(unit_inputs, axis=1)[:, None]
    point = rng.standard_normal(25)
    gradient, levels = np.empty(25), np.empty(rows.size)
    loss, lowest = kernel(
        unit_inputs, offsets, pool, target_rows, rows, scales, point, gradient, levels
    )

    def mean_loss(vector):  # type: ignore[no-untyped-def]
        hidden = unit_inputs @ vector.reshape(5, 5).T
        return _reference_loss(hidden, offsets, pool, target_rows, rows, scales) / 7

    assert loss == pytest.approx(mean_loss(point), rel=1e-13)
    assert lowest == pytest.approx(levels.min(), rel=1e-15)
    step = 1e-6
    numeric = [
        (mean_loss(point + step * e) - mean_loss(point - step * e)) / (2 * step) for e in np.eye(25)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-9)


def _stage_rows(model: str, d: int = 16, p: int = 55, seed: int = 2):  # type: ignore[no-untyped-def]
    instance = make_instance(d, p, model=model, seed=seed)
    weights = hebbian_weights(instance)
    member = np.zeros((instance.n, instance.p), dtype=bool)
    cuts = score_pass(instance, weights, member, math.inf, 12)
    assert cuts.directions is not None
    working = WorkingSet(instance.n, instance.d)
    working.add(cuts.mus, cuts.rhos, cuts.directions)
    unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
    scale = float(np.mean(np.abs(cuts.levels)))
    return instance, working.loss_rows(instance), unit_inputs, weights / scale


def _iterate(kernel, rows, unit_inputs, start, budget, calls, history=40):  # type: ignore[no-untyped-def]
    point = start.ravel().copy()
    gradient, levels = np.empty_like(point), np.empty(rows.rows.size)
    losses, counts = np.empty(history + 1), np.zeros(3, dtype=np.int64)
    memory = _Memory(5, point.size)
    arrays = (rows.offsets, rows.pool, rows.target_rows, rows.rows, rows.scales, levels)
    for _ in range(calls):
        kernel(unit_inputs, *arrays, point, gradient, losses, counts,
               memory.steps, memory.changes, memory.inverses, memory.ring, budget)  # fmt: skip
    return point, counts, levels


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_lbfgs_iterations_compiled_sliced_and_python_agree(interpret, model: str) -> None:  # type: ignore[no-untyped-def]
    _, rows, unit_inputs, start = _stage_rows(model)
    whole = _iterate(_lbfgs_iterations, rows, unit_inputs, start, 40, 1)
    sliced = _iterate(_lbfgs_iterations, rows, unit_inputs, start, 1, 41)
    python = _iterate(_lbfgs_iterations.py_func, rows, unit_inputs, start, 40, 1)
    interpret(stage_module)  # the whole loop as Python: its inlined helpers too
    interpreted = _iterate(stage_module._lbfgs_iterations, rows, unit_inputs, start, 40, 1)
    assert whole[1][2] == _SEPARATED  # the working set of a feasible instance separates
    assert whole[1][0] > 2  # after some iterations: Hebbian alone does not
    assert np.all(whole[2] > 0)  # the levels of the returned point
    for other in (sliced, python):
        np.testing.assert_array_equal(other[1], whole[1])
        np.testing.assert_allclose(other[0], whole[0], rtol=1e-12, atol=1e-14)
    # the compiled loss sums in SIMD order (fastmath), Python in index order
    np.testing.assert_array_equal(interpreted[1], whole[1])
    scale = float(np.abs(whole[0]).max())
    np.testing.assert_allclose(interpreted[0], whole[0], rtol=1e-12, atol=1e-14 * scale)


def _random_memory(rng: np.random.Generator, pairs: int, length: int) -> tuple[np.ndarray, ...]:
    memory = _Memory(size=4, length=length)
    memory.steps[:] = rng.standard_normal((4, length))
    memory.changes[:] = memory.steps + 0.3 * rng.standard_normal((4, length))
    memory.inverses[:] = 1.0 / np.einsum("kd,kd->k", memory.steps, memory.changes)
    memory.ring[:] = (pairs, rng.integers(0, 4))
    return memory.steps, memory.changes, memory.inverses, memory.ring


@pytest.mark.parametrize("pairs", [0, 1, 4])
def test_direction_and_memory_kernels_equal_their_python_call_trees(interpret, pairs: int) -> None:  # type: ignore[no-untyped-def]
    # compiled, _descent_direction inlines lbfgs_direction (and _lbfgs_iterations both)
    rng = np.random.default_rng(pairs)
    arrays = _random_memory(rng, pairs, 9)
    gradient, step = rng.standard_normal(9), rng.standard_normal(9)
    change = step + 0.1 * rng.standard_normal(9)
    outcomes = []
    for interpreted in (False, True):
        if interpreted:
            interpret(stage_module)
        direction_kernel, remember_kernel = stage_module._descent_direction, stage_module._remember
        copies = tuple(array.copy() for array in arrays)
        direction = direction_kernel(*copies, gradient)
        remember_kernel(*copies, step, change)
        outcomes.append((direction, *copies))
    for compiled, python in zip(*outcomes, strict=True):
        np.testing.assert_allclose(compiled, python, rtol=1e-13, atol=1e-15)


def test_separate_returns_a_w_separating_its_working_set() -> None:
    instance, rows, unit_inputs, start = _stage_rows("original")
    memory = _Memory(10, instance.d * instance.d)
    found = _separate(rows, unit_inputs, start, memory, FeasibilityOptions(), math.inf)
    assert found.weights is not None
    assert found.weights.shape == (instance.d, instance.d)
    hidden = unit_inputs @ found.weights.T
    mus = np.repeat(np.arange(instance.n), np.diff(rows.offsets))
    levels = rows.scales * np.einsum(
        "kd,kd->k", rows.pool[rows.target_rows[mus]] - rows.pool[rows.rows], hidden[mus]
    )
    assert levels.min() > 0  # recomputed with numpy
    assert found.mean_level == pytest.approx(levels.mean(), rel=1e-12)
    assert found.evaluations >= 2
    late = _separate(rows, unit_inputs, start, memory, FeasibilityOptions(), -math.inf)
    assert late.weights is None
    assert late.evaluations == 0


def test_lbfgs_iterations_give_up_on_an_inseparable_working_set() -> None:
    # d = 1, one association, competitors above and below the target: no W separates
    unit_inputs = np.ones((1, 1))
    pool = np.array([[0.0], [1.0], [-1.0]])
    offsets = np.array([0, 2], dtype=np.int64)
    rows, scales = np.array([1, 2], dtype=np.int64), np.ones(2)
    working = LossRows(offsets, pool, np.zeros(1, dtype=np.int64), rows, scales)
    point, counts, _ = _iterate(
        _lbfgs_iterations, working, unit_inputs, np.array([[0.3]]), 400, 1, 300
    )
    assert counts[2] == _NOT_SEPARABLE
    assert counts[1] < 300  # the stall test, not the iteration limit, ended it
    assert abs(point[0]) < 1e-3  # at the minimiser W = 0 of the symmetric loss


# --------------------------------------------------------------------------- the stage
@pytest.mark.parametrize("model", ["decoupled", "original"])
@pytest.mark.parametrize("d", [16, 24])
def test_stage_finds_a_verified_w_below_the_transition(model: str, d: int) -> None:
    for seed in range(2):
        instance = make_instance(d, round(0.9 * _critical(d)), model=model, seed=seed)
        outcome = _stage(instance)
        assert outcome.found
        assert outcome.stopped == "found"
        assert min_margin(instance, outcome.weights) > FEASIBILITY_TOLERANCE
        result = _solve(instance)
        assert result.verdict == "feasible"
        assert result.details["stage"] == "feasibility"
        assert result.details["feasibility_stopped"] == "found"
        assert result.details["feasibility_passes"] >= 2  # Hebbian alone fails here
        assert verify(instance, result)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_stage_never_changes_an_infeasible_verdict(model: str) -> None:
    for d, p, seed in [(4, 40, 1), (10, 36, 0), (12, 50, 2)]:
        instance = make_instance(d, p, model=model, seed=seed)
        outcome = _stage(instance)
        assert not outcome.found
        assert outcome.stopped in ("not_separated", "no_progress", "max_passes")
        assert np.all(np.isfinite(outcome.weights))
        with_stage = _solve(instance)
        without = _solve(instance, feasibility_first=False)
        assert with_stage.verdict == without.verdict == "infeasible"
        assert verify(instance, with_stage)
        assert with_stage.details["feasibility_stopped"] == outcome.stopped
        assert "feasibility_stopped" not in without.details


def test_a_time_limit_too_small_for_any_stage_gives_undecided_with_the_reason() -> None:
    instance = make_instance(16, round(0.9 * _critical(16)), seed=0)
    assert _stage(instance).found  # decided with time (see above)
    result = solve(instance, max_seconds=1e-9)
    assert result.verdict == "undecided"
    assert result.details["stopped"] == "time_limit"
    assert result.details["feasibility_stopped"] == "time_limit"
    assert result.details["feasibility_passes"] == 1  # its own first pass only
    check = verify(instance, result)
    assert check.consistent
    assert not check
    stage = _stage(instance, deadline=0.0)
    assert (stage.found, stage.stopped) == (False, "time_limit")


def test_max_passes_and_max_margin_leave_the_stage_out_or_stop_it() -> None:
    instance = make_instance(16, round(0.9 * _critical(16)), seed=1)
    outcome = _stage(instance, FeasibilityOptions(max_passes=1))
    assert (outcome.found, outcome.stopped, outcome.passes) == (False, "max_passes", 1)
    best = solve(instance, objective="max_margin")
    assert best.verdict == "feasible"
    assert "feasibility_stopped" not in best.details
