"""Tests for lamcap.verify: it is truthy only when it proves a verdict, and says why not.

The references are built without lamcap's margin code: failing associations are
counted by a plain loop over scores (argmax of u_rho^T W e_mu), certificates are
the exact d = 1 clash of test_certificates.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, hebbian_weights, make_instance
from lamcap.solvers import SolveResult, Verification, build_result, verify
from lamcap.solvers.certificates import FarkasCertificate


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
    for given in (weights, weights.tolist(), (weights, np.eye(48))):
        check = verify(instance, given)
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
        (("instance", (np.ones((4, 5)), np.ones((4, 5)))), r"inner dimension m .* \[1, 4\]"),
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
