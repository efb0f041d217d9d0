r"""The solvers' constraints: one normaliser, one full pass, one working set.

Recall of every association (docs/theory/index.md; arXiv:2605.10795) is the
set of :math:`n(p-1)` constraints

.. math::

    (u_t - u_\rho)^\top W e_\mu > 0
    \qquad \forall i = (\mu, \rho),\ \rho \ne t(\mu).

Every solver stage that touches them takes them from this module:

* the **normaliser** :math:`\nu_{\mu\rho} = \sqrt{\|u_t\|^2 + \|u_\rho\|^2}`
  (:func:`normaliser` in compiled code, :func:`normalisers` on arrays: the
  same correctly rounded square root, so both agree bit for bit), which
  makes the normalised margin

  .. math::

      \gamma_{\mu\rho}(W) = \frac{(u_t - u_\rho)^\top W e_\mu}
      {\|W\|_F\,\|e_\mu\|\,\nu_{\mu\rho}}

  scale-free (:mod:`lamcap.solvers._certificates`, which recomputes it on
  its own as the independent checker);
* the **full pass** (:func:`score_pass`, on the numba kernel
  :func:`lowest_constraints`): one sweep over all :math:`np` scores of
  :meth:`~lamcap.problems.Instance.scored_blocks` giving the smallest
  normalised margin, the smallest raw margin and, per association, the
  ``cuts`` lowest constraints below a level with their directions
  (:class:`ScorePass`); :func:`raw_min_margin` is the same pass keeping no
  constraint;
* the **working set** (:class:`WorkingSet`), the constraints a solver keeps,
  sorted by association, in the units of the pass: normalised
  (:math:`\hat a_i = (u_t - u_\rho)/\nu_{\mu\rho}` against unit inputs
  :math:`\hat e_\mu`, levels :math:`\ell_i = \hat a_i^\top W \hat e_\mu`, the
  normalised margin times :math:`\|W\|_F`) or raw
  (:math:`\hat a_i = (u_t - u_\rho)\|e_\mu\|`, levels the raw margins);
* the **raw margin contract** of :func:`lamcap.solve`: :func:`at_raw_margin`
  rescales weights so that their smallest raw margin is the requested one.

The cutting-plane solver (:mod:`lamcap.solvers._cutting_plane`), its
feasibility-first stage (:mod:`lamcap.solvers._feasibility_stage`), the
optimality check, the baselines and the two-layer trainer all use it.

Examples
--------
>>> import math
>>> from lamcap.problems import make_instance, hebbian_weights
>>> instance = make_instance(8, 20, seed=0)
>>> weights = hebbian_weights(instance)
>>> member = np.zeros((instance.n, instance.p), dtype=bool)
>>> found = score_pass(instance, weights, member, math.inf, 3)
>>> found.mus.size, found.directions.shape
(60, (60, 8))
>>> bool(found.raw_lowest == raw_min_margin(instance, weights))
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from lamcap.problems import Instance
from lamcap.solvers._certificates import weights_matrix
from lamcap.solvers._min_norm_point import constraint_levels


@numba.njit(cache=True, nogil=True, inline="always")
def normaliser(target_norm2: float, competitor_norm2: float) -> float:
    r"""The constraint normaliser :math:`\nu_{\mu\rho} = \sqrt{\|u_t\|^2 + \|u_\rho\|^2}`.

    From the squared norms of the target and competitor outputs
    (:func:`normalisers` is the same on arrays).  With it
    :math:`\|u_t - u_\rho\| \le \sqrt2\,\nu_{\mu\rho}`, so normalised margins
    lie in :math:`[-\sqrt2, \sqrt2]` (:mod:`lamcap.solvers._certificates`).

    Examples
    --------
    >>> normaliser(9.0, 16.0)
    5.0
    """
    return math.sqrt(target_norm2 + competitor_norm2)


def normalisers(
    target_norms2: NDArray[np.float64], competitor_norms2: NDArray[np.float64]
) -> NDArray[np.float64]:
    r""":func:`normaliser` elementwise: :math:`\sqrt{\|u_t\|^2 + \|u_\rho\|^2}` (bit for bit the same).

    Examples
    --------
    >>> normalisers(np.array([9.0, 1.0]), np.array([16.0, 0.0])).tolist()
    [5.0, 1.0]
    """
    result: NDArray[np.float64] = np.sqrt(target_norms2 + competitor_norms2)
    return result


def constraint_normalisers(
    instance: Instance, mus: NDArray[np.int64], rhos: NDArray[np.int64]
) -> NDArray[np.float64]:
    r"""Normalisers :math:`\nu_{\mu_k\rho_k}` of the constraints ``(mus[k], rhos[k])``.

    Only the outputs of the associations named are generated
    (:meth:`~lamcap.problems.Instance.constraint_outputs`).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=2, seed=0)
    >>> outputs = instance.outputs(1)
    >>> nu = constraint_normalisers(instance, np.array([1]), np.array([2]))
    >>> bool(np.isclose(nu[0], np.hypot(np.linalg.norm(outputs[0]), np.linalg.norm(outputs[2]))))
    True
    """
    targets, competitors = instance.constraint_outputs(mus, rhos)
    return normalisers(
        np.einsum("kd,kd->k", targets, targets), np.einsum("kd,kd->k", competitors, competitors)
    )


_SAMPLE = 64


@numba.njit(cache=True, nogil=True, inline="always")
def _select(values: NDArray[np.float64], labels: NDArray[np.int64], count: int, k: int) -> None:
    """Hoare's selection on ``values[:count]``: afterwards ``values[k]`` is its ``k``-th smallest.

    Entries at or below ``k`` are then no larger than ``values[k]``, those above
    it no smaller; the labels follow their values.  ``0 <= k < count``, no NaN.
    """
    lo, hi = 0, count - 1
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                labels[i], labels[j] = labels[j], labels[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break


@numba.njit(cache=True, nogil=True, inline="always")
def _presort_below_sample(
    values: NDArray[np.float64], labels: NDArray[np.int64], count: int, keep: int
) -> int:
    """Move every entry of ``values[:count]`` below a sampled pivot to the front; return how many.

    The pivot is the order statistic of ``_SAMPLE`` evenly spaced entries
    just above the fraction ``keep / count`` (three sample entries of slack),
    so that usually a little more than ``keep`` entries lie below it; the
    move is Lomuto's partition without branches (a swap per entry, the front
    advancing when the entry is below the pivot), which costs about one pass
    where Hoare's selection from the middle makes several, each with
    unpredictable branches (measured cost: docs/benchmarks.md).  The caller falls back to the full selection when fewer than
    ``keep`` entries come out below the pivot.
    """
    step = count // _SAMPLE
    sample = np.empty(_SAMPLE)
    for k in range(_SAMPLE):
        sample[k] = values[k * step]
    rank = min(_SAMPLE - 1, (keep * _SAMPLE) // count + 3)
    # the order statistic by selection (:func:`_select`), not np.sort or np.partition:
    # the same number, and numba compiles np.sort's quicksort about 1.4 s longer on a
    # cold cache (np.partition, with np.unique behind it, about 10 s)
    _select(sample, np.empty(sample.size, dtype=np.int64), sample.size, rank)  # no literal
    pivot = sample[rank]
    front = 0
    for i in range(count):
        value, label = values[i], labels[i]
        values[i], labels[i] = values[front], labels[front]
        values[front], labels[front] = value, label
        front += value < pivot
    return front


@numba.njit(cache=True, nogil=True, inline="always")
def _smallest_to_front(
    values: NDArray[np.float64], labels: NDArray[np.int64], count: int, keep: int
) -> int:
    """Move the ``keep`` smallest of ``values[:count]`` (and their labels) to the front, in any order.

    Hoare's selection (:func:`_select`); returns ``min(count, keep)``.  The kept ones are not
    sorted (an insertion sort per row costs several selections,
    docs/benchmarks.md; :func:`lowest_constraints` sorts the few kept by
    :func:`_sort_by_level`).  When
    ``keep`` is a small part of ``count``, :func:`_presort_below_sample`
    first moves a slightly larger set holding the smallest to the front, so
    that the selection runs on that set only.
    """
    if count > 4 * keep and count >= 2 * _SAMPLE:
        below = _presort_below_sample(values, labels, count, keep)
        if below >= keep:  # the keep smallest are among the first `below`
            count = below
    if count > keep:
        _select(values, labels, count, keep - 1)
        count = keep
    return count


@numba.njit(cache=True, nogil=True, inline="always")
def _sort_by_level(values: NDArray[np.float64], labels: NDArray[np.int64], count: int) -> None:
    """Sort ``values[:count]`` ascending, ties by ``labels``, the labels following (insertion sort).

    A row keeps a few constraints (``cuts``, at most about 60), so the
    quadratic sort costs less than one more pass over the picks would.
    """
    for i in range(1, count):
        value, label = values[i], labels[i]
        j = i - 1
        while j >= 0 and (values[j] > value or (values[j] == value and labels[j] > label)):
            values[j + 1], labels[j + 1] = values[j], labels[j]
            j -= 1
        values[j + 1], labels[j + 1] = value, label


@numba.njit(cache=True, nogil=True)
def lowest_constraints(
    scores: NDArray[np.float64],
    norms2: NDArray[np.float64],
    targets: NDArray[np.int64],
    input_norms: NDArray[np.float64],
    member: NDArray[np.bool_],
    level: float,
    cuts: int,
    raw: bool,
    normalised: bool,
    picked: NDArray[np.int64],
    picked_levels: NDArray[np.float64],
) -> tuple[int, float, float, float]:
    r"""One sweep over a block of scores: the smallest margins and each row's lowest constraints.

    The level of constraint :math:`(\mu, \rho)` is the working-set unit
    (module docstring): the normalised margin times :math:`\|W\|_F`,

    .. math::

        \ell_{\mu\rho} = \frac{s_{\mu t} - s_{\mu\rho}}{\|e_\mu\|\,\nu_{\mu\rho}},

    or with ``raw`` the raw margin :math:`s_{\mu t} - s_{\mu\rho}`.  Row ``b``
    of ``scores`` / ``norms2`` (``(B, p)``, any strides) is one association
    with target column ``targets[b]`` and input norm ``input_norms[b]``.  Per
    row, up to ``cuts`` columns with level below ``level`` and
    ``member[b, rho]`` false, the lowest, ordered by level and then column,
    are written to ``picked`` as ``(row, column)`` pairs (``2 * B * cuts``
    entries) and their levels to ``picked_levels``; with ``cuts = 0``
    ``member`` is not read.  Returns the number of pairs, the smallest level,
    the smallest normalised level :math:`\min \ell` and the smallest raw
    margin over the block; each minimum is NaN when any of its values is NaN
    or infinite (as :func:`~lamcap.solvers._certificates.running_minimum`).
    Without ``normalised`` (a raw pass only: ``raw`` must be true) no
    normalised level is computed and the second minimum is NaN.
    """
    rows, columns = scores.shape
    candidates = np.empty(columns)
    which = np.empty(columns, dtype=np.int64)
    lowest_normalised = lowest_raw = math.inf
    finite_normalised = finite_raw = True
    count = 0
    for b in range(rows):
        target = targets[b]
        target_score = scores[b, target]
        target_norm2 = norms2[b, target]
        kept = int(0)  # noqa: UP018, RUF046 (numba: int64, not Literal[int](0), which compiles callees twice)
        for rho in range(columns):
            if rho == target:
                continue
            difference = target_score - scores[b, rho]
            if math.isfinite(difference):
                lowest_raw = min(lowest_raw, difference)
            else:
                finite_raw = False
            value = difference
            if normalised:
                value = difference / (input_norms[b] * normaliser(target_norm2, norms2[b, rho]))
                if math.isfinite(value):
                    lowest_normalised = min(lowest_normalised, value)
                else:
                    finite_normalised = False
                if raw:
                    value = difference
            if cuts > 0 and math.isfinite(value) and value < level and not member[b, rho]:
                candidates[kept] = value
                which[kept] = rho
                kept += 1
        kept = _smallest_to_front(candidates, which, kept, cuts)
        _sort_by_level(candidates, which, kept)
        for k in range(kept):
            picked[2 * count] = b
            picked[2 * count + 1] = which[k]
            picked_levels[count] = candidates[k]
            count += 1
    if not (finite_normalised and normalised):
        lowest_normalised = math.nan
    if not finite_raw:
        lowest_raw = math.nan
    return count, lowest_raw if raw else lowest_normalised, lowest_normalised, lowest_raw


@numba.njit(cache=True, nogil=True)
def constraint_directions(
    outputs: NDArray[np.float64],
    norms2: NDArray[np.float64],
    rows: NDArray[np.int64],
    targets: NDArray[np.int64],
    rhos: NDArray[np.int64],
    input_norms: NDArray[np.float64],
    raw: bool,
) -> NDArray[np.float64]:
    r"""Constraint directions of a block of associations' outputs, normalised or raw.

    Row ``k`` is :math:`\hat a_k = (u_t - u_\rho)/\nu_{\mu\rho}`, or with
    ``raw`` :math:`(u_t - u_\rho)\|e_\mu\|` (``input_norms[rows[k]]``), with
    :math:`u_t` = ``outputs[rows[k], targets[k]]``, :math:`u_\rho` =
    ``outputs[rows[k], rhos[k]]`` and the squared norms read from ``norms2``
    (``(B, p)``, any strides), in the same operations as numpy's
    ``(outputs[rows, targets] - outputs[rows, rhos]) / scale[:, None]``, so
    bit for bit the same, without the two ``(k, d)`` temporaries of fancy
    indexing (half of a score pass's time at d = 32, docs/benchmarks.md).

    Examples
    --------
    >>> outputs = np.array([[[3.0, 0.0], [0.0, 4.0]]])  # one association, p = 2
    >>> norms2 = np.array([[9.0, 16.0]])
    >>> row, target, rho = np.array([0]), np.array([0]), np.array([1])
    >>> constraint_directions(outputs, norms2, row, target, rho, np.ones(1), False)
    array([[ 0.6, -0.8]])
    >>> constraint_directions(outputs, norms2, row, target, rho, np.full(1, 2.0), True)
    array([[ 6., -8.]])
    """
    count = rows.shape[0]
    d = outputs.shape[2]
    directions = np.empty((count, d))
    for k in range(count):
        b, t, rho = rows[k], targets[k], rhos[k]
        if raw:
            scale = input_norms[b]
            for c in range(d):
                directions[k, c] = (outputs[b, t, c] - outputs[b, rho, c]) * scale
        else:
            scale = normaliser(norms2[b, t], norms2[b, rho])
            for c in range(d):
                directions[k, c] = (outputs[b, t, c] - outputs[b, rho, c]) / scale
    return directions


_EMPTY_INDICES = np.empty(0, dtype=np.int64)


@dataclass
class ScorePass:
    r"""One full pass: the new constraints, their levels and directions, and the smallest margins.

    Attributes
    ----------
    mus, rhos : ndarray of int64
        The constraints kept, by association, then level, then competitor.
    levels : ndarray of float64
        Their levels in the pass's units (normalised margin times
        :math:`\|W\|_F`, or raw margins for a raw pass).
    directions : ndarray of float64, shape (k, d), or None
        Their directions :math:`\hat a_i` (None when not asked for).
    min_margin : float
        Smallest normalised margin :math:`\min_i \gamma_i(W)` over all
        constraints (NaN for ``W = 0`` or any non-finite margin).
    lowest : float
        Smallest level over all constraints, in the pass's units.
    raw_lowest : float
        Smallest raw margin :math:`\min_i (u_t - u_\rho)^\top W e_\mu`.
    seconds : float
        Wall-clock time of the pass.
    """

    mus: NDArray[np.int64]
    rhos: NDArray[np.int64]
    levels: NDArray[np.float64]
    directions: NDArray[np.float64] | None
    min_margin: float
    lowest: float
    raw_lowest: float
    seconds: float = 0.0

    def lowest_per_association(self, count: int, instance: Instance) -> ScorePass:
        r"""The ``count`` lowest of the pass's constraints of each association, with directions.

        What a (normalised) pass keeping ``count`` constraints per association
        would have returned: the feasibility stage's first pass keeps more than
        the max-margin stages start from, and on the original model no
        directions, which are then formed here for the few kept
        (:func:`normalised_directions`).  Empty for ``count <= 0``.

        Examples
        --------
        >>> from lamcap.problems import make_instance
        >>> instance = make_instance(3, 4, n=2, seed=0)
        >>> found = ScorePass(np.array([0, 0, 1]), np.array([2, 1, 1]), np.array([0.5, -1.0, 3.0]),
        ...                   None, -0.1, -1.0, -2.0)
        >>> cut = found.lowest_per_association(1, instance)
        >>> cut.mus.tolist(), cut.rhos.tolist(), cut.levels.tolist(), cut.directions.shape
        ([0, 1], [1, 1], [-1.0, 3.0], (2, 3))
        """
        if count <= 0:
            keep = _EMPTY_INDICES
        else:
            order = np.lexsort((self.levels, self.mus))
            mus = self.mus[order]
            rank = np.arange(mus.size) - np.searchsorted(mus, mus, side="left")
            keep = order[rank < count]
        mus, rhos = self.mus[keep], self.rhos[keep]
        if self.directions is None:
            directions = normalised_directions(instance, mus, rhos)
        else:
            directions = self.directions[keep]
        return replace(self, mus=mus, rhos=rhos, levels=self.levels[keep], directions=directions)


def normalised_directions(
    instance: Instance, mus: NDArray[np.int64], rhos: NDArray[np.int64]
) -> NDArray[np.float64]:
    r"""Directions :math:`\hat a_k = (u_t - u_\rho)/\nu_{\mu_k\rho_k}` of the constraints named.

    Only the outputs of the associations named are generated.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=2, seed=0)
    >>> lengths = np.linalg.norm(normalised_directions(instance, np.array([0, 1]), np.array([1, 2])), axis=1)
    >>> bool(np.all(lengths <= np.sqrt(2.0)))
    True
    """
    targets, competitors = instance.constraint_outputs(mus, rhos)
    scale = normalisers(
        np.einsum("kd,kd->k", targets, targets), np.einsum("kd,kd->k", competitors, competitors)
    )
    directions: NDArray[np.float64] = (targets - competitors) / scale[:, None]
    return directions


def score_pass(
    instance: Instance,
    weights: NDArray[np.float64],
    member: NDArray[np.bool_] | None,
    level: float,
    cuts: int,
    *,
    raw: bool = False,
    directions: bool = True,
    normalised: bool = True,
) -> ScorePass:
    r"""All :math:`np` scores of ``weights``: smallest margins and the new cuts below ``level``.

    Per association, up to ``cuts`` constraints outside ``member`` (``(n, p)``
    booleans; not read when ``cuts = 0``) with level below ``level``
    (:func:`lowest_constraints`), with their directions (normalised, or raw
    with ``raw``; module docstring) unless ``directions`` is false.  With
    ``raw`` and not ``normalised`` only raw margins are computed (``min_margin``
    is then NaN; what :func:`raw_min_margin` needs).  Memory:
    one block of scores, plus the outputs of a block of decoupled
    associations when directions are kept.

    Examples
    --------
    >>> import math
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> from lamcap.solvers._certificates import min_margin
    >>> instance = make_instance(8, 20, model="original", seed=0)
    >>> weights = hebbian_weights(instance)
    >>> found = score_pass(instance, weights, None, math.inf, 0)
    >>> found.mus.size, bool(np.isclose(found.min_margin, min_margin(instance, weights)))
    (0, True)
    """
    start = time.perf_counter()
    hidden = instance.inputs @ weights.T
    input_norms = np.linalg.norm(instance.inputs, axis=1)
    keep_outputs = directions and cuts > 0
    if cuts <= 0 or member is None:
        cuts, member = 0, np.zeros((instance.n, 1), dtype=np.bool_)
    lowest = lowest_normalised = lowest_raw = math.inf
    found_mus, found_rhos, found_levels, found_directions = [], [], [], []
    for block in instance.scored_blocks(hidden, keep_outputs=keep_outputs):
        size = block.scores.shape[0]
        stop = block.start + size
        picked = np.empty(2 * size * cuts, dtype=np.int64)
        picked_levels = np.empty(size * cuts)
        count, block_lowest, block_normalised, block_raw = lowest_constraints(
            block.scores,
            block.norms2,
            instance.targets[block.start : stop],
            input_norms[block.start : stop],
            member[block.start : stop],
            level,
            cuts,
            raw,
            normalised or not raw,
            picked,
            picked_levels,
        )
        lowest = _minimum(lowest, block_lowest)
        lowest_normalised = _minimum(lowest_normalised, block_normalised)
        lowest_raw = _minimum(lowest_raw, block_raw)
        if count == 0:
            continue
        # contiguous copies: a strided slice of one pair would be typed C-contiguous by numba,
        # of more pairs A (any layout), and constraint_directions compiled for both
        pairs = picked[: 2 * count].reshape(count, 2)
        rows, rhos = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
        found_mus.append(block.start + rows)
        found_rhos.append(rhos)
        found_levels.append(picked_levels[:count])
        if keep_outputs:
            assert block.outputs is not None  # keep_outputs
            targets = instance.targets[block.start + rows]
            found_directions.append(
                constraint_directions(
                    block.outputs,
                    block.norms2,
                    rows,
                    targets,
                    rhos,
                    input_norms[block.start : stop],
                    raw,
                )
            )
    frobenius = float(np.linalg.norm(weights))
    mus = np.concatenate(found_mus) if found_mus else _EMPTY_INDICES
    rhos = np.concatenate(found_rhos) if found_rhos else _EMPTY_INDICES
    levels = np.concatenate(found_levels) if found_levels else np.empty(0)
    kept = np.concatenate(found_directions) if found_directions else np.empty((0, instance.d))
    return ScorePass(
        mus,
        rhos,
        levels,
        kept if directions else None,
        lowest_normalised / frobenius if frobenius > 0 else math.nan,
        lowest,
        lowest_raw,
        time.perf_counter() - start,
    )


def _minimum(lowest: float, value: float) -> float:
    """``min`` that keeps a NaN from either side (a NaN block poisons the pass)."""
    return math.nan if math.isnan(lowest) or math.isnan(value) else min(lowest, value)


def raw_min_margin(instance: Instance, weights: NDArray[np.float64]) -> float:
    r"""Smallest raw margin :math:`\min_{\mu,\rho \ne t} (u_t - u_\rho)^\top W e_\mu` over all constraints.

    One full pass (:func:`score_pass` keeping no constraint); NaN when any
    margin is NaN or infinite.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=1, seed=0)
    >>> raw_min_margin(instance, np.zeros((4, 4)))
    0.0
    """
    found = score_pass(
        instance, weights, None, -math.inf, 0, raw=True, directions=False, normalised=False
    )
    return found.raw_lowest


def at_raw_margin(
    instance: Instance, weights: Any, raw_margin: float, *, reached: float | None = None
) -> Any:
    r"""``weights`` rescaled so that their smallest raw margin is ``raw_margin``: the contract of ``solve``.

    .. math::

        W \mapsto \frac{c}{c_W} W, \qquad
        c_W = \min_{\mu,\rho\ne t} (u_t - u_\rho)^\top W e_\mu,

    for ``W`` (``d x d``), and :math:`(Q, R) \mapsto \sqrt{c/c_W}\,(Q, R)` for
    factors.  Only when :math:`c_W > 0` is finite and the rescaled weights
    are finite (weights that do not recall every association are returned as
    they are).  The problem is homogeneous, so the normalised margins do not
    change (up to rounding: :func:`~lamcap.solvers._result.build_result`
    verifies the rescaled weights).  ``reached`` is :math:`c_W` when a full
    pass of the caller has already found it (:attr:`ScorePass.raw_lowest`;
    one pass saved).  Malformed weights raise ``ValueError``
    (:func:`~lamcap.solvers._certificates.weights_matrix`).

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(64, 3, n=2, seed=0)
    >>> scaled = at_raw_margin(instance, hebbian_weights(instance), 2.0)
    >>> round(raw_min_margin(instance, scaled), 12)
    2.0
    """
    matrix = weights_matrix(weights, instance.d)  # ValueError for malformed weights
    if reached is None or math.isnan(reached):
        reached = raw_min_margin(instance, matrix)
    if not (math.isfinite(reached) and reached > 0):
        return weights
    factor = raw_margin / reached
    if isinstance(weights, tuple):
        root = math.sqrt(factor)
        scaled: Any = tuple(np.asarray(factor_, dtype=np.float64) * root for factor_ in weights)
    else:
        scaled = matrix * factor
    finite = all(
        bool(np.all(np.isfinite(part)))
        for part in (scaled if isinstance(scaled, tuple) else (scaled,))
    )
    return scaled if finite else weights


@dataclass
class LossRows:
    """A working set as :func:`~lamcap.solvers._feasibility_stage.softmin_loss` reads it.

    Association ``mu`` owns ``offsets[mu]:offsets[mu + 1]``; its target row is
    ``pool[target_rows[mu]]``, constraint ``i`` has competitor row
    ``pool[rows[i]]`` and scale ``scales[i]``.
    """

    offsets: NDArray[np.int64]
    pool: NDArray[np.float64]
    target_rows: NDArray[np.int64]
    rows: NDArray[np.int64]
    scales: NDArray[np.float64]


def _offsets(mus: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(mus, minlength=n), out=offsets[1:])
    return offsets


def _merged(
    held: NDArray[Any],
    places: NDArray[np.int64],
    added: NDArray[Any],
    new_places: NDArray[np.int64],
    spare: int = 0,
) -> NDArray[Any]:
    """``held`` and ``added`` (rows) written to their ``places`` and ``new_places`` in one array.

    ``spare`` more rows, zero, follow them.
    """
    size = held.shape[0] + added.shape[0]
    merged = np.empty((size + spare, *held.shape[1:]), dtype=held.dtype)
    merged[places] = held
    merged[new_places] = added
    merged[size:] = 0
    return merged


class WorkingSet:
    r"""Constraints kept so far, sorted by association (CSR ``offsets``), with multipliers.

    Row ``i`` of ``directions`` is :math:`\hat a_i` with
    :math:`V_i = \hat a_i \hat e_{\mu_i}^\top`: the normalised constraint
    (``raw=False``, :math:`\hat a_i = (u_t - u_\rho)/\nu_{\mu\rho}`) or the raw
    one (``raw=True``, :math:`\hat a_i = (u_t - u_\rho)\|e_\mu\|`, so that
    :math:`V_i = (u_t - u_\rho) e_\mu^\top` exactly).  Within an association
    the constraints keep the order in which they were added.  ``alpha`` holds
    the dual-ascent weights of the cutting plane (zero when added).  The
    directions are stored with one zero row after them, the target row the
    feasibility stage's loss reads (:meth:`loss_rows`), so that neither
    adding nor serving the loss copies them twice.

    Examples
    --------
    >>> working = WorkingSet(2, 2)
    >>> working.add(np.array([1, 0]), np.array([0, 1]), np.eye(2))
    >>> working.mus.tolist(), working.offsets.tolist(), working.directions.tolist()
    ([0, 1], [0, 1, 2], [[0.0, 1.0], [1.0, 0.0]])
    """

    def __init__(self, n: int, d: int, raw: bool = False) -> None:
        self.n, self.d, self.raw = n, d, raw
        self.mus = np.empty(0, dtype=np.int64)
        self.rhos = np.empty(0, dtype=np.int64)
        self.alpha = np.empty(0)
        self.offsets = np.zeros(n + 1, dtype=np.int64)
        self._rows = np.zeros((1, d))  # the directions, then one zero row

    @property
    def directions(self) -> NDArray[np.float64]:
        r"""``(size, d)`` rows :math:`\hat a_i` (C-contiguous)."""
        return self._rows[: self.size]

    def add(
        self,
        mus: NDArray[np.int64],
        rhos: NDArray[np.int64],
        directions: NDArray[np.float64] | None,
    ) -> None:
        """Add constraints (not already present: passes skip members) and their directions.

        Each goes after the constraints of its association already held (a
        stable merge: the same order as a stable sort of all additions).
        ``directions`` may be None only for a set that never holds any (the
        feasibility stage on the original model reads the shared outputs).
        """
        ordered = bool(np.all(mus[1:] >= mus[:-1]))  # a pass's picks are sorted already
        order = slice(None) if ordered else np.argsort(mus, kind="stable")
        mus, rhos = mus[order], rhos[order]
        where = np.searchsorted(self.mus, mus, side="right")  # insert before these
        new = where + np.arange(mus.size)  # the new constraints' places after the merge
        held = self.directions
        old = np.arange(self.size)
        old += np.searchsorted(where, old, side="right")  # the old ones' places
        self.mus = _merged(self.mus, old, mus, new)
        self.rhos = _merged(self.rhos, old, rhos, new)
        self.alpha = _merged(self.alpha, old, np.zeros(mus.size), new)
        if directions is not None:
            added = directions.reshape(-1, self.d)[order]
            self._rows = _merged(held, old, added, new, spare=1)  # the zero row after them
        self.offsets = _offsets(self.mus, self.n)

    def keep(self, keep: NDArray[np.bool_], member: NDArray[np.bool_]) -> None:
        """Drop the constraints outside ``keep`` (and from the membership mask ``member``)."""
        member[self.mus[~keep], self.rhos[~keep]] = False
        self._rows = np.concatenate([self.directions[keep], np.zeros((1, self.d))])
        self.mus = self.mus[keep]
        self.rhos = self.rhos[keep]
        self.alpha = self.alpha[keep]
        self.offsets = _offsets(self.mus, self.n)

    @property
    def size(self) -> int:
        """Number of constraints held."""
        return int(self.mus.size)

    @property
    def keys(self) -> NDArray[np.int64]:
        """One integer per constraint, ``mu * 2**32 + rho`` (stable across re-sorting)."""
        keys: NDArray[np.int64] = self.mus * (1 << 32) + self.rhos
        return keys

    def levels(
        self, unit_inputs: NDArray[np.float64], vector: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        r""":math:`\langle X, V_i\rangle = \hat a_i^\top X \hat e_{\mu_i}` for every constraint (no dense rows)."""
        levels = np.empty(self.size)
        constraint_levels(
            self.directions,
            self.mus,
            unit_inputs,
            np.ascontiguousarray(vector.reshape(self.d, self.d)),
            levels,
        )
        return levels

    def loss_rows(self, instance: Instance) -> LossRows:
        r"""The constraints as the feasibility stage's loss reads them (normalised units).

        Original model: rows of the shared outputs by index, scale
        :math:`1/\nu_i`.  Decoupled model: the stored directions
        :math:`\hat a_i` as competitor rows against the zero row after
        them as target row, scale :math:`-1`.  Both give the levels
        :math:`\ell_i = \hat a_i^\top h_\mu` (the decoupled ones as
        :math:`-(0 - \hat a_i^\top h_\mu)`, exactly).
        """
        if instance.model == "original":
            shared = _read_only(np.ascontiguousarray(instance.outputs(0)))
            norms2 = np.einsum("pd,pd->p", shared, shared)
            targets = _read_only(np.ascontiguousarray(instance.targets))
            scales = 1.0 / normalisers(norms2[targets[self.mus]], norms2[self.rhos])
            return LossRows(self.offsets, shared, targets, self.rhos, scales)
        zero_row = _read_only(np.full(self.n, self.size, dtype=np.int64))
        rows = np.arange(self.size, dtype=np.int64)
        return LossRows(
            self.offsets, _read_only(self._rows), zero_row, rows, np.full(self.size, -1.0)
        )


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    """A read-only view of ``array`` (no copy).

    The loss reads ``pool`` and ``target_rows`` only; passing them read-only for
    both models (the original model's shared outputs are read-only already)
    gives numba one signature of the loss to compile instead of two.
    """
    view = array.view()
    view.flags.writeable = False
    return view
