"""Unit-norm embeddings (``embeddings="sphere"``): instances, streams and bad input (issue 27)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped,unused-ignore]

from lamcap import problems
from lamcap.problems import Instance, make_instance

# Digests of make_instance(6, 5, n=4, model=..., seed=21) computed before the option
# existed: Gaussian instances keep their numbers bit for bit.
GAUSSIAN_DIGESTS = {
    "decoupled": "1c71d8b43f2ebf9108132d7cd214c421ec9ee3cc39b4c95fd6fc966eb467376f",
    "original": "205249d81b182710023db4d2c9aa6ae4bd3cd8f3be495661a9f1e3cc442c8b36",
}


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_gaussian_instances_are_unchanged(model: str) -> None:
    instance = make_instance(6, 5, n=4, model=model, seed=21)
    assert instance.embeddings == "gaussian"
    assert instance.digest == GAUSSIAN_DIGESTS[model]
    explicit = make_instance(6, 5, n=4, model=model, seed=21, embeddings="gaussian")
    assert explicit.digest == instance.digest


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_sphere_rows_are_the_gaussian_rows_normalised(model: str) -> None:
    gaussian = make_instance(7, 6, n=5, model=model, seed=4)
    sphere = make_instance(7, 6, n=5, model=model, seed=4, embeddings="sphere")
    assert sphere.embeddings == "sphere"
    assert sphere.digest != gaussian.digest
    for mu in range(5):
        rows = gaussian.outputs(mu)
        expected = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        np.testing.assert_allclose(sphere.outputs(mu), expected, rtol=0, atol=4e-16)
    np.testing.assert_allclose(np.linalg.norm(sphere.inputs, axis=1), 1.0, rtol=0, atol=4e-16)
    np.testing.assert_allclose(
        sphere.target_outputs(), sphere.output_block(range(5))[np.arange(5), sphere.targets]
    )


def test_sphere_streamed_kernel_equals_numpy_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    cached = make_instance(5, 9, n=6, seed=8, embeddings="sphere")
    assert cached.is_cached
    expected = cached.output_block(range(6)).copy()
    hidden = np.random.default_rng(0).standard_normal((6, 5))
    cached_scores = np.concatenate([b.scores for b in cached.scored_blocks(hidden)])
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)
    streamed = make_instance(5, 9, n=6, seed=8, embeddings="sphere")
    assert not streamed.is_cached
    assert np.array_equal(streamed.output_block([5, 1, 3]), expected[[5, 1, 3]])
    assert np.array_equal(np.stack([streamed.outputs(mu) for mu in range(6)]), expected)
    assert np.array_equal(streamed.target_outputs(), expected[:, 0, :])
    blocks = list(streamed.scored_blocks(hidden))
    np.testing.assert_allclose(
        np.concatenate([b.scores for b in blocks]), cached_scores, rtol=0, atol=1e-14
    )
    np.testing.assert_allclose(np.concatenate([b.norms2 for b in blocks]), 1.0, atol=1e-15)


def test_kernel_matches_its_python_function() -> None:
    from lamcap._streams import draw_scored_unit_outputs

    hidden = np.linspace(-1.0, 1.0, 4)
    results = []
    for function in (draw_scored_unit_outputs, draw_scored_unit_outputs.py_func):
        generator = problems._generator(3, (2, 0))
        outputs, scores, norms2 = np.empty((3, 4)), np.empty(3), np.empty(3)
        function(generator, hidden, np.empty(4), outputs, scores, norms2, True)
        results.append((outputs, scores, norms2))
    for compiled, python in zip(*results, strict=True):
        np.testing.assert_array_equal(compiled, python)


def test_sphere_rows_are_uniform_on_the_sphere() -> None:
    # Independent check of the law: one coordinate of a uniform point on S^{d-1} has
    # (s + 1)/2 ~ Beta((d-1)/2, (d-1)/2); Kolmogorov-Smirnov over 6 * 400 rows.
    d = 6
    instance = make_instance(d, 400, n=6, seed=2, embeddings="sphere")
    first = instance.output_block(range(6))[..., 0].ravel()
    result = stats.kstest((first + 1.0) / 2.0, stats.beta((d - 1) / 2, (d - 1) / 2).cdf)
    assert result.pvalue > 1e-3


@pytest.mark.parametrize("value", ["unit", "Gaussian", None, 1])
def test_bad_embeddings_name_the_argument_and_the_accepted_values(value: object) -> None:
    with pytest.raises(ValueError, match="embeddings must be one of 'gaussian', 'sphere', got "):
        make_instance(4, 3, seed=0, embeddings=value)  # type: ignore[arg-type]


def test_from_arrays_checks_declared_unit_norm() -> None:
    rng = np.random.default_rng(0)
    e = rng.standard_normal((4, 5))
    u = rng.standard_normal((4, 3, 5))
    given = Instance.from_arrays(e, u, 0)
    assert given.embeddings == "given"
    unit_e = e / np.linalg.norm(e, axis=1, keepdims=True)
    unit_u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    assert Instance.from_arrays(unit_e, unit_u, 0, embeddings="sphere").embeddings == "sphere"
    shared = Instance.from_arrays(
        unit_e, unit_u[0], [0, 1, 2, 0], model="original", embeddings="sphere"
    )
    assert shared.embeddings == "sphere"
    assert Instance.from_arrays(e, u, 0, embeddings="gaussian").embeddings == "gaussian"
    off = unit_u.copy()
    off[2, 1] *= 1.0 + 1e-5
    with pytest.raises(ValueError, match=r"outputs declared embeddings='sphere' .* index \(2, 1\)"):
        Instance.from_arrays(unit_e, off, 0, embeddings="sphere")
    with pytest.raises(ValueError, match=r"inputs declared embeddings='sphere' .* index \(0,\)"):
        Instance.from_arrays(e, unit_u, 0, embeddings="sphere")
    within = unit_u.copy()
    within[2, 1] *= 1.0 + 5e-7
    Instance.from_arrays(unit_e, within, 0, embeddings="sphere")
    with pytest.raises(ValueError, match=r"embeddings must be one of"):
        Instance.from_arrays(e, u, 0, embeddings="unit")


def test_cli_solve_and_sweep_take_embeddings(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    from pathlib import Path

    from lamcap.cli import main
    from lamcap.experiments._store import ResultsStore

    assert main(["solve", "--d", "6", "--p", "4", "--embeddings", "sphere", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["embeddings"] == "sphere"
    assert summary["verdict"] == "feasible"
    db = Path(str(tmp_path)) / "r.sqlite"
    arguments = ["sweep", "--d", "6", "--p-grid", "5", "--seeds", "2", "--workers", "0"]
    code = main([*arguments, "--embeddings", "gaussian", "sphere", "--quiet", "--db", str(db)])
    assert code == 0
    with ResultsStore(db, readonly=True) as store:
        rows = store.rows()
    assert sorted(r["embeddings"] for r in rows) == ["gaussian", "gaussian", "sphere", "sphere"]
    with pytest.raises(SystemExit):
        main(["solve", "--d", "6", "--p", "4", "--embeddings", "unit"])
