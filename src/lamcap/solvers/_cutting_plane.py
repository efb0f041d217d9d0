r"""Certified full-rank solver: block dual ascent + HiGHS cutting planes.

Problem (docs/theory/index.md, docs/theory/cone.md): find :math:`W` with
:math:`\langle W, \hat A_i\rangle > 0` for all :math:`n(p-1)` constraints
:math:`\hat A_i = \hat a_i \hat e_\mu^\top` (normalisation of
:mod:`lamcap.solvers._kernels`).  The :math:`O(np\,d^2)` constraint matrix is
never built; only a *working set* :math:`S` of constraints is stored
(:math:`O(|S| d)`), plus an ``n x p`` membership mask.

Algorithm
---------
0. **Feasibility first** (``objective="feasible"``, the default;
   :mod:`lamcap.solvers._feasibility_stage`): L-BFGS on a log-sum-exp margin
   loss over a working set grown by score passes looks for any ``W`` that
   recalls everything; a ``W`` its full pass accepts ends the run (after
   :func:`~lamcap.solvers.build_result` re-verifies it), otherwise the
   stages below run as they would without it, from the same first pass.
1. **Score pass** (:func:`~lamcap.solvers._constraints.score_pass`): all scores :math:`U_\mu W e_\mu` by
   matrix products, block by block (outputs regenerated on demand for large
   decoupled instances); gives the minimum normalised margin (a certified lower
   bound on the best margin :math:`\gamma^*`) and, per association, the
   ``cuts_per_association`` lowest constraints below the current level, which
   join :math:`S`.  The first pass uses the Hebbian matrix.
2. **Block dual coordinate ascent** (numba, :func:`~lamcap.solvers._kernels.dual_epochs`)
   on the max-margin QP restricted to :math:`S`: a first-order method whose
   iterate ``W`` feeds the next pass, whose duals give the upper estimate
   :math:`\|W\|_F/\sum\alpha` of :math:`\gamma^*` (weak duality, up to the
   drift of the incrementally updated ``W``; not re-checked) and whose support
   seeds the LP.
3. **Exact stage on the working set** (for :math:`d \le`
   ``exact_max_dimension``, after ``first_order_rounds`` passes), a
   column-generation / cutting-plane loop on the min-norm point
   :math:`x = \sum_i \beta_i \hat A_i`, :math:`\beta` in the simplex, of the
   working set.  If :math:`x \ne 0` it is the working set's max-margin ``W``
   (:math:`\langle x, \hat A_i\rangle \ge \|x\|^2` on :math:`S`): a full pass
   checks it and adds the constraints below that level; if :math:`x = 0`,
   :math:`\beta` is a Farkas vector.  Default ``exact="wolfe"``: Wolfe's
   algorithm on the rank-one structure (:mod:`lamcap.solvers._min_norm_point`),
   warm started from the dual-ascent weights by one Cholesky factorisation and
   then from the previous round's corral, run in time slices.  Alternatives:
   ``exact="nnls"``, the same point by scipy's Lawson–Hanson NNLS on the dense
   :math:`|S| \times d^2` rows (the working set is then pruned to the support of
   :math:`\beta` each round); ``exact="highs"``, HiGHS on :math:`\max t` s.t.
   :math:`\langle w, \hat A_i\rangle \ge t\ (i \in S)`,
   :math:`\|w\|_\infty \le 1`, rows added with warm starts, whose row duals at
   :math:`t^* = 0` are the Farkas vector.  Either way the Farkas vector is
   re-checked (and, if needed, polished by least squares on its support or
   replaced by HiGHS' dual ray of :math:`\langle w, A_i\rangle \ge 1`).
   Wolfe's exact stage is the fastest of the three on infeasible instances
   near the transition (measured: docs/benchmarks.md, "Measured costs behind
   design choices").

The verdict always comes from :func:`~lamcap.solvers.build_result`
(``W`` re-verified on all constraints, certificate re-checked), so it is never
wrong; at the time limit the result is ``"undecided"`` with the best ``W``.
Memory beyond the instance: :math:`O(np + |S| d + d^2)`, plus the exact stage:
Wolfe's factor of at most :math:`(d^2 + 1)^2` numbers (134 MB at d = 64,
680 MB at d = 96, 2.15 GB at d = 128), NNLS and HiGHS the :math:`|S| d^2`
dense rows.  Above ``exact_max_dimension`` (128) only the first-order stage
runs: ``"feasible"`` is still certified by the full pass, but
``"infeasible"`` needs the exact stage, so such runs end ``"undecided"`` on
infeasible instances.  From ``large_dimension`` (96) on, the exact stage
starts at the first ascent round that cannot separate its working set, adds
up to 64 points per Wolfe major cycle, sorts the corral by weight before
each exact round and runs Wolfe until rounding stalls it, so that an
infeasible instance's corral fills to :math:`d^2 + 1` points
(docs/solvers-at-scale.md).  That corral's certificate then goes through
exchange pivots (:func:`~lamcap.solvers._support_exchange.exchange_support`:
barycentric coordinates from the LU factors of the corral's points instead
of the Gram matrix's Cholesky factor, and pivots against all constraints
until they are positive), unless the time limit has passed; the
verified-inverse proof is then tried on the support they reach.

Max-margin objective
--------------------
``objective="max_margin"`` runs the same loop on the *raw* constraints
:math:`A_i = (u_t - u_\rho) e_\mu^\top` (directions
:math:`(u_t - u_\rho)\|e_\mu\|` against unit inputs) and does not stop at the
first feasible ``W``: the dual ascent's :math:`\alpha` and the exact stage's
min-norm point (convex coefficients :math:`\beta`, dual point
:math:`\beta/\|x^*\|^2`) are dual points of
:math:`\min \tfrac12\|W\|_F^2` s.t. :math:`\langle W, A_i\rangle \ge 1`, every
full pass makes its iterate a primal point (scaled to smallest raw margin 1),
and column generation ends when the gap between the best two is small
(:mod:`lamcap.solvers._optimality`).  The exact stage adds up to
``wolfe_batch`` points per Wolfe major cycle.  Timings:
``benchmarks/bench_solvers.py --objective max-margin``, docs/benchmarks.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_choice
from lamcap.problems import Instance, check_instance, hebbian_weights
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
    min_margin,
)
from lamcap.solvers._constraints import (
    ScorePass,
    WorkingSet,
    constraint_normalisers,
    score_pass,
)
from lamcap.solvers._feasibility_stage import FeasibilityOutcome, run_feasibility_stage
from lamcap.solvers._full_lp import MarginLP, highs_feasibility
from lamcap.solvers._kernels import dual_epochs
from lamcap.solvers._memory import available_memory, dense_repair_bytes, exact_stage_bytes
from lamcap.solvers._min_norm_point import CorralState, load_kernels
from lamcap.solvers._optimality import MarginDual, optimality_gap
from lamcap.solvers._result import OBJECTIVES, SolveResult, build_result
from lamcap.solvers._solve import check_method_arguments
from lamcap.solvers._support_exchange import exchange_support

SORT_MIN_CORRAL = 1024
"""From this corral size on, large-d runs sort the corral by weight before each exact round."""

DENSE_ROWS_MAX_ENTRIES = 2**25
"""Largest dense constraint block (rows x ``d**2``, 268 MB) built to repair a Farkas vector."""


@dataclass(frozen=True)
class CuttingPlaneOptions:
    """Tuning of :func:`solve_cutting_plane` (defaults are what ``solve`` uses).

    Attributes
    ----------
    cuts_per_association : constraints added per association and pass.
    epochs_per_round : at most this many dual-ascent epochs between two score passes.
    check_every : epochs between checks whether ``W`` already satisfies the
        whole working set (then the round ends early).
    sweeps : inner coordinate sweeps per association block.
    first_order_rounds : first-order passes before the exact stage starts
        (default 15 for ``d <= 32``, else 30: first-order rounds are cheap and
        usually finish feasible instances below the transition; measured at
        d = 32, 0.9 p_c: 7x faster than switching after 8 rounds).
    exact : exact working-set solver: ``"wolfe"`` (the default: Wolfe's
        min-norm-point algorithm on the rank-one structure,
        :mod:`lamcap.solvers._min_norm_point`, warm started across rounds),
        ``"nnls"`` (the same point by scipy's Lawson–Hanson NNLS on the dense
        rows), ``"highs"`` (HiGHS margin LP with warm-started cutting planes)
        or ``"none"`` (first-order only).
    exact_max_dimension : largest ``d`` for the exact stage (Wolfe holds a
        ``(d**2 + 1)``-square factor: 134 MB at d = 64, 680 MB at d = 96,
        2.15 GB at d = 128; NNLS and HiGHS the ``|S| x d**2`` dense rows).
    large_dimension : from this ``d`` on, the first-order stage ends as soon
        as an ascent round cannot separate its working set (on an infeasible
        working set further rounds only grow it: measured at d = 96, 1.07 p_c,
        110 s per round against 5 s while the rounds still separate), and
        Wolfe adds up to 64 points per major cycle as for the max-margin
        objective (a d = 128 corral has about 16 000 points; one point per
        cycle would stream its 2 GB factor 16 000 times); with
        ``objective="feasible"`` the corral is also sorted by weight before
        each exact round (:meth:`~lamcap.solvers._min_norm_point.CorralState.sort_by_weight`),
        so that the points that leave it are mostly the last ones, and Wolfe
        runs until rounding stalls it (``exhaustive``: no zero or optimality
        tolerance), so that the corral of an infeasible instance fills to
        ``d**2 + 1`` points and the verified inverse can prove gamma* <= 0
        (measured at d = 96: with the tolerances the run stopped 2 points
        short, at ||x|| = 3e-12, and nothing could be proven; without them,
        in the same 770 s of CPU, it was proven).
    max_rounds : cap on passes (first-order and exact rounds together).
    wolfe_batch : points a Wolfe major cycle may add at once
        (:meth:`~lamcap.solvers._min_norm_point.CorralState.run`); default 64
        with ``objective="max_margin"`` (measured on a d = 64, 0.95 p_c
        working set: 4 major cycles and 0.9 s of CPU instead of 75 and 8 s,
        the same min-norm point), 1 (Wolfe's algorithm as published) for
        feasibility.
    max_margin_exact_max_dimension : largest ``d`` for the exact stage with
        ``objective="max_margin"`` (the Wolfe factor grows with the corral,
        at most the support of the max-margin ``W`` plus one point: about
        2 GB at d = 128 near 0.9 p_c).
    nnls_cost_factor : assumed cost of one NNLS iteration in units of one
        timed product ``rows.T @ (rows @ v)`` on the working set, until the
        first NNLS call is measured (measured: about 2.5); with ``max_seconds``
        it sets the NNLS iteration cap (see :func:`_nnls_iteration_budget`).
    """

    cuts_per_association: int = 4
    epochs_per_round: int = 60
    check_every: int = 5
    sweeps: int = 5
    first_order_rounds: int | None = None
    exact: str = "wolfe"
    exact_max_dimension: int = 128
    large_dimension: int = 96
    max_rounds: int = 200
    nnls_cost_factor: float = 4.0
    max_margin_exact_max_dimension: int = 128
    wolfe_batch: int | None = None
    feasibility_first: bool = True


def _lp_rows(working: WorkingSet, unit_inputs: NDArray[np.float64], index: Any) -> Any:
    """Dense normalised rows :math:`\\operatorname{vec}(\\hat a_i \\hat e_\\mu^\\top)`."""
    rows = working.directions[index][:, :, None] * unit_inputs[working.mus[index]][:, None, :]
    return rows.reshape(rows.shape[0], -1)


def _polish(rows: NDArray[np.float64], ray: NDArray[np.float64]) -> NDArray[np.float64]:
    r"""Refine a Farkas vector on its support: least squares for :math:`A_S^\top y = 0`, :math:`\sum y = 1`."""
    support = ray > 0
    matrix = np.concatenate([rows[support].T, np.ones((1, int(support.sum())))])
    right = np.zeros(matrix.shape[0])
    right[-1] = 1.0
    solution = np.linalg.lstsq(matrix, right, rcond=None)[0]
    polished = np.zeros_like(ray)
    polished[support] = np.clip(solution, 0.0, None)
    return polished


def _certificate(
    instance: Instance,
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    duals: NDArray[np.float64],
    max_seconds: float,
) -> FarkasCertificate | None:
    """Best Farkas certificate for the working set from the exact stage's weights.

    Candidates, in order, until one re-checks: the weights themselves, their
    least-squares polish on their support, the dual ray of the ``>= 1`` LP.
    The dense rows are only built if the first candidate fails.
    """
    raw_scale = (
        np.ones(working.size)
        if working.raw
        else constraint_normalisers(instance, working.mus, working.rhos)
        * np.linalg.norm(instance.inputs[working.mus], axis=1)
    )
    best: FarkasCertificate | None = None
    for weights in _candidates(working, unit_inputs, duals, max_seconds):
        if weights is None or not np.any(weights > 0):
            continue
        alpha = weights / raw_scale
        keep = alpha > 0
        candidate = FarkasCertificate(working.mus[keep], working.rhos[keep], alpha[keep], 0.0)
        bound = certificate_bound(instance, candidate)
        if best is None or bound < best.epsilon:
            best = FarkasCertificate(
                candidate.associations, candidate.competitors, candidate.alpha, bound
            )
        if bound <= FEASIBILITY_TOLERANCE:
            break
    return best


def _candidates(
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    duals: NDArray[np.float64],
    max_seconds: float,
) -> Iterator[NDArray[np.float64] | None]:
    """Farkas vectors to try, cheapest first (computed lazily).

    The polish and HiGHS' ray need the dense rows (:math:`d^2` numbers per
    constraint); they are skipped when those would exceed
    :data:`DENSE_ROWS_MAX_ENTRIES` (a least-squares solve on 9 217 rows of
    9 216 at d = 96 would take longer than the whole solve), and each when
    its memory (:func:`~lamcap.solvers._memory.dense_repair_bytes`) is not
    available (it is not part of the exact stage's estimate).
    """
    yield duals
    support = np.nonzero(duals > 0)[0]
    unknowns = working.d * working.d
    if support.size * unknowns > DENSE_ROWS_MAX_ENTRIES:
        return
    if dense_repair_bytes(support.size, unknowns, highs=False) <= available_memory():
        polished = np.zeros_like(duals)
        polished[support] = _polish(_lp_rows(working, unit_inputs, support), duals[support])
        yield polished
    if (
        max_seconds > 0
        and working.size * unknowns <= DENSE_ROWS_MAX_ENTRIES
        and dense_repair_bytes(working.size, unknowns, highs=True) <= available_memory()
    ):
        yield highs_feasibility(
            _lp_rows(working, unit_inputs, np.arange(working.size)), max_seconds=max_seconds
        ).ray


@dataclass
class _Progress:
    """Best weights so far (their normalised and raw minimum margins) and counters."""

    weights: NDArray[np.float64]
    margin: float
    raw_lowest: float = math.nan
    upper: float = math.inf
    rounds: int = 0
    pass_seconds: float = 0.0
    ascent_seconds: float = 0.0
    exact_seconds: float = 0.0
    stage: str = "first_order"
    stopped: str = "max_rounds"
    nnls_cost_factor: float = 4.0
    wolfe_batch: int = 1
    corral: CorralState | None = None
    corral_keys: NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    memory: dict[str, int] = field(default_factory=dict)
    inseparable: bool = False
    sort_corral: bool = False
    exhaustive: bool = False
    exchange: dict[str, Any] = field(default_factory=dict)

    def offer(
        self, weights: NDArray[np.float64], margin: float, raw_lowest: float = math.nan
    ) -> None:
        """Keep ``weights`` if their margin is larger (``raw_lowest``: their raw one, if known)."""
        if not margin <= self.margin:  # NaN-safe: replaces a NaN best
            self.weights = weights.copy()
            self.margin = margin
            self.raw_lowest = raw_lowest


def solve_cutting_plane(
    instance: Instance,
    *,
    rank: int,
    raw_margin: float,
    max_seconds: float | None,
    seed: int,
    options: CuttingPlaneOptions | None = None,
    objective: str = "feasible",
    tolerance: float = 1e-4,
) -> SolveResult:
    r"""Decide full-rank feasibility with a certificate (algorithm in the module docstring).

    .. math::

        \exists W \in \mathbb R^{d \times d}:\ (u_t - u_\rho)^\top W e_\mu > 0
        \quad \forall \mu,\ \rho \ne t(\mu).

    Parameters follow the registry contract of :mod:`lamcap.solvers`; ``rank``
    must be ``d``, ``raw_margin`` is a pure scale (a ``W`` that recalls every
    association is returned with smallest raw margin ``raw_margin``, the
    contract of :func:`lamcap.solve`; the problem is homogeneous) and
    ``seed`` is unused (deterministic).  ``details`` reports the working-set
    size, ``upper_bound`` (an estimate of an upper bound on the best
    normalised margin :math:`\gamma^*` from the ascent's duals, or the
    certificate's re-checked bound when smaller; not re-checked by
    :func:`~lamcap.solvers.verify`), pass / ascent / LP seconds, the
    stage reached and why the run stopped (``"stopped"``: ``"decided"``,
    ``"time_limit"``, ``"max_rounds"``, ``"exact_failed"``,
    ``"nnls_iteration_cap"`` or ``"memory"``).  Before the exact stage starts
    its memory is estimated (:func:`~lamcap.solvers.exact_stage_bytes`)
    and compared with :func:`~lamcap.solvers.available_memory`; both
    go into ``details`` (``"exact_memory_bytes"``, ``"available_memory_bytes"``),
    and when the estimate does not fit the run ends ``"undecided"`` with
    ``"stopped": "memory"`` instead of being killed.

    ``max_seconds`` is checked between rounds and bounds the exact stage
    itself: HiGHS gets the remaining time as its limit, and NNLS (which cannot
    be interrupted) gets an iteration cap derived from the remaining time and
    its measured cost per iteration, or is skipped when not even one
    iteration fits.  A round that overruns the budget ends the run
    ``"undecided"`` with the best ``W`` so far; the overrun is at most one
    score pass or one ascent round, plus the misestimate of one capped NNLS
    call.

    ``objective="max_margin"`` keeps going after the first feasible ``W``: the
    same loop on the *raw* constraints :math:`A_i = (u_t - u_\rho) e_\mu^\top`
    (directions :math:`(u_t - u_\rho)\|e_\mu\|` against unit inputs)
    converges to the minimum-norm ``W`` with every raw margin :math:`\ge`
    ``raw_margin`` (:mod:`lamcap.solvers._optimality`): the dual ascent's
    :math:`\alpha` and the exact stage's min-norm point :math:`x^*` (whose
    convex coefficients :math:`\beta` give the dual point
    :math:`y = \beta/\|x^*\|^2`) are both dual points, and every full pass
    turns its iterate into a primal point by scaling to smallest raw margin 1.
    The loop stops when the relative gap of the best two is at most
    ``tolerance / 2``; the returned ``W`` is the best primal point at
    ``raw_margin``, and ``details`` holds the gap recomputed from the instance
    (:func:`~lamcap.solvers.optimality_gap`): ``"relative_gap"``,
    ``"gap_reached"`` (``relative_gap <= tolerance``), ``"dual"`` (a
    :class:`~lamcap.solvers.MarginDual`), ``"dual_value"``,
    ``"primal_value"``, ``"primal_norm"`` and ``"raw_min_margin"``.
    ``"stopped"`` is then ``"gap_reached"``, ``"converged"`` (the exact
    stage added no constraint: the gap is as small as float64 allows),
    ``"decided"`` (infeasible), ``"time_limit"`` or ``"max_rounds"``.  The
    exact stage must compute the min-norm point: ``exact`` is ``"wolfe"``,
    ``"nnls"`` or ``"none"`` (first-order only, slow to close the gap).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(8, 6, n=4, seed=0)
    >>> result = solve_cutting_plane(instance, rank=8, raw_margin=1.0, max_seconds=None, seed=0)
    >>> result.verdict
    'feasible'
    >>> best = solve_cutting_plane(instance, rank=8, raw_margin=1.0, max_seconds=None, seed=0,
    ...                            objective="max_margin")
    >>> best.verdict, best.details["relative_gap"] <= 1e-4
    ('feasible', True)
    """
    instance, rank, raw_margin, max_seconds, seed = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    del rank, seed
    instance = check_instance(instance)
    opts = options or CuttingPlaneOptions()
    objective = check_choice("objective", objective, OBJECTIVES[:2])  # not max_recall
    if objective == "max_margin" and opts.exact == "highs":
        msg = "exact must be 'wolfe', 'nnls' or 'none' for objective='max_margin', got 'highs'"
        raise ValueError(msg)
    start = time.perf_counter()
    deadline = math.inf if max_seconds is None else start + max_seconds
    bounds = None if objective == "feasible" else _Bounds(0.5 * tolerance)
    raw = bounds is not None
    unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
    working = WorkingSet(instance.n, instance.d, raw=raw)
    member = np.zeros((instance.n, instance.p), dtype=np.bool_)
    initial = hebbian_weights(instance)
    outcome = None
    if bounds is None and opts.feasibility_first:
        outcome = run_feasibility_stage(instance, initial, deadline)
    found = _first_pass(instance, initial, member, opts, outcome, raw)
    progress = _Progress(
        initial.copy(),
        found.min_margin,
        found.raw_lowest,
        pass_seconds=found.seconds,
        nnls_cost_factor=opts.nnls_cost_factor,
        wolfe_batch=_wolfe_batch(opts, bounds is not None, instance.d),
        sort_corral=bounds is None and instance.d >= opts.large_dimension,
        exhaustive=bounds is None and instance.d >= opts.large_dimension,
    )
    if bounds is not None:
        bounds.offer_primal(initial, found.lowest)
    if outcome is not None:  # its best W; a verified one ends the run before any round
        progress.offer(outcome.weights, outcome.min_margin, outcome.raw_lowest)
        progress.stage = "feasibility" if outcome.found else progress.stage
    certificate = _rounds(
        instance, opts, deadline, working, member, unit_inputs, found, progress, bounds
    )
    progress.corral = None  # Wolfe's factor is not needed by the checks of the result
    if certificate is not None and progress.exhaustive and time.perf_counter() < deadline:
        certificate = _exchanged(instance, certificate, deadline, progress)
    details: dict[str, Any] = {
        "stage": progress.stage,
        "stopped": progress.stopped,
        "working_set": working.size,
        "pass_seconds": progress.pass_seconds,
        "ascent_seconds": progress.ascent_seconds,
        "exact_seconds": progress.exact_seconds,
        **(outcome.details() if outcome is not None else {}),
        **progress.memory,
        **progress.exchange,
    }
    weights = progress.weights
    if bounds is None:
        details["upper_bound"] = progress.upper
    else:
        weights = _max_margin_details(instance, bounds, raw_margin, tolerance, progress, details)
    return build_result(
        instance,
        weights,
        # the max-margin W is at raw margin c already (its primal point W / c_W times c),
        # and its gap in details is computed on exactly these weights
        raw_margin=raw_margin if bounds is None else None,
        raw_lowest=progress.raw_lowest if bounds is None else None,  # saves a full pass
        certificate=certificate,
        method="cutting_plane",
        iterations=progress.rounds,
        seconds=time.perf_counter() - start,
        details=details,
    )


def _exchanged(
    instance: Instance, certificate: FarkasCertificate, deadline: float, progress: _Progress
) -> FarkasCertificate:
    """The certificate on the support that exchange pivots reach, else unchanged.

    Weights met on the way (a facet normal that recalls every association)
    are offered as the best ``W``; ``build_result`` verifies them.
    """
    found = exchange_support(instance, certificate, deadline=deadline)
    progress.exchange = {
        "exchanges": found.exchanges,
        "exchange_seconds": found.seconds,
        "exchange": found.detail,
    }
    if found.weights is not None:
        progress.offer(found.weights, min_margin(instance, found.weights))
    if found.certificate is None or not found.certificate.epsilon <= FEASIBILITY_TOLERANCE:
        return certificate
    return found.certificate


def _first_pass(
    instance: Instance,
    initial: NDArray[np.float64],
    member: NDArray[np.bool_],
    opts: CuttingPlaneOptions,
    outcome: FeasibilityOutcome | None,
    raw: bool,
) -> ScorePass:
    """The score pass of ``initial`` keeping ``2 * cuts_per_association`` constraints each.

    After the feasibility stage it is the stage's own first pass (the same
    :func:`~lamcap.solvers._constraints.score_pass`, keeping more) cut to
    that many per association, and empty when the stage decided (no round runs).
    """
    cuts = 2 * opts.cuts_per_association
    if outcome is None or outcome.first is None:
        return score_pass(instance, initial, member, math.inf, cuts, raw=raw)
    return outcome.first.lowest_per_association(0 if outcome.found else cuts, instance)


def _memory_fits(instance: Instance, working: WorkingSet, exact: str, progress: _Progress) -> bool:
    """Whether the exact stage's estimated memory is available; if not, the run stops undecided.

    Wolfe's kernels are loaded (or compiled) first, so that the memory they
    take is not counted as available to the stage.
    """
    if exact == "wolfe":
        load_kernels()
    needed = exact_stage_bytes(
        instance.d,
        working.size,
        exact,
        instance.n,
        instance.p,
        batch=progress.wolfe_batch,
        sort=progress.sort_corral,
    )
    available = available_memory()
    progress.memory = {"exact_memory_bytes": needed, "available_memory_bytes": available}
    if needed <= available:
        return True
    progress.stopped = "memory"
    return False


def _wolfe_batch(opts: CuttingPlaneOptions, max_margin: bool, d: int) -> int:
    """Points per Wolfe major cycle: the option, else 64 for max margin or large d, else 1."""
    if opts.wolfe_batch is not None:
        return max(1, int(opts.wolfe_batch))
    return 64 if max_margin or d >= opts.large_dimension else 1


def _finished(progress: _Progress, bounds: _Bounds | None) -> bool:
    """Feasibility: a feasible ``W`` was found; max margin: the gap target is reached."""
    if bounds is None:
        return progress.margin > FEASIBILITY_TOLERANCE
    return bounds.gap <= bounds.target


def _rounds(
    instance: Instance,
    opts: CuttingPlaneOptions,
    deadline: float,
    working: WorkingSet,
    member: NDArray[np.bool_],
    unit_inputs: NDArray[np.float64],
    found: ScorePass,
    progress: _Progress,
    bounds: _Bounds | None,
) -> FarkasCertificate | None:
    """The cutting-plane loop (module docstring); returns the Farkas certificate, if any."""
    limit = opts.exact_max_dimension if bounds is None else opts.max_margin_exact_max_dimension
    exact = opts.exact if instance.d <= limit else "none"
    ascent = np.zeros((instance.d, instance.d))
    lp: MarginLP | None = None
    certificate: FarkasCertificate | None = None
    while not _finished(progress, bounds) and progress.rounds < opts.max_rounds:
        if time.perf_counter() >= deadline:
            progress.stopped = "time_limit"
            break
        progress.rounds += 1
        if found.mus.size:
            member[found.mus, found.rhos] = True
            assert found.directions is not None  # score_pass keeps them
            working.add(found.mus, found.rhos, found.directions)
        elif bounds is not None and progress.stage != "first_order":
            progress.stopped = "converged"  # no constraint below the exact working-set level
            break
        if progress.stage == "first_order" and exact != "none":
            if progress.rounds > _first_order_rounds(opts, instance.d) or (
                progress.inseparable and instance.d >= opts.large_dimension
            ):
                progress.stage = exact
                working.keep(working.alpha > 0, member)
                if not _memory_fits(instance, working, exact, progress):
                    break
                if exact == "highs":
                    lp = MarginLP(instance.d * instance.d)
                    lp.add(_lp_rows(working, unit_inputs, np.arange(working.size)))
        elif lp is not None and found.mus.size:
            lp.add(_lp_rows(working, unit_inputs, _newest(working, found)))
        tick = time.perf_counter()
        if progress.stage == "first_order":
            weights, level = _ascent_round(working, unit_inputs, ascent, opts, progress)
            progress.ascent_seconds += time.perf_counter() - tick
            if bounds is not None:
                bounds.offer_dual(working, working.alpha, ascent)
        else:
            step = _exact_round(instance, working, unit_inputs, lp, deadline, progress, member)
            progress.exact_seconds += time.perf_counter() - tick
            if isinstance(step, FarkasCertificate) or step is None:
                certificate = step
                if certificate is not None and certificate.epsilon <= FEASIBILITY_TOLERANCE:
                    progress.stopped = "decided"
                break
            weights, level, convex = step
            if bounds is not None:
                bounds.offer_dual(working, convex, weights)
        found = score_pass(
            instance, weights, member, level, opts.cuts_per_association, raw=working.raw
        )
        progress.pass_seconds += found.seconds
        progress.offer(weights, found.min_margin, found.raw_lowest)
        if bounds is not None:
            bounds.offer_primal(weights, found.lowest)
    if _finished(progress, bounds):
        progress.stopped = "decided" if bounds is None else "gap_reached"
    return certificate


@dataclass
class _Bounds:
    r"""Best bounds on :math:`\tfrac12\|W^*\|_F^2` at level 1 (raw constraints, margin 1).

    ``weights`` is the best primal point, scaled to smallest raw margin 1 (so
    feasible); ``mus, rhos, y`` the best dual point.  The run stops at
    ``gap <= target``; :func:`_max_margin_details` recomputes both bounds
    from the instance.
    """

    target: float
    primal: float = math.inf
    weights: NDArray[np.float64] | None = None
    dual: float = 0.0
    mus: NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    rhos: NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    y: NDArray[np.float64] = field(default_factory=lambda: np.empty(0))

    @property
    def gap(self) -> float:
        """Relative gap ``(primal - dual) / primal`` (``inf`` without a feasible point)."""
        return (self.primal - self.dual) / self.primal if math.isfinite(self.primal) else math.inf

    def offer_primal(self, weights: NDArray[np.float64], lowest: float) -> None:
        r"""Keep ``weights / lowest`` if all raw margins are positive and its norm is the smallest."""
        if lowest > 0 and math.isfinite(lowest):
            value = 0.5 * float(np.sum(weights * weights)) / lowest**2
            if value < self.primal:
                self.primal = value
                self.weights = weights / lowest

    def offer_dual(
        self,
        working: WorkingSet,
        weights: NDArray[np.float64],
        combination: NDArray[np.float64],
    ) -> None:
        r"""Keep :math:`y = t w` at its best scale if its dual value is the largest.

        ``combination`` is :math:`\sum_i w_i V_i` (the ascent iterate or the
        min-norm point); :math:`\max_t D(tw) = (\sum w)^2 / (2\|\sum_i w_i V_i\|^2)`
        at :math:`t = \sum w / \|\sum_i w_i V_i\|^2`.
        """
        total = float(weights.sum())
        squared = float(np.sum(combination * combination))
        if total <= 0 or squared <= 0:
            return
        value = 0.5 * total * total / squared
        if value > self.dual:
            support = np.nonzero(weights > 0)[0]
            self.dual = value
            self.mus = working.mus[support].copy()
            self.rhos = working.rhos[support].copy()
            self.y = weights[support] * (total / squared)


def _max_margin_details(
    instance: Instance,
    bounds: _Bounds,
    raw_margin: float,
    tolerance: float,
    progress: _Progress,
    details: dict[str, Any],
) -> NDArray[np.float64]:
    """The max-margin weights at ``raw_margin`` and their recomputed certificate, into ``details``.

    Without a feasible point the best weights seen are returned (the verdict
    is then ``"infeasible"`` or ``"undecided"``) and the gap is ``inf``.
    """
    details.update(objective="max_margin", raw_margin=raw_margin, tolerance=tolerance)
    if bounds.weights is None:
        details.update(relative_gap=math.inf, gap_reached=False)
        return progress.weights
    weights = raw_margin * bounds.weights
    dual = MarginDual(bounds.mus, bounds.rhos, raw_margin * bounds.y, raw_margin)
    gap = optimality_gap(instance, weights, dual)
    details.update(
        dual=dual,
        dual_value=gap.dual,
        primal_value=gap.primal,
        primal_norm=gap.primal_norm,
        raw_min_margin=gap.raw_min_margin,
        relative_gap=gap.relative_gap,
        gap_reached=gap.relative_gap <= tolerance,
    )
    return weights


def _first_order_rounds(opts: CuttingPlaneOptions, d: int) -> int:
    if opts.first_order_rounds is not None:
        return opts.first_order_rounds
    return 15 if d <= 32 else 30


def _ascent_round(
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    ascent: NDArray[np.float64],
    opts: CuttingPlaneOptions,
    progress: _Progress,
) -> tuple[NDArray[np.float64], float]:
    """Dual-ascent epochs on the working set; cuts are then taken below level 1.

    The epochs run in slices of ``opts.check_every``; the round ends early once
    ``W`` satisfies every working-set constraint strictly (the full pass that
    follows then either certifies it or adds the constraints it violates).
    A round that never does sets ``progress.inseparable``.
    """
    done = 0
    progress.inseparable = True
    while done < opts.epochs_per_round:
        chunk = min(opts.check_every, opts.epochs_per_round - done)
        dual_epochs(
            ascent,
            unit_inputs,
            working.offsets,
            working.directions,
            working.alpha,
            chunk,
            opts.sweeps,
        )
        done += chunk
        if working.size and float(np.min(working.levels(unit_inputs, ascent))) > 0:
            progress.inseparable = False
            break
    total = float(working.alpha.sum())
    if total > 0:
        progress.upper = min(progress.upper, float(np.linalg.norm(ascent)) / total)
    return ascent, 1.0


def _exact_round(
    instance: Instance,
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    lp: MarginLP | None,
    deadline: float,
    progress: _Progress,
    member: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], float, NDArray[np.float64]] | FarkasCertificate | None:
    """Solve the working-set problem exactly: next weights, cut level and weights, or a certificate.

    The weights are over the working set (after pruning): the min-norm
    point's convex coefficients (Wolfe, NNLS) or the LP's row duals (HiGHS).

    With NNLS the working set is then pruned to the support of the min-norm
    point (column generation: the min norm never increases, and strictly
    decreases while cuts are added, so the rounds terminate).  Returns None when
    the exact solver fails (the run ends undecided).
    """
    remaining = deadline - time.perf_counter()
    if lp is not None:
        solved = lp.solve(remaining)
        if solved is None:
            progress.stopped = "time_limit" if time.perf_counter() >= deadline else "exact_failed"
            return None
        level, vector = solved
        farkas = lp.duals
        normalised = level  # box-normalised LP level t*
    else:
        if progress.stage == "wolfe":
            minimised = _wolfe_min_norm_point(working, unit_inputs, deadline, progress)
        else:
            minimised = _timed_min_norm_point(working, unit_inputs, deadline, progress)
        if minimised is None:
            return None
        vector, farkas = minimised
        level = float(np.min(working.levels(unit_inputs, vector))) if working.size else 0.0
        length = float(np.linalg.norm(vector))
        normalised = level / length if length > 0 else 0.0  # about ||x|| at the optimum
    total = float(farkas.sum())
    gap = float(np.linalg.norm(vector)) / total if total > 0 else math.inf
    if normalised <= FEASIBILITY_TOLERANCE or gap <= 1e-6:
        remaining = deadline - time.perf_counter()
        certificate = _certificate(instance, working, unit_inputs, farkas, remaining)
        if certificate is not None:
            progress.upper = min(progress.upper, certificate.epsilon)
        if certificate is not None and certificate.epsilon <= FEASIBILITY_TOLERANCE:
            return certificate
        if normalised <= FEASIBILITY_TOLERANCE:
            progress.stopped = "exact_failed"  # no certificate re-checks
            return certificate
    if lp is None and progress.stage == "nnls":  # NNLS pays for every row it holds
        keep = farkas > 0
        working.keep(keep, member)
        farkas = farkas[keep]
    weights = vector.reshape(instance.d, instance.d)
    return weights, level, farkas


def _product_seconds(rows: NDArray[np.float64]) -> float:
    r"""Measured seconds of :math:`A^\top (A v)` on ``rows``, the unit of NNLS cost.

    Each Lawson–Hanson iteration forms the dual vector
    :math:`A^\top(b - A\beta)` of the system, so its cost is a small multiple
    of this product (measured 2.3–2.8 for ``d`` in 24–64).
    """
    probe = np.full(rows.shape[1], 1.0 / max(rows.shape[1], 1))
    best = math.inf
    for _ in range(3):  # the minimum of a few repeats ignores a context switch
        tick = time.perf_counter()
        rows.T @ (rows @ probe)
        best = min(best, time.perf_counter() - tick)
    return max(best, 1e-9)


def _nnls_iteration_budget(seconds_left: float, unit_seconds: float, factor: float) -> int:
    """NNLS iterations that fit in ``seconds_left`` at ``factor * unit_seconds`` each.

    ``factor`` is measured on the previous NNLS call as an upper bound (time
    divided by a lower bound on its iterations, the support size), so the cap
    errs on the side of stopping early.
    """
    if seconds_left <= 0:
        return 0
    return int(min(seconds_left / (factor * unit_seconds), 2**31 - 1))


def _timed_min_norm_point(
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    deadline: float,
    progress: _Progress,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """Rows of the working set and their min-norm weights, or None past the budget.

    Sets ``progress.stopped`` when it gives up; otherwise updates the measured
    NNLS cost factor.
    """
    if time.perf_counter() >= deadline:
        progress.stopped = "time_limit"
        return None
    default_cap = max(50, 5 * working.size)
    rows = _lp_rows(working, unit_inputs, np.arange(working.size))
    unit = _product_seconds(rows)
    cap = default_cap
    if not math.isinf(deadline):
        budget = _nnls_iteration_budget(
            deadline - time.perf_counter(), unit, progress.nnls_cost_factor
        )
        if budget < 2:
            progress.stopped = "time_limit"
            return None
        cap = min(default_cap, budget)
    start = tick = time.perf_counter()
    farkas = _min_norm_point(rows, cap)
    # A cap set by the time budget may be pessimistic (the cost estimate is a
    # timing): while the remaining time would still cover the call just made
    # twice over, retry with a doubled cap.  The total cost stays within a
    # factor of two of the last call, and the verdict never depends on luck
    # when the limit is far away.
    while (
        farkas is None
        and cap < default_cap
        and deadline - time.perf_counter() > 2.0 * (time.perf_counter() - start)
    ):
        cap = min(default_cap, 2 * cap)
        tick = time.perf_counter()
        farkas = _min_norm_point(rows, cap)
    elapsed = time.perf_counter() - tick  # the last call only: it sets the cost factor
    if farkas is None:
        progress.stopped = "nnls_iteration_cap" if cap == default_cap else "time_limit"
        return None
    iterations_at_least = max(int(np.count_nonzero(farkas)), 1)
    progress.nnls_cost_factor = elapsed / (iterations_at_least * unit)
    return rows.T @ farkas, farkas


def _wolfe_min_norm_point(
    working: WorkingSet,
    unit_inputs: NDArray[np.float64],
    deadline: float,
    progress: _Progress,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """Min-norm point of the working set by Wolfe's algorithm, warm started from the last corral.

    Runs in slices of major cycles so that ``deadline`` is honoured to within
    one slice (a slice is sized to take about a tenth of a second).  When
    rounding stalls the algorithm (the best new point is already in the
    corral: seen once in ~100 instances at the transition, where the max
    margin is ~1e-5), the current point is returned as the min-norm point:
    it is a convex combination like any other, and the full pass that follows
    certifies it or adds the constraints it violates.  Returns
    ``(x, convex coefficients)``, or None when time runs out
    (``progress.stopped = "time_limit"``).
    """
    d = working.d
    keys = working.keys
    state = progress.corral
    if state is None:  # warm start from the dual-ascent multipliers (the working set's support)
        state = progress.corral = CorralState.from_weights(
            working.directions,
            working.mus,
            unit_inputs,
            working.alpha,
            min(d * d + 2, max(working.size + 1, 64)),
        )
    elif state.size:
        order = np.argsort(keys)
        found = order[np.searchsorted(keys[order], progress.corral_keys[: state.size])]
        state.renumber(found.astype(np.int64))
        if progress.sort_corral and state.size >= SORT_MIN_CORRAL:
            state.sort_by_weight(working.directions, working.mus, unit_inputs)
    slice_iterations = 16
    while True:
        if time.perf_counter() >= deadline:
            progress.stopped = "time_limit"
            return None
        tick = time.perf_counter()
        status = state.run(
            working.directions,
            working.mus,
            unit_inputs,
            max_iterations=slice_iterations,
            batch=progress.wolfe_batch,
            exhaustive=progress.exhaustive,
        )
        progress.corral_keys = keys[state.corral[: state.size]].copy()
        if status in ("optimal", "zero", "stalled"):  # stalled: min-norm to working accuracy
            break
        if status == "capacity" and state.factor.shape[0] >= d * d + 2:
            break  # d^2 + 2 affinely independent points in R^(d^2): rounding, as stalled
        if status == "capacity":
            state.grow(min(d * d + 2, 2 * state.factor.shape[0]))
        elapsed = max(time.perf_counter() - tick, 1e-6)
        slice_iterations = int(min(4096, max(1, slice_iterations * 0.1 / elapsed)))
    point = state.point(working.directions, working.mus, unit_inputs)
    return point.ravel(), state.convex_weights(working.size)


def _min_norm_point(rows: NDArray[np.float64], max_iterations: int) -> NDArray[np.float64] | None:
    r"""Weights :math:`\beta \ge 0`, :math:`\sum\beta = 1`, minimising :math:`\|\text{rows}^\top\beta\|`.

    Lawson–Hanson NNLS (:func:`scipy.optimize.nnls`, an exact active-set method)
    on the stacked system :math:`[\text{rows}^\top; \mathbf 1^\top]\beta \approx e_{last}`.
    The minimiser :math:`x = \text{rows}^\top\beta` is the max-margin direction of
    the rows when it is non-zero (then :math:`\langle x, r_i\rangle \ge \|x\|^2`
    on every row), and :math:`\beta` is a Farkas vector when it is zero.
    None when NNLS needs more than ``max_iterations`` iterations.
    """
    from scipy.optimize import nnls  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    count = rows.shape[0]
    matrix = np.concatenate([rows.T, np.ones((1, count))])
    right = np.zeros(matrix.shape[0])
    right[-1] = 1.0
    try:
        beta = nnls(matrix, right, maxiter=max_iterations)[0]
    except RuntimeError:  # scipy: "Maximum number of iterations reached."
        return None
    total = float(beta.sum())
    result: NDArray[np.float64] = beta / total if total > 0 else beta
    return result


def _newest(working: WorkingSet, found: ScorePass) -> NDArray[np.int64]:
    """Working-set positions of the constraints just added from ``found``."""
    wanted = found.mus * (1 << 32) + found.rhos
    return np.nonzero(np.isin(working.keys, wanted))[0].astype(np.int64)
