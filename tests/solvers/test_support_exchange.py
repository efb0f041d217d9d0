"""Tests for lamcap.solvers._support_exchange: pivots that turn a full support into a Farkas support.

Every support the exchanges return is judged by an independent method:
:func:`~lamcap.solvers.prove_infeasible` (perturbation bound or exact
rational arithmetic at these sizes) for certificates, and
:func:`~lamcap.solvers.check_margins` for weights.  The starting supports that
need exchanges are shown to need them by numpy's dense solve of the
barycentric system, not by the module under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers import FarkasCertificate, check_margins, prove_infeasible
from lamcap.solvers import _support_exchange as exchange_module
from lamcap.solvers._infeasibility import _scaled_columns
from lamcap.solvers._support_exchange import (
    _basis,
    exchange_bytes,
    exchange_support,
)


def _proven_certificate(
    d: int, p: int, model: str, seed: int
) -> tuple[Instance, FarkasCertificate]:
    instance = make_instance(d, p, model=model, seed=seed)
    result = lamcap.solve(instance)
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert result.certificate.exact
    return instance, result.certificate


def _barycentric(instance: Instance, associations, competitors) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Dense numpy solve of (a_S; 1) y = e_last, independent of the module's LU and etas."""
    targets, rivals = instance.constraint_outputs(associations, competitors)
    columns, _, _ = _scaled_columns(
        targets, rivals, instance.inputs[associations], np.ones(len(associations))
    )
    matrix = np.vstack([columns.T, np.ones(len(associations))])
    right = np.zeros(matrix.shape[0])
    right[-1] = 1.0
    return np.linalg.solve(matrix, right)


def _other_constraint(instance: Instance, taken: set[tuple[int, int]], rng) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    while True:
        mu = int(rng.integers(instance.n))
        rho = int(rng.integers(instance.p))
        if rho != instance.targets[mu] and (mu, rho) not in taken:
            return mu, rho


def _spoiled(instance: Instance, certificate: FarkasCertificate, seed: int) -> FarkasCertificate:
    """The certificate's support with one member swapped so that a coordinate turns negative."""
    rng = np.random.default_rng(seed)
    associations = np.asarray(certificate.associations).copy()
    competitors = np.asarray(certificate.competitors).copy()
    taken = set(zip(associations.tolist(), competitors.tolist(), strict=True))
    for _ in range(200):
        row = int(rng.integers(associations.size))
        mu, rho = _other_constraint(instance, taken, rng)
        trial_a, trial_c = associations.copy(), competitors.copy()
        trial_a[row], trial_c[row] = mu, rho
        coordinates = _barycentric(instance, trial_a, trial_c)
        if coordinates.min() < -1e-6 * np.abs(coordinates).max():
            return FarkasCertificate(trial_a, trial_c, np.ones(trial_a.size), math.inf)
    pytest.fail("no spoiling swap found")


@pytest.mark.parametrize(("d", "p"), [(2, 12), (3, 24), (4, 40)])
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_a_farkas_support_needs_no_exchange_and_keeps_its_proof(d: int, p: int, model: str) -> None:
    instance, certificate = _proven_certificate(d, p, model, seed=1)
    if np.count_nonzero(certificate.alpha) != d * d + 1:
        pytest.skip("support smaller than d^2 + 1")
    found = exchange_support(instance, certificate)
    assert found.exchanges == 0
    assert found.certificate is not None
    pairs = set(
        zip(
            found.certificate.associations.tolist(),
            found.certificate.competitors.tolist(),
            strict=True,
        )
    )
    keep = certificate.alpha > 0
    assert pairs == set(
        zip(
            certificate.associations[keep].tolist(),
            certificate.competitors[keep].tolist(),
            strict=True,
        )
    )
    assert prove_infeasible(instance, found.certificate).proven


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("d", "p", "model"), [(3, 24, "decoupled"), (3, 24, "original"), (4, 40, "decoupled")]
)
def test_exchanges_repair_a_spoiled_support(d: int, p: int, model: str, seed: int) -> None:
    instance, certificate = _proven_certificate(d, p, model, seed=seed % 3)
    spoiled = _spoiled(instance, certificate, seed)
    found = exchange_support(instance, spoiled)
    assert found.exchanges >= 1, found.detail
    assert found.certificate is not None, found.detail
    assert np.all(found.certificate.alpha > 0)
    assert prove_infeasible(instance, found.certificate).proven  # independent judge


def test_exchanges_find_weights_on_a_feasible_instance() -> None:
    instance = make_instance(3, 6, model="decoupled", seed=0)
    assert lamcap.solve(instance).verdict == "feasible"
    rng = np.random.default_rng(0)
    taken: set[tuple[int, int]] = set()
    while len(taken) < 10:
        taken.add(_other_constraint(instance, taken, rng))
    associations, competitors = (np.array(v) for v in zip(*sorted(taken), strict=True))
    start = FarkasCertificate(associations, competitors, np.ones(10), math.inf)
    found = exchange_support(instance, start)
    assert found.certificate is None  # a feasible instance has no Farkas support
    assert found.weights is not None, found.detail
    assert check_margins(instance, found.weights).verified


def test_eta_solves_match_a_dense_inverse() -> None:
    instance, certificate = _proven_certificate(3, 24, "original", seed=0)
    basis = _basis(instance, _spoiled(instance, certificate, 0))
    basis.factorise()
    rng = np.random.default_rng(3)
    for row in (2, 7, 2):
        column = rng.standard_normal(basis.columns.shape[1])
        solved = basis.solve(np.append(column, 1.0))
        basis.columns[row] = column
        basis.etas.append((row, solved))
    matrix = np.vstack([basis.columns.T, np.ones(basis.columns.shape[0])])
    right = rng.standard_normal(matrix.shape[0])
    np.testing.assert_allclose(
        basis.solve(right), np.linalg.solve(matrix, right), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        basis.solve_transposed(right), np.linalg.solve(matrix.T, right), rtol=1e-9, atol=1e-12
    )


def test_refactorising_after_every_exchange_reaches_the_same_support(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    instance, certificate = _proven_certificate(4, 40, "decoupled", seed=0)
    spoiled = _spoiled(instance, certificate, 1)
    with_etas = exchange_support(instance, spoiled)
    monkeypatch.setattr(exchange_module, "REFACTOR_EVERY", 1)
    refactored = exchange_support(instance, spoiled)
    assert with_etas.exchanges == refactored.exchanges >= 1
    assert with_etas.certificate is not None
    assert refactored.certificate is not None
    np.testing.assert_array_equal(
        with_etas.certificate.associations, refactored.certificate.associations
    )
    np.testing.assert_allclose(with_etas.certificate.alpha, refactored.certificate.alpha, rtol=1e-8)


def test_a_support_of_the_wrong_size_is_not_exchanged() -> None:
    instance, certificate = _proven_certificate(3, 24, "original", seed=0)
    short = FarkasCertificate(
        certificate.associations[:5], certificate.competitors[:5], np.ones(5), 1.0
    )
    found = exchange_support(instance, short)
    assert found.certificate is None
    assert found.weights is None
    assert found.exchanges == 0
    assert "support of 5 constraints, not d^2 + 1 = 10" in found.detail


def test_without_the_memory_nothing_is_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    instance, certificate = _proven_certificate(3, 24, "original", seed=0)
    monkeypatch.setattr(exchange_module, "available_memory", lambda: 1000)
    found = exchange_support(instance, certificate)
    assert found.certificate is None
    assert found.exchanges == 0
    assert f"exchanges need {exchange_bytes(3) / 1e9:.2f} GB" in found.detail


@pytest.mark.parametrize(
    ("limit", "reason"),
    [({"deadline": 0.0}, "time limit"), ({"max_exchanges": 0}, "exchange limit")],
)
def test_a_reached_limit_stops_before_the_first_exchange(
    limit: dict[str, float], reason: str
) -> None:
    instance, certificate = _proven_certificate(3, 24, "decoupled", seed=0)
    found = exchange_support(instance, _spoiled(instance, certificate, 2), **limit)  # type: ignore[arg-type]
    assert found.certificate is None
    assert found.exchanges == 0
    assert reason in found.detail


def test_the_cutting_plane_solver_keeps_the_exchanged_support() -> None:
    from lamcap.solvers import _cutting_plane as cutting_plane

    instance, certificate = _proven_certificate(3, 24, "decoupled", seed=1)
    spoiled = _spoiled(instance, certificate, 4)
    assert not prove_infeasible(instance, spoiled).proven
    progress = cutting_plane._Progress(np.zeros((3, 3)), math.nan)
    kept = cutting_plane._exchanged(instance, spoiled, math.inf, progress)
    assert progress.exchange["exchanges"] >= 1
    assert kept is not spoiled
    assert prove_infeasible(instance, kept).proven


def test_a_support_with_a_repeated_constraint_is_reported_singular() -> None:
    instance, certificate = _proven_certificate(3, 24, "original", seed=0)
    associations = np.asarray(certificate.associations).copy()
    competitors = np.asarray(certificate.competitors).copy()
    associations[1], competitors[1] = associations[0], competitors[0]
    repeated = FarkasCertificate(associations, competitors, np.ones(associations.size), 1.0)
    found = exchange_support(instance, repeated)
    assert found.certificate is None
    assert found.exchanges == 0
    assert "affinely dependent in float64" in found.detail
