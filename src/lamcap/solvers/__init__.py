r"""Certified solvers for the recall feasibility problem (docs/theory/cone.md).

Storing all associations of an :class:`~lamcap.problems.Instance` asks for
:math:`W` with :math:`(u_t - u_\rho)^\top W e_\mu > 0` for all
:math:`n(p-1)` constraints: a homogeneous LP at full rank, non-convex for
:math:`W = QR^\top` of rank :math:`m < d`.  :func:`solve` dispatches to a method
of :data:`METHODS`; every method returns a :class:`SolveResult`, whose verdict is
certified (see :mod:`lamcap.solvers._certificates`), and :func:`verify`
(:mod:`lamcap.solvers._verification`) re-checks any result, or a user's own
weights, from scratch.

Method signature (the registry contract)::

    fn(instance, *, rank, raw_margin, max_seconds, seed) -> SolveResult

``rank`` is an int in ``[1, d]``; ``raw_margin > 0`` is the scale :math:`c`
of the answer (weights recalling every association come back with smallest
raw margin :math:`\min (u_t - u_\rho)^\top W e_\mu = c`; :func:`solve`;
not the theory's margin :math:`m`, see docs/vocabulary.md); ``max_seconds``
is ``None`` or ``> 0`` (reaching it gives ``"undecided"`` with the best weights
so far); ``seed`` is an int.
This module is the solvers' public face; the implementation modules (``_solve``,
``_cutting_plane``, ``_certificates``, ...) are private.
"""

from __future__ import annotations

from lamcap._deprecation import deprecated_attribute
from lamcap.solvers._baselines import solve_adam_cross_entropy, solve_hebbian
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    MarginCheck,
    check_margins,
    constraint_margins,
)
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._full_lp import solve_full_lp
from lamcap.solvers._infeasibility import InfeasibilityProof, prove_infeasible
from lamcap.solvers._optimality import MarginDual, OptimalityGap, optimality_gap
from lamcap.solvers._result import (
    OBJECTIVES,
    RECALL_VERDICTS,
    VERDICTS,
    InfeasibleSubset,
    SolveResult,
)
from lamcap.solvers._solve import METHOD_OPTIONS, METHODS, solve
from lamcap.solvers._two_layer import solve_rank_constrained
from lamcap.solvers._verification import Verification, verify

__all__ = [
    "FEASIBILITY_TOLERANCE",
    "METHODS",
    "METHOD_OPTIONS",
    "OBJECTIVES",
    "RECALL_VERDICTS",
    "VERDICTS",
    "CuttingPlaneOptions",
    "FarkasCertificate",
    "InfeasibilityProof",
    "InfeasibleSubset",
    "MarginCheck",
    "MarginDual",
    "OptimalityGap",
    "SolveResult",
    "Verification",
    "check_margins",
    "constraint_margins",
    "optimality_gap",
    "prove_infeasible",
    "solve",
    "solve_adam_cross_entropy",
    "solve_cutting_plane",
    "solve_full_lp",
    "solve_hebbian",
    "solve_rank_constrained",
    "verify",
]

#: Plumbing that left the public face in this release (a warning here for one release):
#: the result builder and the memory budget of the exact stage are the methods' own;
#: ``min_margin(instance, W)`` is ``check_margins(instance, W).min_margin``.
__getattr__ = deprecated_attribute(
    "lamcap.solvers",
    {
        "build_result": "lamcap.solvers._result",
        "available_memory": "lamcap._sizes",
        "exact_stage_bytes": "lamcap.solvers._memory",
        "min_margin": (
            "lamcap.solvers._certificates",
            "lamcap.solvers.check_margins(instance, W).min_margin",
        ),
    },
)
