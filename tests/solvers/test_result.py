"""Tests for lamcap.solvers.build_result and lamcap.solvers.verify."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lamcap.problems import hebbian_weights, make_instance
from lamcap.solvers import verify
from lamcap.solvers._certificates import FarkasCertificate
from lamcap.solvers._result import build_result


def _clash():  # type: ignore[no-untyped-def]
    """An infeasible d = 1 instance and its exact Farkas certificate (see test_certificates)."""
    for seed in range(50):
        instance = make_instance(1, 2, model="original", seed=seed)
        e = instance.inputs[:, 0]
        if e[0] * e[1] > 0:
            alpha = np.abs(e[::-1])
            return instance, FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)
    raise AssertionError


def test_hebbian_at_low_load_is_verified_feasible(loop_margins) -> None:  # type: ignore[no-untyped-def]
    instance = make_instance(64, 3, n=2, seed=0)
    result = build_result(
        instance, hebbian_weights(instance), method="hebbian", iterations=1, seconds=0.5
    )
    assert result.verdict == "feasible"
    reference = loop_margins(instance, result.weights).min()
    assert reference > 0
    assert abs(result.min_margin - reference) < 1e-12
    assert verify(instance, result)


def test_rank_constrained_pair_is_accepted(loop_margins) -> None:  # type: ignore[no-untyped-def]
    instance = make_instance(64, 3, n=2, seed=0)
    weights = hebbian_weights(instance)
    u, s, vt = np.linalg.svd(weights)
    pair = (u[:, :2] * s[:2], vt[:2].T)
    result = build_result(instance, pair, method="two_layer")
    assert result.verdict == "feasible"
    assert loop_margins(instance, pair).min() > 0
    assert verify(instance, result)


def test_infeasible_needs_a_checking_certificate() -> None:
    instance, certificate = _clash()
    result = build_result(instance, np.ones((1, 1)), certificate=certificate, method="x")
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert result.certificate.epsilon < 1e-14
    assert verify(instance, result)
    assert build_result(instance, None, method="x").verdict == "undecided"
    weak = dataclasses.replace(certificate, alpha=certificate.alpha * [1.0, 2.0])
    assert build_result(instance, None, certificate=weak, method="x").verdict == "undecided"
    broken = dataclasses.replace(certificate, competitors=np.array([0, 0]))
    result = build_result(instance, None, certificate=broken, method="x")
    assert result.verdict == "undecided"
    assert result.certificate is None


def test_verify_rejects_tampering() -> None:
    instance = make_instance(64, 3, n=2, seed=0)
    result = build_result(instance, hebbian_weights(instance), method="hebbian")
    assert not verify(instance, dataclasses.replace(result, weights=-result.weights))
    small_change = result.weights.copy()
    small_change[0, 0] += 1e-3
    assert not verify(instance, dataclasses.replace(result, weights=small_change))
    assert not verify(instance, dataclasses.replace(result, verdict="infeasible"))
    assert not verify(instance, dataclasses.replace(result, verdict="undecided"))
    clash, certificate = _clash()
    claimed = build_result(clash, None, certificate=certificate, method="x")
    tampered = dataclasses.replace(certificate, alpha=certificate.alpha * [1.0, 1.5])
    assert not verify(clash, dataclasses.replace(claimed, certificate=tampered))
    malformed = dataclasses.replace(certificate, alpha=np.array([-1.0, 1.0]))
    report = verify(clash, dataclasses.replace(claimed, certificate=malformed))
    assert not report
    assert "malformed" in report.reason


def test_build_result_rejects_bad_weights() -> None:
    instance = make_instance(3, 3, seed=0)
    with pytest.raises(ValueError, match="W must have shape"):
        build_result(instance, np.eye(2), method="x")
    with pytest.raises(ValueError, match="Q and R must both have shape"):
        build_result(instance, (np.eye(3), np.eye(2)), method="x")


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_overflowing_weights_are_not_called_feasible(model: str) -> None:
    instance = make_instance(4, 40, model=model, seed=1)  # infeasible (test_cutting_plane)
    weights = -1e308 * np.ones((4, 4))
    result = build_result(instance, weights, method="x")
    assert result.verdict == "undecided"
    forged = dataclasses.replace(result, verdict="feasible")
    assert not verify(instance, forged)


def test_cancelling_pair_is_not_called_feasible() -> None:
    instance = make_instance(4, 2, n=1, seed=0)
    left = np.zeros((4, 4))
    left[0] = 1.0
    outputs, e = instance.outputs(0), instance.inputs[0]
    sign = np.sign(outputs[0, 0] - outputs[1, 0])
    right = np.outer(sign * e, [1.0, -(2.0**-54), -1.0, 2.0**-60])  # exact product: -c x y^T
    result = build_result(instance, (left, right), method="x")
    assert result.verdict == "undecided"
    assert result.min_margin < 0
    assert not verify(instance, dataclasses.replace(result, verdict="feasible"))
    floating = build_result(instance, left @ right.T, method="x")  # what the old check saw
    assert floating.verdict == "feasible"


def test_help_of_solve_result_has_no_control_characters() -> None:
    # issue 23: "\v" of "\varepsilon" in a non-raw docstring showed as "arepsilon"
    import pydoc

    import lamcap

    text = pydoc.render_doc(lamcap.SolveResult, renderer=pydoc.plaintext)
    assert "\\varepsilon" in text
    assert not any(ord(c) < 32 and c not in "\n\t" for c in text)
