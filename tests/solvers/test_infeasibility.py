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
from lamcap.solvers import FarkasCertificate, verify
from lamcap.solvers import _infeasibility as infeasibility
from lamcap.solvers._infeasibility import (
    _exact_proof,
    _perturbation_proof,
    _support,
    _verified_inverse_bound,
    _verified_inverse_proof,
    prove_infeasible,
)
from lamcap.solvers._result import build_result


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


def test_perturbation_proofs_are_not_tried_above_their_dimensions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """d = 8: a spanning support of 65 > 40 constraints, proven only by the perturbation bounds.

    With the Gram bound's dimension limit below 64 the verified inverse proves
    it; with both limits below 64 the verdict stays infeasible and says that
    only gamma* <= eps is proven (never a claim of exactness).
    """
    instance = make_instance(8, 30, seed=0)
    certificate = lamcap.solve(instance).certificate
    assert certificate is not None
    assert certificate.alpha.size == 65
    assert prove_infeasible(instance, certificate).proven
    monkeypatch.setattr(infeasibility, "PERTURBATION_MAX_DIMENSION", 63)
    proof = prove_infeasible(instance, certificate)
    assert (proof.proven, proof.method) == (True, "verified_inverse")
    monkeypatch.setattr(infeasibility, "VERIFIED_INVERSE_MAX_DIMENSION", 63)
    proof = prove_infeasible(instance, certificate)
    assert not proof.proven
    assert "perturbation proof is not tried above D = 63" in proof.detail
    assert "verified-inverse proof is not tried above D = 63" in proof.detail
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


# --------------------------------------------------------------------------- verified inverse
def _exact_columns(support: tuple[np.ndarray, ...]) -> list[list[Fraction]]:
    """vec((u_t - u_rho) e^T) of each constraint in exact rational arithmetic."""
    targets, rivals, inputs = support[:3]
    columns = []
    for target, rival, vector in zip(targets, rivals, inputs, strict=True):
        difference = [Fraction(a) - Fraction(b) for a, b in zip(target, rival, strict=True)]
        columns.append([a * Fraction(e) for a in difference for e in vector])
    return columns


def _exact_null_space(columns: list[list[Fraction]]) -> list[list[Fraction]]:
    """Basis of {z : sum_j z_j columns[j] = 0} by sympy's exact DomainMatrix over QQ."""
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    rows = [
        [QQ(value.numerator, value.denominator) for value in row]
        for row in zip(*columns, strict=True)
    ]
    basis = DomainMatrix(rows, (len(rows), len(columns)), QQ).nullspace().to_Matrix()
    return [[Fraction(int(x.p), int(x.q)) for x in basis.row(i)] for i in range(basis.shape[0])]


def _has_positive_null_vector(columns: list[list[Fraction]]) -> bool | None:
    """True/False when the null space is a line (its vector is or is not single-signed), else None."""
    basis = _exact_null_space(columns)
    if len(basis) != 1:
        return None
    vector = basis[0]
    return all(value > 0 for value in vector) or all(value < 0 for value in vector)


def _infeasible_support(d: int, p: int) -> tuple[Instance, FarkasCertificate]:
    instance = make_instance(d, p, seed=0)
    result = lamcap.solve(instance)
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert result.certificate.alpha.size == d * d + 1
    return instance, result.certificate


@pytest.mark.parametrize(("d", "p"), [(4, 8), (6, 16), (8, 30), (12, 60)])
def test_verified_inverse_agrees_with_the_gram_proof(d: int, p: int) -> None:
    """Genuine spanning supports near the transition: both perturbation proofs succeed.

    Where the support is small enough (d = 4, 6: 17 and 37 constraints), exact
    rational arithmetic proves it too.
    """
    instance, certificate = _infeasible_support(d, p)
    support = _support(instance, certificate)
    assert _perturbation_proof(support)[0]
    proven, detail = _verified_inverse_proof(support)
    assert proven, detail
    if support[3].size <= infeasibility.EXACT_MAX_SUPPORT:
        assert _exact_proof(*support)[0]


@pytest.mark.parametrize(("d", "p"), [(4, 8), (6, 16)])
def test_verified_inverse_bound_holds_in_exact_arithmetic(d: int, p: int) -> None:
    """The proof's claim re-derived with fractions: ||A_B^-1 r||_inf <= the bound, y + dz > 0, A(y + dz) = 0.

    ``r`` is the exact residual of the proof's weights on the exact (scaled)
    columns, and ``dz = -A_B^-1 r`` is solved exactly (sympy over QQ); sympy's
    null space agrees that the support has a positive null vector.
    """
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    instance, certificate = _infeasible_support(d, p)
    support = _support(instance, certificate)
    bound = _verified_inverse_bound(support)
    assert not isinstance(bound, str), bound
    assert bound.proven
    columns = [
        [value * Fraction(2) ** -int(shift) for value in column]
        for column, shift in zip(
            _exact_columns(tuple(part[bound.order] for part in support)), bound.shifts, strict=True
        )
    ]
    weights = [Fraction(float(w)) for w in bound.weights]
    dimension = d * d
    residual = [
        sum((w * column[i] for w, column in zip(weights, columns, strict=True)), Fraction(0))
        for i in range(dimension)
    ]
    assert any(residual)  # the float weights alone are not an exact null vector
    matrix = DomainMatrix(
        [
            [QQ(c[i].numerator, c[i].denominator) for c in columns[:dimension]]
            for i in range(dimension)
        ],
        (dimension, dimension),
        QQ,
    )
    right = DomainMatrix([[QQ(-r.numerator, r.denominator)] for r in residual], (dimension, 1), QQ)
    step = [Fraction(int(x.p), int(x.q)) for x in matrix.lu_solve(right).to_Matrix()]
    assert max(abs(x) for x in step) <= Fraction(bound.correction)
    corrected = [w + x for w, x in zip(weights[:dimension], step, strict=True)] + weights[
        dimension:
    ]
    assert min(corrected) > 0
    assert all(
        sum((w * column[i] for w, column in zip(corrected, columns, strict=True)), Fraction(0)) == 0
        for i in range(dimension)
    )
    assert _has_positive_null_vector(_exact_columns(support)) is True


@pytest.mark.parametrize("twin", ["in_basis", "left_out"])
def test_verified_inverse_rejects_a_duplicated_constraint(twin: str) -> None:
    """d^2 + 1 constraints of which two are equal: the only null vector is e_i - e_j.

    ``in_basis``: both copies are among the d^2 lightest (the basis is singular);
    ``left_out``: the heavier copy is the one left out of the basis (which is then
    invertible), so only the sign of the correction can fail.
    """
    instance, certificate = _infeasible_support(4, 8)
    order = np.argsort(certificate.alpha)[::-1]  # heaviest first
    mus = certificate.associations[order].copy()
    rhos = certificate.competitors[order].copy()
    alpha = certificate.alpha[order].copy()
    if twin == "in_basis":
        mus[-1], rhos[-1] = mus[-2], rhos[-2]
    else:
        mus[0], rhos[0] = mus[-1], rhos[-1]
    doctored = FarkasCertificate(mus, rhos, alpha, 0.0)
    support = _support(instance, doctored)
    assert _has_positive_null_vector(_exact_columns(support)) is False
    proven, detail = _verified_inverse_proof(support)
    assert not proven, detail
    assert not prove_infeasible(instance, doctored).proven


def _swapped_supports(
    instance: Instance, certificate: FarkasCertificate
) -> list[tuple[float, FarkasCertificate]]:
    """Every support with one constraint swapped for one outside it, with its float null vector's min/max."""
    keys = set(
        zip(certificate.associations.tolist(), certificate.competitors.tolist(), strict=True)
    )
    swapped = []
    for mu in range(instance.n):
        for rho in range(1, instance.p):  # decoupled: the target is row 0
            if (mu, rho) in keys:
                continue
            for j in range(certificate.alpha.size):
                mus, rhos = certificate.associations.copy(), certificate.competitors.copy()
                mus[j], rhos[j] = mu, rho
                doctored = FarkasCertificate(mus, rhos, np.ones(mus.size), 0.0)
                targets, rivals, inputs, _ = _support(instance, doctored)
                columns = ((targets - rivals)[:, :, None] * inputs[:, None, :]).reshape(
                    mus.size, -1
                )
                vector = np.linalg.svd(columns.T)[2][-1]
                vector *= np.sign(vector.sum())
                swapped.append((float(vector.min() / vector.max()), doctored))
    return swapped


def test_verified_inverse_on_doctored_supports_matches_exact_arithmetic() -> None:
    """d = 4: one constraint of a genuine support swapped for another; sympy decides each.

    Of the 663 swaps (6 % keep a positive null vector in float64), the 4 whose
    float null vector is most positive and the 6 closest to the boundary on
    either side are decided in exact arithmetic: proven only if the exact null
    vector is positive (soundness), and proven whenever it is positive with its
    smallest entry above 1e-6 of its largest (the proof's floor here is about
    1e-15).  Random weights: the proof is about the support.
    """
    instance, certificate = _infeasible_support(4, 8)
    swapped = sorted(_swapped_supports(instance, certificate), key=lambda item: item[0])
    assert len(swapped) == 663
    boundary = int(np.searchsorted([ratio for ratio, _ in swapped], 0.0))
    chosen = swapped[boundary - 3 : boundary + 3] + swapped[-4:]
    rng = np.random.default_rng(0)
    outcomes = []
    for _, swap in chosen:
        doctored = dataclasses.replace(swap, alpha=rng.exponential(size=swap.alpha.size))
        support = _support(instance, doctored)
        basis = _exact_null_space(_exact_columns(support))
        assert len(basis) == 1
        vector = basis[0] if sum(basis[0]) > 0 else [-x for x in basis[0]]
        positive = min(vector) > 0
        proven, detail = _verified_inverse_proof(support)
        if proven:
            assert positive, detail
        if positive and min(vector) > Fraction(1, 10**6) * max(vector):
            assert proven, detail
        outcomes.append((positive, proven))
    assert sum(positive for positive, _ in outcomes) == 7  # 3 near the boundary, 4 far inside
    assert sum(proven for _, proven in outcomes) == 7


def test_verified_inverse_is_not_tried_without_the_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    instance, certificate = _infeasible_support(8, 30)
    monkeypatch.setattr(infeasibility, "PERTURBATION_MAX_DIMENSION", 63)
    monkeypatch.setattr(infeasibility, "available_memory", lambda: 1000)
    proof = prove_infeasible(instance, certificate)
    assert not proof.proven
    assert "the verified-inverse proof needs 0.00 GB, 0.00 GB available: not tried" in proof.detail
