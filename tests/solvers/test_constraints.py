"""The solvers' constraints (lamcap.solvers._constraints): normaliser, full pass, working set.

References are independent: dense loops over ``instance.outputs`` and
``instance.inputs`` (the conftest's ``loop_levels``, no lamcap pass), numpy's fancy indexing for the
directions, and every compiled function against its ``py_func``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import lamcap
from lamcap.problems import hebbian_weights, make_instance
from lamcap.solvers import _constraints as constraints_module
from lamcap.solvers import check_margins, solve
from lamcap.solvers._certificates import checked_constraint_arrays
from lamcap.solvers._constraints import (
    ScorePass,
    WorkingSet,
    _presort_below_sample,
    _select,
    _smallest_to_front,
    _sort_by_level,
    at_raw_margin,
    constraint_directions,
    constraint_normalisers,
    lowest_constraints,
    normaliser,
    normalisers,
    raw_min_margin,
    score_pass,
)
from lamcap.solvers._feasibility_stage import _loss_levels
from lamcap.solvers._optimality import MarginDual, dual_value

LoopLevels = Callable[..., np.ndarray]  # the conftest's loop_levels fixture


def _reference_lowest(scores, norms2, targets, input_norms, member, level, cuts, raw):  # type: ignore[no-untyped-def]
    picked, lowest, lowest_raw = [], math.inf, math.inf
    for b in range(scores.shape[0]):
        t = targets[b]
        differences = scores[b, t] - scores[b]
        values = differences / (input_norms[b] * np.sqrt(norms2[b, t] + norms2[b]))
        differences[t] = values[t] = np.inf
        lowest = min(lowest, float(values.min()))
        lowest_raw = min(lowest_raw, float(differences.min()))
        levels = differences if raw else values
        allowed = [rho for rho in np.argsort(levels, kind="stable") if rho != t]
        chosen = [rho for rho in allowed if levels[rho] < level and not member[b, rho]]
        picked += [(b, int(rho)) for rho in chosen[:cuts]]
    return picked, lowest, lowest_raw


@pytest.mark.parametrize("kernel", [lowest_constraints, lowest_constraints.py_func])
@pytest.mark.parametrize("cuts", [0, 1, 3, 50])
@pytest.mark.parametrize("raw", [False, True])
def test_lowest_constraints_matches_a_sort(kernel, cuts: int, raw: bool) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(cuts)
    scores = rng.standard_normal((9, 20))
    norms2 = rng.uniform(0.5, 1.5, size=(9, 20))
    targets = rng.integers(0, 20, size=9).astype(np.int64)
    input_norms = rng.uniform(0.5, 1.5, size=9)
    member = rng.random((9, 20)) < 0.2
    level = 0.3
    picked = np.empty(2 * 9 * cuts, dtype=np.int64)
    levels = np.empty(9 * cuts)
    count, lowest, lowest_normalised, lowest_raw = kernel(
        scores, norms2, targets, input_norms, member, level, cuts, raw, True, picked, levels
    )
    if raw:  # a raw-only sweep finds the same constraints and raw minimum, no normalised one
        only = np.empty_like(picked), np.empty_like(levels)
        count_raw, lowest_raw_only, nan, raw_again = kernel(
            scores, norms2, targets, input_norms, member, level, cuts, True, False, *only
        )
        assert (count_raw, lowest_raw_only, raw_again) == (count, lowest, lowest_raw)
        assert math.isnan(nan)
        assert np.array_equal(only[0][: 2 * count], picked[: 2 * count])
    expected, expected_lowest, expected_raw = _reference_lowest(
        scores, norms2, targets, input_norms, member, level, cuts, raw
    )
    assert lowest_normalised == pytest.approx(expected_lowest, rel=1e-15)
    assert lowest_raw == expected_raw
    assert lowest == (lowest_raw if raw else lowest_normalised)
    found = list(
        zip(picked[: 2 * count : 2].tolist(), picked[1 : 2 * count : 2].tolist(), strict=True)
    )
    assert sorted(found) == sorted(expected)  # the same set
    keys = [(b, levels[k], rho) for k, (b, rho) in enumerate(found)]
    assert keys == sorted(keys)  # by row, then level, then column
    for k, (b, rho) in enumerate(found):
        t = targets[b]
        value = scores[b, t] - scores[b, rho]
        if not raw:
            value /= input_norms[b] * np.sqrt(norms2[b, t] + norms2[b, rho])
        assert levels[k] == pytest.approx(value, rel=1e-15)


def test_lowest_constraints_reports_nan_for_non_finite_levels() -> None:
    scores = np.array([[1.0, np.inf, 0.0]])
    for kernel in (lowest_constraints, lowest_constraints.py_func):
        count, lowest, normalised, raw = kernel(
            scores,
            np.ones((1, 3)),
            np.zeros(1, dtype=np.int64),
            np.ones(1),
            np.zeros((1, 3), dtype=bool),
            1.0,
            3,
            False,
            True,
            np.empty(6, dtype=np.int64),
            np.empty(3),
        )
        assert math.isnan(lowest)
        assert math.isnan(normalised)
        assert math.isnan(raw)
        assert count == 1  # the finite constraint is still a cut


@pytest.mark.parametrize("kernel", [_smallest_to_front, _smallest_to_front.py_func])
@pytest.mark.parametrize(
    ("count", "keep"),
    [(50, 7), (50, 1), (50, 49), (6, 10), (0, 3), (500, 40), (507, 1), (600, 120)],
)
def test_smallest_to_front_keeps_the_smallest(kernel, count: int, keep: int) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(count + keep)
    size = max(60, count + 10)
    values = rng.integers(0, 12 if count < 100 else 400, size=size).astype(float)  # ties
    labels = np.arange(size, dtype=np.int64)
    original = values.copy()
    kept = kernel(values, labels, count, keep)
    assert kept == min(count, keep)
    np.testing.assert_array_equal(np.sort(values[:kept]), np.sort(original[:count])[:kept])
    np.testing.assert_array_equal(original[labels[:kept]], values[:kept])  # labels follow
    if kept < count:  # the kept ones are the smallest (ties across the cut allowed)
        assert values[:kept].max() <= values[kept:count].min()
    assert sorted(labels[:count].tolist()) == list(range(count))  # a permutation


@pytest.mark.parametrize("kernel", [_sort_by_level, _sort_by_level.py_func])
def test_sort_by_level_orders_by_value_then_label(kernel) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    values = rng.integers(0, 6, size=60).astype(float)  # many ties
    labels = rng.permutation(60).astype(np.int64)
    pairs = sorted(zip(values[:50].tolist(), labels[:50].tolist(), strict=True))
    tail = values[50:].copy(), labels[50:].copy()
    kernel(values, labels, 50)
    assert list(zip(values[:50].tolist(), labels[:50].tolist(), strict=True)) == pairs
    assert np.array_equal(values[50:], tail[0])
    assert np.array_equal(labels[50:], tail[1])


@pytest.mark.parametrize("kernel", [_presort_below_sample, _presort_below_sample.py_func])
def test_presort_below_sample_moves_exactly_the_entries_below_its_pivot(kernel) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(11)
    values = rng.standard_normal(700)
    labels = np.arange(700, dtype=np.int64)
    original = values.copy()
    below = kernel(values, labels, 640, 50)
    pivot = np.partition(original[: 640 : 640 // 64][:64], 8)[8]  # rank 50 * 64 // 640 + 3
    assert below == int(np.sum(original[:640] < pivot))
    assert np.all(values[:below] < pivot)
    assert np.all(values[below:640] >= pivot)
    np.testing.assert_array_equal(original[labels], values)  # a permutation, labels follow
    np.testing.assert_array_equal(values[640:], original[640:])


@pytest.mark.parametrize("kernel", [_select, _select.py_func])
@pytest.mark.parametrize(("count", "k"), [(1, 0), (64, 0), (64, 9), (64, 63), (33, 16), (300, 77)])
def test_select_puts_the_kth_smallest_at_k(kernel, count: int, k: int) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(count * 100 + k)
    values = rng.integers(0, 10, size=count + 5).astype(float)  # many ties
    labels = np.arange(count + 5, dtype=np.int64)
    original = values.copy()
    kernel(values, labels, count, k)
    assert values[k] == np.sort(original[:count])[k]  # the pivot np.sort gave before
    assert (
        values[:k].max(initial=-math.inf)
        <= values[k]
        <= values[k + 1 : count].min(initial=math.inf)
    )
    np.testing.assert_array_equal(original[labels], values)  # a permutation, labels follow
    np.testing.assert_array_equal(values[count:], original[count:])


def test_select_compiled_moves_the_entries_as_its_py_func() -> None:
    rng = np.random.default_rng(21)
    for count in (2, 64, 65, 500):
        values = np.round(rng.standard_normal(count), 1)  # ties
        moved = []
        for kernel in (_select, _select.py_func):
            copy, labels = values.copy(), np.arange(count, dtype=np.int64)
            kernel(copy, labels, count, count // 3)
            moved.append((copy, labels))
        np.testing.assert_array_equal(moved[0][0], moved[1][0])
        np.testing.assert_array_equal(moved[0][1], moved[1][1])


def _lowest_arguments(seed: int, rows: int, columns: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    scores = np.round(rng.standard_normal((rows, columns)), 2)  # ties between levels
    norms2 = rng.uniform(0.5, 2.0, size=(rows, columns))
    targets = rng.integers(0, columns, size=rows).astype(np.int64)
    input_norms = rng.uniform(0.5, 2.0, size=rows)
    member = rng.random((rows, columns)) < 0.1
    return scores, norms2, targets, input_norms, member


@pytest.mark.parametrize(
    ("columns", "cuts", "raw"), [(20, 3, False), (300, 5, False), (300, 40, True)]
)
def test_lowest_constraints_equals_its_call_tree_run_as_python(
    interpret, columns: int, cuts: int, raw: bool
) -> None:  # type: ignore[no-untyped-def]
    # the compiled pass inlines its helpers (the pivot selection, the sort, the normaliser)
    arguments = _lowest_arguments(columns + cuts, 7, columns)
    outcomes = []
    for interpreted in (False, True):
        if interpreted:  # every helper as Python from here on
            interpret(constraints_module)
        kernel = constraints_module.lowest_constraints
        picked, levels = np.zeros(2 * 7 * cuts, dtype=np.int64), np.zeros(7 * cuts)
        found = kernel(*arguments, 0.5, cuts, raw, True, picked, levels)
        outcomes.append((found, picked, levels))
    (found, picked, levels), (found_py, picked_py, levels_py) = outcomes
    assert found == found_py  # counts and minima bit for bit
    np.testing.assert_array_equal(picked, picked_py)
    np.testing.assert_array_equal(levels, levels_py)


@pytest.mark.parametrize("kernel", [normaliser, normaliser.py_func])
def test_normaliser_is_the_one_square_root_bit_for_bit(kernel) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    target, competitor = rng.uniform(0.0, 3.0, size=(2, 200))
    expected = np.sqrt(target + competitor)
    assert [kernel(a, b) for a, b in zip(target, competitor, strict=True)] == expected.tolist()
    assert np.array_equal(normalisers(target, competitor), expected)
    assert kernel(9.0, 16.0) == 5.0


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_constraint_normalisers_are_the_hypotenuse_of_the_output_norms(model: str) -> None:
    instance = make_instance(5, 7, model=model, seed=2)
    mus, rhos = np.array([0, 3, 6]), np.array([1, 2, 0])
    expected = [
        math.hypot(
            np.linalg.norm(instance.outputs(mu)[instance.targets[mu]]),
            np.linalg.norm(instance.outputs(mu)[rho]),
        )
        for mu, rho in zip(mus, rhos, strict=True)
    ]
    np.testing.assert_allclose(constraint_normalisers(instance, mus, rhos), expected, rtol=1e-15)


@pytest.mark.parametrize("kernel", [constraint_directions, constraint_directions.py_func])
def test_constraint_directions_are_numpys_fancy_indexing_bit_for_bit(kernel) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(8)
    outputs = rng.standard_normal((7, 9, 5))
    norms2 = np.einsum("bpd,bpd->bp", outputs, outputs)
    input_norms = rng.uniform(0.5, 2.0, size=7)
    rows = rng.integers(0, 7, size=40)
    targets = rng.integers(0, 9, size=40)
    rhos = (targets + rng.integers(1, 9, size=40)) % 9
    scale = np.sqrt(norms2[rows, targets] + norms2[rows, rhos])
    difference = outputs[rows, targets] - outputs[rows, rhos]
    expected = difference / scale[:, None]
    found = kernel(outputs, norms2, rows, targets, rhos, input_norms, False)
    assert np.array_equal(found, expected)
    raw = kernel(outputs, norms2, rows, targets, rhos, input_norms, True)
    assert np.array_equal(raw, difference * input_norms[rows][:, None])
    # strided norms (the original model's broadcast rows) and a read-only block view
    shared = outputs[0]
    broadcast = np.broadcast_to(np.einsum("pd,pd->p", shared, shared), (7, 9))
    view = np.broadcast_to(shared, (7, 9, 5))
    scale = np.sqrt(broadcast[rows, targets] + broadcast[rows, rhos])
    expected = (shared[targets] - shared[rhos]) / scale[:, None]
    assert np.array_equal(
        kernel(view, broadcast, rows, targets, rhos, input_norms, False), expected
    )
    lengths = np.linalg.norm(found, axis=1)
    assert np.all(lengths <= math.sqrt(2.0) * (1 + 1e-15))  # |a - b|^2 <= 2|a|^2 + 2|b|^2


@pytest.mark.parametrize("model", ["decoupled", "original"])
@pytest.mark.parametrize("raw", [False, True])
def test_score_pass_is_the_dense_loop(model: str, raw: bool, loop_levels: LoopLevels) -> None:
    instance = make_instance(10, 40, model=model, seed=6)
    weights = hebbian_weights(instance) + 0.05 * np.eye(10)
    member = np.zeros((instance.n, instance.p), dtype=bool)
    member[::3, 5] = True
    normalised = loop_levels(instance, weights, raw=False)
    levels = loop_levels(instance, weights, raw=True) if raw else normalised
    frobenius = float(np.linalg.norm(weights))
    for level, cuts in [(math.inf, 6), (0.0, 3), (0.1, 40)]:
        found = score_pass(instance, weights, member, level, cuts, raw=raw)
        assert found.min_margin == pytest.approx(normalised.min() / frobenius, rel=1e-12)
        assert found.raw_lowest == pytest.approx(
            loop_levels(instance, weights, raw=True).min(), rel=1e-12
        )
        assert found.lowest == pytest.approx(levels.min(), rel=1e-12)
        expected = []
        for mu in range(instance.n):
            row = np.where(member[mu], np.inf, levels[mu])
            chosen = [rho for rho in np.argsort(row, kind="stable") if row[rho] < level][:cuts]
            expected += [(mu, int(rho)) for rho in chosen]
        found_keys = sorted(zip(found.mus.tolist(), found.rhos.tolist(), strict=True))
        assert found_keys == sorted(expected)
        order = np.lexsort((found.rhos, found.levels, found.mus))  # association, level, rho
        np.testing.assert_array_equal(order, np.arange(found.mus.size))
        np.testing.assert_allclose(found.levels, levels[found.mus, found.rhos], rtol=1e-12)
        targets, competitors = instance.constraint_outputs(found.mus, found.rhos)
        if raw:
            scale = 1.0 / np.linalg.norm(instance.inputs[found.mus], axis=1)
        else:
            scale = np.sqrt((targets**2).sum(axis=1) + (competitors**2).sum(axis=1))
        assert found.directions is not None
        np.testing.assert_allclose(
            found.directions, (targets - competitors) / scale[:, None], rtol=1e-13, atol=1e-15
        )
    assert check_margins(instance, weights).min_margin == pytest.approx(
        score_pass(instance, weights, None, math.inf, 0).min_margin, rel=1e-12
    )


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_lowest_per_association_is_the_narrower_pass(model: str) -> None:
    instance = make_instance(8, 20, model=model, seed=0)
    weights = hebbian_weights(instance)
    member = np.zeros((instance.n, instance.p), dtype=bool)
    wide = score_pass(instance, weights, member, math.inf, 10)
    narrow = score_pass(instance, weights, member, math.inf, 3)
    cut = wide.lowest_per_association(3, instance)
    np.testing.assert_array_equal(cut.mus, narrow.mus)
    np.testing.assert_array_equal(cut.rhos, narrow.rhos)
    assert cut.directions is not None
    assert narrow.directions is not None
    assert np.array_equal(cut.directions, narrow.directions)
    assert wide.lowest_per_association(0, instance).mus.size == 0
    bare = score_pass(instance, weights, member, math.inf, 10, directions=False)
    assert bare.directions is None
    formed = bare.lowest_per_association(3, instance).directions  # formed for the kept ones
    assert formed is not None
    np.testing.assert_allclose(formed, narrow.directions, rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_raw_min_margin_is_the_smallest_dense_raw_margin(
    model: str, loop_levels: LoopLevels
) -> None:
    instance = make_instance(7, 11, model=model, seed=3)
    weights = np.random.default_rng(1).standard_normal((7, 7))
    expected = loop_levels(instance, weights, raw=True).min()
    assert raw_min_margin(instance, weights) == pytest.approx(expected, rel=1e-12, abs=1e-13)
    with np.errstate(invalid="ignore"):  # inf * 0 in the products: NaN scores
        assert math.isnan(raw_min_margin(instance, np.full((7, 7), np.inf)))


@pytest.mark.parametrize("rank", [None, 3])
def test_at_raw_margin_rescales_to_the_requested_raw_margin(
    rank: int | None, loop_levels: LoopLevels
) -> None:
    instance = make_instance(48, 3, n=2, seed=0)
    weights = hebbian_weights(instance)
    if rank is not None:
        left, values, right_t = np.linalg.svd(weights)
        weights = (
            left[:, :rank] * np.sqrt(values[:rank]),
            right_t[:rank].T * np.sqrt(values[:rank]),
        )
    scaled = at_raw_margin(instance, weights, 2.5)
    matrix = scaled[0] @ scaled[1].T if isinstance(scaled, tuple) else scaled
    assert loop_levels(instance, matrix, raw=True).min() == pytest.approx(2.5, rel=1e-12)
    assert isinstance(scaled, tuple) == (rank is not None)


def test_at_raw_margin_leaves_weights_that_do_not_recall_and_refuses_bad_ones() -> None:
    instance = make_instance(4, 30, seed=1)
    weights = -hebbian_weights(instance)
    assert at_raw_margin(instance, weights, 2.0) is weights
    with pytest.raises(ValueError, match=r"W must have shape \(4, 4\), got \(3, 3\)"):
        at_raw_margin(instance, np.eye(3), 1.0)


def test_working_set_keeps_additions_by_association_and_serves_the_loss(
    loop_levels: LoopLevels,
) -> None:
    for model in ("decoupled", "original"):
        instance = make_instance(9, 25, model=model, seed=4)
        weights = hebbian_weights(instance)
        member = np.zeros((instance.n, instance.p), dtype=bool)
        working = WorkingSet(instance.n, instance.d)
        for level, cuts in [(math.inf, 3), (math.inf, 2)]:
            found = score_pass(instance, weights, member, level, cuts)
            member[found.mus, found.rhos] = True
            assert found.directions is not None
            working.add(found.mus, found.rhos, found.directions)
        assert np.all(np.diff(working.mus) >= 0)
        assert working.offsets[-1] == working.size == 5 * instance.n
        unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
        levels = working.levels(unit_inputs, weights)
        normalised = loop_levels(instance, weights, raw=False)
        expected = normalised[working.mus, working.rhos]  # levels: normalised units
        np.testing.assert_allclose(levels, expected, rtol=1e-12, atol=1e-14)
        rows = working.loss_rows(instance)
        hidden = unit_inputs @ weights.T
        loss_levels, shifts = np.empty(working.size), np.empty(instance.n)
        _loss_levels(
            hidden, rows.offsets, rows.pool, rows.target_rows, rows.rows, rows.scales,
            loss_levels, shifts,
        )  # fmt: skip
        np.testing.assert_allclose(loss_levels, levels, rtol=1e-12, atol=1e-14)
        keep = working.rhos % 2 == 0
        working.keep(keep, member)
        assert working.size == int(keep.sum())
        assert int(member.sum()) == working.size
        assert working.offsets[-1] == working.size


def test_score_pass_lowest_per_association_ranks_by_level() -> None:
    found = ScorePass(
        np.array([0, 0, 1]), np.array([2, 1, 1]), np.array([0.5, -1.0, 3.0]), None, -0.1, -1, -2
    )
    cut = found.lowest_per_association(1, make_instance(3, 4, n=2, seed=0))
    assert cut.mus.tolist() == [0, 1]
    assert cut.rhos.tolist() == [1, 1]
    assert cut.directions is not None  # formed for the kept ones
    assert cut.directions.shape == (2, 3)


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        (([0, 1], [1], [1.0, 1.0]), r"dual arrays must be 1-d of equal length, got shapes \(2,\)"),
        (([0.0], [1], [1.0]), "dual associations and competitors must be integer arrays"),
        (([9], [1], [1.0]), r"dual associations must be in \[0, 5\], got 9"),
        (([0], [-1], [1.0]), r"dual competitors must be in \[0, 5\], got -1"),
        (([0], [0], [1.0]), "competitor 0 for association 0"),
        (([0], [1], [-1.0]), "y must contain finite values >= 0.0, got -1.0"),
    ],
)
def test_one_validation_for_every_certificate_type(arrays: tuple, message: str) -> None:
    instance = make_instance(3, 6, seed=0)  # decoupled: every target is output 0
    with pytest.raises(ValueError, match=message):
        checked_constraint_arrays(instance, *arrays, owner="dual", name="y")
    associations, competitors, y = (np.asarray(array) for array in arrays)
    with pytest.raises(ValueError, match=message):  # the optimality check uses it
        dual_value(instance, MarginDual(associations, competitors, y, 1.0))


_CONTRACT_CASES = [
    ("cutting_plane", {}),
    ("cutting_plane", {"objective": "max_margin"}),
    ("full_lp", {}),
    ("hebbian", {}),
    ("adam_ce", {"options": {"learning_rate": 1.0}}),
    ("two_layer", {"rank": 4}),
    ("hebbian", {"rank": 6}),
]


@pytest.mark.parametrize(("method", "keywords"), _CONTRACT_CASES)
def test_every_method_returns_w_at_the_requested_raw_margin(
    method: str, keywords: dict, loop_levels: LoopLevels
) -> None:
    instance = make_instance(8, 4, n=3, seed=0)
    result = solve(instance, method=method, raw_margin=2.5, **keywords)
    assert result.verdict == "feasible"
    weights = result.weights
    matrix = weights[0] @ weights[1].T if isinstance(weights, tuple) else weights
    assert loop_levels(instance, matrix, raw=True).min() == pytest.approx(2.5, rel=1e-12)


def _solver_imports() -> dict[str, set[str]]:
    package = Path(lamcap.__file__).parent / "solvers"
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        name = f"lamcap.solvers.{path.stem}"
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("lamcap")
            ):
                targets.add(node.module)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("lamcap"))
        graph[name] = targets
    return graph


def test_solver_modules_import_no_package_face_and_form_no_cycle() -> None:
    graph = _solver_imports()
    faces = {"lamcap", "lamcap.solvers"}
    for name, targets in graph.items():
        if not name.endswith("__init__"):
            assert not targets & faces, f"{name} imports a package face: {targets & faces}"
    inner = {name: {t for t in targets if t in graph} for name, targets in graph.items()}
    visiting: set[str] = set()
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in visiting, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        visiting.add(name)
        for target in inner[name]:
            visit(target, (*path, name))
        visiting.discard(name)
        done.add(name)

    for name in inner:
        if not name.endswith("__init__"):
            visit(name, ())
