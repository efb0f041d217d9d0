r"""Margins, Farkas certificates and their independent checks.

Everything here is recomputed from the instance alone, in float64, with plain
numpy (no solver code), so that a verdict can be trusted without reading the
solvers.

Normalised margin
-----------------
For weights :math:`W \ne 0` and a constraint :math:`i = (\mu, \rho)`,
:math:`\rho \ne t = t(\mu)`,

.. math::

    \gamma_i(W) = \frac{(u_t - u_\rho)^\top W e_\mu}
                  {\|W\|_F\,\|e_\mu\|\,\nu_{\mu\rho}},
    \qquad \nu_{\mu\rho} = \sqrt{\|u_t\|^2 + \|u_\rho\|^2}

(outputs of association :math:`\mu`).  ``min_margin`` is
:math:`\min_i \gamma_i(W)` over all :math:`n(p-1)` constraints.  It is scale
invariant, and :math:`\|u_t - u_\rho\| \le \sqrt2\,\nu_{\mu\rho}`, so
:math:`\gamma_i \le \sqrt 2`.

Rounding (the error the verdict allows for).  ``W`` is first scaled by a power
of two (exact) so that its largest entry is in :math:`[1/2, 1)`: the margins
are scale invariant, and no product overflows.  The scores
:math:`s_\rho = u_\rho^\top (W e_\mu)` are float64 dot products of length
:math:`d` (any summation order), so
:math:`|\tilde s_\rho - s_\rho| \le \eta_d(2 + \eta_d)\|u_\rho\|\|W\|_F\|e_\mu\|`
with :math:`\eta_k = k u/(1 - k u)` (Higham's :math:`\gamma_k`), :math:`u = 2^{-53}`; the normalisation
(Frobenius norm, a dot product of length :math:`d^2`, the vector norms, the
square root and the division) is a relative error of at most
:math:`(d^2/2 + d + 9)u`.  With :math:`|\gamma_i| \le \sqrt2` every computed margin
is within

.. math::

    \delta_W(d) = 1.01\,\sqrt2\,(d^2/2 + 3d + 9)\,2^{-53}

of the exact one (:func:`margin_error`; :math:`3.6 \times 10^{-13}` at
:math:`d = 64`, :math:`8 \times 10^{-11}` at :math:`d = 1000`; the factor
1.01 covers the second-order terms).  A margin that is NaN or :math:`\pm\infty`
(overflow in the instance data, a zero input) proves nothing: the minimum is
then NaN (:func:`running_minimum`, the one reduction every solver uses).

Low-rank weights :math:`W = QR^\top` (``Q``, ``R`` of shape :math:`d \times r`,
:math:`r \le d`, the rank) are checked on the product formed in float64, whose entries
are within :math:`\eta_r (|Q||R|^\top)_{ab}` of the exact product, i.e.

.. math::

    \delta_{QR} = 2\sqrt2\,\eta_r\,\frac{\|Q\|_F \|R\|_F}{\|\tilde W\|_F}

in normalised margin (the factor 2: the numerator and the normalisation by
:math:`\|W\|_F` both move).  When that exceeds :math:`10^{-12}` (massive
cancellation in :math:`QR^\top`), the product is formed again with
error-free transformations (Dekker's product and Knuth's sum: each entry is
the float sum :math:`h`, the exactly known rounding errors :math:`q_k, e_k`
summed separately, then :math:`h + \ell` rounded once), whose error is at
most :math:`u|\tilde W| + \eta_{2r}/(1 - \eta_{2r})\,T + r 2^{-1073}`
entrywise with :math:`T = \sum_k |q_k| + |e_k|` computed alongside, and
:math:`\delta_{QR}` is :math:`2\sqrt2` times its Frobenius norm over
:math:`\|\tilde W\|_F` (:func:`product_with_error`).

Hence the rule: ``W`` is **verified** (recalls every association) iff the
recomputed ``min_margin`` exceeds both :data:`FEASIBILITY_TOLERANCE`
:math:`= 10^{-9}` and its proven error :math:`\delta_W + \delta_{QR}`; the
exact margin is then positive.

Farkas certificate
------------------
Each constraint is rank one, :math:`A_i = (u_t - u_\rho) e_\mu^\top`.  A
certificate is a set of constraints with weights :math:`\alpha_i \ge 0`.  With

.. math::

    R = \sum_i \alpha_i A_i = \sum_\mu v_\mu e_\mu^\top,\quad
    v_\mu = \sum_\rho \alpha_{\mu\rho} (u_t - u_\rho), \qquad
    \varepsilon = \frac{\|R\|_F}{\sum_i \alpha_i \|e_\mu\| \nu_{\mu\rho}},

every :math:`W \ne 0` satisfies :math:`\min_i \gamma_i(W) \le \varepsilon`
(because :math:`\sum_i \alpha_i \gamma_i \|W\|_F \|e_\mu\| \nu_i = \langle W, R\rangle
\le \|W\|_F \|R\|_F`).  The check costs :math:`O(|S| d + n d^2)`; no
:math:`d^2`-column matrix is built.  Exact arithmetic would have
:math:`\varepsilon = 0` for a true Farkas vector; in float64 the check adds the
rounding allowance :math:`2\sqrt2(2|S| + d + 2)2^{-53}` to the recomputed
:math:`\varepsilon`.  **Infeasible** is claimed iff that bound is
:math:`\le` :data:`FEASIBILITY_TOLERANCE`: no ``W`` reaches a normalised
margin above :math:`\varepsilon \le 10^{-9}` (:math:`\gamma^* \le \varepsilon`).
That alone does not exclude a ``W`` with positive margins below
:math:`\varepsilon`; :func:`lamcap.solvers.prove_infeasible`
then tries to prove :math:`\gamma^* \le 0` exactly (no ``W`` recalls every
association), and the certificate's ``exact`` flag says which of the two it
carries.  The two verdicts can never both hold for one instance.

References: docs/theory/index.md, docs/theory/cone.md; arXiv:2605.10795.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._deprecation import renamed_keywords
from lamcap._validation import check_finite_array
from lamcap.problems import Instance, check_instance, check_weights

FEASIBILITY_TOLERANCE = 1e-9
"""Feasible iff min normalised margin > this; infeasible iff certified bound <= this."""

_UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True, eq=False)
class FarkasCertificate:
    r"""Weights :math:`\alpha \ge 0` on a subset of constraints proving a margin bound.

    Attributes
    ----------
    associations : ndarray of int64, shape (k,)
        :math:`\mu` of each constraint.
    competitors : ndarray of int64, shape (k,)
        :math:`\rho` of each constraint (never the target of :math:`\mu`).
    alpha : ndarray of float64, shape (k,)
        Non-negative multipliers, not all zero (any positive scale).
    epsilon : float
        The bound :math:`\gamma^* \le \varepsilon` the producer claims;
        checking recomputes it (:func:`certificate_bound`).
    exact : bool
        True when the certificate was proven to be an exact Farkas vector on
        its support (:func:`lamcap.solvers.prove_infeasible`):
        no ``W`` recalls every association, :math:`\gamma^* \le 0`.  False:
        it proves only :math:`\gamma^* \le \varepsilon`.

    Examples
    --------
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0]), 0.0)
    >>> cert.alpha.sum()
    np.float64(3.0)
    """

    associations: NDArray[np.int64]
    competitors: NDArray[np.int64]
    alpha: NDArray[np.float64]
    epsilon: float
    exact: bool = False


_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's constant, splits a float into two 26-bit halves
_PRODUCT_PRECISION = 1e-12  # the float product Q @ R.T is kept when its bound is below this
_WORST_SHOWN = 5  # associations listed by MarginCheck.describe


def _gamma(count: int) -> float:
    r""":math:`\eta_k = k u / (1 - k u)` (Higham's :math:`\gamma_k`), the relative error bound of a length-``k`` float sum."""
    return count * _UNIT_ROUNDOFF / (1.0 - count * _UNIT_ROUNDOFF)


def margin_error(d: int) -> float:
    r"""Proven bound on the rounding error of every normalised margin of a ``d x d`` ``W``.

    .. math::

        \delta_W(d) = 1.01\,\sqrt2\,(d^2/2 + 3d + 9)\,2^{-53}

    (derivation in the module docstring; arXiv:2605.10795 for the margins).
    A computed margin :math:`\tilde \gamma_i` and the exact one satisfy
    :math:`|\tilde \gamma_i - \gamma_i| \le \delta_W(d)`.

    Examples
    --------
    >>> f"{margin_error(64):.2e}"
    '3.57e-13'
    """
    return 1.01 * math.sqrt(2.0) * (d * d / 2 + 3 * d + 9) * _UNIT_ROUNDOFF


def _power_of_two_scaled(array: NDArray[np.float64]) -> NDArray[np.float64]:
    """``array`` times the power of two putting its largest magnitude in ``[1/2, 1)`` (exact).

    Entries more than :math:`2^{1022}` times smaller than the largest become
    subnormal and are rounded by at most :math:`2^{-1075}`, far inside the
    margin's error bound.
    """
    largest = float(np.max(np.abs(array))) if array.size else 0.0
    if largest == 0.0:
        return array
    scaled: NDArray[np.float64] = np.ldexp(array, -math.frexp(largest)[1])
    return scaled


def _split(values: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Veltkamp's split ``values = high + low`` with 26-bit halves (exact, no overflow below 2**996)."""
    spread = _SPLITTER * values
    high = spread - (spread - values)
    return high, values - high


def _compensated_product(
    left: NDArray[np.float64], right: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""``left @ right.T`` accurate to about one rounding, and an entrywise error bound.

    Each product :math:`Q_{ak}R_{bk} = p_k + e_k` exactly (Dekker's product
    on Veltkamp halves); the running sum :math:`h \leftarrow h + p_k` keeps
    its rounding error :math:`q_k` exactly (Knuth's two-sum); the errors are
    summed in float into :math:`\ell`, and :math:`\tilde W = \mathrm{fl}(h + \ell)`.
    Then the exact product is :math:`h + \sum_k (q_k + e_k)`, so
    :math:`|\tilde W - QR^\top| \le u|\tilde W| + \frac{\eta_{2r}}{1-\eta_{2r}} T
    + r 2^{-1073}` with :math:`T = \mathrm{fl}(\sum_k |q_k| + |e_k|)` (the last
    term covers products that underflow).  Returns ``(W, bound)``.
    """
    left_high, left_low = _split(left)
    right_high, right_low = _split(right)
    high = np.zeros((left.shape[0], right.shape[0]))
    low = np.zeros_like(high)
    magnitude = np.zeros_like(high)
    for k in range(left.shape[1]):
        product = np.multiply.outer(left[:, k], right[:, k])
        error = np.multiply.outer(left_high[:, k], right_high[:, k]) - product
        error += np.multiply.outer(left_high[:, k], right_low[:, k])
        error += np.multiply.outer(left_low[:, k], right_high[:, k])
        error += np.multiply.outer(left_low[:, k], right_low[:, k])
        total = high + product
        virtual = total - high
        lost = (high - (total - virtual)) + (product - virtual)
        high = total
        low += lost
        low += error
        magnitude += np.abs(lost)
        magnitude += np.abs(error)
    matrix = high + low
    count = 2 * left.shape[1]
    bound = (
        _UNIT_ROUNDOFF * np.abs(matrix)
        + _gamma(count) / (1.0 - _gamma(count)) * magnitude
        + left.shape[1] * 2.0**-1073
    )
    return matrix, bound


def product_with_error(left: ArrayLike, right: ArrayLike) -> tuple[NDArray[np.float64], float]:
    r"""The product :math:`\tilde W \approx QR^\top` and the margin error its rounding can cause.

    ``left`` and ``right`` (``Q`` and ``R``, each ``d x r``, finite) are first
    scaled by powers of two (exact; margins are scale invariant), so the
    returned matrix is a positive multiple of :math:`QR^\top`.  The bound is

    .. math::

        \delta_{QR} = 2\sqrt2\,\frac{\|E\|_F}{\|\tilde W\|_F},\qquad
        |E| \le \eta_r |Q||R|^\top \ \text{(float product, }
        \|E\|_F \le \eta_r\|Q\|_F\|R\|_F)

    and when that exceeds :math:`10^{-12}` the product is formed with
    error-free transformations instead (module docstring), whose :math:`|E|`
    is about one rounding of :math:`\tilde W`.  Every normalised margin of
    :math:`\tilde W` is then within :math:`\delta_{QR}` (plus
    :func:`margin_error`) of the exact margin of :math:`QR^\top`.  ``inf``
    when :math:`\tilde W = 0`.

    Examples
    --------
    >>> q = np.ones((1, 4))
    >>> r = np.array([[1.0, -(2.0**-54), -1.0, 2.0**-60]])
    >>> w, bound = product_with_error(q, r)   # exact product: -(2**-54 - 2**-60) < 0
    >>> bool(w[0, 0] < 0), bound < 1e-12
    (True, True)
    """
    q = _power_of_two_scaled(np.asarray(left, dtype=np.float64))
    r = _power_of_two_scaled(np.asarray(right, dtype=np.float64))
    matrix = q @ r.T
    norm = float(np.linalg.norm(matrix))
    spread = _gamma(q.shape[1]) * float(np.linalg.norm(q)) * float(np.linalg.norm(r))
    bound = 2.0 * math.sqrt(2.0) * spread / norm if norm > 0 else math.inf
    if bound > _PRODUCT_PRECISION:
        matrix, entrywise = _compensated_product(q, r)
        norm = float(np.linalg.norm(matrix))
        spread = float(np.linalg.norm(entrywise))
        bound = 2.0 * math.sqrt(2.0) * spread / norm if norm > 0 else math.inf
    return matrix, 1.01 * bound  # 1.01: rounding of the bound's own evaluation


def _checked_pair(
    weights: tuple[Any, ...], d: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if len(weights) != 2:
        msg = f"weights must be W or a pair (Q, R), got a tuple of length {len(weights)}"
        raise ValueError(msg)
    left = check_finite_array("Q", weights[0])
    right = check_finite_array("R", weights[1])
    if left.ndim != 2 or left.shape[0] != d or right.shape != left.shape:
        msg = f"Q and R must both have shape ({d}, r) for a rank r, got {left.shape} and {right.shape}"
        raise ValueError(msg)
    if not 1 <= left.shape[1] <= d:
        msg = f"the rank r (inner dimension of Q and R) must be in [1, {d}], got {left.shape[1]}"
        raise ValueError(msg)
    return left, right


def weights_matrix(weights: Any, d: int) -> NDArray[np.float64]:
    """Return the ``d x d`` matrix of ``weights`` (``W``, or ``(Q, R)`` meaning ``Q @ R.T``).

    Raises ``ValueError`` for wrong shapes (``Q`` and ``R`` are ``d x r`` with
    ``1 <= r <= d``) or non-finite entries.  The product is the plain float64
    one; checks use :func:`product_with_error` instead.

    Examples
    --------
    >>> weights_matrix((np.ones((3, 1)), np.ones((3, 1))), 3).sum()
    np.float64(9.0)
    """
    if isinstance(weights, tuple):
        left, right = _checked_pair(weights, d)
        return left @ right.T
    array = check_finite_array("W", weights)
    if array.shape != (d, d):
        msg = f"W must have shape ({d}, {d}), got {array.shape}"
        raise ValueError(msg)
    return array


def _checked_matrix(weights: Any, d: int) -> tuple[NDArray[np.float64], float]:
    """Validated weights as a scaled ``d x d`` matrix and the error bound of forming it."""
    if isinstance(weights, tuple):
        return product_with_error(*_checked_pair(weights, d))
    return _power_of_two_scaled(weights_matrix(weights, d)), 0.0


def running_minimum(
    lowest: float, values: ArrayLike, targets: NDArray[np.int64] | None = None
) -> float:
    r"""``min(lowest, values)`` that turns NaN as soon as anything is NaN or :math:`\pm\infty`.

    The one reduction of margins in lamcap (verdicts, score passes, trainers):
    Python's ``min(inf, nan)`` is ``inf``, so a block of NaN margins (from an
    overflow) would otherwise vanish from the minimum.  ``values`` is one
    block of margins; with ``targets``, it is ``(b, p)`` and entry
    ``(i, targets[i])`` of each row is not a constraint and is ignored.
    Start from ``lowest = inf``.

    Examples
    --------
    >>> running_minimum(math.inf, np.array([0.3, 0.1]))
    0.1
    >>> running_minimum(0.1, np.array([np.nan, 1.0]))
    nan
    >>> running_minimum(0.1, np.array([[np.inf, 0.5]]), targets=np.array([0]))
    0.1
    """
    if math.isnan(lowest):
        return math.nan
    array = np.asarray(values, dtype=np.float64)
    if targets is None:
        if not np.all(np.isfinite(array)):
            return math.nan
        return min(lowest, float(array.min())) if array.size else lowest
    constraint = np.ones(array.shape, dtype=np.bool_)
    constraint[np.arange(array.shape[0]), targets] = False
    if np.any(constraint & ~np.isfinite(array)):
        return math.nan
    return min(lowest, float(np.min(array, where=constraint, initial=math.inf)))


def _margin_blocks(
    instance: Instance, weights: NDArray[np.float64]
) -> Iterator[tuple[int, NDArray[np.float64]]]:
    """Yield ``(start, normalised margins of a block)`` with target entries ``+inf``."""
    frobenius = float(np.linalg.norm(weights))
    hidden = instance.inputs @ weights.T  # row mu is W e_mu
    input_norms = np.linalg.norm(instance.inputs, axis=1)
    for start, block_scores, norms2, _ in instance.scored_blocks(hidden):
        stop = start + block_scores.shape[0]
        rows = np.arange(block_scores.shape[0])
        targets = instance.targets[start:stop]
        target_scores = block_scores[rows, targets][:, None]
        target_norms2 = norms2[rows, targets][:, None]
        scale = frobenius * input_norms[start:stop, None]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            margins = (target_scores - block_scores) / (scale * np.sqrt(target_norms2 + norms2))
        margins[rows, targets] = np.inf
        yield start, margins


def constraint_margins(instance: Instance, W: ArrayLike) -> NDArray[np.float64]:
    r"""All normalised margins :math:`\gamma_{\mu\rho}(W)`, shape ``(n, p)``, target entries ``+inf``.

    .. math::

        \gamma_{\mu\rho} = \frac{(u_t - u_\rho)^\top W e_\mu}
        {\|W\|_F \|e_\mu\| \sqrt{\|u_t\|^2 + \|u_\rho\|^2}}

    Accurate to :func:`margin_error` (module docstring).  ``W = 0`` gives NaN.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(40, 3, n=2, seed=0)
    >>> margins = constraint_margins(instance, hebbian_weights(instance))
    >>> margins.shape, bool(np.all(margins[:, 0] == np.inf))
    ((2, 3), True)
    """
    weights = _power_of_two_scaled(check_weights(instance, W))
    result = np.empty((instance.n, instance.p))
    for start, margins in _margin_blocks(instance, weights):
        result[start : start + margins.shape[0]] = margins
    return result


@dataclass(frozen=True)
class MarginCheck:
    r"""Margins of weights on every constraint of an instance, with their proven error.

    Attributes
    ----------
    min_margin : float
        :math:`\min_i \tilde \gamma_i` over all :math:`n(p-1)` constraints; NaN when
        any margin is NaN or :math:`\pm\infty` (or ``W = 0``).
    error : float
        Proven bound on :math:`|\tilde \gamma_i - \gamma_i|` for every constraint:
        :func:`margin_error` plus, for ``(Q, R)``, the product's bound
        (:func:`product_with_error`).
    associations, constraints : int
        :math:`n` and :math:`n(p-1)`.
    failing_associations, failing_constraints : int
        How many are not proven recalled (margin not above
        ``max(FEASIBILITY_TOLERANCE, error)``, or not finite).
    worst : tuple of (mu, rho, margin)
        The lowest-margin failing associations (at most five), each with its
        lowest competitor; NaN margins first.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> check = check_margins(instance, hebbian_weights(instance))
    >>> check.verified, check.failing_associations
    (True, 0)
    """

    min_margin: float
    error: float
    associations: int
    constraints: int
    failing_associations: int
    failing_constraints: int
    worst: tuple[tuple[int, int, float], ...]

    @property
    def threshold(self) -> float:
        """A margin above this is proven positive: ``max(FEASIBILITY_TOLERANCE, error)``."""
        return max(FEASIBILITY_TOLERANCE, self.error)

    @property
    def verified(self) -> bool:
        """True iff every association is proven recalled (``min_margin > threshold``)."""
        return self.min_margin > self.threshold

    def describe(self) -> str:
        """One sentence: verified, or which associations fail and by how much."""
        if self.verified:
            return (
                f"W recalls all {self.associations} associations: min normalised margin "
                f"{self.min_margin:.6g} (error at most {self.error:.1e})"
            )
        shown = ", ".join(f"mu={mu} (rho={rho}): {margin:.3g}" for mu, rho, margin in self.worst)
        return (
            f"W is not proven to recall {self.failing_associations} of {self.associations} "
            f"associations ({self.failing_constraints} of {self.constraints} constraints "
            f"with normalised margin <= {self.threshold:.1e} or not finite); lowest: {shown}"
        )


def _worst_of_block(
    start: int, margins: NDArray[np.float64], failing: NDArray[np.bool_], count: int
) -> list[tuple[float, int, int, float]]:
    """``(sort key, mu, rho, margin)`` of the lowest failing rows (non-finite first)."""
    rows = np.nonzero(failing.any(axis=1))[0]
    if rows.size == 0:
        return []
    keys = np.where(np.isfinite(margins[rows]), margins[rows], -np.inf)
    keys[~failing[rows]] = np.inf
    columns = np.argmin(keys, axis=1)
    lowest = keys[np.arange(rows.size), columns]
    chosen = np.argsort(lowest, kind="stable")[:count]
    return [
        (
            float(lowest[i]),
            start + int(rows[i]),
            int(columns[i]),
            float(margins[rows[i], columns[i]]),
        )
        for i in chosen
    ]


@renamed_keywords(weights="W")
def check_margins(instance: Instance, W: Any) -> MarginCheck:
    r"""Check a memory W on all :math:`n(p-1)` constraints, with the proven rounding error.

    .. math::

        \text{verified} \iff \min_i \tilde \gamma_i(W) > \max(10^{-9},\ \delta),
        \qquad |\tilde \gamma_i - \gamma_i| \le \delta

    (module docstring; arXiv:2605.10795 for the constraints).  ``W`` is a
    ``d x d`` array or its factors ``(Q, R)`` (each ``d x r``, ``r <= d``); wrong
    shapes or non-finite entries raise ``ValueError``.  ``W`` scores
    :math:`u_\rho^\top W e_\mu` (outputs left, inputs right); a ``W`` from logits
    ``x W U^T`` (:math:`e_\mu^\top W u_\rho`) is checked as ``W.T``, or through
    ``lamcap.verify(instance, W, convention="logits")``, which also warns when a
    ``W`` looks transposed.  One pass over the outputs,
    memory :math:`O(np + d^2)` beyond one block.  The keyword ``weights=`` is the
    deprecated name of ``W``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 40, seed=1)
    >>> check = check_margins(instance, -1e308 * np.ones((4, 4)))
    >>> check.verified, check.failing_associations > 0
    (False, True)
    """
    instance = check_instance(instance)
    matrix, product_error = _checked_matrix(W, instance.d)
    error = margin_error(instance.d) + product_error
    threshold = max(FEASIBILITY_TOLERANCE, error)
    lowest = math.inf
    failing_associations = failing_constraints = 0
    worst: list[tuple[float, int, int, float]] = []
    for start, margins in _margin_blocks(instance, matrix):
        targets = instance.targets[start : start + margins.shape[0]]
        lowest = running_minimum(lowest, margins, targets)
        failing = ~(np.isfinite(margins) & (margins > threshold))
        failing[np.arange(margins.shape[0]), targets] = False
        failing_constraints += int(failing.sum())
        failing_associations += int(failing.any(axis=1).sum())
        worst = sorted(worst + _worst_of_block(start, margins, failing, _WORST_SHOWN))
        worst = worst[:_WORST_SHOWN]
    return MarginCheck(
        min_margin=lowest,
        error=error,
        associations=instance.n,
        constraints=instance.constraint_count,
        failing_associations=failing_associations,
        failing_constraints=failing_constraints,
        worst=tuple((mu, rho, margin) for _, mu, rho, margin in worst),
    )


def min_margin(instance: Instance, W: Any) -> float:
    r"""Minimum normalised margin :math:`\min_{\mu,\rho \ne t} \gamma_{\mu\rho}(W)` over all constraints.

    ``W`` is a ``d x d`` array or ``(Q, R)``; the solvers' shorthand for
    ``check_margins(instance, W).min_margin`` (no longer on the public face).  Blockwise, memory :math:`O(np + d^2)`
    beyond one block of outputs; NaN for ``W = 0`` or when any margin is not
    finite.  Recall of every association is certified when the result exceeds
    :data:`FEASIBILITY_TOLERANCE` and the proven error
    (:func:`check_margins`, which also says which associations fail).

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(64, 3, n=2, seed=0)
    >>> min_margin(instance, hebbian_weights(instance)) > FEASIBILITY_TOLERANCE
    True
    """
    return check_margins(instance, W).min_margin


def checked_constraint_arrays(
    instance: Instance,
    associations: ArrayLike,
    competitors: ArrayLike,
    multipliers: ArrayLike,
    *,
    owner: str,
    name: str,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """``(associations, competitors, multipliers)`` on constraints, checked against ``instance``.

    The one validation of weights on constraints, for every certificate type
    (a :class:`FarkasCertificate`'s ``alpha``, a
    :class:`~lamcap.solvers.MarginDual`'s ``y``).  ``ValueError`` naming
    ``owner`` (and ``name`` for the multipliers) unless the three are 1-d
    arrays of equal length, the indices integers in range (associations in
    ``[0, n - 1]``, competitors in ``[0, p - 1]``), no competitor the target
    of its association, and the multipliers finite and ``>= 0``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(2, 3, seed=0)
    >>> checked_constraint_arrays(instance, [0], [1], [0.5], owner="dual", name="y")[2].tolist()
    [0.5]
    >>> checked_constraint_arrays(instance, [0.0], [1], [0.5], owner="dual", name="y")
    Traceback (most recent call last):
        ...
    ValueError: dual associations and competitors must be integer arrays, got dtypes float64 and int64
    """
    mus = np.asarray(associations)
    rhos = np.asarray(competitors)
    values = check_finite_array(name, multipliers, minimum=0.0)
    if not (mus.ndim == rhos.ndim == values.ndim == 1 and mus.shape == rhos.shape == values.shape):
        msg = (
            f"{owner} arrays must be 1-d of equal length, got shapes "
            f"{mus.shape}, {rhos.shape}, {values.shape}"
        )
        raise ValueError(msg)
    if not (np.issubdtype(mus.dtype, np.integer) and np.issubdtype(rhos.dtype, np.integer)):
        msg = (
            f"{owner} associations and competitors must be integer arrays, got dtypes "
            f"{mus.dtype} and {rhos.dtype}"
        )
        raise ValueError(msg)
    outside = (mus < 0) | (mus >= instance.n)
    if np.any(outside):
        value = int(mus[np.argmax(outside)])
        msg = f"{owner} associations must be in [0, {instance.n - 1}], got {value}"
        raise ValueError(msg)
    outside = (rhos < 0) | (rhos >= instance.p)
    if np.any(outside):
        value = int(rhos[np.argmax(outside)])
        msg = f"{owner} competitors must be in [0, {instance.p - 1}], got {value}"
        raise ValueError(msg)
    clash = rhos == instance.targets[mus]
    if np.any(clash):
        first = int(np.argmax(clash))
        msg = (
            f"{owner} competitors must differ from their association's target, got "
            f"competitor {int(rhos[first])} for association {int(mus[first])}"
        )
        raise ValueError(msg)
    return mus.astype(np.int64), rhos.astype(np.int64), values


def checked_certificate_arrays(
    instance: Instance, certificate: object
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """The certificate's ``(associations, competitors, alpha)``, checked against ``instance``.

    ``ValueError`` for anything but a :class:`FarkasCertificate` whose arrays
    pass :func:`checked_constraint_arrays`.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> cert = FarkasCertificate(np.array([0]), np.array([1]), np.array([0.5]), 0.0)
    >>> checked_certificate_arrays(make_instance(2, 3, seed=0), cert)[2].tolist()
    [0.5]
    """
    instance = check_instance(instance)
    if not isinstance(certificate, FarkasCertificate):
        msg = f"certificate must be a FarkasCertificate, got {type(certificate).__name__}"
        raise ValueError(msg)
    return checked_constraint_arrays(
        instance,
        certificate.associations,
        certificate.competitors,
        certificate.alpha,
        owner="certificate",
        name="alpha",
    )


def weighted_constraint_sum(
    instance: Instance,
    associations: NDArray[np.int64],
    competitors: NDArray[np.int64],
    multipliers: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""The sum of raw constraint matrices with ``multipliers``, and the rows it was built from.

    .. math::

        \sum_i y_i (u_{t(\mu_i)} - u_{\rho_i}) e_{\mu_i}^\top
        = \sum_\mu \Big(\sum_{i:\,\mu_i = \mu} y_i (u_t - u_{\rho_i})\Big) e_\mu^\top,

    grouped by association so that only the outputs of the associations named
    are generated (cost :math:`O(kd + n_S p d + n_S d^2)`).  The Farkas bound
    (:func:`certificate_bound`) and the max-margin dual value
    (:func:`lamcap.solvers._optimality.dual_value`) are both built on it.  Indices
    must already be checked.  ``multipliers`` :math:`y_i \ge 0` are a
    certificate's ``alpha`` or a dual's ``y`` (never the memory :math:`W`).

    Returns
    -------
    combination : ndarray, shape (d, d)
    target_rows, competitor_rows : ndarray, shape (k, d)
        :math:`u_{t(\mu_i)}` and :math:`u_{\rho_i}` of each constraint.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(3, 4, n=2, seed=0)
    >>> combination, targets, rivals = weighted_constraint_sum(
    ...     instance, np.array([1]), np.array([2]), np.array([2.0]))
    >>> outer = 2.0 * np.outer(targets[0] - rivals[0], instance.inputs[1])
    >>> bool(np.allclose(combination, outer))
    True
    """
    used, position = np.unique(associations, return_inverse=True)
    target_rows, competitor_rows = instance.constraint_outputs(associations, competitors)
    columns = np.zeros((used.size, instance.d))
    np.add.at(columns, position, multipliers[:, None] * (target_rows - competitor_rows))
    return columns.T @ instance.inputs[used], target_rows, competitor_rows


def certificate_bound(instance: Instance, certificate: FarkasCertificate) -> float:
    r"""Recompute the margin bound :math:`\varepsilon` proved by a Farkas certificate.

    .. math::

        \max_{W \ne 0} \min_i \gamma_i(W) \;\le\;
        \frac{\|\sum_i \alpha_i (u_t - u_\rho) e_\mu^\top\|_F}
             {\sum_i \alpha_i \|e_\mu\| \sqrt{\|u_t\|^2+\|u_\rho\|^2}}
        + 2\sqrt2\,(2k + d + 2)\,2^{-53}

    (module docstring).  Only the outputs of the associations named in the
    certificate are generated; cost :math:`O(k d + n_S p d + n_S d^2)`.
    Returns ``inf`` for an empty or all-zero ``alpha``; raises ``ValueError``
    for malformed certificates (wrong indices, negative or non-finite weights).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(1, 2, n=2, model="original", seed=0)
    >>> # d = 1: constraints (u0-u1) W e0 >= 0 and (u1-u0) W e1 >= 0 clash iff e0 e1 > 0
    >>> e = instance.inputs[:, 0]
    >>> alpha = np.abs(e[::-1])                      # alpha_0 |e0| ~ alpha_1 |e1|
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)
    >>> bound = certificate_bound(instance, cert)
    >>> bool(bound < 1e-12) == bool(e[0] * e[1] > 0)
    True
    """
    associations, competitors, alpha = checked_certificate_arrays(instance, certificate)
    if alpha.size == 0 or not np.any(alpha > 0):
        return math.inf
    alpha = alpha / alpha.max()
    residual, target_rows, competitor_rows = weighted_constraint_sum(
        instance, associations, competitors, alpha
    )
    input_norms = np.linalg.norm(instance.inputs[associations], axis=1)
    output_scale = np.sqrt(
        np.einsum("kd,kd->k", target_rows, target_rows)
        + np.einsum("kd,kd->k", competitor_rows, competitor_rows)
    )
    denominator = float(np.sum(alpha * input_norms * output_scale))
    allowance = _certificate_allowance(alpha.size, instance.d)
    return float(np.linalg.norm(residual)) / denominator + allowance


def _certificate_allowance(size: int, d: int) -> float:
    return 2.0 * math.sqrt(2.0) * (2 * size + d + 2) * _UNIT_ROUNDOFF


def certificate_precision(bound: float, size: int, d: int) -> float:
    r"""How far two correct evaluations of a certificate bound can differ.

    .. math::

        2\sqrt2\,(2k + d + 2)\,2^{-53} + 2(k + d^2 + d + 5)\,2^{-53}\,\varepsilon

    The first term is the residual's rounding (the allowance that
    :func:`certificate_bound` adds); the second the relative rounding of the
    norms and sums in the quotient (``k`` constraints, dimension ``d``).  A
    stored bound further than this from the recomputed one was not computed
    from this certificate.

    Examples
    --------
    >>> f"{certificate_precision(1e-15, 10, 8):.2e}"
    '9.42e-15'
    """
    relative = 2.0 * (size + d * d + d + 5) * _UNIT_ROUNDOFF
    return _certificate_allowance(size, d) + relative * abs(bound)
