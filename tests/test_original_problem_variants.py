"""The problems between OP and DP of ``measurements/original_problem_decomposition.py``.

docs/theory/original-problem.md attributes the original problem's extra capacity by
solving problems that keep some of its structure and redraw the rest.  Each builder is
checked here for what its definition says it keeps, and for the two ends that must be
OP and DP in law.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import lamcap

REPO = Path(__file__).resolve().parent.parent
D, P = 8, 20


sys.path.insert(0, str(REPO / "measurements"))  # the script imports as its own folder does
DECOMPOSITION = importlib.import_module("original_problem_decomposition")


def _outputs(instance: lamcap.Instance) -> np.ndarray:
    return np.stack([instance.outputs(mu) for mu in range(instance.n)])


def _targets(instance: lamcap.Instance) -> np.ndarray:
    return np.broadcast_to(np.asarray(instance.targets), (instance.n,))


def _shared_rows(outputs: np.ndarray) -> np.ndarray:
    """(n, p) booleans: row rho of association mu equals row rho of association 0."""
    return np.all(outputs == outputs[:1], axis=2)


def test_no_redrawing_is_the_original_problem() -> None:
    instance = DECOMPOSITION.build("redrawn", 0.0, D, P, 0)
    outputs = _outputs(instance)
    assert _shared_rows(outputs).all()
    np.testing.assert_array_equal(_targets(instance), np.arange(P))


def _kept(outputs: np.ndarray) -> np.ndarray:
    """(n, p) booleans: association mu sees u_rho itself (association rho's target)."""
    diagonal = outputs[np.arange(outputs.shape[0]), np.arange(outputs.shape[0])]
    return np.all(outputs == diagonal[None, :, :], axis=2)


def test_redrawing_everything_keeps_only_the_targets() -> None:
    kept = _kept(_outputs(DECOMPOSITION.build("redrawn", 1.0, D, P, 0)))
    np.testing.assert_array_equal(kept, np.eye(P, dtype=bool))


@pytest.mark.parametrize("fraction", [0.1, 0.5])
def test_redrawn_fraction_is_the_parameter(fraction: float) -> None:
    off_diagonal = ~np.eye(60, dtype=bool)
    redrawn = [
        1 - _kept(_outputs(DECOMPOSITION.build("redrawn", fraction, 12, 60, seed)))[off_diagonal]
        for seed in range(4)
    ]
    # 4 x 3540 independent draws: the standard error is below 0.005
    assert abs(np.mean(redrawn) - fraction) < 0.02


def test_random_targets_repeat_and_skip_outputs() -> None:
    instance = DECOMPOSITION.build("random-targets", 1.0, D, 200, 0)
    counts = np.bincount(_targets(instance), minlength=200)
    assert instance.model == "original"
    assert 0.25 < np.mean(counts == 0) < 0.5  # about 1/e of the outputs are nobody's target
    assert counts.max() >= 2


def test_shared_competitors_share_the_fraction_and_not_the_target() -> None:
    instance = DECOMPOSITION.build("shared", 0.5, D, 21, 0)
    shared = _shared_rows(_outputs(instance))
    assert np.all(_targets(instance) == 0)
    assert not shared[1:, 0].any()  # fresh targets
    assert shared[:, 1:11].all()  # round(0.5 * 20) common competitors
    assert not shared[1:, 11:].any()


def test_rotations_keep_each_association_s_polytope() -> None:
    base = DECOMPOSITION.build("rotated-original", 1.0, D, P, 0)
    outputs = _outputs(base)
    gram = np.einsum("mrd,msd->mrs", outputs, outputs)
    np.testing.assert_allclose(gram, np.broadcast_to(gram[0], gram.shape), atol=1e-12)
    assert not np.allclose(outputs[0], outputs[1])


def test_whitened_shared_competitors_have_the_identity_covariance() -> None:
    instance = DECOMPOSITION.build("whitened-shared", 1.0, D, 40, 0)
    competitors = instance.outputs(0)[1:]
    covariance = competitors.T @ competitors * D / competitors.shape[0]
    np.testing.assert_allclose(covariance, np.eye(D), atol=1e-12)


def test_shared_directions_and_shared_lengths_keep_what_they_say() -> None:
    directions = _outputs(DECOMPOSITION.build("shared-directions", 1.0, D, P, 0))
    unit = directions / np.linalg.norm(directions, axis=2, keepdims=True)
    np.testing.assert_allclose(unit, np.broadcast_to(unit[0], unit.shape), atol=1e-12)
    assert np.ptp(np.linalg.norm(directions, axis=2), axis=0).min() > 0
    lengths = _outputs(DECOMPOSITION.build("shared-lengths", 1.0, D, P, 0))
    norms = np.linalg.norm(lengths, axis=2)
    np.testing.assert_allclose(norms, np.broadcast_to(norms[0], norms.shape), atol=1e-12)
    kept = _kept(lengths)
    np.testing.assert_array_equal(kept, np.eye(P, dtype=bool))  # the target, nothing else


def test_unused_outputs_have_a_decoupled_reference_of_the_same_size() -> None:
    unused = DECOMPOSITION.build("unused", 0.25, D, P, 0)
    reference = DECOMPOSITION.build("unused-decoupled", 0.25, D, P, 0)
    assert (unused.n, unused.p, unused.model) == (15, P, "original")
    assert (reference.n, reference.p, reference.model) == (15, P, "decoupled")
    np.testing.assert_array_equal(_targets(unused), np.arange(15))


def test_an_instance_is_its_seed() -> None:
    one = DECOMPOSITION.build("redrawn", 0.25, D, P, 3)
    two = DECOMPOSITION.build("redrawn", 0.25, D, P, 3)
    np.testing.assert_array_equal(_outputs(one), _outputs(two))
    np.testing.assert_array_equal(one.inputs, two.inputs)


def test_an_unknown_variant_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="variant must be one of"):
        DECOMPOSITION.parse("rotated")


@pytest.mark.slow
def test_the_committed_fits_are_the_verdicts_refitted(tmp_path: Path) -> None:
    """docs/measurements/original_decomposition.csv is the report of the committed verdicts."""
    data = REPO / "docs" / "measurements" / "data"
    out = tmp_path / "fits.csv"
    DECOMPOSITION.report([data / "original_decomposition.csv"], data / "opdp_small.sqlite", out)
    committed = REPO / "docs" / "measurements" / "original_decomposition.csv"
    assert out.read_text() == committed.read_text()


def test_an_instance_solved_twice_with_two_verdicts_is_refused() -> None:
    row = {"variant": "redrawn", "parameter": "0.1", "d": "8", "p": "20", "seed": "1"}
    with pytest.raises(ValueError, match="two verdicts"):
        DECOMPOSITION._unique([{**row, "verdict": "feasible"}, {**row, "verdict": "infeasible"}])
    assert len(DECOMPOSITION._unique([{**row, "verdict": "feasible"}] * 2)) == 1
