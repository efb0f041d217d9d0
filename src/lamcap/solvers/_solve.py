"""The :func:`solve` entry point and its registry of methods (re-exported by :mod:`lamcap.solvers`)."""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable, Mapping
from typing import Any

from lamcap._sizes import format_bytes
from lamcap._validation import check_choice, check_integer, check_real
from lamcap.problems import Instance, check_instance
from lamcap.solvers._memory import available_memory, score_pass_bytes
from lamcap.solvers._result import OBJECTIVES, SolveResult, build_result

METHODS: dict[str, str] = {
    "cutting_plane": "lamcap.solvers._cutting_plane:solve_cutting_plane",
    "full_lp": "lamcap.solvers._full_lp:solve_full_lp",
    "hebbian": "lamcap.solvers._baselines:solve_hebbian",
    "adam_ce": "lamcap.solvers._baselines:solve_adam_cross_entropy",
    "two_layer": "lamcap.solvers._two_layer:solve_rank_constrained",
}
"""Method name -> ``"module:function"`` (imported lazily on first use).

``"auto"`` picks ``"cutting_plane"`` at full rank and ``"two_layer"`` for rank < d.
"""

_FULL_RANK_ONLY = ("cutting_plane", "full_lp")

METHOD_OPTIONS: dict[str, tuple[str, ...]] = {
    "adam_ce": ("learning_rate", "steps", "batch_size", "stop_accuracy"),
}
"""Method name -> the keys ``options`` of :func:`solve` may hold for it (other methods: none).

``"adam_ce"``: ``learning_rate`` (``> 0``; default 3.0 for a full ``W``, 0.3 for
the factors ``(Q, R)`` when ``rank < d``, tuned at d = 16-32, p = 0.9 p_c),
``steps`` (maximum Adam steps, ``>= 1``, default 5000), ``batch_size``
(associations per step, in ``[1, n]``, default ``n``: full batch) and
``stop_accuracy`` (in ``(0, 1]``, default 1: stop once this fraction of the
associations is recalled; below 1 the protocol of Nichani et al.,
arXiv:2412.06538, docs/howto/nichani-protocol.md).
"""


def _method_function(name: str) -> Callable[..., SolveResult]:
    module_name, function_name = METHODS[name].split(":")
    function: Callable[..., SolveResult] = getattr(
        importlib.import_module(module_name), function_name
    )
    return function


def _check_instance(instance: object) -> Instance:
    return check_instance(instance)


def _check_objective(objective: object, tolerance: object) -> tuple[str, float]:
    objective = check_choice("objective", objective, OBJECTIVES)
    try:
        value = float(tolerance)  # type: ignore[arg-type]
        shown: object = value  # a plain float, not a numpy repr
    except (TypeError, ValueError, OverflowError):
        value, shown = math.nan, tolerance
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        msg = f"tolerance must be a finite number in (0, 1), got {shown!r}"
        raise ValueError(msg)
    return objective, value


def _check_options(method: str, options: object) -> dict[str, Any]:
    """``options`` as a dict of keyword arguments of ``method``, or ValueError."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        msg = f"options must be a mapping of option names to values, got {options!r}"
        raise ValueError(msg)
    accepted = METHOD_OPTIONS.get(method, ())
    unknown = [key for key in options if key not in accepted]
    if unknown:
        takes = f"takes only {accepted}" if accepted else "takes no options"
        msg = f"options for method {method!r}: {takes}, got {unknown[0]!r}"
        raise ValueError(msg)
    return dict(options)


def solve(
    instance: Instance,
    *,
    rank: int | None = None,
    method: str = "auto",
    raw_margin: float = 1.0,
    max_seconds: float | None = None,
    seed: int | None = None,
    objective: str = "feasible",
    tolerance: float = 1e-4,
    options: Mapping[str, Any] | None = None,
) -> SolveResult:
    r"""Decide whether ``W`` (rank ``<= rank``) can recall every association, with proof.

    .. math::

        \exists W,\ \operatorname{rank} W \le r:\quad
        (u_t - u_\rho)^\top W e_\mu \ge c
        \quad \forall \mu,\ \rho \ne t(\mu).

    With ``objective="max_margin"`` (full rank) the answer is the optimal
    (max-margin, minimum-norm) ``W`` itself,

    .. math::

        W^* = \operatorname*{arg\,min}_W \|W\|_F \quad\text{s.t.}\quad
        (u_t - u_\rho)^\top W e_\mu \ge c
        \quad \forall \mu,\ \rho \ne t(\mu),

    certified by a duality gap (:mod:`lamcap.solvers`).  The
    default ``objective="feasible"`` returns the **first** feasible ``W`` the
    solver meets, which is not the max-margin one; the theory's predictions
    of the learnt matrix (spectra, score laws; arXiv:2605.10795,
    docs/theory/mechanism.md) describe the max-margin ``W``.

    Parameters
    ----------
    instance : Instance
        From :func:`lamcap.make_instance`.
    rank : int, optional
        In ``[1, d]``; default ``d`` (full rank, an LP).
    method : str
        ``"auto"`` or a key of :data:`METHODS`.  ``"auto"``: ``"cutting_plane"``
        at full rank (numba first-order stage, then an exact min-norm-point
        stage with column generation), ``"two_layer"`` below.
    raw_margin : float
        :math:`c > 0` (default 1), the scale of the answer, the same contract
        for every method: weights that recall every association are returned
        scaled so that their smallest raw margin
        :math:`\min_{\mu,\rho\ne t}(u_t - u_\rho)^\top W e_\mu` equals
        :math:`c` (up to rounding; factors :math:`(Q, R)` each by
        :math:`\sqrt{c/c_W}`).  The problem is homogeneous, so this changes no
        verdict and no normalised margin; weights that do not recall every
        association are returned as found.  Applied in one place,
        :func:`~lamcap.solvers._constraints.at_raw_margin` (through
        ``build_result``), after the method ran: ``"full_lp"`` also uses
        :math:`c` as the right-hand side of its LP, the max-margin ``W`` is
        the minimum-norm ``W`` at smallest raw margin :math:`c`, and the other
        methods work at their own scale.  This is not the theory's margin
        :math:`m` in competitor-spread units (``margin=`` of
        :func:`lamcap.max_margin`, :func:`lamcap.score_law`;
        docs/vocabulary.md).
    max_seconds : float, optional
        ``> 0``; on reaching it the result is ``"undecided"`` with the best
        weights so far (with ``objective="max_margin"``: ``"feasible"`` with
        the best verified ``W`` if one was found, and
        ``details["gap_reached"]`` False).  Checked between rounds and between
        slices of the exact stage (about 0.1 s each); a run may overrun it by
        one score pass, one ascent round or the exact stage's warm start (a
        Cholesky factorisation and minor cycles, seconds at d = 64).
    seed : int, optional
        For randomised methods (default 0).
    objective : {"feasible", "max_margin", "max_recall"}
        ``"feasible"`` (default): stop at the first verified ``W``.
        ``"max_margin"``: the minimum-norm ``W`` above (full rank, method
        ``"auto"`` or ``"cutting_plane"``).  ``"max_recall"``: certified
        bounds on the largest number of associations one ``W`` recalls,

        .. math::

            R_- \le \max_W \#\{\mu : (u_t - u_\rho)^\top W e_\mu > 0
            \ \forall \rho \ne t(\mu)\} \le R_+,

        :math:`R_-` from a ``W`` whose recalled associations are each
        verified, :math:`R_+ = n - k` from :math:`k` disjoint sets of
        associations each proven jointly infeasible by a Farkas certificate
        (:mod:`lamcap.solvers._max_recall`; docs/solvers-at-scale.md, "Recall
        below 100%").  Full rank only (``rank`` None or ``d``), method
        ``"auto"``, ``"cutting_plane"`` or ``"full_lp"`` (the certified solver
        run on subsets); ``options`` may hold ``start`` (``"auto"``,
        ``"farkas"``, ``"adam"``, ``"l1"``, ``"hinge"``, ``"drop"``, ``"milp"``)
        and ``shrink`` (bool).  With
        ``max_seconds`` the bounds reached by then are returned.
    tolerance : float
        In ``(0, 1)``, for ``objective="max_margin"``: the run stops once the
        certified relative gap :math:`g = (P - D)/P` between the primal value
        :math:`P = \tfrac12\|W\|_F^2` and a dual lower bound :math:`D` on
        :math:`\tfrac12\|W^*\|_F^2` is at most ``tolerance``.  Then
        :math:`(1-g)\|W\|_F^2 \le \|W^*\|_F^2 \le \|W\|_F^2` and
        :math:`\|W - W^*\|_F \le \sqrt g\,\|W\|_F`.
    options : mapping, optional
        Settings of the chosen method, by name
        (:data:`~lamcap.solvers.METHOD_OPTIONS`).
        ``method="adam_ce"`` (Adam on the softmax cross-entropy, the
        literature's protocol) takes ``learning_rate`` (default 3.0 for a full
        ``W``, 0.3 for ``(Q, R)`` below full rank: the tuned values),
        ``steps`` (at most this many Adam steps, default 5000),
        ``batch_size`` (default ``n``, full batch) and ``stop_accuracy``
        (default 1; below 1 training stops once that fraction is recalled and
        the result is ``"undecided"`` unless every association is), e.g.
        ``solve(instance, method="adam_ce", options={"learning_rate": 0.01,
        "steps": 20000})``.  Other methods take none; an unknown key raises
        ``ValueError`` naming the accepted ones.

    Returns
    -------
    SolveResult
        ``"feasible"`` (verified ``W``: recomputed min normalised margin
        :math:`> 10^{-9}` and above its proven rounding error),
        ``"infeasible"`` (Farkas certificate with recomputed bound
        :math:`\varepsilon \le 10^{-9}`) or ``"undecided"``.  An instance whose
        score pass (:func:`~lamcap.solvers._memory.score_pass_bytes`) does not fit
        in the available memory is ``"undecided"`` at once, with
        ``details["stopped"] == "memory"``, ``"memory_bytes"``,
        ``"available_memory_bytes"`` and the ``"reason"`` in words (as the exact
        stage does, :func:`~lamcap.solvers._memory.exact_stage_bytes`).  An infeasible
        verdict carries one of two proofs, stated by ``result.proven``:
        *exact* when ``result.certificate.exact`` (no ``W`` recalls every
        association, :math:`\gamma^* \le 0`; the supports the solvers find
        near the transition are proven so up to d = 32, not at d = 48 and 64,
        docs/benchmarks.md; above d = 64 only by the verified inverse, up to
        :data:`~lamcap.solvers._infeasibility.VERIFIED_INVERSE_MAX_DIMENSION`,
        minutes of CPU, and only on supports of more than :math:`d^2`
        constraints), otherwise only
        :math:`\gamma^* \le \varepsilon` (no ``W`` has a minimum normalised
        margin above :math:`\varepsilon`).  With
        ``objective="max_margin"``, ``details`` also holds ``"relative_gap"``
        (recomputed from the instance on all :math:`n(p-1)` constraints),
        ``"gap_reached"``, ``"dual"``, ``"dual_value"`` :math:`D`,
        ``"primal_value"`` :math:`P`, ``"primal_norm"`` :math:`\|W\|_F` and
        ``"raw_min_margin"`` (:math:`c` up to rounding, relative error at
        most :math:`2\sqrt2(d+2)2^{-53}/\gamma` with :math:`\gamma` the
        normalised margin).  Everything the gap rests on is stored and
        re-checkable from the instance alone:
        ``lamcap.solvers.optimality_gap(instance, result.weights,
        result.details["dual"])`` recomputes :math:`P` (a full pass) and
        :math:`D` (from the multipliers).  An infeasible instance gets
        ``"infeasible"`` with its certificate, as for the default objective.
        With ``objective="max_recall"`` the verdict is ``"optimal"`` (the
        bounds meet), ``"bounded"`` (either beats the trivial 0 and ``n``) or
        ``"undecided"`` (also for the memory guard, with the same
        ``details``), and the result holds ``recalled``, ``recall_lower``,
        ``recall_upper``, ``recall_gap`` and ``infeasible_subsets``
        (:class:`~lamcap.solvers.SolveResult`).

    Examples
    --------
    >>> import lamcap
    >>> instance = lamcap.make_instance(8, 4, n=3, seed=0)
    >>> result = lamcap.solve(instance, method="full_lp")
    >>> result.verdict, bool(lamcap.verify(instance, result))
    ('feasible', True)
    >>> from lamcap.solvers._constraints import raw_min_margin
    >>> scaled = lamcap.solve(instance, raw_margin=2.5)
    >>> round(raw_min_margin(instance, scaled.weights), 9)
    2.5
    >>> trained = lamcap.solve(instance, method="adam_ce", options={"learning_rate": 1.0})
    >>> trained.verdict, trained.iterations <= 5000
    ('feasible', True)
    >>> best = lamcap.solve(instance, objective="max_margin", tolerance=1e-6)
    >>> best.verdict, best.details["gap_reached"], round(best.details["raw_min_margin"], 9)
    ('feasible', True, 1.0)
    >>> crowded = lamcap.make_instance(3, 8, seed=4)  # beyond capacity
    >>> most = lamcap.solve(crowded, objective="max_recall")
    >>> most.verdict, most.recall_lower, most.recall_upper, len(most.infeasible_subsets)
    ('optimal', 6, 6, 2)
    """
    objective, tolerance = _check_objective(objective, tolerance)
    instance, rank_value, raw_margin_value, seconds, seed_value = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    method = check_choice("method", method, ("auto", *METHODS))
    if objective == "max_recall":
        return _solve_max_recall(
            instance, rank_value, method, raw_margin_value, seconds, seed_value, options
        )
    if method == "auto":
        method = "cutting_plane" if rank_value == instance.d else "two_layer"
    if method in _FULL_RANK_ONLY and rank_value != instance.d:
        msg = (
            f"rank must equal d = {instance.d} for method {method!r} (a full-rank LP), "
            f"got {rank_value}"
        )
        raise ValueError(msg)
    arguments: dict[str, object] = {
        "rank": rank_value,
        "raw_margin": raw_margin_value,
        "max_seconds": seconds,
        "seed": seed_value,
    }
    arguments.update(_check_options(method, options))
    if objective == "max_margin":
        if method != "cutting_plane" or rank_value != instance.d:
            msg = (
                "objective='max_margin' needs full rank (rank = d = "
                f"{instance.d}) and method 'auto' or 'cutting_plane', got rank "
                f"{rank_value} and method {method!r}"
            )
            raise ValueError(msg)
        arguments.update(objective=objective, tolerance=tolerance)
    refused = _memory_refusal(instance)
    if refused is not None:
        return build_result(instance, None, method=method, details=refused)
    from numba.core import event  # noqa: PLC0415 - numba loads with the first solve

    compiling: list[float] = []
    with event.install_timer("numba:compile", compiling.append):
        result = _method_function(method)(instance, **arguments)
    compile_seconds = float(sum(compiling))
    return dataclasses.replace(
        result,
        seconds=max(0.0, result.seconds - compile_seconds),
        compile_seconds=compile_seconds,
    )


def _memory_refusal(instance: Instance) -> dict[str, Any] | None:
    """``details`` of an undecided result when one score pass does not fit in memory, else None."""
    needed, available = score_pass_bytes(instance.d, instance.n, instance.p), available_memory()
    if needed <= available:
        return None
    reason = (
        f"one score pass over n = {instance.n} associations with p = {instance.p} outputs "
        f"needs {format_bytes(needed)} of memory, but {format_bytes(available)} are available"
    )
    return {
        "stopped": "memory",
        "reason": reason,
        "memory_bytes": needed,
        "available_memory_bytes": available,
    }


def _solve_max_recall(
    instance: Instance,
    rank: int,
    method: str,
    raw_margin: float,
    seconds: float | None,
    seed: int,
    options: Mapping[str, Any] | None,
) -> SolveResult:
    """``objective="max_recall"``: checks, the memory guard, then :mod:`lamcap.solvers._max_recall`."""
    from lamcap.solvers._max_recall import (  # noqa: PLC0415 - only for objective='max_recall'
        MAX_RECALL_METHODS,
        check_recall_options,
        recall_result,
        solve_max_recall,
    )

    if rank != instance.d:
        msg = (
            f"rank must equal d = {instance.d} (None or {instance.d}) for "
            f"objective='max_recall', got {rank}"
        )
        raise ValueError(msg)
    if method not in MAX_RECALL_METHODS:
        msg = (
            f"method must be one of {MAX_RECALL_METHODS} for objective='max_recall' (a "
            f"certified full-rank solver, run on subsets of the associations), got {method!r}"
        )
        raise ValueError(msg)
    method = "cutting_plane" if method == "auto" else method
    start, shrink = check_recall_options(options)
    refused = _memory_refusal(instance)
    if refused is not None:
        return recall_result(
            instance, None, [], raw_margin=raw_margin, method=method, details=refused
        )
    from numba.core import event  # noqa: PLC0415 - numba loads with the first solve

    compiling: list[float] = []
    with event.install_timer("numba:compile", compiling.append):
        result = solve_max_recall(
            instance,
            method=method,
            solver=_method_function(method),
            trainer=_method_function("adam_ce"),
            raw_margin=raw_margin,
            max_seconds=seconds,
            seed=seed,
            start=start,
            shrink=shrink,
        )
    compile_seconds = float(sum(compiling))
    return dataclasses.replace(
        result,
        seconds=max(0.0, result.seconds - compile_seconds),
        compile_seconds=compile_seconds,
    )


#: Largest raw margin accepted: W is scaled by it, and its entries must stay in float64.
MAX_RAW_MARGIN = 1e100
#: Largest Adam learning rate accepted (the tuned ones are about 1): the trainers' steps
#: add about learning_rate per step to W, so a rate near 1e308 overflows it.
MAX_LEARNING_RATE = 1e6


def check_learning_rate(learning_rate: object) -> float:
    """Check the Adam trainers' ``learning_rate``: a float in ``(0, MAX_LEARNING_RATE]``.

    Examples
    --------
    >>> check_learning_rate(3)
    3.0
    >>> check_learning_rate(0)
    Traceback (most recent call last):
        ...
    ValueError: learning_rate must be in (0.0, 1000000.0], got 0
    """
    return check_real(
        "learning_rate", learning_rate, minimum=0.0, maximum=MAX_LEARNING_RATE, closed="(]"
    )


def check_method_arguments(
    instance: object, *, rank: object, raw_margin: object, max_seconds: object, seed: object
) -> tuple[Instance, int, float, float | None, int]:
    """Check the arguments every solver method takes; return them as the methods use them.

    ``rank`` None means ``d``, ``seed`` None means 0, ``max_seconds`` None no limit.
    Called by :func:`solve` and by each method function of the registry, so that a
    method called directly refuses bad input by name as :func:`solve` does.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> check_method_arguments(
    ...     make_instance(4, 6, seed=0), rank=None, raw_margin=1, max_seconds=None, seed=None
    ... )[1:]
    (4, 1.0, None, 0)
    """
    checked = _check_instance(instance)
    rank_value = (
        checked.d if rank is None else check_integer("rank", rank, minimum=1, maximum=checked.d)
    )
    raw_margin_value = check_real(
        "raw_margin", raw_margin, minimum=0.0, maximum=MAX_RAW_MARGIN, closed="(]"
    )
    seconds = (
        None
        if max_seconds is None
        else check_real("max_seconds", max_seconds, minimum=0.0, closed="()")
    )
    seed_value = 0 if seed is None else check_integer("seed", seed, minimum=0)
    return checked, rank_value, raw_margin_value, seconds, seed_value
