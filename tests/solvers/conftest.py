"""Independent references for the solver tests: plain loops over the instance, no lamcap checks.

Verdicts are decided by ``lamcap.solvers._certificates`` (``check_margins``,
``certificate_bound``); tests must not take their reference from the same
code.  These fixtures recompute margins and Farkas bounds from
``instance.outputs`` and ``instance.inputs`` with one dense loop per
constraint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from lamcap.problems import Instance
from lamcap.solvers import FarkasCertificate, SolveResult


def _weights(result_weights: object) -> np.ndarray:
    if isinstance(result_weights, tuple):
        left, right = result_weights
        return np.asarray(left) @ np.asarray(right).T
    return np.asarray(result_weights)


def _loop_levels(instance: Instance, weights: object, raw: bool = False) -> np.ndarray:
    """Every constraint's raw margin (u_t - u_rho)^T W e_mu, shape (n, p), targets +inf.

    Without ``raw`` divided by |e_mu| sqrt(|u_t|^2 + |u_rho|^2): the normalised
    margin times |W|_F.
    """
    matrix = _weights(weights)
    levels = np.full((instance.n, instance.p), np.inf)
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        target = outputs[instance.targets[mu]]
        e = instance.inputs[mu]
        for rho in range(instance.p):
            if rho != instance.targets[mu]:
                scale = np.linalg.norm(e) * math.hypot(
                    np.linalg.norm(target), np.linalg.norm(outputs[rho])
                )
                margin = (target - outputs[rho]) @ matrix @ e
                levels[mu, rho] = margin if raw else margin / scale
    return levels


def _loop_margins(instance: Instance, weights: object) -> np.ndarray:
    """Every normalised margin (u_t - u_rho)^T W e_mu / (|W| |e_mu| sqrt(|u_t|^2 + |u_rho|^2))."""
    constraint = np.ones((instance.n, instance.p), dtype=bool)
    constraint[np.arange(instance.n), instance.targets] = False
    levels = _loop_levels(instance, weights)[constraint]  # row by row, as the constraints
    return levels / np.linalg.norm(_weights(weights))


def _dense_farkas_bound(instance: Instance, certificate: FarkasCertificate) -> float:
    """|sum_i alpha_i (u_t - u_rho) e_mu^T|_F / sum_i alpha_i |e_mu| sqrt(|u_t|^2 + |u_rho|^2)."""
    total = np.zeros((instance.d, instance.d))
    denominator = 0.0
    for mu, rho, alpha in zip(
        certificate.associations, certificate.competitors, certificate.alpha, strict=True
    ):
        outputs = instance.outputs(int(mu))
        target = outputs[instance.targets[mu]]
        total += alpha * np.outer(target - outputs[rho], instance.inputs[mu])
        denominator += (
            alpha
            * np.linalg.norm(instance.inputs[mu])
            * math.hypot(np.linalg.norm(target), np.linalg.norm(outputs[rho]))
        )
    return float(np.linalg.norm(total) / denominator)


@pytest.fixture
def loop_margins() -> Callable[[Instance, object], np.ndarray]:
    """All normalised margins of W (or (Q, R)) by a plain loop over constraints."""
    return _loop_margins


@pytest.fixture
def loop_levels() -> Callable[..., np.ndarray]:
    """All raw margins, or normalised margins times |W|_F, of W as an (n, p) array, by a loop."""
    return _loop_levels


@pytest.fixture
def dense_farkas_bound() -> Callable[[Instance, FarkasCertificate], float]:
    """The Farkas bound epsilon of a certificate, summed densely constraint by constraint."""
    return _dense_farkas_bound


@pytest.fixture
def independently_decided() -> Callable[[Instance, SolveResult], None]:
    """Assert a decided result by the loops above: W recalls all, or the certificate cancels."""

    def check(instance: Instance, result: SolveResult) -> None:
        if result.verdict == "feasible":
            assert _loop_margins(instance, result.weights).min() > 1e-9
        elif result.verdict == "infeasible":
            assert result.certificate is not None
            assert _dense_farkas_bound(instance, result.certificate) <= 1e-9
        else:
            message = f"undecided: {result.details}"
            raise AssertionError(message)

    return check


def _interpret(monkeypatch: pytest.MonkeyPatch, *modules: ModuleType) -> None:
    """Replace every numba dispatcher of ``modules`` by its ``py_func`` (for this test only)."""
    for module in modules:
        for name, value in list(vars(module).items()):
            if isinstance(value, Dispatcher):
                monkeypatch.setattr(module, name, value.py_func)


@pytest.fixture
def interpret(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``interpret(module, ...)``: the modules' kernels run as plain Python until the test ends.

    The reference for a compiled kernel whose helpers numba inlines
    (``inline="always"``): its ``py_func`` then calls the helpers' ``py_func``
    too, so the whole call tree runs interpreted.  Call the compiled kernel
    first (numba reads the module's globals when it compiles).
    """

    def interpret_modules(*modules: ModuleType) -> None:
        _interpret(monkeypatch, *modules)

    return interpret_modules
