r"""Many Hebbian instances in one call: the records of :func:`solver_trial`, batched.

A Hebbian cell of a sweep (``method="hebbian"``) costs almost nothing per
instance: :math:`W_H = \sum_\mu u_{t(\mu)} e_\mu^\top` and one score per
output.  One :func:`~lamcap.experiments._trials.solver_trial` per instance
pays instead for the Python around it: one numpy generator per association
(seeding one costs about as much as drawing 1000 normals), the argument and
memory checks of :func:`lamcap.make_instance` and :func:`lamcap.solve`, and
three passes over the outputs (the raw margin of the ``raw_margin`` contract,
the verification, the recall).  :func:`hebbian_trials` computes the same
records in one compiled kernel per instance shape
(docs/benchmarks.md, "Hebbian instances, batched", has the speed-up).

The kernel draws the very numbers of :func:`lamcap.make_instance`.  Its
streams follow the conventions of :mod:`lamcap.problems`: seed ``s`` and
spawn key ``k`` give ``SFC64(SeedSequence(s, spawn_key=k))`` and numpy's
``Generator.standard_normal``.  It computes the seeding (O'Neill's
``seed_seq`` hash as numpy's ``SeedSequence`` implements it, then SFC64's
12 warm-up steps), SFC64 and numpy's ziggurat (the tables numba copies from
numpy) itself, in integers and floats, so no generator object is built per
association.  Each process checks once, on 40 000 numbers of 8 streams,
that they equal numpy's (:func:`streams_match_numpy`); if they do not (a
numpy that changed its streams), every task goes to :func:`solver_trial`
with a ``RuntimeWarning``.  The tests compare them on millions of numbers.

Per instance: the inputs (stream ``(0,)``); the target outputs, the first
``d`` numbers of each decoupled association's stream ``(2, mu)`` (or the
shared outputs, stream ``(1,)``); :math:`W_H` and :math:`h_\mu = W_H e_\mu`;
then each decoupled stream is continued for its ``p - 1`` competitor rows,
scored while they are drawn (memory :math:`O(nd + d^2)`, whatever ``p``).

Examples
--------
>>> from lamcap.experiments._sweep import Cell, Sweep
>>> sweep = Sweep(dims=(16,), methods=("hebbian",), seeds_per_point=4)
>>> tasks = sweep.tasks(Cell(16, 1.0, "decoupled", "hebbian"), [10])
>>> [record["verdict"] for record in hebbian_trials(tasks)]
['infeasible', 'feasible', 'infeasible', 'feasible']
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from numba.extending import register_jitable
from numpy.typing import NDArray

from lamcap._validation import check_choice, check_embeddings, check_integer, check_real
from lamcap.experiments._sweep import MODELS, Task
from lamcap.experiments._trials import solver_trial
from lamcap.problems import (
    _ASSOCIATION_OUTPUT_STREAM,
    _INPUT_STREAM,
    _SHARED_OUTPUT_STREAM,
    _generator,
    unit_norm_rows,
)
from lamcap.solvers._certificates import margin_error
from lamcap.solvers._solve import MAX_RAW_MARGIN

FloatArray = NDArray[np.float64]
UintArray = NDArray[np.uint64]

_UNIT_ROUNDOFF = 2.0**-53
_SEED_LIMIT = 1 << 64
"""Seeds the kernel seeds like numpy (two 32-bit words); larger ones go to solver_trial."""

# numpy's SeedSequence (bit_generator.pyx, after O'Neill's seed_seq): hash constants.
_MASK32 = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
# SFC64 and the ziggurat: shifts and masks as uint64 (an int64 literal would promote to float).
_ONE = np.uint64(1)
_THREE = np.uint64(3)
_EIGHT = np.uint64(8)
_ELEVEN = np.uint64(11)
_TWENTY_FOUR = np.uint64(24)
_THIRTY_TWO = np.uint64(32)
_FORTY = np.uint64(40)
_LOW_BYTE = np.uint64(0xFF)
_MANTISSA = np.uint64(0x000FFFFFFFFFFFFF)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53: next_double of SFC64

try:  # numpy's ziggurat tables, as numba's own port of numpy's generators holds them
    from numba.np.random._constants import (
        fi_double,
        ki_double,
        wi_double,
        ziggurat_nor_inv_r,
        ziggurat_nor_r,
    )

    _TABLES = True
except ImportError:  # pragma: no cover - another numba layout: solver_trial does every task
    fi_double = wi_double = np.zeros(256)
    ki_double = np.zeros(256, dtype=np.uint64)
    ziggurat_nor_inv_r = ziggurat_nor_r = 1.0
    _TABLES = False


@register_jitable(error_model="numpy")
def _hashmix(value: Any, hash_const: UintArray) -> Any:
    """One ``hashmix`` of SeedSequence (32-bit arithmetic in uint64); advances ``hash_const[0]``."""
    value = (value ^ hash_const[0]) & _MASK32
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> _XSHIFT)


@register_jitable(error_model="numpy")
def _mix(x: Any, y: Any) -> Any:
    """``mix`` of SeedSequence (32-bit arithmetic in uint64)."""
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _XSHIFT)


@register_jitable(error_model="numpy")
def _sfc64_next(a: Any, b: Any, c: Any, counter: Any) -> tuple[Any, Any, Any, Any, Any]:
    """One SFC64 step: ``(output, a, b, c, counter)`` after it (Chris Doty-Humphrey's SFC64)."""
    output = a + b + counter
    rotated = (c << _TWENTY_FOUR) | (c >> _FORTY)
    return output, b ^ (b >> _ELEVEN), c + (c << _THREE), rotated + output, counter + _ONE


@register_jitable(error_model="numpy")
def stream_state(
    seed: Any, key: Any, association: Any, key_words: int
) -> tuple[Any, Any, Any, Any]:
    r"""SFC64 state of ``SFC64(SeedSequence(seed, spawn_key=...))``, as four uint64 words.

    The spawn key is ``(key,)`` when ``key_words == 1``, else ``(key, association)``
    (both below :math:`2^{32}`); ``seed`` is below :math:`2^{64}`.  Entropy words
    ``[seed mod 2^32, seed // 2^32, 0, 0, *spawn_key]`` (numpy pads the seed's words
    to the pool size 4 when there is a spawn key), mixed into a pool of 4 words,
    which gives the 6 words of ``generate_state(3, uint64)``; SFC64 then sets its
    counter to 1 and takes 12 steps.

    Examples
    --------
    >>> import numpy as np
    >>> with np.errstate(over="ignore"):  # interpreted here: numpy's uint64 wraps, as compiled
    ...     state = stream_state(np.uint64(7), np.uint64(2), np.uint64(5), 2)
    >>> bits = np.random.SFC64(np.random.SeedSequence(7, spawn_key=(2, 5))).state["state"]
    >>> list(state) == bits["state"].tolist()  # a, b, c and the counter
    True
    """
    entropy = np.zeros(6, dtype=np.uint64)
    entropy[0] = seed & _MASK32
    entropy[1] = seed >> _THIRTY_TWO
    entropy[4] = key
    entropy[5] = association
    hash_const = np.empty(1, dtype=np.uint64)
    hash_const[0] = _INIT_A
    pool = np.empty(4, dtype=np.uint64)
    for i in range(4):
        pool[i] = _hashmix(entropy[i], hash_const)
    for source in range(4):
        for target in range(4):
            if source != target:
                pool[target] = _mix(pool[target], _hashmix(pool[source], hash_const))
    for source in range(4, 4 + key_words):
        for target in range(4):
            pool[target] = _mix(pool[target], _hashmix(entropy[source], hash_const))
    words = np.empty(6, dtype=np.uint64)
    constant = _INIT_B
    for i in range(6):
        value = pool[i % 4] ^ constant
        constant = (constant * _MULT_B) & _MASK32
        value = (value * constant) & _MASK32
        words[i] = value ^ (value >> _XSHIFT)
    a = words[0] | (words[1] << _THIRTY_TWO)
    b = words[2] | (words[3] << _THIRTY_TWO)
    c = words[4] | (words[5] << _THIRTY_TWO)
    counter = _ONE
    for _ in range(12):
        _, a, b, c, counter = _sfc64_next(a, b, c, counter)
    return a, b, c, counter


@register_jitable(error_model="numpy")
def standard_normal(a: Any, b: Any, c: Any, counter: Any) -> tuple[float, Any, Any, Any, Any]:
    r"""numpy's ``Generator.standard_normal`` on an SFC64 state: ``(x, a, b, c, counter)``.

    The ziggurat of numpy's ``random_standard_normal`` (256 layers, tables
    ``ki``, ``wi``, ``fi``; the tail beyond :math:`r = 3.654\ldots` by
    Marsaglia's exponential method), the same operations in the same order,
    so the same bits.  Compiled into :func:`stream_normals` and
    :func:`hebbian_instances`; called from Python it runs as plain Python on
    ``numpy.uint64`` words (a Python int would not wrap at :math:`2^{64}`).

    Examples
    --------
    >>> import numpy as np
    >>> values = stream_normals(np.uint64(3), np.uint64(0), np.uint64(0), 1, 1000)  # compiled
    >>> generator = np.random.Generator(np.random.SFC64(np.random.SeedSequence(3, spawn_key=(0,))))
    >>> bool(np.array_equal(values, generator.standard_normal(1000)))
    True
    """
    while True:
        bits, a, b, c, counter = _sfc64_next(a, b, c, counter)
        layer = bits & _LOW_BYTE
        bits >>= _EIGHT
        magnitude = (bits >> _ONE) & _MANTISSA
        x = magnitude * wi_double[layer]
        if bits & _ONE:
            x = -x
        if magnitude < ki_double[layer]:
            return x, a, b, c, counter
        if layer == 0:
            while True:
                first, a, b, c, counter = _sfc64_next(a, b, c, counter)
                second, a, b, c, counter = _sfc64_next(a, b, c, counter)
                xx = -ziggurat_nor_inv_r * math.log1p(-((first >> _ELEVEN) * _TO_UNIT))
                yy = -math.log1p(-((second >> _ELEVEN) * _TO_UNIT))
                if yy + yy > xx * xx:
                    if (magnitude >> _EIGHT) & _ONE:
                        return -(ziggurat_nor_r + xx), a, b, c, counter
                    return ziggurat_nor_r + xx, a, b, c, counter
        else:
            uniform, a, b, c, counter = _sfc64_next(a, b, c, counter)
            below = layer - _ONE
            height = (fi_double[below] - fi_double[layer]) * ((uniform >> _ELEVEN) * _TO_UNIT)
            if height + fi_double[layer] < math.exp(-0.5 * x * x):
                return x, a, b, c, counter


@register_jitable(error_model="numpy")
def _draw_rows(
    state: tuple[Any, Any, Any, Any], rows: FloatArray, sphere: bool
) -> tuple[Any, Any, Any, Any]:
    """Fill ``rows`` (k x d) from the stream as :func:`lamcap.problems._embedded` does; new state.

    Gaussian: each number times :math:`d^{-1/2}`; sphere: each row divided by
    the square root of its squared norm summed left to right (the operations of
    :func:`lamcap.problems._unit_rows`).
    """
    a, b, c, counter = state
    d = rows.shape[1]
    scale = 1.0 / math.sqrt(d)
    for r in range(rows.shape[0]):
        norm2 = 0.0
        for j in range(d):
            x, a, b, c, counter = standard_normal(a, b, c, counter)
            if sphere:
                rows[r, j] = x
                norm2 += x * x
            else:
                rows[r, j] = x * scale
        if sphere:
            norm = math.sqrt(norm2)
            for j in range(d):
                rows[r, j] = rows[r, j] / norm
    return a, b, c, counter


@register_jitable(error_model="numpy")
def _dot(x: FloatArray, y: FloatArray) -> float:
    """``x @ y``, summed left to right."""
    total = 0.0
    for j in range(x.shape[0]):
        total += x[j] * y[j]
    return total


@register_jitable(error_model="numpy")
def _draw_instance(
    seed: Any,
    original: bool,
    sphere: bool,
    inputs: FloatArray,
    targets: FloatArray,
    shared: FloatArray,
    states: UintArray,
) -> None:
    """The inputs and target rows of one instance; the decoupled streams' states after their row 0.

    Inputs from stream ``(0,)``; original model: the shared outputs (stream
    ``(1,)``), association ``mu`` targeting row ``mu``; decoupled: row 0 of
    stream ``(2, mu)``, whose state is kept in ``states[mu]`` for its competitors.
    """
    _draw_rows(stream_state(seed, np.uint64(0), np.uint64(0), 1), inputs, sphere)
    if original:
        _draw_rows(stream_state(seed, np.uint64(1), np.uint64(0), 1), shared, sphere)
        targets[:] = shared[: targets.shape[0]]
        return
    for mu in range(targets.shape[0]):
        state = stream_state(seed, np.uint64(2), np.uint64(mu), 2)
        a, b, c, counter = _draw_rows(state, targets[mu : mu + 1], sphere)
        states[mu, 0], states[mu, 1], states[mu, 2], states[mu, 3] = a, b, c, counter


@register_jitable(error_model="numpy")
def _hebbian_hidden(
    targets: FloatArray, inputs: FloatArray, weights_t: FloatArray, hidden: FloatArray
) -> float:
    r""":math:`W_H^\top = \sum_\mu e_\mu u_{t(\mu)}^\top` into ``weights_t``, :math:`h_\mu = W_H e_\mu` into ``hidden``; :math:`\|W_H\|_F`.

    Loops ordered so that the innermost runs along contiguous rows.
    """
    n, d = inputs.shape
    weights_t[:] = 0.0
    for mu in range(n):
        for b in range(d):
            factor = inputs[mu, b]
            for a in range(d):
                weights_t[b, a] += factor * targets[mu, a]
    hidden[:] = 0.0
    for mu in range(n):
        for b in range(d):
            factor = inputs[mu, b]
            for a in range(d):
                hidden[mu, a] += weights_t[b, a] * factor
    frobenius2 = 0.0
    for b in range(d):
        for a in range(d):
            frobenius2 += weights_t[b, a] * weights_t[b, a]
    return math.sqrt(frobenius2)


@register_jitable(error_model="numpy")
def _competitor_margin(
    target_score: float, target_norm2: float, score: float, norm2: float, scale: float
) -> float:
    r""":math:`\gamma_{\mu\rho} = (s_t - s_\rho) / (\|W\|_F \|e_\mu\| \sqrt{\|u_t\|^2 + \|u_\rho\|^2})`."""
    return (target_score - score) / (scale * math.sqrt(target_norm2 + norm2))


@register_jitable(error_model="numpy")
def _decoupled_competitors(
    states: UintArray,
    mu: int,
    hidden: FloatArray,
    target_score: float,
    target_norm2: float,
    scale: float,
    row: FloatArray,
    sphere: bool,
) -> tuple[float, float, bool]:
    """Smallest margin, highest score and finiteness over rows 1 .. p - 1 of stream ``(2, mu)``.

    The rows are drawn from the state after row 0 (one ``row`` buffer) and scored at once.
    """
    state = (states[mu, 0], states[mu, 1], states[mu, 2], states[mu, 3])
    smallest, highest, finite = np.inf, -np.inf, True
    for _ in range(1, states.shape[0]):  # p - 1 competitors (n = p)
        state = _draw_rows(state, row, sphere)
        score = _dot(row[0], hidden[mu])
        margin = _competitor_margin(target_score, target_norm2, score, _dot(row[0], row[0]), scale)
        finite = finite and math.isfinite(margin)
        highest = max(highest, score)
        smallest = min(smallest, margin)
    return smallest, highest, finite


@register_jitable(error_model="numpy")
def _original_competitors(
    mu: int,
    scores: FloatArray,
    norms2: FloatArray,
    target_norm2: float,
    scale: float,
) -> tuple[float, float, bool]:
    """Smallest margin, highest score and finiteness over the shared outputs but ``mu``."""
    smallest, highest, finite = np.inf, -np.inf, True
    for rho in range(scores.shape[0]):
        if rho != mu:
            margin = _competitor_margin(scores[mu], target_norm2, scores[rho], norms2[rho], scale)
            finite = finite and math.isfinite(margin)
            highest = max(highest, scores[rho])
            smallest = min(smallest, margin)
    return smallest, highest, finite


@register_jitable(error_model="numpy")
def _shared_scores(shared_t: FloatArray, hidden_mu: FloatArray, scores: FloatArray) -> None:
    """``scores[rho] = shared[rho] @ hidden_mu`` from the transposed ``shared_t`` (d x p)."""
    scores[:] = 0.0
    for a in range(shared_t.shape[0]):
        factor = hidden_mu[a]
        for rho in range(shared_t.shape[1]):
            scores[rho] += shared_t[a, rho] * factor


@numba.njit(cache=True, error_model="numpy")
def hebbian_instances(
    seeds: UintArray,
    d: int,
    p: int,
    original: bool,
    sphere: bool,
    recalled: NDArray[np.int64],
    min_margins: FloatArray,
    closest: FloatArray,
    ratios: FloatArray,
) -> None:
    r"""Recall of the Hebbian rule on the instances ``make_instance(d, p, seed=s)``, ``s`` in ``seeds``.

    .. math::

        \gamma_{\mu\rho} = \frac{s_{\mu t} - s_{\mu\rho}}
        {\|W_H\|_F\,\|e_\mu\|\sqrt{\|u_t\|^2 + \|u_\rho\|^2}}, \qquad
        s_{\mu\rho} = u_\rho^{(\mu)\top} W_H e_\mu

    (docs/theory/hebbian.md).  Writes, for instance ``i``: ``recalled[i]``, the
    number of associations whose target score is strictly above every
    competitor's (the rule of :func:`lamcap.recall_accuracy`); ``min_margins[i]``,
    :math:`\min_{\mu,\rho \ne t}\gamma_{\mu\rho}` (NaN when a margin is not
    finite); ``closest[i]``, :math:`\min_\mu |\min_{\rho \ne t}\gamma_{\mu\rho}|`
    (how near the nearest association is to a tie; NaN likewise); ``ratios[i]``,
    :math:`\|U_t\|_F \|E\|_F / \|W_H\|_F` (for :func:`margin_tolerance`).
    ``n = p`` associations; ``original`` picks the model, ``sphere`` the
    embeddings.  Scores are float64 dot products of length ``d``, accurate to
    :func:`lamcap.solvers._certificates.margin_error` in margin units.

    Examples
    --------
    >>> import numpy as np
    >>> counts, margins, near, ratio = (np.empty(1, np.int64), np.empty(1), np.empty(1), np.empty(1))
    >>> hebbian_instances(np.array([5], np.uint64), 64, 3, False, False, counts, margins, near, ratio)
    >>> int(counts[0]), bool(margins[0] > 0)
    (3, True)
    """
    n = p
    inputs, targets, hidden = np.empty((n, d)), np.empty((n, d)), np.empty((n, d))
    shared = np.empty((p if original else 0, d))
    shared_t = np.empty((d, p if original else 0))
    shared_norms2, scores = np.empty(p), np.empty(p)
    weights_t, row = np.empty((d, d)), np.empty((1, d))
    states = np.empty((n, 4), dtype=np.uint64)
    for i in range(seeds.shape[0]):
        _draw_instance(seeds[i], original, sphere, inputs, targets, shared, states)
        frobenius = _hebbian_hidden(targets, inputs, weights_t, hidden)
        if original:
            shared_t[:] = shared.T
            for rho in range(p):
                shared_norms2[rho] = _dot(shared[rho], shared[rho])
        count, lowest, nearest, finite = 0, np.inf, np.inf, True
        targets2, inputs2 = 0.0, 0.0
        for mu in range(n):
            target_score = _dot(targets[mu], hidden[mu])
            target_norm2 = _dot(targets[mu], targets[mu])
            input_norm2 = _dot(inputs[mu], inputs[mu])
            targets2 += target_norm2
            inputs2 += input_norm2
            scale = frobenius * math.sqrt(input_norm2)
            if original:
                _shared_scores(shared_t, hidden[mu], scores)
                target_score = scores[mu]
                smallest, highest, fine = _original_competitors(
                    mu, scores, shared_norms2, target_norm2, scale
                )
            else:
                smallest, highest, fine = _decoupled_competitors(
                    states, mu, hidden, target_score, target_norm2, scale, row, sphere
                )
            count += 1 if target_score > highest else 0
            lowest, nearest = min(lowest, smallest), min(nearest, abs(smallest))
            finite = finite and fine
        recalled[i] = count
        min_margins[i] = lowest if finite else np.nan
        closest[i] = nearest if finite else np.nan
        ratios[i] = math.sqrt(targets2) * math.sqrt(inputs2) / frobenius


def margin_tolerance(d: int, n: int, frobenius_ratio: float) -> float:
    r"""Largest difference between the margins of :func:`hebbian_instances` and of :func:`lamcap.solve`.

    .. math::

        \tau = 2\,\delta_W(d) + 2\,\delta_H + 4u, \qquad
        \delta_H = 1.01 \cdot 2\sqrt2\,\eta_n\,
                   \frac{\|U_t\|_F\,\|E\|_F}{\|\tilde W_H\|_F},
        \qquad \eta_n = \frac{nu}{1 - nu},\ u = 2^{-53}

    :math:`\delta_W(d)` (:func:`lamcap.solvers._certificates.margin_error`)
    bounds the rounding of each computed normalised margin of a given ``W``
    (any summation order), :math:`\delta_H` the change of the exact margins
    when :math:`W_H` is summed in another order (each entry, a sum of ``n``
    products, is within :math:`\eta_n (|U_t|^\top |E|)_{ab}` of the exact one;
    the bound of :math:`\delta_{QR}` in that module), and :math:`4u` the
    rescaling of the ``raw_margin`` contract of :func:`lamcap.solve`.
    ``frobenius_ratio`` is :math:`\|U_t\|_F\|E\|_F / \|\tilde W_H\|_F`
    (target rows :math:`U_t`, inputs :math:`E`).  An association whose
    smallest computed margin is farther than :math:`\tau` from 0 has the same
    recall in both computations (the raw score gap of
    :func:`lamcap.recall_accuracy` errs by at most
    :math:`2\sqrt2\,\eta_d(2 + \eta_d) < \delta_W(d)` in these units);
    docs/theory/hebbian.md, arXiv:2605.10795.

    Examples
    --------
    >>> f"{margin_tolerance(64, 93, 9.6):.2e}"  # d = 64 near the transition
    '1.28e-12'
    """
    eta = n * _UNIT_ROUNDOFF / (1.0 - n * _UNIT_ROUNDOFF)
    hebbian = 1.01 * 2.0 * math.sqrt(2.0) * eta * frobenius_ratio
    return 2.0 * margin_error(d) + 2.0 * hebbian + 4.0 * _UNIT_ROUNDOFF


@numba.njit(cache=True, error_model="numpy")
def stream_normals(seed: Any, key: Any, association: Any, key_words: int, count: int) -> FloatArray:
    """The first ``count`` numbers of :func:`standard_normal` on one stream."""
    a, b, c, counter = stream_state(seed, key, association, key_words)
    values = np.empty(count)
    for j in range(count):
        values[j], a, b, c, counter = standard_normal(a, b, c, counter)
    return values


@functools.cache
def streams_match_numpy() -> bool:
    """Whether the kernel's streams equal numpy's: 8 streams of 5000 numbers, once per process.

    Seeds of one and two 32-bit words (0, 1, :math:`2^{32} - 1`,
    :math:`2^{63} - 1`, ...) and spawn keys of the three stream kinds of
    :mod:`lamcap.problems`; 40 000 numbers reach the ziggurat's rejection
    steps and its tail.  False also when numba no longer holds numpy's
    ziggurat tables where this module looks for them.

    Examples
    --------
    >>> streams_match_numpy()
    True
    """
    if not _TABLES:
        return False
    count = 5000
    cases = [
        (0, (_INPUT_STREAM,)),
        (1, (_SHARED_OUTPUT_STREAM,)),
        (2**32 - 1, (_ASSOCIATION_OUTPUT_STREAM, 0)),
        (2**63 - 1, (_ASSOCIATION_OUTPUT_STREAM, 93)),
        (12345, (_INPUT_STREAM,)),
        (2**40 + 7, (_SHARED_OUTPUT_STREAM,)),
        (2**62, (_ASSOCIATION_OUTPUT_STREAM, 2**31)),
        (99, (_ASSOCIATION_OUTPUT_STREAM, 1)),
    ]
    for seed, key in cases:
        association = key[1] if len(key) == 2 else 0
        ours = stream_normals(
            np.uint64(seed), np.uint64(key[0]), np.uint64(association), len(key), count
        )
        if not np.array_equal(ours, _generator(seed, key).standard_normal(count)):
            return False
    return True


_Shape = tuple[int, int, str, str]


@functools.cache
def _warmed_kernel() -> bool:
    """The stream check and the kernel's compilation (or cache load), once per process.

    Both are a process's fixed cost, not an instance's: :func:`hebbian_trials` runs this
    before it starts its clock, so the seconds it records per instance (which the
    allocation's cost model and budget read) are the instances' own.  Returns
    :func:`streams_match_numpy`.
    """
    if not streams_match_numpy():
        return False
    _group_records((4, 2, "decoupled", "gaussian"), [])  # compiles for every shape
    return True


"""``(d, p, model, embeddings)``: instances the kernel scores in one call."""


def _integer(name: str, value: Any, minimum: int) -> int:
    """``value`` as an int ``>= minimum`` (the check of :func:`check_integer`, fast for an int)."""
    if type(value) is int and value >= minimum:
        return value
    return check_integer(name, value, minimum=minimum)


def _check_solve_arguments(name: str, task: Task) -> None:
    """What :func:`lamcap.solve` would refuse (neither changes a Hebbian verdict otherwise)."""
    margin, seconds = task.raw_margin, task.max_seconds
    if not (type(margin) is float and 0.0 < margin <= MAX_RAW_MARGIN):  # fast for a float
        check_real(f"{name}.raw_margin", margin, minimum=0.0, maximum=MAX_RAW_MARGIN, closed="(]")
    if seconds is not None and not (type(seconds) is float and 0.0 < seconds < math.inf):
        check_real(f"{name}.max_seconds", seconds, minimum=0.0, closed="()")


def _checked(tasks: Sequence[object]) -> list[tuple[Task, _Shape, int]]:
    """Each task with its checked ``(d, p, model, embeddings)`` and seed; ValueError naming a bad one."""
    checked = []
    for index, task in enumerate(tasks):
        name = f"tasks[{index}]"
        if not isinstance(task, Task):
            msg = f"{name} must be a lamcap.experiments Task, got {type(task).__name__}"
            raise ValueError(msg)
        if task.method != "hebbian":
            msg = (
                f"{name}.method must be 'hebbian' (hebbian_trials runs the Hebbian rule only; "
                f"solver_trial runs every method), got {task.method!r}"
            )
            raise ValueError(msg)
        shape = (
            _integer(f"{name}.d", task.d, 1),
            _integer(f"{name}.p", task.p, 2),
            check_choice(f"{name}.model", task.model, MODELS),
            check_embeddings(task.embeddings, f"{name}.embeddings"),
        )
        _check_solve_arguments(name, task)
        checked.append((task, shape, _integer(f"{name}.seed", task.seed, 0)))
    return checked


def _group_records(shape: _Shape, seeds: list[int]) -> list[dict[str, Any] | None]:
    """Records of the instances of one shape; None for an instance too near a tie."""
    d, p, model, embeddings = shape
    size = len(seeds)
    recalled = np.empty(size, dtype=np.int64)
    min_margins, closest, ratios = np.empty(size), np.empty(size), np.empty(size)
    hebbian_instances(
        np.array(seeds, dtype=np.uint64),
        d,
        p,
        model == "original",
        unit_norm_rows(embeddings),
        recalled,
        min_margins,
        closest,
        ratios,
    )
    records: list[dict[str, Any] | None] = []
    for i in range(size):
        if not closest[i] > margin_tolerance(d, p, float(ratios[i])):  # NaN too
            records.append(None)  # solver_trial decides
            continue
        accuracy = int(recalled[i]) / p  # count / n rounded once, as recall_accuracy's mean
        records.append(
            {
                "verdict": "feasible" if accuracy == 1.0 else "infeasible",
                "infeasible_proof": None,
                "min_margin": float(min_margins[i]),
                "accuracy": accuracy,
                "seconds": 0.0,
                "iterations": 1,
                "solver_method": "hebbian",
            }
        )
    return records


def _kernel_runs(task: Task, shape: _Shape, seed: int) -> bool:
    """Whether the kernel scores ``task``: full rank, a seed below 2**64, p below 2**32."""
    d, p = shape[0], shape[1]
    return task.rank >= d and seed < _SEED_LIMIT and p < 2**32


def hebbian_trials(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    r"""The records of :func:`solver_trial` for many Hebbian tasks, in one call.

    .. math::

        W_H = \sum_\mu u_{t(\mu)} e_\mu^\top, \qquad
        \text{verdict} = \text{"feasible"} \iff
        s_{\mu t(\mu)} > \max_{\rho \ne t(\mu)} s_{\mu\rho}\ \forall \mu,
        \qquad s_{\mu\rho} = u_\rho^{(\mu)\top} W_H e_\mu

    (docs/theory/hebbian.md; arXiv:2605.10795, arXiv:2605.05189).  Each
    task's instance is the one :func:`lamcap.make_instance` draws from its
    seed (the same numbers, bit for bit), scored by :func:`hebbian_instances`,
    one call per ``(d, p, model, embeddings)`` of the batch.

    Contract, for every task: ``verdict``, ``accuracy``, ``infeasible_proof``
    (None), ``iterations`` (1) and ``solver_method`` (``"hebbian"``) equal
    those of ``solver_trial(task)``, and ``min_margin`` equals its value
    within :func:`margin_tolerance` (:math:`1.3\times10^{-12}` at d = 64 near
    the transition; the differences seen on 1 352 instances at d = 16 to 128,
    both models and embeddings, were below :math:`2\times10^{-16}`).  The kernel decides an instance only when every
    association's smallest margin is farther from 0 than that tolerance, so
    that both computations recall the same associations; an instance nearer a
    tie (the margins have a continuous law: none was met in the tests), of
    rank below ``d`` (the rule's truncated SVD), or with a seed of
    :math:`2^{64}` or more gets the record of ``solver_trial(task)`` itself,
    and so does every task if the kernel's streams ever differ from numpy's
    (:func:`streams_match_numpy`; a ``RuntimeWarning`` says so).

    Parameters
    ----------
    tasks : sequence of Task
        Any mix of ``d``, ``p``, models and embeddings; every ``method``
        must be ``"hebbian"``.

    Returns
    -------
    list of dict
        One record per task, in the order of ``tasks``, with the keys of
        :func:`solver_trial`.  ``seconds`` is the task's share of the
        call's wall time: the kernel time of its ``(d, p, model,
        embeddings)`` split equally among those tasks (plus its own
        ``solver_trial`` time if it went there), and the rest of the call
        split equally among all tasks; they sum to the call's wall time, less
        the process's one-time stream check and kernel compilation
        (:func:`_warmed_kernel`), which is no instance's cost.

    Raises
    ------
    ValueError
        For a task that is not a :class:`Task`, whose ``method`` is not
        ``"hebbian"`` (the message names ``tasks[i].method``, the value and
        what is accepted), or whose sizes, seed, model, embeddings,
        ``raw_margin`` or ``max_seconds`` are out of the range
        :func:`solver_trial` accepts; nothing is computed then.

    Examples
    --------
    >>> from lamcap.experiments._sweep import Cell, Sweep
    >>> sweep = Sweep(dims=(16,), methods=("hebbian",), seeds_per_point=4)
    >>> tasks = sweep.tasks(Cell(16, 1.0, "decoupled", "hebbian"), [10, 12])
    >>> records = hebbian_trials(tasks)
    >>> [r["verdict"] for r in records] == [solver_trial(t)["verdict"] for t in tasks]
    True
    >>> hebbian_trials([])
    []
    """
    checked = _checked(tasks)
    kernel = bool(checked) and _warmed_kernel()
    started = time.perf_counter()
    if checked and not kernel:
        warnings.warn(
            "lamcap's Hebbian kernel draws other numbers than numpy's generators here; "
            "hebbian_trials falls back to solver_trial for every task",
            RuntimeWarning,
            stacklevel=2,
        )
    records: list[dict[str, Any] | None] = [None] * len(checked)
    spent = [0.0] * len(checked)
    groups: dict[_Shape, list[int]] = {}
    for index, (task, shape, seed) in enumerate(checked):
        if kernel and _kernel_runs(task, shape, seed):
            groups.setdefault(shape, []).append(index)
    for shape, indices in groups.items():
        begun = time.perf_counter()
        outcomes = _group_records(shape, [checked[index][2] for index in indices])
        share = (time.perf_counter() - begun) / len(indices)
        for index, record in zip(indices, outcomes, strict=True):
            records[index], spent[index] = record, share
    for index, (task, _, _) in enumerate(checked):
        if records[index] is None:
            begun = time.perf_counter()
            records[index] = solver_trial(task)
            spent[index] += time.perf_counter() - begun
    rest = (time.perf_counter() - started - sum(spent)) / max(1, len(checked))
    result = []
    for record, seconds in zip(records, spent, strict=True):
        assert record is not None  # every task has its record now
        record["seconds"] = seconds + rest
        result.append(record)
    return result
