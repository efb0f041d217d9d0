r"""Check a verdict, or your own weights, from scratch: :func:`verify`.

:func:`verify` takes an instance and either a :class:`~lamcap.solvers.SolveResult`
or weights (``W``, or ``(Q, R)`` meaning :math:`W = QR^\top`), recomputes every
margin and every certificate bound from the instance alone
(:mod:`lamcap.solvers._certificates`), and answers with a :class:`Verification`
that is truthy **only when it proves a verdict**:

* ``"feasible"``: the weights recall every association, i.e. every normalised
  margin :math:`\gamma_{\mu\rho}(W)` (docs/theory/index.md; arXiv:2605.10795) exceeds
  :math:`10^{-9}` and its proven rounding error;
* ``"infeasible"``: a Farkas certificate re-checks.  It proves either that no
  ``W`` recalls every association (:math:`\gamma^* \le 0`, when the certificate
  is marked ``exact`` and :func:`~lamcap.solvers.prove_infeasible`
  proves it again), or only that no ``W`` has a minimum normalised margin above
  its bound :math:`\varepsilon \le 10^{-9}`; :attr:`Verification.proven` says
  which.

Anything else (an ``"undecided"`` result, weights that fail some association,
a result whose stored numbers do not match the recomputation, a result built for
another instance) is falsy, and :attr:`Verification.reason` says why: which
associations fail and by how much, or which claim does not re-check.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lamcap.problems import (
    Instance,
    check_convention,
    check_instance,
    oriented_weights,
    warn_if_transposed,
)
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    MarginCheck,
    certificate_bound,
    certificate_precision,
    check_margins,
)
from lamcap.solvers._infeasibility import prove_infeasible
from lamcap.solvers._result import VERDICTS, SolveResult, statement


@dataclass(frozen=True)
class Verification:
    r"""Outcome of :func:`verify`: truthy iff it proves a verdict.

    Attributes
    ----------
    valid : bool
        True iff a verdict is proven (``bool(verification)``).
    verdict : {"feasible", "infeasible", "undecided", "optimal", "bounded"}
        The verdict proven; ``"undecided"`` when nothing is (``"optimal"`` and
        ``"bounded"``: a result of ``objective="max_recall"``).
    reason : str
        Why nothing is proven (empty when ``valid``): the claims that do not
        re-check, or which associations the weights fail and by how much.
    proven : str
        What is proven, in words (empty when nothing is).
    consistent : bool
        True iff every claim of a result re-checks (an honest ``"undecided"``
        result is consistent but proves nothing); True for plain weights.
    min_margin : float
        Recomputed minimum normalised margin of the weights (NaN without weights).
    bound : float
        Recomputed certificate bound :math:`\varepsilon` (``inf`` without one).
    margins : MarginCheck or None
        The recomputed margins: error bound, failing associations, worst ones.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> check = verify(instance, hebbian_weights(instance))
    >>> bool(check), check.verdict
    (True, 'feasible')
    """

    valid: bool
    verdict: str
    reason: str
    proven: str
    consistent: bool
    min_margin: float
    bound: float
    margins: MarginCheck | None

    def __bool__(self) -> bool:
        return self.valid

    def __str__(self) -> str:
        return self.proven if self.valid else f"nothing proven: {self.reason}"


def _check_target(result_or_weights: object) -> SolveResult | Any:
    """Accept a SolveResult, a pair (Q, R) or an array-like W; anything else is a ValueError."""
    if isinstance(result_or_weights, SolveResult | tuple | np.ndarray | list):
        return result_or_weights
    msg = (
        "result_or_weights must be a SolveResult, a d x d array W or a pair (Q, R), "
        f"got {type(result_or_weights).__name__}"
    )
    raise ValueError(msg)


def _verify_weights(instance: Instance, weights: Any, convention: str) -> Verification:
    check = check_margins(instance, oriented_weights(weights, convention))
    recalled = 1.0 - check.failing_associations / check.associations
    warn_if_transposed(instance, weights, recalled, convention, stacklevel=4)
    return Verification(
        valid=check.verified,
        verdict="feasible" if check.verified else "undecided",
        reason="" if check.verified else check.describe(),
        proven=check.describe() if check.verified else "",
        consistent=True,
        min_margin=check.min_margin,
        bound=math.inf,
        margins=check,
    )


def _stored_number(value: object) -> float:
    """A stored number as a float; something that is not a number becomes ``-inf`` (never matches)."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return -math.inf


def _same_margin(stored: float, check: MarginCheck | None) -> bool:
    """Stored and recomputed minimum margins agree to the proven precision (2x the error)."""
    recomputed = math.nan if check is None else check.min_margin
    if math.isnan(stored) or math.isnan(recomputed):
        return math.isnan(stored) and math.isnan(recomputed)
    assert check is not None
    return abs(stored - recomputed) <= 2.0 * check.error


def _verdict_problems(
    verdict: object, check: MarginCheck | None, bound: float, certified: bool
) -> list[str]:
    """Claims of the verdict that the recomputation contradicts."""
    feasible = check is not None and check.verified
    problems = []
    if verdict not in VERDICTS:
        problems.append(f"unknown verdict {verdict!r}")
    if verdict == "feasible" and not feasible:
        detail = "no weights" if check is None else check.describe()
        problems.append(f"verdict 'feasible' but the weights are not verified: {detail}")
    if verdict == "infeasible" and not certified:
        problems.append(
            f"verdict 'infeasible' but no certificate re-checks (bound {bound:.3g} > "
            f"{FEASIBILITY_TOLERANCE:.0e})"
        )
    if verdict == "infeasible" and feasible:
        problems.append("verdict 'infeasible' but the weights are verified feasible")
    if verdict == "undecided" and feasible:
        problems.append("verdict 'undecided' but the weights are verified feasible")
    if verdict == "undecided" and certified:
        problems.append("verdict 'undecided' but the certificate re-checks")
    return problems


def _exactness_problems(instance: Instance, certificate: FarkasCertificate) -> list[str]:
    """A claim of exact infeasibility must be proven again (nothing to check otherwise)."""
    flag: object = certificate.exact
    if flag is False:
        return []
    if flag is not True:
        return [f"certificate exact flag {flag!r} is not a bool"]
    proof = prove_infeasible(instance, certificate)
    if proof.proven:
        return []
    return [
        f"certificate claims exact infeasibility but the proof does not re-check ({proof.detail})"
    ]


def _verify_recall(instance: Instance, result: SolveResult) -> Verification:
    """A max-recall result: the recalled set, every infeasible subset and the verdict, again."""
    from lamcap.solvers._max_recall import subset_instance, subset_tolerance  # noqa: PLC0415 - max recall only

    reasons: list[str] = []
    digest = getattr(result, "instance_digest", "")
    if digest and digest != instance.digest:
        reasons.append("the result was built for another instance (its digest differs)")
    recalled = np.asarray(result.recalled if result.recalled is not None else [], dtype=np.int64)
    check: MarginCheck | None = None
    if recalled.size != result.recall_lower:
        reasons.append(f"recall_lower {result.recall_lower} is not len(recalled) = {recalled.size}")
    if recalled.size:
        if result.weights is None or np.unique(recalled).size != recalled.size:
            reasons.append("recalled associations without weights, or repeated")
        else:
            try:
                check = check_margins(subset_instance(instance, recalled), result.weights)
            except (ValueError, IndexError) as error:
                reasons.append(f"recalled set or weights are malformed: {error}")
            else:
                if not check.verified:
                    reasons.append(
                        f"the recalled associations are not verified: {check.describe()}"
                    )
    used: set[int] = set()
    bound = -math.inf
    for index, subset in enumerate(result.infeasible_subsets):
        members = {int(mu) for mu in np.asarray(subset.associations).tolist()}
        certificate = subset.certificate
        try:
            value = certificate_bound(instance, certificate)
        except ValueError as error:
            reasons.append(f"infeasible subset {index}: certificate is malformed: {error}")
            continue
        bound = max(bound, value)
        named = {int(mu) for mu in certificate.associations[certificate.alpha > 0]}
        if not certificate.exact and value > subset_tolerance(instance.d):
            reasons.append(
                f"infeasible subset {index}: bound {value:.3g} > {subset_tolerance(instance.d):.3g}"
                " and not exact"
            )
        if not named <= members:
            reasons.append(f"infeasible subset {index}: certificate names other associations")
        if members & used:
            reasons.append(f"infeasible subset {index} is not disjoint from the ones before it")
        used |= members
        reasons += _exactness_problems(instance, certificate)
    upper = instance.n - len(result.infeasible_subsets)
    if result.recall_upper != upper:
        reasons.append(f"recall_upper {result.recall_upper} is not n - subsets = {upper}")
    lower = int(recalled.size)
    expected = (
        "optimal"
        if lower == upper
        else "bounded"
        if lower > 0 or upper < instance.n
        else "undecided"
    )
    if result.verdict != expected:
        reasons.append(
            f"verdict {result.verdict!r} but the bounds {lower} and {upper} give {expected!r}"
        )
    consistent = not reasons
    valid = consistent and expected != "undecided"
    if consistent and not valid:
        reasons.append("the result is undecided: it proves nothing")
    return Verification(
        valid=valid,
        verdict=expected if valid else "undecided",
        reason="; ".join(reasons),
        proven=result.proven if valid else "",
        consistent=consistent,
        min_margin=math.nan if check is None else check.min_margin,
        bound=bound if result.infeasible_subsets else math.inf,
        margins=check,
    )


def _verify_result(instance: Instance, result: SolveResult) -> Verification:
    if result.recall_lower is not None:
        return _verify_recall(instance, result)
    reasons: list[str] = []
    digest = getattr(result, "instance_digest", "")
    if digest and digest != instance.digest:
        reasons.append("the result was built for another instance (its digest differs)")
    check: MarginCheck | None = None
    if result.weights is not None:
        try:
            check = check_margins(instance, result.weights)
        except ValueError as error:
            reasons.append(f"weights are malformed: {error}")
    bound = math.inf
    certificate = result.certificate
    if certificate is not None:
        try:
            bound = certificate_bound(instance, certificate)
        except ValueError as error:
            reasons.append(f"certificate is malformed: {error}")
        else:
            reasons += _exactness_problems(instance, certificate)
            stored = _stored_number(certificate.epsilon)
            size = int(np.size(certificate.alpha))
            if stored != bound and not (
                abs(stored - bound) <= certificate_precision(bound, size, instance.d)
            ):
                reasons.append(
                    f"stored certificate bound {stored!r} does not match the recomputed {bound!r}"
                )
    if not _same_margin(_stored_number(result.min_margin), check):
        recomputed = math.nan if check is None else check.min_margin
        reasons.append(
            f"stored min_margin {result.min_margin!r} does not match the recomputed {recomputed!r}"
        )
    certified = certificate is not None and bound <= FEASIBILITY_TOLERANCE
    reasons += _verdict_problems(result.verdict, check, bound, certified)
    consistent = not reasons
    valid = consistent and result.verdict in ("feasible", "infeasible")
    proven = ""
    if valid and result.verdict == "feasible":
        assert check is not None
        proven = check.describe()
    elif valid:
        assert certificate is not None
        proven = statement("infeasible", math.nan, dataclasses.replace(certificate, epsilon=bound))
    if consistent and not valid:
        reasons.append("the result is undecided: it proves nothing")
        if check is not None:
            reasons.append(check.describe())
    return Verification(
        valid=valid,
        verdict=str(result.verdict) if valid else "undecided",
        reason="; ".join(reasons),
        proven=proven,
        consistent=consistent,
        min_margin=math.nan if check is None else check.min_margin,
        bound=bound,
        margins=check,
    )


def verify(
    instance: Instance, result_or_weights: SolveResult | Any, *, convention: str = "scores"
) -> Verification:
    r"""Prove a verdict from scratch: a solver's result, or your own weights.

    .. math::

        \text{feasible} \iff \min_{\mu,\rho \ne t(\mu)} \tilde\gamma_{\mu\rho}(W)
        > \max(10^{-9}, \delta)

    with :math:`\tilde\gamma` the normalised margins recomputed in float64 on all
    :math:`n(p-1)` constraints and :math:`\delta` their proven rounding error
    (:func:`~lamcap.solvers.check_margins`; docs/theory/index.md,
    arXiv:2605.10795).  For a :class:`SolveResult` it also recomputes the
    certificate's bound, and checks that the stored numbers (``min_margin``
    to :math:`2\delta`, the certificate's ``epsilon``) and the verdict match
    the recomputation and that the result was built for this instance
    (``instance.digest``).

    The answer is truthy **only when it proves a verdict**: ``"feasible"``
    (verified weights) or ``"infeasible"`` (a re-checked Farkas certificate).
    An infeasible verdict carries one of two proofs, and
    :attr:`Verification.proven` says which: *exact* (no ``W`` recalls every
    association, :math:`\gamma^* \le 0`; a certificate marked ``exact`` is
    proven again by :func:`~lamcap.solvers.prove_infeasible`)
    or *bounded* (:math:`\gamma^* \le \varepsilon`, the recomputed bound:
    no ``W`` has a minimum normalised margin above it).  It is falsy for an
    ``"undecided"`` result, for weights that fail some association, and for
    any claim that does not re-check; :attr:`Verification.reason` then says
    why, e.g. which associations fail and by how much.

    A result of ``objective="max_recall"`` is re-checked as a whole: its
    recalled associations by :func:`~lamcap.solvers.check_margins` on them
    alone, every infeasible subset's certificate (bound, associations,
    disjointness, exactness), both bounds and the verdict; ``min_margin`` is
    then that of the recalled associations and ``bound`` the largest of the
    subsets' bounds.

    Parameters
    ----------
    instance : Instance
        The associations (:func:`~lamcap.problems.make_instance` or
        :meth:`~lamcap.problems.Instance.from_arrays`).
    result_or_weights : SolveResult, ndarray or tuple
        A result (from :func:`lamcap.solve` or
        :func:`~lamcap.solvers._result.build_result`, possibly edited), a
        ``d x d`` weight matrix ``W``, or a pair ``(Q, R)`` of ``d x r``
        factors (:math:`W = QR^\top`, rank ``1 <= r <= d``).  Weights score
        outputs on the left, inputs on the right: :math:`u_\rho^\top W e_\mu`.
    convention : {"scores", "logits"}
        How your weights score: ``"scores"`` (default) as above; ``"logits"``
        for a ``W`` that scores :math:`e_\mu^\top W u_\rho` (logits
        ``x W U^T``), checked as ``W.T`` (``(Q, R)`` as ``(R, Q)``).  Only
        ``"scores"`` with a :class:`SolveResult` (else ``ValueError``).  Weights
        that prove at most twice chance (:math:`2/p`) of the associations
        recalled while their transpose recalls at least half and ten times as
        many, more than chance could (:data:`~lamcap.problems.TRANSPOSE_RULE`),
        raise a :class:`~lamcap.problems.TransposedWeightsWarning` (one more
        score pass, only then).

    Returns
    -------
    Verification
        Truthy iff a verdict is proven; ``verdict``, ``proven``, ``reason``,
        the recomputed ``min_margin``, ``bound`` and ``margins``.

    Raises
    ------
    ValueError
        If ``instance`` is not an :class:`~lamcap.problems.Instance`, or
        ``result_or_weights`` is none of the above, or weights have the
        wrong shape or non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> bool(verify(instance, hebbian_weights(instance)))
    True
    >>> check = verify(instance, -hebbian_weights(instance))
    >>> bool(check), check.margins.failing_associations
    (False, 2)
    >>> bool(verify(instance, hebbian_weights(instance).T, convention="logits"))
    True
    """
    instance = check_instance(instance)
    target = _check_target(result_or_weights)
    convention = check_convention(convention)
    if isinstance(target, SolveResult):
        if convention != "scores":
            msg = (
                "convention applies to your own weights; a SolveResult holds lamcap's W "
                f"(convention='scores'), got convention={convention!r}"
            )
            raise ValueError(msg)
        return _verify_result(instance, target)
    return _verify_weights(instance, target, convention)
