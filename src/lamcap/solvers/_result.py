r"""The result of a solver run and the one place where verdicts are decided.

Every solver (full-rank cutting planes, full LP, the rank-constrained trainer,
the baselines) returns a :class:`SolveResult` built by :func:`build_result`, so
that all of them obey the same rules (module :mod:`lamcap.solvers._certificates`):

* ``"feasible"`` only with weights whose recomputed minimum normalised margin
  is :math:`> 10^{-9}` (:data:`~lamcap.solvers.FEASIBILITY_TOLERANCE`)
  and above its proven rounding error, every margin finite
  (:func:`~lamcap.solvers.check_margins`);
* ``"infeasible"`` only with a :class:`~lamcap.solvers.FarkasCertificate`
  whose recomputed bound is :math:`\le 10^{-9}`.  It then carries one of two
  proofs, stated by :attr:`SolveResult.proven`: **exact** (``certificate.exact``:
  no ``W`` recalls every association, :math:`\gamma^* \le 0`, proven by
  :func:`~lamcap.solvers.prove_infeasible`), or **bounded**
  (:math:`\gamma^* \le \varepsilon`: no ``W`` has a minimum normalised margin
  above ``certificate.epsilon``, which does not exclude smaller positive
  margins);
* ``"undecided"`` otherwise (time limit, no convergence, rank-constrained failure).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_real
from lamcap.problems import Instance, check_instance
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
    check_margins,
)
from lamcap.solvers._constraints import at_raw_margin
from lamcap.solvers._infeasibility import prove_infeasible

OBJECTIVES = ("feasible", "max_margin")
"""Accepted ``objective`` values of :func:`~lamcap.solvers.solve`: ``"feasible"`` stops at the
first verified ``W``, ``"max_margin"`` seeks the minimum-norm ``W`` (certified gap)."""

VERDICTS = ("feasible", "infeasible", "undecided")

Weights = NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]
"""``W`` (d x d), or ``(Q, R)`` (each d x r, r the rank) meaning ``W = Q @ R.T``."""


@dataclass(frozen=True, eq=False)
class SolveResult:
    r"""Outcome of :func:`lamcap.solve` (frozen).

    Attributes
    ----------
    verdict : {"feasible", "infeasible", "undecided"}
        Decided by :func:`build_result` from the two checks below.
    weights : ndarray (d, d), pair (Q, R) of (d, m) arrays, or None
        The best weights found (also for ``"undecided"``, when there are any).
    min_margin : float
        :math:`\min_{\mu,\rho\ne t} \gamma_{\mu\rho}(W)`, recomputed from scratch on all
        :math:`n(p-1)` constraints in float64 (normalisation in
        :mod:`lamcap.solvers._certificates`); NaN without weights.
    certificate : FarkasCertificate or None
        For ``"infeasible"``: weights on constraints whose recomputed bound
        :math:`\varepsilon \le 10^{-9}` proves no ``W`` has a larger margin,
        and, when ``certificate.exact``, that no ``W`` recalls every
        association at all (see :attr:`proven`).
    iterations : int
        Solver-specific count (cutting-plane rounds, epochs, ...).
    seconds : float
        Wall-clock time of the solve without the compilation of numba kernels
        (:attr:`compile_seconds`); ``seconds + compile_seconds`` is the time
        :func:`lamcap.solve` took.
    method : str
        Name of the method in the registry.
    details : mapping
        Solver-specific diagnostics (constraints used, LP sizes, ...); not
        re-checked by :func:`~lamcap.solvers.verify`.
    instance_digest : str
        :attr:`Instance.digest <lamcap.problems.Instance.digest>` of the
        instance the verdict is about (``verify`` refuses another instance).
    compile_seconds : float
        Wall-clock time spent compiling numba kernels during this solve:
        seconds on the first solves after an install (about 7 s of CPU for the
        first feasible one, 13 s more for the first infeasible one; the
        compiled code is cached on disk for later calls and processes;
        docs/getting-started.md), 0 afterwards.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> result = build_result(instance, hebbian_weights(instance), method="hebbian")
    >>> result.verdict, result.min_margin > 0
    ('feasible', True)
    """

    verdict: Literal["feasible", "infeasible", "undecided"]
    weights: Weights | None
    min_margin: float
    certificate: FarkasCertificate | None
    iterations: int
    seconds: float
    method: str
    details: Mapping[str, Any] = field(default_factory=dict)
    instance_digest: str = ""
    compile_seconds: float = 0.0

    @property
    def proven(self) -> str:
        """What the verdict claims to prove, in words (:func:`~lamcap.solvers.verify` re-checks it).

        ``"infeasible"`` says whether it is exact (:math:`\\gamma^* \\le 0`) or
        only :math:`\\gamma^* \\le \\varepsilon`.
        """
        return statement(self.verdict, self.min_margin, self.certificate)


def statement(verdict: str, margin: float, certificate: FarkasCertificate | None) -> str:
    r"""The claim of a verdict in words: what a feasible or infeasible result proves.

    Examples
    --------
    >>> cert = FarkasCertificate(np.array([0]), np.array([1]), np.array([1.0]), 3e-14)
    >>> statement("infeasible", float("nan"), cert)
    'only gamma* <= 3e-14 is proven: no W has min normalised margin above 3e-14 (Farkas certificate on 1 constraint); exact infeasibility (gamma* <= 0) is not proven'
    """
    if verdict == "feasible":
        return f"W recalls every association (min normalised margin {margin:.6g})"
    if verdict != "infeasible" or certificate is None:
        return "nothing"
    size = int(np.size(certificate.alpha))
    constraints = f"{size} constraint" + ("s" if size != 1 else "")
    if certificate.exact:
        return (
            f"no W recalls every association (gamma* <= 0, proven exactly; Farkas certificate "
            f"on {constraints}, float bound {certificate.epsilon:.3g})"
        )
    return (
        f"only gamma* <= {certificate.epsilon:.3g} is proven: no W has min normalised margin "
        f"above {certificate.epsilon:.3g} (Farkas certificate on {constraints}); exact "
        "infeasibility (gamma* <= 0) is not proven"
    )


def _rechecked(instance: Instance, certificate: FarkasCertificate) -> FarkasCertificate | None:
    """``certificate`` with its recomputed bound, or None when it is malformed."""
    try:
        bound = certificate_bound(instance, certificate)
    except ValueError:
        return None
    return FarkasCertificate(
        certificate.associations, certificate.competitors, certificate.alpha, bound
    )


def build_result(
    instance: Instance,
    weights: Weights | None = None,
    *,
    raw_margin: float | None = None,
    raw_lowest: float | None = None,
    certificate: FarkasCertificate | None = None,
    method: str,
    iterations: int = 0,
    seconds: float = 0.0,
    details: Mapping[str, Any] | None = None,
) -> SolveResult:
    r"""Build a :class:`SolveResult` whose verdict is checked from scratch.

    The margin of ``weights`` is recomputed on all constraints
    (:func:`~lamcap.solvers.check_margins`); the verdict is
    ``"feasible"`` iff it exceeds :math:`10^{-9}` and its proven rounding
    error (NaN or infinite margins never do), else ``"infeasible"`` iff
    ``certificate`` re-checks to a bound :math:`\le 10^{-9}`
    (:func:`~lamcap.solvers._certificates.certificate_bound`), else
    ``"undecided"``.  An infeasible verdict's certificate is then marked
    ``exact`` iff :func:`~lamcap.solvers.prove_infeasible`
    proves :math:`\gamma^* \le 0` (its method and numbers go to
    ``details["proof"]``).  A malformed certificate is dropped (verdict not
    ``"infeasible"``) rather than raising.  Solvers should call this instead of
    choosing a verdict themselves.

    With ``raw_margin`` (:math:`c > 0`) the weights are first rescaled so
    that their smallest raw margin is :math:`c` whenever it is positive
    (:func:`~lamcap.solvers._constraints.at_raw_margin`): the one place
    where every method meets the ``raw_margin`` contract of
    :func:`lamcap.solve`.  The rescaled weights are the ones verified and
    returned.  ``raw_lowest`` is that smallest raw margin when the caller's
    last full pass already found it (it only sets the scale: the weights are
    verified after scaling either way).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(8, 3, seed=0)
    >>> build_result(instance, None, method="none").verdict
    'undecided'
    """
    instance = check_instance(instance)
    margin = math.nan
    verified = False
    if weights is not None:
        if raw_margin is not None:
            level = check_real("raw_margin", raw_margin, minimum=0.0, closed="()")
            weights = at_raw_margin(instance, weights, level, reached=raw_lowest)
        check = check_margins(instance, weights)  # also shape and finiteness checks
        if isinstance(weights, tuple):
            weights = (
                np.asarray(weights[0], dtype=np.float64),
                np.asarray(weights[1], dtype=np.float64),
            )
        else:
            weights = np.asarray(weights, dtype=np.float64)
        margin = check.min_margin
        verified = check.verified
    verdict: Literal["feasible", "infeasible", "undecided"] = "undecided"
    if verified:
        verdict = "feasible"
    elif certificate is not None:
        certificate = _rechecked(instance, certificate)
        if certificate is not None and certificate.epsilon <= FEASIBILITY_TOLERANCE:
            verdict = "infeasible"
            proof = prove_infeasible(instance, certificate)
            certificate = dataclasses.replace(certificate, exact=proof.proven)
            details = {**(details or {}), "proof": f"{proof.method or 'none'}: {proof.detail}"}
    return SolveResult(
        verdict=verdict,
        weights=weights,
        min_margin=margin,
        certificate=certificate,
        iterations=int(iterations),
        seconds=float(seconds),
        method=method,
        details=dict(details or {}),
        instance_digest=instance.digest,
    )
