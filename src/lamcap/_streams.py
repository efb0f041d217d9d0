"""Fast drawing of decoupled outputs: a numba kernel and a small thread pool.

Kept apart from :mod:`lamcap.problems` so that drawing a small instance never
imports numba.  The kernel calls numba's port of numpy's
``Generator.standard_normal`` (the same ziggurat on the same SFC64 bit
generator), so its numbers equal numpy's bit for bit; it releases the GIL, and
:func:`in_threads` runs it on :func:`numba.get_num_threads` threads (set
``NUMBA_NUM_THREADS`` or call :func:`numba.set_num_threads` to change that,
e.g. to 1 inside a process pool).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numpy.typing import NDArray


def thread_count() -> int:
    """Threads used for drawing: :func:`numba.get_num_threads`."""
    return int(numba.get_num_threads())


@numba.njit(cache=True, nogil=True)
def draw_scored_outputs(
    generator: np.random.Generator,
    scale: float,
    hidden: NDArray[np.float64],
    outputs: NDArray[np.float64],
    scores: NDArray[np.float64],
    norms2: NDArray[np.float64],
    keep: bool,
) -> None:
    """Draw one association's ``p x d`` outputs row by row and score each row as it is drawn.

    ``scores[r] = outputs[r] @ hidden`` and ``norms2[r] = outputs[r] @ outputs[r]``;
    the outputs are written to ``outputs`` only when ``keep``.  The numbers are
    ``generator.standard_normal() * scale``, numpy's stream bit for bit.
    """
    d = hidden.shape[0]
    for row in range(scores.shape[0]):
        score = 0.0
        norm2 = 0.0
        for column in range(d):
            value = generator.standard_normal() * scale
            if keep:
                outputs[row, column] = value
            score += value * hidden[column]
            norm2 += value * value
        scores[row] = score
        norms2[row] = norm2


@numba.njit(cache=True, nogil=True)
def draw_scored_unit_outputs(
    generator: np.random.Generator,
    hidden: NDArray[np.float64],
    row: NDArray[np.float64],
    outputs: NDArray[np.float64],
    scores: NDArray[np.float64],
    norms2: NDArray[np.float64],
    keep: bool,
) -> None:
    """Draw one association's ``p x d`` unit-norm outputs and score each row (``embeddings="sphere"``).

    Each row is ``d`` numbers ``generator.standard_normal()`` divided by the
    square root of their squared norm summed left to right (``row`` is a
    length-``d`` scratch buffer), the operations of
    :func:`lamcap.problems._unit_rows`, so the rows equal numpy's bit for bit;
    ``scores[r] = outputs[r] @ hidden`` and ``norms2[r] = outputs[r] @ outputs[r]``
    of the normalised row.
    """
    d = hidden.shape[0]
    for r in range(scores.shape[0]):
        raw2 = 0.0
        for column in range(d):
            value = generator.standard_normal()
            row[column] = value
            raw2 += value * value
        norm = np.sqrt(raw2)
        score = 0.0
        norm2 = 0.0
        for column in range(d):
            value = row[column] / norm
            if keep:
                outputs[r, column] = value
            score += value * hidden[column]
            norm2 += value * value
        scores[r] = score
        norms2[r] = norm2


@functools.cache
def thread_pool(threads: int) -> ThreadPoolExecutor:
    """One persistent pool per thread count (starting threads per block costs ~1 ms)."""
    return ThreadPoolExecutor(threads, thread_name_prefix="lamcap-draw")


def in_threads(count: int, work: Callable[[int, int], None]) -> None:
    """Run ``work(lo, hi)`` on ``numba.get_num_threads()`` contiguous shares of ``range(count)``."""
    threads = max(1, min(thread_count(), count))
    if threads == 1:
        work(0, count)
        return
    bounds = [count * share // threads for share in range(threads + 1)]
    pool = thread_pool(threads)
    for future in [pool.submit(work, lo, hi) for lo, hi in itertools.pairwise(bounds)]:
        future.result()
