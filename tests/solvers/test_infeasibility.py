"""Tests for lamcap.solvers._infeasibility: "infeasible" means no solution, or says what it proves.

Feasibility of the hand-built instances below is shown by an explicit W whose
margins are computed in exact rational arithmetic (fractions), independently of
lamcap; infeasibility of the d = 1 clash by its exact cancellation.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers import FarkasCertificate, build_result, verify
from lamcap.solvers import _infeasibility as infeasibility
from lamcap.solvers._infeasibility import (
    _exact_proof,
    _perturbation_proof,
    _support,
    prove_infeasible,
)


def _delta_instance(delta: float) -> Instance:
    """d = p = n = 2, U = I, e0 = (1, 0), e1 = (1, delta): feasible, best margins ~delta."""
    inputs = np.array([[1.0, 0.0], [1.0, delta]])
    return Instance.from_arrays(inputs, np.eye(2), [0, 1], model="original")


def _exact_raw_margins(instance: Instance, weights: list[list[Fraction]]) -> list[Fraction]:
    """(u_t - u_rho)^T W e_mu for every constraint, in exact rational arithmetic."""
    margins = []
    for mu in range(instance.n):
        outputs = [[Fraction(x) for x in row] for row in instance.outputs(mu)]
        e = [Fraction(x) for x in instance.inputs[mu]]
        hidden = [sum((w * x for w, x in zip(row, e, strict=True)), Fraction(0)) for row in weights]
        scores = [
            sum((u * h for u, h in zip(row, hidden, strict=True)), Fraction(0)) for row in outputs
        ]
        target = int(instance.targets[mu])
        margins += [scores[target] - s for rho, s in enumerate(scores) if rho != target]
    return margins


@pytest.mark.parametrize("delta", [1e-8, 1e-9, 1e-10])
def test_delta_instance_is_feasible_in_exact_arithmetic(delta: float) -> None:
    instance = _delta_instance(delta)
    half = Fraction(delta) / 2
    weights = [[Fraction(0), Fraction(0)], [-half, Fraction(1)]]  # margins delta/2 and delta/2
    assert all(margin > 0 for margin in _exact_raw_margins(instance, weights))


@pytest.mark.parametrize("method", ["auto", "full_lp"])
@pytest.mark.parametrize("delta", [1e-8, 1e-9, 1e-10])
def test_feasible_delta_instance_is_never_called_infeasible_without_qualifier(
    delta: float, method: str
) -> None:
    instance = _delta_instance(delta)
    result = lamcap.solve(instance, method=method)
    assert result.verdict in ("feasible", "infeasible", "undecided")
    if result.verdict == "infeasible":
        assert result.certificate is not None
        assert not result.certificate.exact
        assert result.proven.startswith(f"only gamma* <= {result.certificate.epsilon:.3g}")
        check = verify(instance, result)
        assert check
        assert "exact infeasibility (gamma* <= 0) is not proven" in check.proven
    if result.verdict == "feasible":
        assert verify(instance, result)


def _clash() -> tuple[Instance, FarkasCertificate]:
    """d = 1: (u0 - u1) w e0 > 0 and (u1 - u0) w e1 > 0 clash when e0 e1 > 0."""
    instance = Instance.from_arrays([[0.3], [0.7]], [[1.5], [-0.25]], [0, 1], model="original")
    alpha = np.array([0.7, 0.3])  # alpha_0 (u0 - u1) e0 + alpha_1 (u1 - u0) e1 = 0 up to rounding
    return instance, FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)


def test_exact_clash_is_proven_whatever_the_weights_on_its_support() -> None:
    instance, certificate = _clash()
    assert prove_infeasible(instance, certificate).proven
    # a d = 1 support of two opposite constraints cancels exactly for some weights:
    # the proof is about the support, so rough weights still prove it
    rough = dataclasses.replace(certificate, alpha=np.array([1.0, 5.0]))
    assert prove_infeasible(instance, rough).proven


def test_support_of_a_feasible_instance_is_never_proven() -> None:
    instance = _delta_instance(1e-10)
    certificate = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 1.0]), 0.0)
    proof = prove_infeasible(instance, certificate)
    assert not proof.proven
    assert "linearly independent" in proof.detail


@pytest.mark.parametrize("seed", range(4))
def test_random_supports_of_feasible_instances_are_never_proven(seed: int) -> None:
    """d = 3, p = 4, n = 4 (load far below capacity): verified feasible, so no Farkas vector."""
    instance = make_instance(3, 4, n=4, seed=seed)
    assert verify(instance, lamcap.solve(instance, method="full_lp"))
    rng = np.random.default_rng(seed)
    for size in (2, 5, 10, 12):
        mus = rng.integers(0, 4, size=size)
        rhos = (instance.targets[mus] + rng.integers(1, 4, size=size)) % 4
        alpha = rng.exponential(size=size)
        proof = prove_infeasible(instance, FarkasCertificate(mus, rhos, alpha, 0.0))
        assert not proof.proven, proof.detail


def test_perturbation_and_exact_arithmetic_agree_on_a_spanning_support() -> None:
    """d = 6 near the transition: the support spans R^36 (37 constraints), both proofs apply."""
    instance = make_instance(6, 16, seed=0)
    result = lamcap.solve(instance)
    assert result.verdict == "infeasible"
    certificate = result.certificate
    assert certificate is not None
    assert certificate.alpha.size == 37
    proof = prove_infeasible(instance, certificate)
    assert (proof.proven, proof.method) == (True, "perturbation")
    assert _exact_proof(*_support(instance, certificate))[0]


def test_any_weights_on_an_infeasible_spanning_support_prove_it() -> None:
    """The proof is about the support: rough weights are polished onto its null vector."""
    instance = make_instance(6, 16, seed=0)
    certificate = lamcap.solve(instance).certificate
    assert certificate is not None
    alpha = certificate.alpha.copy()
    alpha[np.argmax(alpha)] *= 1.5
    assert _perturbation_proof(_support(instance, dataclasses.replace(certificate, alpha=alpha)))[0]


@pytest.mark.parametrize("seed", range(3))
def test_spanning_supports_of_feasible_instances_are_never_proven(seed: int) -> None:
    """d = 4: 17 random constraints of a feasible instance span R^16 but have no Farkas vector."""
    instance = make_instance(4, 8, n=5, seed=seed)
    assert verify(instance, lamcap.solve(instance, method="full_lp"))
    rng = np.random.default_rng(seed)
    keys = rng.choice(5 * 7, size=17, replace=False)
    mus = keys // 7
    rhos = (instance.targets[mus] + 1 + keys % 7) % 8
    certificate = FarkasCertificate(mus, rhos, rng.exponential(size=17), 0.0)
    proven, detail = _perturbation_proof(_support(instance, certificate))
    assert not proven, detail
    assert not prove_infeasible(instance, certificate).proven


def test_perturbation_proof_is_not_tried_above_its_dimension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """d = 8: a spanning support of 65 > 40 constraints, proven only by the perturbation bound.

    With the bound's dimension limit below 64 the verdict stays infeasible and
    says that only gamma* <= eps is proven (never a claim of exactness).
    """
    instance = make_instance(8, 30, seed=0)
    certificate = lamcap.solve(instance).certificate
    assert certificate is not None
    assert certificate.alpha.size == 65
    assert prove_infeasible(instance, certificate).proven
    monkeypatch.setattr(infeasibility, "PERTURBATION_MAX_DIMENSION", 63)
    proof = prove_infeasible(instance, certificate)
    assert not proof.proven
    assert "not tried above D = 63" in proof.detail
    result = build_result(instance, None, certificate=certificate, method="x")
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert not result.certificate.exact
    assert result.proven.startswith("only gamma* <= ")
    check = verify(instance, result)
    assert check
    assert check.proven.startswith("only gamma* <= ")


def test_build_result_marks_exact_certificates_and_verify_re_proves_them() -> None:
    instance, certificate = _clash()
    result = build_result(instance, None, certificate=certificate, method="x")
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert result.certificate.exact
    assert result.proven.startswith("no W recalls every association (gamma* <= 0")
    assert "proof" in result.details
    check = verify(instance, result)
    assert check
    assert check.proven.startswith("no W recalls every association (gamma* <= 0")


def test_forged_exact_flag_is_caught() -> None:
    instance = _delta_instance(1e-10)
    honest = lamcap.solve(instance, method="full_lp")
    assert honest.verdict == "infeasible"
    assert honest.certificate is not None
    assert not honest.certificate.exact
    forged = dataclasses.replace(
        honest, certificate=dataclasses.replace(honest.certificate, exact=True)
    )
    check = verify(instance, forged)
    assert not check
    assert "claims exact infeasibility" in check.reason
