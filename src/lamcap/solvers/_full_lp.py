r"""HiGHS on the full LP: the baseline a user would write, and the LP helpers.

The full-rank problem is the homogeneous LP (docs/theory/index.md)

.. math::

    \text{find } w = \operatorname{vec}(W) \in \mathbb R^{d^2}:\quad
    \langle \operatorname{vec}((u_t - u_\rho) e_\mu^\top), w\rangle \ge 1
    \quad \forall (\mu, \rho \ne t),

:math:`n(p-1)` dense rows of :math:`d^2` entries.  :func:`solve_full_lp` hands
all of them to HiGHS (objective 0, free variables): fine for small ``d`` (it is
the baseline of the solver benchmark), hopeless beyond ``d ~ 32``.  When HiGHS
reports infeasibility its dual ray :math:`y \ge 0`, :math:`A^\top y \approx 0`
is a Farkas certificate, checked from scratch by :func:`build_result`.

:func:`highs_feasibility` (any row subset) is shared with the cutting-plane
solver.  ``vec`` is row-major: entry ``(j, k)`` of ``W`` is ``w[j * d + k]``.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap.problems import Instance, check_instance
from lamcap.solvers._c_output import stdout_descriptor_to_devnull
from lamcap.solvers._certificates import FarkasCertificate
from lamcap.solvers._result import SolveResult, build_result
from lamcap.solvers._solve import check_method_arguments

_BANNER_LOCK = threading.Lock()
_banner_swallowed = False


def new_highs() -> Any:
    """A silent :class:`highspy.Highs` (``output_flag`` off, time limits set by callers).

    highspy 1.16 prints its banner from the ``Highs()`` constructor, before any
    option can be set, on the first construction in a process; that one
    construction runs with file descriptor 1 sent to the null device.

    Examples
    --------
    >>> new_highs().getOptionValue("output_flag")[1]
    False
    """
    import highspy  # noqa: PLC0415 - heavy import only when an LP is solved

    global _banner_swallowed  # noqa: PLW0603 - once per process
    with _BANNER_LOCK:
        if _banner_swallowed:
            highs: Any = highspy.Highs()  # type: ignore[no-untyped-call]
        else:
            with stdout_descriptor_to_devnull():
                highs = highspy.Highs()  # type: ignore[no-untyped-call]
            _banner_swallowed = True
    highs.setOptionValue("output_flag", False)
    return highs


def all_constraints(instance: Instance) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every constraint ``(mu, rho)``, ``rho != targets[mu]``, in row-major order.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> mus, rhos = all_constraints(make_instance(2, 3, n=2, seed=0))
    >>> mus.tolist(), rhos.tolist()
    ([0, 0, 1, 1], [1, 2, 1, 2])
    """
    instance = check_instance(instance)
    mus = np.repeat(np.arange(instance.n, dtype=np.int64), instance.p)
    rhos = np.tile(np.arange(instance.p, dtype=np.int64), instance.n)
    keep = rhos != instance.targets[mus]
    return mus[keep], rhos[keep]


def constraint_rows(
    instance: Instance, mus: NDArray[np.int64], rhos: NDArray[np.int64]
) -> NDArray[np.float64]:
    r"""Dense rows :math:`\operatorname{vec}((u_t - u_\rho) e_\mu^\top)`, shape ``(k, d^2)``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(3, 2, n=1, seed=0)
    >>> row = constraint_rows(instance, np.array([0]), np.array([1]))[0]
    >>> u, e = instance.outputs(0), instance.inputs[0]
    >>> bool(np.isclose(row @ np.eye(3).ravel(), (u[0] - u[1]) @ e))
    True
    """
    targets, competitors = check_instance(instance).constraint_outputs(mus, rhos)
    differences = targets - competitors
    rows = differences[:, :, None] * instance.inputs[mus][:, None, :]
    return rows.reshape(mus.size, instance.d * instance.d)


@dataclass(frozen=True)
class LPOutcome:
    """What HiGHS said about ``rows @ w >= 1``.

    ``status`` is ``"feasible"`` (``solution`` is ``w``), ``"infeasible"``
    (``ray`` is a non-negative dual ray on the rows) or ``"unknown"``
    (time limit or numerical trouble).
    """

    status: str
    solution: NDArray[np.float64] | None
    ray: NDArray[np.float64] | None
    seconds: float


def highs_feasibility(
    rows: NDArray[np.float64], *, right_hand_side: float = 1.0, max_seconds: float | None = None
) -> LPOutcome:
    r"""Solve :math:`\text{rows}\,w \ge b` with HiGHS (free ``w``, objective 0).

    Examples
    --------
    >>> rows = np.array([[1.0, 0.0], [-1.0, 0.0]])
    >>> highs_feasibility(rows).status
    'infeasible'
    >>> outcome = highs_feasibility(np.array([[1.0, 1.0]]))
    >>> outcome.status, bool(outcome.solution.sum() >= 1 - 1e-9)
    ('feasible', True)
    """
    import highspy  # noqa: PLC0415 - heavy import only when an LP is solved

    start = time.perf_counter()
    count, width = rows.shape
    highs = new_highs()
    if max_seconds is not None:
        highs.setOptionValue("time_limit", max(float(max_seconds), 1e-3))
    infinity = highspy.kHighsInf
    highs.addVars(width, np.full(width, -infinity), np.full(width, infinity))
    nonzero = rows != 0.0
    starts = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))[:-1]]).astype(np.int32)
    indices = np.nonzero(nonzero)[1].astype(np.int32)
    highs.addRows(
        count,
        np.full(count, right_hand_side),
        np.full(count, infinity),
        int(indices.size),
        starts,
        indices,
        rows[nonzero],
    )
    highs.run()
    status = highs.getModelStatus()
    seconds = time.perf_counter() - start
    if status == highspy.HighsModelStatus.kOptimal:
        solution = np.asarray(highs.getSolution().col_value, dtype=np.float64)
        return LPOutcome("feasible", solution, None, seconds)
    if status == highspy.HighsModelStatus.kInfeasible:
        _, has_ray, ray = highs.getDualRay()
        if has_ray:
            values = np.asarray(ray, dtype=np.float64)
            if values.sum() < 0:
                values = -values
            return LPOutcome("infeasible", None, np.clip(values, 0.0, None), seconds)
    return LPOutcome("unknown", None, None, seconds)


class MarginLP:
    r"""HiGHS model :math:`\max t` s.t. rows :math:`\cdot w \ge t`, :math:`|w_j| \le 1`, :math:`t \le 1`.

    Always feasible and bounded (the robust form of the homogeneous LP): the
    system is strictly feasible iff :math:`t^* > 0`; at :math:`t^* = 0` the row
    duals ``duals`` (:math:`y \ge 0`, :math:`\sum y = 1`) satisfy
    :math:`\text{rows}^\top y \approx 0`, a Farkas vector.  Rows can be added and
    the model re-solved from the previous basis.

    Examples
    --------
    >>> lp = MarginLP(2)
    >>> lp.add(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    >>> level, _ = lp.solve(10.0)
    >>> abs(level) < 1e-12, lp.duals.round(6).tolist()
    (True, [0.5, 0.5])
    """

    def __init__(self, width: int) -> None:
        import highspy  # noqa: PLC0415 - heavy import only when an LP is solved

        self.highspy = highspy
        self.highs: Any = new_highs()
        infinity = highspy.kHighsInf
        self.highs.addVars(width, np.full(width, -1.0), np.full(width, 1.0))
        self.highs.addVar(-infinity, 1.0)
        self.highs.changeColCost(width, -1.0)
        self.width = width
        self.count = 0
        self.duals = np.empty(0)

    def add(self, rows: NDArray[np.float64]) -> None:
        full = np.concatenate([rows, -np.ones((rows.shape[0], 1))], axis=1)
        nonzero = full != 0.0
        starts = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))[:-1]]).astype(np.int32)
        indices = np.nonzero(nonzero)[1].astype(np.int32)
        count = rows.shape[0]
        infinity = self.highspy.kHighsInf
        self.highs.addRows(
            count,
            np.zeros(count),
            np.full(count, infinity),
            int(indices.size),
            starts,
            indices,
            full[nonzero],
        )
        self.count += count

    def solve(self, max_seconds: float) -> tuple[float, NDArray[np.float64]] | None:
        self.highs.setOptionValue("time_limit", max(max_seconds, 1e-3))
        self.highs.run()
        if self.highs.getModelStatus() != self.highspy.HighsModelStatus.kOptimal:
            return None
        solution = self.highs.getSolution()
        values = np.asarray(solution.col_value, dtype=np.float64)
        duals = np.asarray(solution.row_dual, dtype=np.float64)
        self.duals = np.clip(duals if duals.sum() >= 0 else -duals, 0.0, None)
        return float(values[-1]), values[:-1]


def certificate_from_ray(
    mus: NDArray[np.int64], rhos: NDArray[np.int64], ray: NDArray[np.float64]
) -> FarkasCertificate:
    """Keep the constraints with positive ray weight as a :class:`FarkasCertificate`.

    Examples
    --------
    >>> cert = certificate_from_ray(np.array([0, 1]), np.array([1, 1]), np.array([0.0, 2.0]))
    >>> cert.associations.tolist(), cert.alpha.tolist()
    ([1], [2.0])
    """
    keep = ray > 0
    return FarkasCertificate(mus[keep].copy(), rhos[keep].copy(), ray[keep].copy(), math.nan)


def _margin_form(
    instance: Instance,
    mus: NDArray[np.int64],
    rhos: NDArray[np.int64],
    rows: NDArray[np.float64],
    max_seconds: float | None,
) -> tuple[NDArray[np.float64] | None, FarkasCertificate | None, float]:
    """Fallback when HiGHS cannot settle ``>= 1``: the bounded :class:`MarginLP` on all rows."""
    start = time.perf_counter()
    scale = np.linalg.norm(rows, axis=1)
    lp = MarginLP(rows.shape[1])
    lp.add(rows / scale[:, None])
    solved = lp.solve(math.inf if max_seconds is None else max_seconds)
    seconds = time.perf_counter() - start
    if solved is None:
        return None, None, seconds
    level, vector = solved
    if level > 0:
        return vector.reshape(instance.d, instance.d), None, seconds
    return None, certificate_from_ray(mus, rhos, lp.duals / scale), seconds


def solve_full_lp(
    instance: Instance, *, rank: int, raw_margin: float, max_seconds: float | None, seed: int
) -> SolveResult:
    r"""Baseline: all :math:`n(p-1)` constraints, :math:`d^2` variables, one HiGHS call.

    Builds the dense ``n(p-1) x d^2`` matrix (8 n p d^2 bytes: use small ``d``).
    The verdict comes from :func:`build_result` (HiGHS' ``W`` re-verified, or
    its dual ray re-checked as a Farkas certificate).  When HiGHS ends with
    status "unknown" (it does near the threshold, where feasible ``W`` have huge
    norms) the bounded :class:`MarginLP` on the same rows is solved instead
    (``details["margin_lp_seconds"]``).  ``rank`` must be ``d``;
    ``seed`` is unused (deterministic).  ``details["lp_seconds"]`` is HiGHS'
    own time.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(6, 4, n=3, seed=0)
    >>> solve_full_lp(instance, rank=6, raw_margin=1.0, max_seconds=None, seed=0).verdict
    'feasible'
    """
    instance, rank, raw_margin, max_seconds, seed = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    instance = check_instance(instance)
    del rank, seed
    start = time.perf_counter()
    mus, rhos = all_constraints(instance)
    rows = constraint_rows(instance, mus, rhos)
    outcome = highs_feasibility(rows, right_hand_side=raw_margin, max_seconds=max_seconds)
    weights = None
    certificate = None
    if outcome.solution is not None:
        weights = outcome.solution.reshape(instance.d, instance.d)
    if outcome.ray is not None:
        certificate = certificate_from_ray(mus, rhos, outcome.ray)
    details: dict[str, object] = {
        "lp_seconds": outcome.seconds,
        "lp_status": outcome.status,
        "constraints": int(mus.size),
    }
    if outcome.status == "unknown":
        remaining = None if max_seconds is None else max_seconds - (time.perf_counter() - start)
        if remaining is None or remaining > 0:
            weights, certificate, seconds = _margin_form(instance, mus, rhos, rows, remaining)
            details["margin_lp_seconds"] = seconds
    return build_result(
        instance,
        weights,
        raw_margin=raw_margin,
        certificate=certificate,
        method="full_lp",
        iterations=1,
        seconds=time.perf_counter() - start,
        details=details,
    )
