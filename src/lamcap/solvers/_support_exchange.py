r"""Exchange pivots on a full support: from Wolfe's corral to a Farkas vector with positive multipliers.

Wolfe's exact stage ends, when the origin is in the hull of the points,
with a corral of :math:`D + 1` points (:math:`D = d^2`) and float convex
weights.  Those weights come from the Cholesky factor of the corral's
augmented Gram matrix, whose condition number is that of the points squared:
at :math:`d = 128` near the transition their relative accuracy is about
:math:`3\times10^{-8}`, coarser than the lightest weights, and the corral
can hold a point whose exact weight is negative (measured: one weight of
:math:`-4\times10^{-12}` after normalisation to sum 1, computed as
:math:`+3.6\times10^{-12}`).  The origin is then in the span of the corral
but not in its hull, and no proof (:func:`~lamcap.solvers.prove_infeasible`)
can succeed on it.

This module computes the weights through the points themselves instead.
With the columns :math:`a_i` of the support (power-of-two scaled, as in the
proof) and the :math:`(D+1) \times (D+1)` matrix

.. math::

    M = \begin{pmatrix} a_1 & \cdots & a_{D+1} \\ 1 & \cdots & 1 \end{pmatrix},
    \qquad M y = e_{D+1},

:math:`y` are the barycentric coordinates of the origin in the simplex of
the support (LU factors of :math:`M`, condition number not squared, and
iterative refinement on the float64 residual).  When :math:`y > 0` the
support is a Farkas support and its weights :math:`y_i 2^{-s_i}` go to the
proof.  When some :math:`y_r < 0`, row :math:`r` of :math:`M^{-1}`,
:math:`(w^\top, c)`, is the affine function :math:`h(x) = \langle w, x\rangle + c`
that is 1 on :math:`a_r`, 0 on the facet opposite it and :math:`c = y_r < 0`
at the origin: the facet's hyperplane separates the origin from :math:`a_r`.
One *exchange* (a dual-simplex pivot with zero costs; with a single negative
coordinate it is also Wolfe's step from the full corral: drop that point,
project the origin on the facet, at :math:`-c\,w/\|w\|^2`, and add the
constraint most violated there) replaces :math:`a_r`, the most negative, by the
constraint :math:`a_j` of smallest :math:`h(a_j)` over **all** constraints of
the instance (one score pass with ``W`` :math:`= w`); :math:`h(a_j) < 0`
makes the new coordinate :math:`y_j = y_r / h(a_j)` positive.  Should every
constraint have :math:`\langle w, a_j\rangle > 0`, then :math:`w` itself
recalls every association and is returned as weights to be verified.

The factor is kept and each exchange appended as an eta matrix (product form
of the inverse: two solves with the factor per exchange, :math:`O(D^2)`),
refactorised every :data:`REFACTOR_EVERY` exchanges.  Cost at :math:`d = 128`:
one LU of :math:`M` (:math:`2D^3/3 = 2.9\times10^{12}` flops), memory :math:`2(D+1)^2` numbers (4.3 GB: :math:`M` and the columns for
the residuals); per exchange two triangular solves and one score pass.

Nothing here is a proof: the support and weights it returns are proven (or
not) by :func:`~lamcap.solvers.prove_infeasible`, and weights by
:func:`~lamcap.solvers.check_margins`.  References: arXiv:2605.10795 (the
constraints); docs/solvers-at-scale.md.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from lamcap.problems import Instance
from lamcap.solvers._certificates import FarkasCertificate, certificate_bound
from lamcap.solvers._infeasibility import _scaled_columns, support_indices
from lamcap.solvers._memory import available_memory

REFACTOR_EVERY = 32
"""Exchanges between two LU factorisations of the support's matrix (eta matrices in between)."""

REFINEMENTS = 3
"""Iterative-refinement steps on the barycentric coordinates after each factorisation or exchange."""


@dataclass(frozen=True)
class SupportExchange:
    r"""Outcome of :func:`exchange_support`.

    Attributes
    ----------
    certificate : FarkasCertificate or None
        A support of :math:`D + 1` constraints whose computed barycentric
        coordinates are all positive, with weights :math:`y_i 2^{-s_i}`
        (not yet proven: :func:`~lamcap.solvers.prove_infeasible`); None when
        none was reached.
    weights : ndarray (d, d) or None
        A ``W`` with every computed :math:`\langle W, A_j\rangle > 0`, met on
        the way (to be verified by :func:`~lamcap.solvers.check_margins`).
    exchanges : int
        Pivots made.
    detail : str
        What happened, with the numbers.
    seconds : float
        Time spent.
    """

    certificate: FarkasCertificate | None
    weights: NDArray[np.float64] | None
    exchanges: int
    detail: str
    seconds: float


def exchange_bytes(d: int) -> int:
    r"""Bytes :func:`exchange_support` holds at most: :math:`M`, the columns and :data:`REFACTOR_EVERY` etas.

    Examples
    --------
    >>> round(exchange_bytes(128) / 1e9, 2)
    4.3
    """
    size = d * d + 1
    return 8 * (2 * size * size + (REFACTOR_EVERY + 8) * size)


@dataclass
class _Basis:
    """The support's columns, their exact scalings and an LU of ``M`` with its eta file."""

    associations: NDArray[np.int64]
    competitors: NDArray[np.int64]
    columns: NDArray[np.float64]  # (D + 1) x D, row i = a_i (scaled)
    shifts: NDArray[np.int64]
    lu: tuple[NDArray[np.float64], NDArray[np.int32]] | None = None
    etas: list[tuple[int, NDArray[np.float64]]] = field(default_factory=list)

    def factorise(self) -> bool:
        """LU of ``M`` (built in Fortran order, factorised in place); False when a pivot is zero."""
        from scipy.linalg import LinAlgWarning, lu_factor  # noqa: PLC0415

        self.lu = None
        size = self.columns.shape[0]
        matrix = np.empty((size, size), order="F")
        matrix.T[:, :-1] = self.columns  # column i of M is (a_i, 1)
        matrix.T[:, -1] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("error", LinAlgWarning)
            try:
                self.lu = lu_factor(matrix, overwrite_a=True, check_finite=False)
            except LinAlgWarning:  # an exactly zero pivot: M is singular in float64
                return False
        self.etas = []
        return True

    def factor(self) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
        """The LU factors (:meth:`factorise` first)."""
        if self.lu is None:
            msg = "the basis is not factorised"
            raise RuntimeError(msg)
        return self.lu

    def solve(self, right: NDArray[np.float64]) -> NDArray[np.float64]:
        """:math:`M^{-1}` ``right`` through the factor and the etas."""
        from scipy.linalg import lu_solve  # noqa: PLC0415

        solved: NDArray[np.float64] = lu_solve(self.factor(), right, check_finite=False)
        for row, column in self.etas:
            value = solved[row] / column[row]
            solved -= value * column
            solved[row] = value
        return solved

    def solve_transposed(self, right: NDArray[np.float64]) -> NDArray[np.float64]:
        """:math:`M^{-\\top}` ``right`` (the etas transposed, last first, then the factor)."""
        from scipy.linalg import lu_solve  # noqa: PLC0415

        vector = right.copy()
        for row, column in reversed(self.etas):
            vector[row] -= (float(column @ vector) - vector[row]) / column[row]
        solved: NDArray[np.float64] = lu_solve(self.factor(), vector, trans=1, check_finite=False)
        return solved

    def replace(
        self,
        row: int,
        constraint: tuple[int, int],
        column: tuple[NDArray[np.float64], int],
        solved: NDArray[np.float64],
    ) -> None:
        """Row ``row`` becomes ``constraint`` (its scaled column and power of two); ``solved`` is :math:`M^{-1}(a_j, 1)`."""
        self.associations[row], self.competitors[row] = constraint
        self.columns[row], self.shifts[row] = column
        self.etas.append((row, solved))

    def residual(self, coordinates: NDArray[np.float64]) -> NDArray[np.float64]:
        """:math:`My - e_{D+1}` in float64."""
        top = coordinates @ self.columns
        return np.append(top, float(np.sum(coordinates)) - 1.0)

    def refined(self, coordinates: NDArray[np.float64]) -> NDArray[np.float64]:
        """``coordinates`` after :data:`REFINEMENTS` steps of iterative refinement."""
        for _ in range(REFINEMENTS):
            coordinates = coordinates - self.solve(self.residual(coordinates))
        return coordinates


def _basis(instance: Instance, certificate: FarkasCertificate) -> _Basis:
    associations, competitors, alpha = support_indices(instance, certificate)
    targets, rivals = instance.constraint_outputs(associations, competitors)
    columns, _, shifts = _scaled_columns(targets, rivals, instance.inputs[associations], alpha)
    return _Basis(associations, competitors, columns, shifts)


def _most_violated(
    instance: Instance, facet: NDArray[np.float64], offset: float, basis: _Basis
) -> tuple[int, int, float, float]:
    r"""The constraint of smallest :math:`h(a_j) = \langle w, a_j\rangle + c` off the basis.

    Returns ``(mu, rho, h, lowest)`` with ``lowest`` the smallest
    :math:`\langle w, a_j\rangle` over all constraints (positive: ``w``
    recalls every association).  The scalings :math:`2^{-s_j}` are those of
    :math:`\|u_t - u_\rho\|\,\|e_\mu\|` evaluated in float64 (a column that
    lands on the other side of a power of two is merely ranked with a factor
    2 off; the exchange itself uses the exact column).
    """
    hidden = instance.inputs @ facet.T
    input_norms = np.linalg.norm(instance.inputs, axis=1)
    excluded = np.zeros((instance.n, instance.p), dtype=np.bool_)
    excluded[basis.associations, basis.competitors] = True
    best = (-1, -1, math.inf)
    lowest = math.inf
    for block in instance.scored_blocks(hidden, keep_outputs=True):
        stop = block.start + block.scores.shape[0]
        rows = np.arange(block.scores.shape[0])
        targets = instance.targets[block.start : stop]
        outputs = np.asarray(block.outputs)  # asked for: never None here
        cross = np.matmul(outputs, outputs[rows, targets][:, :, None])[:, :, 0]
        lengths2 = block.norms2 + block.norms2[rows, targets][:, None] - 2.0 * cross
        norms = np.sqrt(np.maximum(lengths2, 0.0)) * input_norms[block.start : stop, None]
        scaled = np.ldexp(block.scores[rows, targets][:, None] - block.scores, -np.frexp(norms)[1])
        scaled[rows, targets] = math.inf
        lowest = min(lowest, float(scaled.min()))
        scaled[excluded[block.start : stop]] = math.inf
        flat = int(np.argmin(scaled))
        b, rho = divmod(flat, instance.p)
        if scaled[b, rho] + offset < best[2]:
            best = (block.start + b, rho, float(scaled[b, rho]) + offset)
    return best[0], best[1], best[2], lowest


def _column(instance: Instance, mu: int, rho: int) -> tuple[NDArray[np.float64], int]:
    """The scaled column of constraint ``(mu, rho)`` and its power of two, as the proof forms them."""
    targets, rivals = instance.constraint_outputs([mu], [rho])
    columns, _, shifts = _scaled_columns(targets, rivals, instance.inputs[[mu]], np.ones(1))
    return columns[0], int(shifts[0])


def _found(
    instance: Instance, basis: _Basis, coordinates: NDArray[np.float64]
) -> FarkasCertificate:
    """The certificate of a support with positive coordinates: weights :math:`y_i 2^{-s_i}`."""
    alpha = np.ldexp(coordinates, -basis.shifts)
    found = FarkasCertificate(basis.associations.copy(), basis.competitors.copy(), alpha, math.inf)
    return dataclasses.replace(found, epsilon=certificate_bound(instance, found))


def exchange_support(
    instance: Instance,
    certificate: FarkasCertificate,
    *,
    deadline: float = math.inf,
    max_exchanges: int = 64,
) -> SupportExchange:
    r"""Pivot a support of :math:`d^2 + 1` constraints until the origin's barycentric coordinates are positive.

    .. math::

        \begin{pmatrix} a_S \\ \mathbf 1^\top \end{pmatrix} y = e_{D+1},
        \quad y > 0 \;\Longrightarrow\; \sum_{i \in S} y_i a_i = 0

    (module docstring: LU factors of the support's matrix, iterative
    refinement, dual-simplex exchanges against all constraints).  The result
    is a candidate for :func:`~lamcap.solvers.prove_infeasible`, never a
    verdict.

    Parameters
    ----------
    instance : Instance
        The instance the certificate is about.
    certificate : FarkasCertificate
        Its positive multipliers name the support; it must have exactly
        :math:`d^2 + 1` of them.
    deadline : float
        ``time.perf_counter()`` value after which no further exchange starts.
    max_exchanges : int
        Pivots allowed.

    Returns
    -------
    SupportExchange
        The support reached (or None) and what it took.

    Examples
    --------
    >>> from lamcap.problems import Instance
    >>> # d = 1: 0.5 w and -0.25 w cannot both be positive
    >>> instance = Instance.from_arrays([[0.5], [0.25]], [[1.0], [-1.0]], [0, 1], model="original")
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 1.0]), 1.0)
    >>> found = exchange_support(instance, cert)
    >>> found.exchanges, found.certificate.alpha.round(6).tolist()
    (0, [0.25, 0.5])
    """
    start = time.perf_counter()
    dimension = instance.d * instance.d
    size = int(np.count_nonzero(np.asarray(certificate.alpha) > 0))
    if size != dimension + 1:
        return SupportExchange(
            None,
            None,
            0,
            f"support of {size} constraints, not d^2 + 1 = {dimension + 1}",
            time.perf_counter() - start,
        )
    need, have = exchange_bytes(instance.d), available_memory()
    if need > have:
        detail = f"exchanges need {need / 1e9:.2f} GB, {have / 1e9:.2f} GB available: not tried"
        return SupportExchange(None, None, 0, detail, time.perf_counter() - start)
    basis = _basis(instance, certificate)
    if not basis.factorise():
        detail = f"the support's {dimension + 1} points are affinely dependent in float64"
        return SupportExchange(None, None, 0, detail, time.perf_counter() - start)
    last = np.zeros(dimension + 1)
    last[-1] = 1.0
    coordinates = basis.refined(basis.solve(last))
    exchanges, why = 0, ""
    while True:
        if not np.all(np.isfinite(coordinates)):
            why = "non-finite coordinates"
            break
        row = int(np.argmin(coordinates))
        if coordinates[row] > 0:
            detail = (
                f"{exchanges} exchanges: barycentric coordinates in [{coordinates[row]:.2e}, "
                f"{float(coordinates.max()):.2e}], residual {float(np.abs(basis.residual(coordinates)).max()):.1e}"
            )
            return SupportExchange(
                _found(instance, basis, coordinates),
                None,
                exchanges,
                detail,
                time.perf_counter() - start,
            )
        if exchanges >= max_exchanges or time.perf_counter() > deadline:
            why = "exchange limit" if exchanges >= max_exchanges else "time limit"
            break
        unit = np.zeros(dimension + 1)
        unit[row] = 1.0
        normal = basis.solve_transposed(unit)
        facet = normal[:-1].reshape(instance.d, instance.d)
        mu, rho, level, lowest = _most_violated(instance, facet, float(normal[-1]), basis)
        if lowest > 0:
            detail = f"{exchanges} exchanges: a facet normal recalls every association (smallest scaled margin {lowest:.2e})"
            return SupportExchange(
                None, facet.copy(), exchanges, detail, time.perf_counter() - start
            )
        column = _column(instance, mu, rho)
        solved = basis.solve(np.append(column[0], 1.0))
        if not (level < 0 and solved[row] < 0):
            why = f"no constraint crosses the facet (h = {level:.2e}, pivot {solved[row]:.2e})"
            break
        step = coordinates[row] / solved[row]
        coordinates = coordinates - step * solved
        coordinates[row] = step
        basis.replace(row, (mu, rho), column, solved)
        exchanges += 1
        if len(basis.etas) >= REFACTOR_EVERY and not basis.factorise():
            why = "a singular refactorisation"
            break
        coordinates = basis.refined(coordinates)
    negative = int(np.count_nonzero(coordinates <= 0))
    detail = (
        f"{exchanges} exchanges, stopped by {why}: {negative} coordinates <= 0 "
        f"(smallest {float(coordinates.min()):.2e})"
    )
    return SupportExchange(None, None, exchanges, detail, time.perf_counter() - start)
