r"""Exact infeasibility: proving that no ``W`` recalls every association.

A Farkas certificate (:class:`~lamcap.solvers.FarkasCertificate`)
names constraints :math:`A_i = (u_t - u_\rho) e_\mu^\top` and weights
:math:`\alpha_i \ge 0`; its float bound :math:`\varepsilon`
(:func:`~lamcap.solvers._certificates.certificate_bound`) proves only
:math:`\gamma^* \le \varepsilon`, because :math:`\sum_i \alpha_i A_i` is zero only
up to rounding.  No ``W`` recalls every association (:math:`\gamma^* \le 0`:
no ``W`` has :math:`\langle W, A_i\rangle > 0` for all :math:`i`) as soon as some
:math:`y \ge 0`, :math:`y \ne 0`, has :math:`\sum_i y_i A_i = 0` **exactly**
(Gordan's alternative: :math:`\sum_i y_i \langle W, A_i\rangle = 0` for every
``W``).  The instance's numbers are float64, hence exact rationals, so this is a
statement about them, not about an approximation.  :func:`prove_infeasible`
tries three proofs on the certificate's support :math:`S` (:math:`k` constraints,
:math:`D = d^2`):

**Perturbation** (``k > D``, Gram matrix).  Let :math:`A` be the :math:`D \times k` matrix of
the columns :math:`\operatorname{vec} A_i`, each scaled by a power of two
(exact), :math:`y` the certificate's weights in the same scaling and
:math:`r = Ay` the exact residual.  If :math:`A` has full row rank,
:math:`\Delta y = -A^\top (AA^\top)^{-1} r` solves :math:`A\,\Delta y = -r` with
:math:`\|\Delta y\|_\infty \le \|\Delta y\|_2 \le \|r\|/\sigma_D(A)`; when that is
below :math:`\min_i y_i`, :math:`y + \Delta y > 0` and :math:`A(y + \Delta y) = 0`
exactly.  Every quantity is bounded rigorously in float64 with the standard
model :math:`\mathrm{fl}(a \circ b) = (a \circ b)(1 + \delta)`, :math:`|\delta|
\le u = 2^{-53}`, and :math:`\gamma_n = nu/(1 - nu)` for dot products of length
:math:`n` in any order:

* the certificate's weights are first polished by one least-squares
  correction :math:`y \leftarrow y - \hat A^\top \tilde G^{-1} \hat A y` (kept when
  it stays positive; any :math:`y` will do, the proof is about the support);
* :math:`r` is formed in numpy's ``longdouble`` (unit roundoff :math:`u_e`,
  :math:`2^{-64}` on x86-64, :math:`2^{-53}` where it is plain double), so
  :math:`\|r\| \le \|\tilde r\| + \gamma^{(e)}_{k+2}\|\sum_i w_i |u_t -
  u_\rho|_i |e_i|^\top\|_F` with :math:`w_i = y_i 2^{-s_i}`;
* the computed columns :math:`\hat A` (float64) have :math:`|\hat A - A| \le
  \gamma_2' |\hat A|`, :math:`\gamma_2' = \gamma_2/(1 - \gamma_2)`;
* :math:`\tilde G = \mathrm{fl}(\hat A\hat A^\top)` has
  :math:`\|\tilde G - \hat A\hat A^\top\|_2 \le \gamma_k\|\hat A\|_F^2`; a
  Cholesky factor :math:`L` of :math:`\tilde G - sI` (shift :math:`s` from an
  inverse-iteration estimate of :math:`\lambda_{\min}`) and its **computed**
  residual :math:`E = LL^\top - (\tilde G - sI)`, bounded by
  :math:`\|\mathrm{fl}(E)\|_F/(1-u) + \gamma_D\|L\|_F^2`, give
  :math:`\lambda_{\min}(\tilde G) \ge s - \|E\|_2 - u\max_j|\tilde G_{jj} - s|`
  (:math:`LL^\top \succeq 0`; no property of the factorisation is assumed);
* :math:`\sigma_D(A) \ge \sqrt{\lambda_{\min}(\hat A\hat A^\top)} - \gamma_2'\|\hat A\|_F`
  (Weyl).

Each bound is evaluated in float64 and inflated by 1 % (covering the rounding
of its own evaluation, a relative :math:`10^{-12}` at these sizes).  Cost:
:math:`O(kD^2 + D^3)` flops and at most :math:`kD + 7D^2` numbers (1.08 GB
at :math:`d = 64`, :func:`~lamcap.solvers._memory.perturbation_proof_bytes`;
not tried when that memory is not available).  It is tried up to :math:`D =`
:data:`PERTURBATION_MAX_DIMENSION` :math:`= 64^2`.  Beyond, its float64
rounding floor, about :math:`(\gamma_k + \gamma_D)\|\hat A\|_F^2 \approx
2kDu` (:math:`\|\hat A\|_F^2 \le k` after the scaling), reaches
:math:`1.9\times10^{-8}` at :math:`d = 96` and :math:`6\times10^{-8}` at
:math:`d = 128`, while :math:`\lambda_{\min} = \sigma_D^2` falls faster:
the proven :math:`\sigma_D` of the supports found at 1.07 :math:`p_c` were
:math:`4\text{--}6\times10^{-3}` at :math:`d = 16`,
:math:`1.5\text{--}2.8\times10^{-3}` at :math:`d = 32` and
:math:`0.9\text{--}2\times10^{-4}` at :math:`d = 64` (floor
:math:`3.7\times10^{-9}` against :math:`\sigma_D^2 \ge 8\times10^{-9}`),
which extrapolates to :math:`\sigma_D^2` of a few :math:`10^{-9}` at
:math:`d = 96`; and the :math:`2\times10^{13}` flops at :math:`d = 128`
would take longer than the solve.  Above it the verified inverse below is
tried instead, and also wherever this bound fails.  Near the transition the supports found by the solvers have
exactly :math:`k = D + 1` constraints up to :math:`d = 32`, and the proof has
room to spare (:math:`\|\Delta y\|/\min y \le 2\times10^{-5}` measured;
``benchmarks/bench_verdicts.py``).  At :math:`d = 48` and 64 Wolfe's exact
stage declares the min-norm point zero with a corral a few points short of
:math:`D + 1` (3 and 11 measured), which has no exact Farkas vector for
generic data: those verdicts carry :math:`\gamma^* \le \varepsilon` only.

**Verified inverse** (``k > D``, up to :math:`D =`
:data:`VERIFIED_INVERSE_MAX_DIMENSION` :math:`= 128^2`).  A bound that does not
square the condition number.  Let :math:`B` be the :math:`D` constraints of
smallest weight (for :math:`k = D + 1` the determinant of the columns without
constraint :math:`j` is proportional to :math:`y_j`, by Cramer's rule, so the
heaviest is the one left out), :math:`A_B` their exact :math:`D \times D`
matrix (columns scaled as above), :math:`\hat A_B` the computed one, and
:math:`X` **any** float matrix (the rows of :math:`\hat A_B^{-1}` from
scipy's LU factorisation, formed and used :data:`_INVERSE_BLOCK` rows at a
time).  With :math:`\alpha = \|I - XA_B\|_\infty < 1`, :math:`A_B` is
non-singular and the exact solution of :math:`A_B\,\Delta z = -r` satisfies
:math:`\Delta z = -Xr + (I - XA_B)\Delta z`, so

.. math::

    \|\Delta z\|_\infty \le \frac{\|Xr\|_\infty}{1 - \alpha};

when that is below :math:`\min_i y_i`, :math:`y + \Delta z` (zero step
outside :math:`B`) is positive and :math:`A(y + \Delta z) = r - r = 0` exactly.
In the standard model (:math:`\mathrm{fl}(XY)` has error at most
:math:`\gamma_D|X||Y|` whatever the order of the sums):

* :math:`\alpha \le \big\|\mathrm{fl}(\mathrm{fl}(X\hat A_B) - I)\big\|_\infty/(1-u)
  + (\gamma_D + \gamma_2')\,\big\||X|\,(|\hat A_B|\mathbf 1)\big\|_\infty`, the
  last term evaluated as a matrix-vector product;
* :math:`r` is formed in ``longdouble`` as for the Gram bound, with an
  entrywise error bound :math:`m` (:func:`_residual`), and
  :math:`|Xr| \le |\mathrm{fl}(X\hat r)| + |X|\,(\gamma_D|\hat r| + m)`;
* the weights are first polished by one step :math:`y_B \leftarrow y_B -
  \mathrm{fl}(\hat A_B^{-1}\hat r)` (kept when positive), and :math:`r` is
  formed again for the polished :math:`y`;
* reported, not needed: :math:`\sigma_{\min}(A_B) \ge (1 - \alpha_2)/\|X\|_F`
  with :math:`\alpha_2 \le \sqrt{\alpha_1\alpha}` (:math:`\alpha_1` the same
  bound on :math:`\|I - XA_B\|_1`), a lower bound on :math:`\sigma_D(A)` too.

The support must carry a Farkas vector exactly, which float weights from
a Gram matrix cannot always tell: from :math:`d = 96` on the cutting-plane
solver first passes Wolfe's corral through exchange pivots
(:func:`~lamcap.solvers._support_exchange.exchange_support`), which compute
the weights through the LU factors of the points and swap out a point whose
weight is negative (measured at :math:`d = 128`, 1.04 :math:`p_c`: one
exchange, then proven with a correction of :math:`1.7\times10^{-10}` against
a smallest weight of :math:`1.9\times10^{-9}`; before, the correction bound
was :math:`3\times10^{-7}`, from float weights with a residual of
:math:`5\times10^{-11}`).  Each bound is inflated by 1 % as above.  Its rounding floor is
:math:`\alpha \gtrsim \gamma_D\,\||X||\hat A_B|\|_\infty \approx uD\kappa_\infty(A_B)`,
which stays far below 1 at :math:`d = 128` for the condition numbers of these
supports, where the Gram bound needs :math:`2kDu < \sigma_D^2`.  Cost:
:math:`14D^3/3` flops (LU :math:`2D^3/3`, the rows of :math:`X` by triangular
solves :math:`2D^3`, :math:`X\hat A_B` :math:`2D^3`): :math:`3.7\times10^{12}`
at :math:`d = 96`, :math:`2.1\times10^{13}` at :math:`d = 128`; memory
:math:`8(kD + D^2 + 6bD)` bytes with :math:`b =` :data:`_INVERSE_BLOCK`
(1.6 GB at :math:`d = 96`, 4.7 GB at :math:`d = 128`), checked against
:func:`~lamcap.solvers._memory.available_memory` first (when it does not fit
the proof is not tried and the verdict keeps :math:`\gamma^* \le
\varepsilon`).

**Exact rational arithmetic** (``k <=`` :data:`EXACT_MAX_SUPPORT`, any rank).
Every float is an integer times a power of two, so after scaling the columns
are integer vectors; a fraction-free Gauss–Jordan elimination gives an
integer basis of the null space of :math:`A`, a non-negative non-zero vector
:math:`z` in it is sought (the basis vector itself when the null space is a
line, else the integer combination nearest the certificate's weights), and
:math:`Az = 0` is checked in integers.  Cost grows like :math:`k^2 D` operations
on integers of about :math:`150k` bits (measured times: docs/benchmarks.md).

When neither applies or both fail, the certificate proves only
:math:`\gamma^* \le \varepsilon`, and the verdict says so.  References:
arXiv:2605.10795 (the constraints); docs/theory/index.md.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from lamcap.problems import Instance
from lamcap.solvers._certificates import FarkasCertificate, checked_certificate_arrays
from lamcap.solvers._memory import available_memory, perturbation_proof_bytes

EXACT_MAX_SUPPORT = 40
"""Largest support (constraints) tried in exact rational arithmetic (its cost grows like k^2 D)."""

PERTURBATION_MAX_DIMENSION = 64**2
r"""Largest :math:`D = d^2` for the perturbation proof (its :math:`O(kD^2 + D^3)` flops)."""

VERIFIED_INVERSE_MAX_DIMENSION = 128**2
r"""Largest :math:`D = d^2` for the verified-inverse proof (:math:`14D^3/3` flops: :math:`3.7\times10^{12}` at d = 96, :math:`2.1\times10^{13}` at d = 128)."""

_INVERSE_BLOCK = 512  # rows of X formed and multiplied at a time

_U = 2.0**-53
_SAFETY = 1.01  # inflation of every evaluated bound (covers the rounding of its evaluation)


def _gamma(count: int) -> float:
    return count * _U / (1.0 - count * _U)


@dataclass(frozen=True)
class InfeasibilityProof:
    r"""Outcome of :func:`prove_infeasible`.

    Attributes
    ----------
    proven : bool
        True iff some :math:`y \ge 0`, :math:`y \ne 0` with
        :math:`\sum_i y_i A_i = 0` exactly was shown to exist on the support:
        no ``W`` recalls every association.
    method : str
        ``"perturbation"``, ``"verified_inverse"``, ``"exact"`` or ``""``
        (nothing proven).
    detail : str
        The numbers behind the proof, or why none was found.
    seconds : float
        Time spent.

    Examples
    --------
    >>> InfeasibilityProof(False, "", "empty support", 0.0).proven
    False
    """

    proven: bool
    method: str
    detail: str
    seconds: float


def support_indices(
    instance: Instance, certificate: FarkasCertificate
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Associations, competitors and weights of the certificate's constraints with alpha > 0 (checked)."""
    associations, competitors, alpha = checked_certificate_arrays(instance, certificate)
    keep = alpha > 0
    return associations[keep], competitors[keep], alpha[keep]


def _support(
    instance: Instance, certificate: FarkasCertificate
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Target rows, competitor rows, inputs and multipliers of the constraints with alpha > 0."""
    associations, competitors, alpha = support_indices(instance, certificate)
    targets, rivals = instance.constraint_outputs(associations, competitors)
    return targets, rivals, instance.inputs[associations], alpha


# --------------------------------------------------------------------------- perturbation
def _scaled_columns(
    targets: NDArray[np.float64],
    rivals: NDArray[np.float64],
    inputs: NDArray[np.float64],
    alpha: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Rows ``vec(A_i) 2^-s_i`` (k x D, computed), weights ``alpha_i 2^s_i / max`` and ``s``."""
    columns = ((targets - rivals)[:, :, None] * inputs[:, None, :]).reshape(targets.shape[0], -1)
    norms = np.sqrt(np.einsum("ij,ij->i", columns, columns))  # no k x D temporary
    shifts = np.frexp(norms)[1].astype(np.int64)
    np.ldexp(columns, -shifts[:, None], out=columns)
    weights = np.ldexp(alpha, shifts)
    return columns, weights / weights.max(), shifts


def _lowest_eigenvalue_estimate(factor: NDArray[np.float64]) -> float:
    """About lambda_min of ``factor @ factor.T`` by inverse iteration (not a bound)."""
    vector = np.ones(factor.shape[0]) / math.sqrt(factor.shape[0])
    value = math.inf
    for _ in range(6):
        solved = _cholesky_solve(factor, vector)
        length = float(np.linalg.norm(solved))
        if not length > 0:
            return 0.0
        value = 1.0 / length
        vector = solved / length
    return value


def _cholesky_solve(factor: NDArray[np.float64], right: NDArray[np.float64]) -> NDArray[np.float64]:
    from scipy.linalg import solve_triangular  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    inner = solve_triangular(factor, right, lower=True)
    solved: NDArray[np.float64] = solve_triangular(factor.T, inner, lower=False)
    return solved


def _lowest_eigenvalue_bound(gram: NDArray[np.float64], factor: NDArray[np.float64]) -> float:
    r"""A proven lower bound on :math:`\lambda_{\min}` of the float matrix ``gram`` (or -inf).

    ``factor`` is a Cholesky factor of ``gram`` (used only for the estimate).
    """
    estimate = _lowest_eigenvalue_estimate(factor)
    for fraction in (0.5, 0.125):
        shift = fraction * estimate
        shifted = gram - shift * np.eye(gram.shape[0])
        try:
            lower = np.linalg.cholesky(shifted)
        except np.linalg.LinAlgError:
            continue
        residual = lower @ lower.T - shifted
        error = (
            float(np.linalg.norm(residual)) / (1.0 - _U)
            + _gamma(gram.shape[0]) * float(np.sum(lower * lower))
            + _U * float(np.max(np.abs(np.diag(shifted))))
        )
        bound = shift * (1.0 - 2.0**-40) - _SAFETY * error
        if bound > 0:
            return bound
    return -math.inf


def _polished(
    columns: NDArray[np.float64], weights: NDArray[np.float64], factor: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``weights`` minus their least-squares correction (kept only if it stays positive)."""
    correction = columns @ _cholesky_solve(factor, weights @ columns)
    polished: NDArray[np.float64] = weights - correction
    if not float(polished.min()) > 0:
        return weights
    return polished / float(polished.max())


def _residual(
    support: tuple[NDArray[np.float64], ...],
    shifts: NDArray[np.int64],
    weights: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    r"""The residual :math:`r = \sum_i y_i 2^{-s_i}\operatorname{vec} A_i` in float64, and a proven entrywise bound on its error.

    With :math:`w_i = y_i 2^{-s_i}` (exact), the residual
    :math:`\sum_i w_i (u_t - u_\rho)_i e_i^\top` is formed in numpy's
    ``longdouble`` (unit roundoff :math:`u_e`: :math:`2^{-64}` on x86-64, or
    :math:`2^{-53}` where it is plain double); each entry is a sum of
    :math:`k` products of a rounded difference, so its error is at most
    :math:`\gamma^{(e)}_{k+2}\sum_i w_i |u_t - u_\rho|_i |e_i|^\top`, and the
    rounding to float64 adds :math:`u|\hat r|/(1 - u)`.  ``None`` when a
    weight would be subnormal (then :math:`w_i` is not exact).
    """
    targets, rivals, inputs = support[:3]
    scaled = np.ldexp(weights, -shifts)
    if np.any((scaled > 0) & (scaled < np.finfo(np.float64).tiny)):
        return None
    extended = np.longdouble
    unit = float(np.finfo(extended).eps) / 2.0
    differences = targets.astype(extended) - rivals.astype(extended)
    residual = (
        (differences * scaled.astype(extended)[:, None]).T @ inputs.astype(extended)
    ).astype(np.float64)
    magnitude = (np.abs(targets - rivals) * scaled[:, None]).T @ np.abs(inputs)
    count = weights.size + 2
    growth = count * unit / (1.0 - count * unit)
    error = _SAFETY * (_U / (1.0 - _U) * np.abs(residual) + _SAFETY * growth * magnitude)
    return residual.reshape(-1), error.reshape(-1)


def _residual_bound(
    support: tuple[NDArray[np.float64], ...],
    shifts: NDArray[np.int64],
    weights: NDArray[np.float64],
) -> float:
    r"""Proven bound on :math:`\|\sum_i y_i 2^{-s_i} A_i\|_F` (:func:`_residual`)."""
    formed = _residual(support, shifts, weights)
    if formed is None:
        return math.inf  # a subnormal weight would not be exact
    residual, error = formed
    return _SAFETY * (float(np.linalg.norm(residual)) + float(np.linalg.norm(error)))


def _perturbation_proof(
    support: tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]
    ],
) -> tuple[bool, str]:
    columns, weights, shifts = _scaled_columns(*support)
    count, dimension = columns.shape
    if count <= dimension:
        return False, f"support of {count} constraints cannot span R^{dimension}"
    gram = columns.T @ columns
    try:
        factor = np.asarray(np.linalg.cholesky(gram), dtype=np.float64)
    except np.linalg.LinAlgError:
        return False, f"no proof that the {count} constraints span R^{dimension}"
    weights = _polished(columns, weights, factor)
    residual_bound = _residual_bound(support, shifts, weights)
    frobenius2 = float(np.sum(columns * columns))
    lowest = _lowest_eigenvalue_bound(gram, factor) - _SAFETY * _gamma(count) * frobenius2
    widened = _gamma(2) / (1.0 - _gamma(2))
    sigma = math.sqrt(max(lowest, 0.0)) * (1.0 - 2.0**-40) - _SAFETY * widened * math.sqrt(
        frobenius2
    )
    if not (lowest > 0 and sigma > 0):
        return False, f"no proof that the {count} constraints span R^{dimension}"
    correction = _SAFETY * residual_bound / sigma
    smallest = float(weights.min())
    detail = (
        f"{count} constraints span R^{dimension}: residual <= {residual_bound:.2e}, "
        f"sigma_min >= {sigma:.2e}, correction <= {correction:.2e} "
        f"{'<' if correction < smallest else '>='} smallest weight {smallest:.2e}"
    )
    return correction < smallest, detail


def _perturbation_flops(count: int, dimension: int) -> float:
    r"""Flops of :func:`_perturbation_proof`: Gram :math:`2kD^2`, two Cholesky :math:`2D^3/3`, residual :math:`2D^3`."""
    return 2.0 * count * dimension**2 + (2.0 / 3.0 + 2.0) * dimension**3


# --------------------------------------------------------------------------- verified inverse
def _basis_last(
    columns: NDArray[np.float64], weights: NDArray[np.float64], dimension: int
) -> NDArray[np.int64]:
    """Swap rows of ``columns`` in place so that the ``k - D`` heaviest weights come last.

    Returns the permutation applied (``columns`` after = ``columns`` before ``[order]``).
    """
    count = weights.size
    order = np.arange(count)
    heavy = np.argsort(weights, kind="stable")[dimension:]
    inside = np.setdiff1d(heavy, np.arange(dimension, count))  # heavy rows among the first D
    free = np.setdiff1d(np.arange(dimension, count), heavy)  # last rows that are not heavy
    for row, other in zip(inside.tolist(), free.tolist(), strict=True):
        columns[[row, other]] = columns[[other, row]]
        order[[row, other]] = order[[other, row]]
    return order


@dataclass
class _InverseSums:
    """What one pass over the rows of ``X`` gathers (:func:`_inverse_pass`)."""

    alpha_inf: float  # ||I - X A_B||_inf, proven (before the 1 % inflation)
    column_sums: NDArray[np.float64]  # column sums of |fl(fl(X A_B) - I)|
    x_column_sums: NDArray[np.float64]  # column sums of |X|
    x_frobenius2: float  # ||X||_F^2 (evaluated)
    correction: NDArray[np.float64]  # proven bound on |X r|, entrywise


def _inverse_pass(
    lu: tuple[NDArray[np.float64], NDArray[np.int32]],
    basis: NDArray[np.float64],
    residual: NDArray[np.float64],
    error: NDArray[np.float64],
) -> _InverseSums:
    r"""Rows of :math:`X \approx A_B^{-1}` in blocks, and the bounds of the verified-inverse proof.

    ``basis`` holds :math:`\hat A_B^\top` (row :math:`j` is column :math:`j` of
    :math:`\hat A_B`); ``lu`` is scipy's LU factorisation of ``basis``, whose
    solves :math:`\hat A_B^\top z = e_j` give the rows of :math:`X`, a block at a
    time (any float matrix :math:`X` will do: every bound is about the
    :math:`X` actually formed, whatever the accuracy of the solves).
    """
    from scipy.linalg import lu_solve  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    dimension = basis.shape[0]
    row_abs = np.zeros(dimension)  # |A_B| 1, entry i = sum_j |basis[j, i]|
    for start in range(0, dimension, _INVERSE_BLOCK):
        row_abs += np.abs(basis[start : start + _INVERSE_BLOCK]).sum(axis=0)
    growth = _gamma(dimension) + _gamma(2) / (1.0 - _gamma(2))
    sums = _InverseSums(0.0, np.zeros(dimension), np.zeros(dimension), 0.0, np.empty(dimension))
    spread_residual = _gamma(dimension) * np.abs(residual) + error
    for start in range(0, dimension, _INVERSE_BLOCK):
        stop = min(start + _INVERSE_BLOCK, dimension)
        unit = np.zeros((dimension, stop - start))
        unit[np.arange(start, stop), np.arange(stop - start)] = 1.0
        rows = np.ascontiguousarray(lu_solve(lu, unit, check_finite=False).T)  # X[start:stop]
        del unit
        product = rows @ basis.T  # fl(X A_B) on these rows
        product[np.arange(stop - start), np.arange(start, stop)] -= 1.0
        np.abs(product, out=product)
        absolute = np.abs(rows)
        sums.alpha_inf = max(
            sums.alpha_inf,
            float(np.max(product.sum(axis=1) / (1.0 - _U) + growth * (absolute @ row_abs))),
        )
        sums.column_sums += product.sum(axis=0)
        del product
        sums.x_column_sums += absolute.sum(axis=0)
        sums.x_frobenius2 += float(np.einsum("ij,ij->", rows, rows))
        sums.correction[start:stop] = np.abs(rows @ residual) + absolute @ spread_residual
    return sums


def _inverse_norm_one(sums: _InverseSums, basis: NDArray[np.float64]) -> float:
    r"""Proven bound on :math:`\|I - X A_B\|_1` from the column sums of a pass."""
    growth = _gamma(basis.shape[0]) + _gamma(2) / (1.0 - _gamma(2))
    spread = np.zeros(basis.shape[0])  # 1^T |X| |A_B|: entry j = sum_i s_i |A_B[i, j]|
    for start in range(0, basis.shape[0], _INVERSE_BLOCK):
        block = np.abs(basis[start : start + _INVERSE_BLOCK])
        spread[start : start + block.shape[0]] = block @ sums.x_column_sums
    return float(np.max(sums.column_sums / (1.0 - _U) + growth * spread))


@dataclass(frozen=True)
class _InverseBound:
    """The numbers of one verified-inverse bound (:func:`_verified_inverse_bound`).

    ``order`` lists the support's constraints with the basis ``B`` first;
    ``weights`` (the :math:`y` of the proof) and ``shifts`` follow it.
    """

    order: NDArray[np.int64]
    shifts: NDArray[np.int64]
    weights: NDArray[np.float64]
    alpha: float  # proven ||I - X A_B||_inf
    sigma: float  # proven lower bound on sigma_min(A_B) (0 when none)
    correction: float  # proven bound on ||A_B^{-1} r||_inf

    @property
    def proven(self) -> bool:
        return self.correction < float(self.weights.min())


def _verified_inverse_bound(
    support: tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]
    ],
) -> _InverseBound | str:
    """The verified-inverse bound on the support's correction, or why there is none."""
    from scipy.linalg import LinAlgWarning, lu_factor, lu_solve  # noqa: PLC0415

    columns, weights, shifts = _scaled_columns(*support)
    count, dimension = columns.shape
    if count <= dimension:
        return f"support of {count} constraints cannot span R^{dimension}"
    order = _basis_last(columns, weights, dimension)
    weights, shifts = weights[order], shifts[order]
    support = (support[0][order], support[1][order], support[2][order], support[3][order])
    basis = columns[:dimension]  # A_B^T, a view
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinAlgWarning)
        try:
            lu = lu_factor(basis, check_finite=False)
        except LinAlgWarning:  # an exactly zero pivot
            return f"{count} constraints: the {dimension} lightest are singular in float64"
    first = _residual(support, shifts, weights)
    if first is None:
        return "a scaled weight is subnormal"
    polished = weights.copy()
    polished[:dimension] -= lu_solve(lu, first[0], trans=1, check_finite=False)
    if float(polished.min()) > 0:
        weights = polished
    formed = _residual(support, shifts, weights)
    if formed is None:
        return "a scaled weight is subnormal"
    sums = _inverse_pass(lu, basis, *formed)
    del lu
    alpha = _SAFETY * sums.alpha_inf
    if not alpha < 1.0:  # also NaN (a singular basis gives infinite X)
        return (
            f"{count} constraints: no proof that {dimension} of them span R^{dimension} "
            f"(||I - X A_B||_inf <= {alpha:.2e})"
        )
    correction = _SAFETY * float(np.max(sums.correction)) / (1.0 - alpha)
    alpha_two = math.sqrt(
        alpha * _SAFETY * _inverse_norm_one(sums, basis)
    )  # ||.||_2^2 <= ||.||_1 ||.||_inf
    sigma = (1.0 - alpha_two) / (_SAFETY * math.sqrt(sums.x_frobenius2)) if alpha_two < 1 else 0.0
    return _InverseBound(order, shifts, weights, alpha, sigma, correction)


def _verified_inverse_proof(
    support: tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]
    ],
) -> tuple[bool, str]:
    bound = _verified_inverse_bound(support)
    if isinstance(bound, str):
        return False, bound
    count, dimension = bound.weights.size, support[0].shape[1] * support[2].shape[1]
    smallest = float(bound.weights.min())
    detail = (
        f"{count} constraints span R^{dimension} (verified inverse of {dimension} of them: "
        f"||I - X A_B||_inf <= {bound.alpha:.2e}, sigma_min(A_B) >= {bound.sigma:.2e}): "
        f"correction <= {bound.correction:.2e} {'<' if bound.proven else '>='} "
        f"smallest weight {smallest:.2e}"
    )
    return bound.proven, detail


def _verified_inverse_bytes(count: int, dimension: int) -> int:
    r"""Bytes :func:`_verified_inverse_proof` holds at most: :math:`8(kD + D^2 + 6bD)` and the vectors."""
    block = 6 * _INVERSE_BLOCK * dimension
    return 8 * (count * dimension + dimension * dimension + block + 16 * (count + dimension))


def _verified_inverse_flops(dimension: int) -> float:
    r"""Flops of :func:`_verified_inverse_proof`: LU :math:`2D^3/3`, the rows of :math:`X` :math:`2D^3`, :math:`XA_B` :math:`2D^3`."""
    return (2.0 / 3.0 + 4.0) * dimension**3


# --------------------------------------------------------------------------- exact arithmetic
def _integers(values: NDArray[np.float64]) -> tuple[list[list[int]], int]:
    """``values = m * 2**low`` with integer entries ``m`` (exact), as nested lists."""
    mantissas, exponents = np.frexp(values)
    integers = (mantissas * 2.0**53).astype(np.int64)
    exponents = exponents.astype(np.int64) - 53
    nonzero = integers != 0
    low = int(exponents[nonzero].min()) if np.any(nonzero) else 0
    rows = [
        [int(m) << int(e - low) if m else 0 for m, e in zip(row_m, row_e, strict=True)]
        for row_m, row_e in zip(integers.tolist(), exponents.tolist(), strict=True)
    ]
    return rows, low


def _integer_columns(
    targets: NDArray[np.float64], rivals: NDArray[np.float64], inputs: NDArray[np.float64]
) -> list[list[int]]:
    """Columns ``vec((u_t - u_rho) e^T)`` times one power of two, as exact integers."""
    stacked, _ = _integers(np.concatenate([targets, rivals]))
    count = targets.shape[0]
    left, right = stacked[:count], stacked[count:]
    input_rows, _ = _integers(inputs)
    columns = []
    for target, rival, vector in zip(left, right, input_rows, strict=True):
        difference = [a - b for a, b in zip(target, rival, strict=True)]
        columns.append([a * e for a in difference for e in vector])
    return columns


def _null_space(columns: list[list[int]]) -> list[list[int]]:
    """Integer basis of ``{z : sum_j z_j columns[j] = 0}`` (fraction-free Gauss–Jordan)."""
    count, dimension = len(columns), len(columns[0])
    matrix = [[columns[j][i] for j in range(count)] for i in range(dimension)]
    previous, rank, pivots = 1, 0, []
    for column in range(count):
        row = next((i for i in range(rank, dimension) if matrix[i][column] != 0), None)
        if row is None:
            continue
        matrix[rank], matrix[row] = matrix[row], matrix[rank]
        pivot_row = matrix[rank]
        pivot = pivot_row[column]
        for i in range(dimension):
            if i != rank:
                factor = matrix[i][column]
                matrix[i] = [
                    (pivot * a - factor * b) // previous
                    for a, b in zip(matrix[i], pivot_row, strict=True)
                ]
        previous = pivot
        pivots.append(column)
        rank += 1
        if rank == dimension:
            break
    basis = []
    for free in (j for j in range(count) if j not in pivots):
        vector = [0] * count
        vector[free] = previous
        for row_index, column in enumerate(pivots):
            vector[column] = -matrix[row_index][free]
        basis.append(vector)
    return basis


def _nonnegative_member(basis: list[list[int]], alpha: NDArray[np.float64]) -> list[int] | None:
    """A non-negative non-zero integer vector in the span of ``basis`` (or None)."""
    if len(basis) == 1:
        vector = basis[0]
        sign = -1 if sum(vector) < 0 else 1
        return [sign * value for value in vector]
    scaled = [
        [Fraction(v, 1 << max(0, max(abs(x) for x in b).bit_length() - 60)) for v in b]
        for b in basis
    ]
    matrix = np.array([[float(v) for v in b] for b in scaled]).T
    coefficients = np.linalg.lstsq(matrix, alpha / alpha.max(), rcond=None)[0]
    combination = [
        sum(
            (Fraction(float(c)) * b[j] for c, b in zip(coefficients, scaled, strict=True)),
            Fraction(0),
        )
        for j in range(len(alpha))
    ]
    denominator = math.lcm(*(value.denominator for value in combination))
    return [int(value * denominator) for value in combination]


def _exact_proof(
    targets: NDArray[np.float64],
    rivals: NDArray[np.float64],
    inputs: NDArray[np.float64],
    alpha: NDArray[np.float64],
) -> tuple[bool, str]:
    columns = _integer_columns(targets, rivals, inputs)
    basis = _null_space(columns)
    count = len(columns)
    if not basis:
        return False, f"the {count} constraints are linearly independent (exact arithmetic)"
    vector = _nonnegative_member(basis, alpha)
    if vector is None or min(vector) < 0 or not any(vector):
        return False, f"no non-negative vector in the {len(basis)}-dimensional null space found"
    residual_zero = all(
        sum(column[i] * weight for column, weight in zip(columns, vector, strict=True)) == 0
        for i in range(len(columns[0]))
    )
    if not residual_zero:  # the elimination is only the means; this check is the proof
        return False, "the null vector does not re-check"
    used = sum(1 for value in vector if value > 0)
    return True, f"exact rational arithmetic: {used} of {count} constraints cancel exactly"


def _guarded_verified_inverse_proof(
    support: tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]
    ],
    dimension: int,
) -> tuple[bool, str]:
    """:func:`_verified_inverse_proof` when ``D`` is small enough and its memory is available."""
    count = support[3].size
    flops = _verified_inverse_flops(dimension)
    if dimension > VERIFIED_INVERSE_MAX_DIMENSION:
        return False, (
            f"support of {count} constraints in R^{dimension}: the verified-inverse proof "
            f"is not tried above D = {VERIFIED_INVERSE_MAX_DIMENSION} (about {flops:.1e} flops)"
        )
    need, have = _verified_inverse_bytes(count, dimension), available_memory()
    if need > have:
        return False, (
            f"the verified-inverse proof needs {need / 1e9:.2f} GB, "
            f"{have / 1e9:.2f} GB available: not tried"
        )
    return _verified_inverse_proof(support)


def prove_infeasible(instance: Instance, certificate: FarkasCertificate) -> InfeasibilityProof:
    r"""Try to prove that no ``W`` recalls every association, from a Farkas certificate.

    .. math::

        \exists\, y \ge 0,\ y \ne 0:\ \sum_{i \in S} y_i (u_t - u_\rho) e_\mu^\top = 0
        \;\Longrightarrow\; \gamma^* \le 0

    exactly, on the float64 numbers of ``instance`` (module docstring:
    perturbation bounds when the support spans :math:`\mathbb R^{d^2}`, through
    the Gram matrix up to :math:`d = 64` and through a verified inverse of
    :math:`d^2` of its constraints up to :math:`d = 128` when the memory is
    there; exact rational arithmetic for supports of at most
    :data:`EXACT_MAX_SUPPORT` constraints; arXiv:2605.10795 for the
    constraints).  A ``False`` answer proves nothing either way.  The verified
    inverse costs :math:`14d^6/3` flops: minutes at :math:`d = 96` and 128.

    Parameters
    ----------
    instance : Instance
        The instance the certificate is about.
    certificate : FarkasCertificate
        Its constraints and non-negative multipliers; ``epsilon`` is not read.

    Returns
    -------
    InfeasibilityProof
        ``proven``, the ``method`` that worked and the numbers behind it.

    Examples
    --------
    >>> from lamcap.problems import Instance
    >>> # d = 1: (u0 - u1) w e0 > 0 and (u1 - u0) w e1 > 0 clash when e0 e1 > 0
    >>> instance = Instance.from_arrays([[0.5], [0.25]], [[1.0], [-1.0]], [0, 1], model="original")
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0]), 0.0)
    >>> proof = prove_infeasible(instance, cert)
    >>> proof.proven, proof.method
    (True, 'perturbation')
    """
    start = time.perf_counter()
    targets, rivals, inputs, alpha = _support(instance, certificate)
    if alpha.size == 0:
        return InfeasibilityProof(False, "", "empty support", time.perf_counter() - start)
    details = []
    dimension = instance.d * instance.d
    support = (targets, rivals, inputs, alpha)
    if alpha.size > dimension:
        if dimension <= PERTURBATION_MAX_DIMENSION:
            needed, available = perturbation_proof_bytes(alpha.size, dimension), available_memory()
            if needed > available:
                details.append(
                    f"the perturbation proof needs {needed / 1e9:.2f} GB of memory, "
                    f"{available / 1e9:.2f} GB available: not tried"
                )
            else:
                proven, detail = _perturbation_proof(support)
                if proven:
                    return InfeasibilityProof(
                        True, "perturbation", detail, time.perf_counter() - start
                    )
                details.append(detail)
        else:
            details.append(
                f"the perturbation proof is not tried above D = {PERTURBATION_MAX_DIMENSION} "
                f"(about {_perturbation_flops(alpha.size, dimension):.1e} flops)"
            )
        proven, detail = _guarded_verified_inverse_proof(support, dimension)
        if proven:
            return InfeasibilityProof(True, "verified_inverse", detail, time.perf_counter() - start)
        details.append(detail)
    if alpha.size <= EXACT_MAX_SUPPORT:
        proven, detail = _exact_proof(targets, rivals, inputs, alpha)
        if proven:
            return InfeasibilityProof(True, "exact", detail, time.perf_counter() - start)
        details.append(detail)
    else:
        details.append(
            f"support of {alpha.size} > {EXACT_MAX_SUPPORT} constraints for exact arithmetic"
        )
    return InfeasibilityProof(False, "", "; ".join(details), time.perf_counter() - start)
