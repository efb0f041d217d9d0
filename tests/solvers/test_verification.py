"""Tests for lamcap.verify: it is truthy only when it proves a verdict, and says why not.

The references are built without lamcap's margin code: failing associations are
counted by a plain loop over scores (argmax of u_rho^T W e_mu), certificates are
the exact d = 1 clash of test_certificates.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lamcap
from lamcap.problems import Instance, hebbian_weights, make_instance
from lamcap.solvers import SolveResult, Verification, verify
from lamcap.solvers._certificates import FarkasCertificate
from lamcap.solvers._result import build_result


def _loop_failures(instance: Instance, weights: np.ndarray) -> set[int]:
    """Associations whose target does not score strictly above every competitor."""
    failing = set()
    for mu in range(instance.n):
        s = instance.outputs(mu) @ (weights @ instance.inputs[mu])
        target = instance.targets[mu]
        if not s[target] > np.delete(s, target).max():
            failing.add(mu)
    return failing


def _clash() -> tuple[Instance, FarkasCertificate]:
    """An infeasible d = 1 instance and its exact Farkas certificate (see test_certificates)."""
    for seed in range(50):
        instance = make_instance(1, 2, model="original", seed=seed)
        e = instance.inputs[:, 0]
        if e[0] * e[1] > 0:
            alpha = np.abs(e[::-1])
            return instance, FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)
    raise AssertionError


def test_top_level_names() -> None:
    assert lamcap.verify is verify
    assert lamcap.Verification is Verification
    assert lamcap.Instance is Instance


def test_plain_weights_and_pairs_are_verified_like_results() -> None:
    instance = make_instance(48, 3, n=4, seed=0)
    weights = hebbian_weights(instance)
    assert _loop_failures(instance, weights) == set()
    for weights_given in (weights, weights.tolist(), (weights, np.eye(48))):
        check = verify(instance, weights_given)
        assert check
        assert check.verdict == "feasible"
        assert "recalls all 4 associations" in check.proven


def test_failing_weights_say_which_associations_fail_and_by_how_much() -> None:
    instance = make_instance(8, 30, n=20, seed=3)
    weights = hebbian_weights(instance)  # far above the Hebbian capacity: some fail
    failing = _loop_failures(instance, weights)
    assert failing
    check = verify(instance, weights)
    assert not check
    assert check.verdict == "undecided"
    assert check.margins is not None
    assert check.margins.failing_associations == len(failing)
    assert {mu for mu, _, _ in check.margins.worst} <= failing
    assert f"{len(failing)} of 20 associations" in check.reason
    margins = [margin for _, _, margin in check.margins.worst]
    assert margins == sorted(margins)
    assert margins[0] == check.min_margin


def test_undecided_result_is_consistent_but_proves_nothing() -> None:
    instance = make_instance(8, 30, n=20, seed=3)
    result = build_result(instance, hebbian_weights(instance), method="hebbian")
    assert result.verdict == "undecided"
    check = verify(instance, result)
    assert check.consistent
    assert not check
    assert "undecided" in check.reason
    assert "associations" in check.reason  # which ones fail


def test_infeasible_result_is_proven() -> None:
    instance, certificate = _clash()
    result = build_result(instance, None, certificate=certificate, method="x")
    check = verify(instance, result)
    assert check
    assert check.verdict == "infeasible"
    assert "Farkas certificate on 2 constraints" in check.proven


def test_result_of_another_instance_is_refused() -> None:
    instance = make_instance(48, 3, n=4, seed=0)
    result = build_result(instance, hebbian_weights(instance), method="hebbian")
    other = Instance.from_arrays(instance.inputs, instance.output_block(range(4)), 0)
    assert verify(other, hebbian_weights(other))  # the weights do recall the copy ...
    check = verify(other, result)  # ... but the result was not built for it
    assert not check
    assert "another instance" in check.reason


def test_tampered_stored_numbers_are_caught() -> None:
    instance = make_instance(48, 3, n=4, seed=0)
    result = build_result(instance, hebbian_weights(instance), method="hebbian")
    assert result.min_margin > 0
    assert verify(instance, dataclasses.replace(result, min_margin=result.min_margin))
    for stored in (result.min_margin * (1 + 1e-9), result.min_margin + 1e-12, np.nan, "x"):
        assert not verify(instance, dataclasses.replace(result, min_margin=stored))
    clash, certificate = _clash()
    claimed = build_result(clash, None, certificate=certificate, method="x")
    assert claimed.certificate is not None
    forged = dataclasses.replace(claimed.certificate, epsilon=claimed.certificate.epsilon + 1e-9)
    check = verify(clash, dataclasses.replace(claimed, certificate=forged))
    assert not check
    assert "stored certificate bound" in check.reason


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        (("x", "result"), "instance must be a lamcap Instance"),
        (("instance", None), "result_or_weights must be a SolveResult"),
        (("instance", "x"), "result_or_weights must be a SolveResult"),
        (("instance", 1.0), "result_or_weights must be a SolveResult"),
        (("instance", np.eye(3)), r"W must have shape \(4, 4\)"),
        (("instance", np.full((4, 4), np.inf)), "W must contain finite values, got inf"),
        (("instance", (np.eye(4), np.eye(3))), "Q and R must both have shape"),
        (
            ("instance", (np.ones((4, 5)), np.ones((4, 5)))),
            r"rank r \(inner dimension of Q and R\) must be in \[1, 4\]",
        ),
        (("instance", (np.eye(4),)), "a tuple of length 1"),
    ],
)
def test_wrong_types_and_shapes_raise_value_error(
    arguments: tuple[object, object], match: str
) -> None:
    instance = make_instance(4, 3, n=2, seed=0)
    result = build_result(instance, None, method="x")
    values = {"instance": instance, "result": result}
    first, second = (values.get(a, a) if isinstance(a, str) else a for a in arguments)
    with pytest.raises(ValueError, match=match):
        verify(first, second)  # type: ignore[arg-type]


def test_malformed_parts_of_a_result_make_it_falsy_not_an_exception() -> None:
    instance = make_instance(4, 3, n=2, seed=0)
    result = build_result(instance, np.eye(4), method="x")
    for edited in (
        dataclasses.replace(result, weights=np.eye(3)),
        dataclasses.replace(result, weights=np.full((4, 4), np.nan)),
        dataclasses.replace(result, certificate="x"),  # type: ignore[arg-type]
        dataclasses.replace(result, verdict="maybe"),  # type: ignore[arg-type]
    ):
        check = verify(instance, edited)
        assert not check
        assert not check.consistent
        assert check.reason


def test_solve_result_is_still_a_plain_dataclass() -> None:
    assert {field.name for field in dataclasses.fields(SolveResult)} >= {
        "verdict",
        "weights",
        "min_margin",
        "certificate",
        "instance_digest",
    }


# --------------------------------------------------------------------------- property tests
@functools.cache
def _solved() -> dict[str, tuple[Instance, SolveResult]]:
    """One verified feasible and one exactly infeasible result (computed once)."""
    feasible = make_instance(8, 10, n=6, seed=0)
    infeasible = make_instance(4, 40, seed=1)
    results = {
        "feasible": (feasible, lamcap.solve(feasible)),
        "infeasible": (infeasible, lamcap.solve(infeasible)),
    }
    assert results["feasible"][1].verdict == "feasible"
    assert results["infeasible"][1].verdict == "infeasible"
    certificate = results["infeasible"][1].certificate
    assert certificate is not None
    assert certificate.exact
    return results


def _loop_min_margin(instance: Instance, weights: np.ndarray) -> float:
    """Independent minimum normalised margin (plain loop, no lamcap checks)."""
    lowest = np.inf
    for mu in range(instance.n):
        outputs, e = instance.outputs(mu), instance.inputs[mu]
        target = outputs[instance.targets[mu]]
        for rho in range(instance.p):
            if rho != instance.targets[mu]:
                scale = np.linalg.norm(weights) * np.linalg.norm(e)
                scale *= np.hypot(np.linalg.norm(target), np.linalg.norm(outputs[rho]))
                lowest = min(lowest, (target - outputs[rho]) @ weights @ e / scale)
    return float(lowest)


relative_changes = st.floats(min_value=1e-6, max_value=1e3) | st.floats(
    min_value=-1e3, max_value=-1e-6
)


@settings(max_examples=60, deadline=None)
@given(row=st.integers(0, 7), column=st.integers(0, 7), change=relative_changes)
def test_tampered_weights_are_caught_and_never_confirmed_wrongly(
    row: int, column: int, change: float
) -> None:
    instance, result = _solved()["feasible"]
    weights = np.array(result.weights, dtype=float)
    weights[row, column] += change * np.linalg.norm(weights)
    tampered = dataclasses.replace(result, weights=weights)
    assert not verify(instance, tampered)  # the stored min_margin no longer matches
    check = verify(instance, weights)  # the weights alone: truthy only if they do recall all
    assert bool(check) == (_loop_min_margin(instance, weights) > 1e-9)


@settings(max_examples=60, deadline=None)
@given(
    index=st.integers(0, 200),
    factor=st.floats(min_value=1e-6, max_value=1e3),
    field=st.sampled_from(["alpha", "competitor", "association"]),
)
def test_tampered_certificates_are_caught(index: int, factor: float, field: str) -> None:
    """Any material change of a weight or a constraint: the bound no longer matches.

    Constraints whose weight is below 1e-6 of the largest are left out: changing them
    moves the bound by less than its precision, and the certificate still proves what
    it claims (the property below shows such results are still right).
    """
    instance, result = _solved()["infeasible"]
    certificate = result.certificate
    assert certificate is not None
    material = np.nonzero(certificate.alpha > 1e-6 * certificate.alpha.max())[0]
    position = int(material[index % material.size])
    if field == "alpha":
        alpha = certificate.alpha.copy()
        alpha[position] *= 1 + factor
        tampered = dataclasses.replace(certificate, alpha=alpha)
    elif field == "competitor":
        competitors = certificate.competitors.copy()
        target = instance.targets[certificate.associations[position]]
        others = [rho for rho in range(instance.p) if rho not in (competitors[position], target)]
        competitors[position] = others[index % len(others)]
        tampered = dataclasses.replace(certificate, competitors=competitors)
    else:
        associations = certificate.associations.copy()
        others = [mu for mu in range(instance.n) if mu != associations[position]]
        associations[position] = others[index % len(others)]
        tampered = dataclasses.replace(certificate, associations=associations)
    assert not verify(instance, dataclasses.replace(result, certificate=tampered))


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["feasible", "infeasible"]),
    where=st.sampled_from(["inputs", "outputs"]),
    index=st.integers(0, 10_000),
    change=relative_changes,
)
def test_results_checked_against_tampered_instance_data_are_caught(
    kind: str, where: str, index: int, change: float
) -> None:
    instance, result = _solved()[kind]
    inputs = instance.inputs.copy()
    outputs = np.array(instance.output_block(range(instance.n)))
    model_outputs = outputs if instance.model == "decoupled" else outputs[0].copy()
    target = inputs if where == "inputs" else model_outputs
    target.flat[index % target.size] *= 1 + change
    if not np.all(np.any(target != 0, axis=-1)):
        return  # a zero row is refused by from_arrays (tested elsewhere)
    other = Instance.from_arrays(inputs, model_outputs, instance.targets, model=instance.model)
    check = verify(other, result)
    assert not check
    assert "another instance" in check.reason


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["feasible", "infeasible"]),
    field=st.sampled_from(["min_margin", "epsilon", "verdict", "exact"]),
    change=relative_changes,
)
def test_tampered_stored_numbers_are_always_caught(kind: str, field: str, change: float) -> None:
    """Changes beyond the stated precision; a weaker claim (exact -> not exact) is still true."""
    instance, result = _solved()[kind]
    certificate = result.certificate
    if field == "min_margin":
        if np.isnan(result.min_margin):
            tampered = dataclasses.replace(result, min_margin=change)
        else:
            stored = result.min_margin * (1 + change) + np.copysign(1e-12, change)
            tampered = dataclasses.replace(result, min_margin=stored)
    elif field == "verdict":
        other = "infeasible" if change > 0 else "undecided"
        tampered = dataclasses.replace(result, verdict="feasible" if kind != "feasible" else other)
    elif certificate is None:  # a feasible result: forge a certificate claim
        forged = FarkasCertificate(np.array([0]), np.array([1]), np.array([1.0]), 0.0, exact=True)
        tampered = dataclasses.replace(result, verdict="infeasible", certificate=forged)
    elif field == "epsilon":
        bigger = certificate.epsilon * (1 + abs(change)) + 1e-12
        tampered = dataclasses.replace(
            result, certificate=dataclasses.replace(certificate, epsilon=bigger)
        )
    else:  # "exact" on an infeasible result that is exact: a weaker claim stays true
        weaker = dataclasses.replace(certificate, exact=False)
        check = verify(instance, dataclasses.replace(result, certificate=weaker))
        assert check
        assert check.proven.startswith("only gamma*")
        return
    assert not verify(instance, tampered)


@settings(max_examples=40, deadline=None)
@given(index=st.integers(0, 200), shift=st.integers(1, 38), factor=st.floats(0.0, 1e3))
def test_verified_certificates_are_right_whatever_the_tampering(
    index: int, shift: int, factor: float
) -> None:
    """Whenever a tampered certificate still verifies, it still cancels (dense loop)."""
    instance, result = _solved()["infeasible"]
    certificate = result.certificate
    assert certificate is not None
    position = index % certificate.alpha.size
    alpha = certificate.alpha.copy()
    alpha[position] *= factor
    competitors = certificate.competitors.copy()
    competitors[position] = (competitors[position] + shift) % instance.p
    if competitors[position] == instance.targets[certificate.associations[position]]:
        competitors[position] = (competitors[position] + 1) % instance.p
    tampered = dataclasses.replace(certificate, alpha=alpha, competitors=competitors)
    if verify(instance, dataclasses.replace(result, certificate=tampered)):
        total = np.zeros((instance.d, instance.d))
        scale = 0.0
        for mu, rho, weight in zip(tampered.associations, competitors, alpha, strict=True):
            outputs = instance.outputs(int(mu))
            difference = outputs[instance.targets[mu]] - outputs[rho]
            total += weight * np.outer(difference, instance.inputs[mu])
            scale += weight * np.linalg.norm(difference) * np.linalg.norm(instance.inputs[mu])
        assert np.linalg.norm(total) <= 1e-9 * scale
