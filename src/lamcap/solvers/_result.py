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

With ``objective="max_recall"`` (:mod:`lamcap.solvers._max_recall`) the
question is how many associations one ``W`` can recall, and the result holds
two certified bounds on that number instead: :attr:`SolveResult.recalled`
(verified association by association, the lower bound) and
:attr:`SolveResult.infeasible_subsets` (disjoint sets of associations, each
with a Farkas certificate, the upper bound).  Its verdict is one of
:data:`RECALL_VERDICTS`: ``"optimal"`` when the bounds meet, ``"bounded"``
when something beyond the trivial bounds ``0 <= recalled <= n`` is proven,
``"undecided"`` otherwise.
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

OBJECTIVES = ("feasible", "max_margin", "max_recall")
"""Accepted ``objective`` values of :func:`~lamcap.solvers.solve`: ``"feasible"`` stops at the
first verified ``W``, ``"max_margin"`` seeks the minimum-norm ``W`` (certified gap),
``"max_recall"`` the largest number of associations one ``W`` recalls (certified bounds)."""

VERDICTS = ("feasible", "infeasible", "undecided")
"""Verdicts of the objectives ``"feasible"`` and ``"max_margin"``."""

RECALL_VERDICTS = ("optimal", "bounded", "undecided")
"""Verdicts of ``objective="max_recall"``: ``"optimal"`` iff the certified lower and upper
bounds on the number of recalled associations are equal, ``"bounded"`` iff either is
better than the trivial one (0 and n), ``"undecided"`` otherwise."""

Verdict = Literal["feasible", "infeasible", "undecided", "optimal", "bounded"]

Weights = NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]
"""``W`` (d x d), or ``(Q, R)`` (each d x r, r the rank) meaning ``W = Q @ R.T``."""


@dataclass(frozen=True, eq=False)
class InfeasibleSubset:
    r"""A set of associations that no ``W`` recalls all at once, with its Farkas certificate.

    The upper bound of ``objective="max_recall"``: every ``W`` misses at least
    one association of the set, so :math:`k` disjoint such sets leave at most
    :math:`n - k` associations recalled.  The certificate's constraints all
    belong to associations of the set; its bound :math:`\varepsilon`
    (recomputed when the result was built,
    :func:`~lamcap.solvers._certificates.certificate_bound`) proves that no
    ``W`` has a normalised margin above :math:`\varepsilon` on every
    constraint of the set.  With ``certificate.exact`` no ``W`` recalls the
    whole set at all (margins :math:`> 0`); otherwise
    :math:`\varepsilon \le 10^{-9} - \delta_W(d)`
    (:func:`~lamcap.solvers._max_recall.subset_tolerance`) and no ``W``
    recalls it in lamcap's verified sense (arXiv:2605.10795;
    docs/solvers-at-scale.md, "Recall below 100%").

    Attributes
    ----------
    associations : ndarray of int64
        The associations of the set (sorted indices of the instance).
    certificate : FarkasCertificate
        Weights on constraints of these associations only (indices of the
        instance, not of the subset).

    Examples
    --------
    >>> cert = FarkasCertificate(np.array([2, 5]), np.array([1, 0]), np.array([1.0, 1.0]), 0.0)
    >>> InfeasibleSubset(np.array([2, 5]), cert).associations.tolist()
    [2, 5]
    """

    associations: NDArray[np.int64]
    certificate: FarkasCertificate


@dataclass(frozen=True, eq=False)
class SolveResult:
    r"""Outcome of :func:`lamcap.solve` (frozen).

    Attributes
    ----------
    verdict : {"feasible", "infeasible", "undecided", "optimal", "bounded"}
        Decided by :func:`build_result` from the two checks below
        (``objective="max_recall"``: one of :data:`RECALL_VERDICTS`, from the
        recall bounds below).
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
    recalled : ndarray of int64 or None
        ``objective="max_recall"`` only (None otherwise): the associations
        ``weights`` recalls, each verified as a feasible ``W`` is (the check
        of :func:`~lamcap.solvers.check_margins` on these associations alone).
    recall_lower, recall_upper : int or None
        ``objective="max_recall"`` only: certified bounds on the largest
        number of associations one ``W`` recalls; ``recall_lower`` is
        ``len(recalled)``, ``recall_upper`` is ``n`` minus the number of
        :attr:`infeasible_subsets`.
    infeasible_subsets : tuple of InfeasibleSubset
        ``objective="max_recall"`` only: disjoint sets of associations, each
        proven jointly unrecallable by its Farkas certificate.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> result = build_result(instance, hebbian_weights(instance), method="hebbian")
    >>> result.verdict, result.min_margin > 0
    ('feasible', True)
    """

    verdict: Verdict
    weights: Weights | None
    min_margin: float
    certificate: FarkasCertificate | None
    iterations: int
    seconds: float
    method: str
    details: Mapping[str, Any] = field(default_factory=dict)
    instance_digest: str = ""
    compile_seconds: float = 0.0
    recalled: NDArray[np.int64] | None = None
    recall_lower: int | None = None
    recall_upper: int | None = None
    infeasible_subsets: tuple[InfeasibleSubset, ...] = ()

    @property
    def recall_gap(self) -> int | None:
        """``recall_upper - recall_lower`` (``objective="max_recall"``; None otherwise)."""
        if self.recall_lower is None or self.recall_upper is None:
            return None
        return self.recall_upper - self.recall_lower

    @property
    def proven(self) -> str:
        """What the verdict claims to prove, in words (:func:`~lamcap.solvers.verify` re-checks it).

        ``"infeasible"`` says whether it is exact (:math:`\\gamma^* \\le 0`) or
        only :math:`\\gamma^* \\le \\varepsilon`.
        """
        if self.recall_lower is not None and self.recall_upper is not None:
            return recall_statement(self)
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


def recall_statement(result: SolveResult) -> str:
    """The claim of a max-recall result in words: both bounds and what they rest on.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> result = SolveResult("undecided", None, math.nan, None, 0, 0.0, "cutting_plane",
    ...                      recall_lower=0, recall_upper=3)
    >>> recall_statement(result)
    'nothing beyond 0 <= recalled <= 3'
    """
    lower, upper = result.recall_lower, result.recall_upper
    if result.verdict == "undecided":
        return f"nothing beyond 0 <= recalled <= {upper}"
    subsets = result.infeasible_subsets
    exact = all(subset.certificate.exact for subset in subsets)
    claim = f"W recalls {lower} associations (each verified); at most {upper} can be recalled"
    if subsets:
        kind = "exact" if exact else "at normalised margin above 1e-9 (bounded certificates)"
        claim += (
            f": every W misses at least one association of each of {len(subsets)} disjoint "
            f"subsets (Farkas certificates, {kind})"
        )
    return claim + (" - optimal" if lower == upper else f" - gap {result.recall_gap}")


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
