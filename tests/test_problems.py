"""Tests for lamcap.problems: reproducible instances, scores, recall, Hebbian weights."""

from __future__ import annotations

import numpy as np
import pytest

import lamcap
from lamcap import problems
from lamcap.problems import Instance, hebbian_weights, make_instance, recall_accuracy, scores


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force decoupled instances onto the on-demand (uncached) path."""
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)


def test_same_seed_same_instance_and_different_seed_differs() -> None:
    first = make_instance(7, 5, n=4, seed=11)
    second = make_instance(7, 5, n=4, seed=11)
    other = make_instance(7, 5, n=4, seed=12)
    assert np.array_equal(first.inputs, second.inputs)
    assert np.array_equal(first.outputs(3), second.outputs(3))
    assert not np.array_equal(first.outputs(3), other.outputs(3))
    assert not np.array_equal(first.outputs(3), first.outputs(2))


@pytest.mark.usefixtures("streamed")
def test_streamed_blocks_equal_single_generation_in_any_order() -> None:
    instance = make_instance(6, 9, n=7, seed=3)
    assert not instance.is_cached
    singles = np.stack([instance.outputs(mu) for mu in range(7)])
    assert np.array_equal(instance.output_block([6, 2, 0]), singles[[6, 2, 0]])
    pieces = np.concatenate([block for _, block in instance.blocks(3)])
    assert np.array_equal(pieces, singles)
    assert np.array_equal(instance.target_outputs(), singles[:, 0, :])


def test_cached_and_streamed_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    cached = make_instance(5, 4, n=6, seed=8)
    assert cached.is_cached
    expected = cached.output_block(range(6)).copy()
    targets = cached.target_outputs().copy()
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)
    streamed = make_instance(5, 4, n=6, seed=8)
    assert np.array_equal(streamed.output_block(range(6)), expected)
    assert np.array_equal(streamed.target_outputs(), targets)


@pytest.mark.parametrize("cache_limit", [0, 1 << 25])
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_constraint_outputs_are_the_named_rows_drawn_a_block_at_a_time(
    monkeypatch: pytest.MonkeyPatch, model: str, cache_limit: int
) -> None:
    monkeypatch.setattr(problems, "CACHE_LIMIT", cache_limit)
    monkeypatch.setattr(problems, "_BLOCK_NUMBERS", 3 * 12 * 6)  # 3 associations per block
    instance = make_instance(6, 12, n=11, model=model, seed=4)
    requested: list[int] = []
    output_block = Instance.output_block

    def counted(self: Instance, mus: object) -> np.ndarray:
        block = output_block(self, mus)
        requested.append(block.shape[0])
        return block

    monkeypatch.setattr(Instance, "output_block", counted)
    rng = np.random.default_rng(5)
    mus = rng.integers(0, 11, size=40)  # unsorted, repeated, 10 or so associations
    rhos = rng.integers(0, 12, size=40)  # any row (a target row too: rows are rows)
    targets, competitors = instance.constraint_outputs(mus, rhos)
    expected = [instance.outputs(int(mu)) for mu in mus]
    owners = instance.targets[mus]
    assert np.array_equal(targets, np.stack([e[t] for e, t in zip(expected, owners, strict=True)]))
    assert np.array_equal(
        competitors, np.stack([e[r] for e, r in zip(expected, rhos, strict=True)])
    )
    if model == "decoupled":
        assert len(requested) == -(-np.unique(mus).size // 3)  # every association once
        assert max(requested) <= 3
    empty = instance.constraint_outputs(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    assert empty[0].shape == empty[1].shape == (0, 6)


@pytest.mark.usefixtures("streamed")
def test_streamed_outputs_follow_the_documented_numpy_recipe() -> None:
    d, p, seed = 8, 30, 21
    instance = make_instance(d, p, n=5, seed=seed)
    for mu in (0, 4):
        sequence = np.random.SeedSequence(seed, spawn_key=(2, mu))
        expected = np.random.Generator(np.random.SFC64(sequence)).standard_normal((p, d))
        expected *= 1.0 / np.sqrt(d)
        assert np.array_equal(instance.output_block([mu])[0], expected)


@pytest.mark.parametrize("threads", [1, 2])
def test_scored_blocks_streamed_equal_cached(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    import numba

    cached = make_instance(9, 12, n=11, seed=4)
    hidden = np.random.default_rng(0).standard_normal((11, 9))
    expected = list(cached.scored_blocks(hidden, keep_outputs=True))
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)
    streamed = make_instance(9, 12, n=11, seed=4)
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        blocks = list(streamed.scored_blocks(hidden, keep_outputs=True))
    finally:
        numba.set_num_threads(previous)
    scores = np.concatenate([block.scores for block in blocks])
    norms2 = np.concatenate([block.norms2 for block in blocks])
    outputs = np.concatenate([block.outputs for block in blocks])
    assert [block.start for block in blocks] == sorted({block.start for block in blocks})
    (reference,) = expected
    assert np.array_equal(outputs, reference.outputs)
    np.testing.assert_allclose(scores, reference.scores, rtol=0, atol=1e-13)
    np.testing.assert_allclose(norms2, reference.norms2, rtol=0, atol=1e-13)
    assert all(block.outputs is None for block in streamed.scored_blocks(hidden))
    with pytest.raises(ValueError, match="hidden must have shape"):
        next(streamed.scored_blocks(hidden[:3]))


def test_entries_are_gaussian_with_variance_one_over_d() -> None:
    d = 16
    instance = make_instance(d, 50, n=40, seed=5)
    values = instance.output_block(range(40)).ravel() * np.sqrt(d)  # 32000 N(0, 1)
    count = values.size
    assert abs(values.mean()) < 5 / np.sqrt(count)
    assert abs(values.var() - 1.0) < 5 * np.sqrt(2 / count)
    inputs = instance.inputs.ravel() * np.sqrt(d)
    assert abs(inputs.var() - 1.0) < 5 * np.sqrt(2 / inputs.size)


def test_original_model_conventions() -> None:
    instance = make_instance(4, 6, n=3, model="original", seed=0)
    assert instance.targets.tolist() == [0, 1, 2]
    assert np.array_equal(instance.outputs(0), instance.outputs(2))
    assert instance.output_block([1, 2]).shape == (2, 6, 4)
    assert np.array_equal(instance.target_outputs(), instance.outputs(0)[:3])
    assert make_instance(4, 6, model="original", seed=0).n == 6


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_scores_recall_and_hebbian_against_explicit_loops(model: str) -> None:
    instance = make_instance(5, 4, n=3, model=model, seed=2)
    weights = np.random.default_rng(0).standard_normal((5, 5))
    expected = np.array(
        [
            [instance.outputs(mu)[rho] @ weights @ instance.inputs[mu] for rho in range(4)]
            for mu in range(3)
        ]
    )
    np.testing.assert_allclose(scores(instance, weights), expected, rtol=1e-12, atol=1e-14)
    recalled = [
        expected[mu, t] > np.delete(expected[mu], t).max() for mu, t in enumerate(instance.targets)
    ]
    assert recall_accuracy(instance, weights) == np.mean(recalled)
    hebbian = sum(
        np.outer(instance.outputs(mu)[t], instance.inputs[mu])
        for mu, t in enumerate(instance.targets)
    )
    np.testing.assert_allclose(hebbian_weights(instance), hebbian, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"d": 0, "p": 3}, "d"),
        ({"d": 2, "p": 1}, "p"),
        ({"d": 2, "p": 3, "n": 0}, "n"),
        ({"d": 2.5, "p": 3}, "d"),
        ({"d": 2, "p": 3, "model": "coupled"}, "model"),
        ({"d": 2, "p": 3, "n": 4, "model": "original"}, "n"),
    ],
)
def test_bad_instance_arguments_name_the_argument(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} must"):
        make_instance(**kwargs, seed=0)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, 1.5, "a", True])
def test_bad_seed(seed: object) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        make_instance(2, 3, seed=seed)  # type: ignore[arg-type]


def test_bad_weights_and_association_index() -> None:
    instance = make_instance(3, 3, seed=0)
    with pytest.raises(ValueError, match=r"W must have shape \(3, 3\)"):
        scores(instance, np.eye(4))
    with pytest.raises(ValueError, match="W must contain finite values"):
        recall_accuracy(instance, np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="mu must be an integer"):
        instance.outputs(3)


# --------------------------------------------------------------------------- Instance.from_arrays
def _loop_scores(inputs: np.ndarray, outputs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """s[mu, rho] = u_rho^(mu) . (W e_mu) by a plain loop (outputs (n, p, d))."""
    n, p, _ = outputs.shape
    return np.array(
        [[outputs[mu, rho] @ (weights @ inputs[mu]) for rho in range(p)] for mu in range(n)]
    )


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_from_arrays_holds_exactly_the_given_numbers(model: str) -> None:
    rng = np.random.default_rng(5)
    n, p, d = 6, 4, 5
    inputs = rng.standard_normal((n, d))
    outputs = rng.standard_normal((n, p, d) if model == "decoupled" else (p, d))
    targets = rng.integers(0, p, size=n)
    instance = Instance.from_arrays(inputs, outputs, targets, model=model)
    assert (instance.d, instance.p, instance.n, instance.model, instance.seed) == (
        d,
        p,
        n,
        model,
        -1,
    )
    full = outputs if model == "decoupled" else np.broadcast_to(outputs, (n, p, d))
    for mu in range(n):
        assert np.array_equal(instance.outputs(mu), full[mu])
    weights = rng.standard_normal((d, d))
    np.testing.assert_allclose(
        scores(instance, weights), _loop_scores(inputs, full, weights), rtol=1e-13, atol=1e-13
    )
    hebbian = sum(np.outer(full[mu, targets[mu]], inputs[mu]) for mu in range(n))
    np.testing.assert_allclose(hebbian_weights(instance), hebbian, rtol=1e-13, atol=1e-13)
    inputs[0, 0] += 1.0  # the instance holds a copy
    assert instance.inputs[0, 0] != inputs[0, 0]
    with pytest.raises(ValueError, match="read-only"):
        instance.inputs[0, 0] = 0.0


@pytest.mark.usefixtures("streamed")
def test_from_arrays_never_draws_outputs() -> None:
    rng = np.random.default_rng(6)
    outputs = rng.standard_normal((3, 4, 2))
    instance = Instance.from_arrays(rng.standard_normal((3, 2)), outputs, [1, 0, 3])
    assert instance.is_cached
    assert np.array_equal(instance.output_block([2, 0]), outputs[[2, 0]])
    assert np.array_equal(instance.target_outputs(), outputs[[0, 1, 2], [1, 0, 3]])


def test_from_arrays_of_a_random_instance_reproduces_its_scores_and_verdict() -> None:
    drawn = make_instance(6, 8, n=5, seed=2)
    copy = Instance.from_arrays(drawn.inputs, drawn.output_block(range(5)), drawn.targets)
    weights = np.random.default_rng(1).standard_normal((6, 6))
    assert np.array_equal(scores(copy, weights), scores(drawn, weights))
    assert copy.digest != drawn.digest  # a result is bound to the instance it was built for
    assert lamcap.solve(copy).verdict == lamcap.solve(drawn).verdict


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ((np.ones((2, 3)), np.ones((2, 4, 3)), 0, "cubic"), "model must be one of"),
        ((np.ones(3), np.ones((2, 4, 3)), 0, "decoupled"), "inputs must be a non-empty 2-d array"),
        (
            (np.ones((2, 3)), np.ones((4, 3)), 0, "decoupled"),
            "a \\(p, d\\) matrix shared by all associations is model='original'",
        ),
        (
            (np.ones((2, 3)), np.ones((3, 4, 3)), 0, "decoupled"),
            r"outputs must have shape \(n, p, d\) = \(2, p, 3\)",
        ),
        ((np.ones((2, 3)), np.ones((2, 1, 3)), 0, "decoupled"), "with p >= 2"),
        ((np.ones((2, 3)), np.ones((4, 2)), 0, "original"), r"outputs must have shape \(p, d\)"),
        (
            (np.ones((2, 3)), np.full((2, 4, 3), np.nan), 0, "decoupled"),
            "outputs must contain finite values, got nan",
        ),
        (
            (np.zeros((2, 3)), np.ones((2, 4, 3)), 0, "decoupled"),
            r"inputs must have no zero row, got one at index \(0,\)",
        ),
        ((np.ones((2, 3)), np.zeros((4, 3)), 0, "original"), "outputs must have no zero row"),
        (
            (np.ones((2, 3)), np.ones((4, 3)), 4, "original"),
            r"targets must contain integers in \[0, 3\], got 4",
        ),
        (
            (np.ones((2, 3)), np.ones((4, 3)), [0, 1, 2], "original"),
            r"targets must be an int or have shape \(2,\)",
        ),
        ((np.ones((2, 3)), np.ones((4, 3)), [0.5, 1], "original"), "targets must contain integers"),
    ],
)
def test_from_arrays_rejects_bad_arrays(arguments: tuple[object, ...], match: str) -> None:
    inputs, outputs, targets, model = arguments
    with pytest.raises(ValueError, match=match):
        Instance.from_arrays(inputs, outputs, targets, model=model)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        lambda: hebbian_weights("x"),  # type: ignore[arg-type]
        lambda: scores("x", np.eye(2)),  # type: ignore[arg-type]
        lambda: recall_accuracy(None, np.eye(2)),  # type: ignore[arg-type]
    ],
)
def test_functions_taking_an_instance_reject_other_types(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="instance must be a lamcap Instance"):
        call()


def test_make_instance_too_large_raises_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 23: make_instance(10**6, 10**6) asked numpy for 7.28 TiB
    from lamcap import _sizes

    monkeypatch.setattr(_sizes, "available_memory", lambda: 16 << 30)
    with pytest.raises(ValueError, match=r"d = 1000000, p = 1000000, n = 1000000 .*needs 7.28 TiB"):
        make_instance(10**6, 10**6, seed=0)
    with pytest.raises(ValueError, match=r"n = 1000000000 .*needs 67.1 GiB.*16.0 GiB are"):
        make_instance(8, 10**9, seed=0)
    monkeypatch.setattr(_sizes, "available_memory", lambda: 8 * 5 * 9 - 1)
    with pytest.raises(ValueError, match="needs 360 bytes of memory, but 359 bytes are available"):
        make_instance(8, 5, seed=0)
    monkeypatch.setattr(_sizes, "available_memory", lambda: 8 * 5 * 9)
    assert make_instance(8, 5, seed=0).inputs.shape == (5, 8)


def test_from_arrays_with_a_shared_output_matrix_names_the_original_model() -> None:
    # issue 23: Instance.from_arrays(E, U, targets) with U of shape (p, d)
    rng = np.random.default_rng(0)
    inputs, shared = rng.standard_normal((20, 16)), rng.standard_normal((20, 16))
    with pytest.raises(ValueError, match=r"got shape \(20, 16\): a \(p, d\) matrix shared") as info:
        Instance.from_arrays(inputs, shared, np.arange(20))
    assert str(info.value).endswith("is model='original'; pass model='original'")
    instance = Instance.from_arrays(inputs, shared, np.arange(20), model="original")
    assert (instance.model, instance.p, instance.n) == ("original", 20, 20)
    own = rng.standard_normal((20, 3, 16))
    with pytest.raises(ValueError, match=r"for model='original', got shape \(20, 3, 16\)") as info:
        Instance.from_arrays(inputs, own, 0, model="original")
    assert str(info.value).endswith("pass model='decoupled'")


def test_recall_accuracy_and_scores_take_the_factor_pair_verify_takes() -> None:
    # issue 23: a rank-constrained solve returns (Q, R); recall_accuracy refused it
    instance = make_instance(6, 5, n=40, seed=2)
    rng = np.random.default_rng(1)
    left, right = rng.standard_normal((6, 2)), rng.standard_normal((6, 2))
    product = left @ right.T
    assert np.array_equal(scores(instance, (left, right)), scores(instance, product))
    accuracy = recall_accuracy(instance, (left, right))
    assert accuracy == recall_accuracy(instance, product)
    assert 0.0 < accuracy < 1.0  # random factors recall some associations, not all
    with pytest.raises(
        ValueError, match=r"\(Q, R\) must be two arrays of shape \(d, r\) = \(6, r\)"
    ):
        recall_accuracy(instance, (left, right[:, :1]))
    with pytest.raises(ValueError, match="Q must contain finite values"):
        recall_accuracy(instance, (np.full((6, 2), np.nan), right))


def test_recall_accuracy_of_a_rank_constrained_solve() -> None:
    instance = make_instance(8, 4, n=4, seed=0)  # far below capacity: rank 4 stores it
    result = lamcap.solve(instance, rank=4)
    assert result.verdict == "feasible"
    assert isinstance(result.weights, tuple)
    assert recall_accuracy(instance, result.weights) == 1.0


def test_scores_too_large_for_memory_raise_before_allocating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lamcap import _sizes

    instance = make_instance(4, 10**5, n=10**5, seed=0)  # fits: 3.2 MB of inputs
    monkeypatch.setattr(_sizes, "available_memory", lambda: 1 << 30)
    with pytest.raises(
        ValueError, match=r"n = 100000 associations with p = 100000 outputs .*74.5 GiB"
    ):
        scores(instance, np.eye(4))
    with pytest.raises(ValueError, match="an n x p array"):
        recall_accuracy(instance, np.eye(4))
