r"""Memory the exact stage of the full-rank solver needs, and memory this machine has.

Wolfe's exact stage (:mod:`lamcap.solvers._min_norm_point`) holds a dense lower
Cholesky factor with room for at most :math:`C = d^2 + 2` corral points (the
corral never exceeds :math:`d^2 + 1`), so at its largest

.. math::

    M_\text{Wolfe} = 8\,\max\big(k_0^2 + 3 b k_0 + 2 k_0 d,\ c^2 + C^2\big)
    + 8\,|S|\,(d + 2) + np \ \text{bytes},

where :math:`k_0 = \min(C, \max(|S| + 1, 64))` is the first capacity and
:math:`b = \min(k_0, 2048)` the Cholesky block
(:data:`~lamcap.solvers._min_norm_point.CHOLESKY_BLOCK`): the warm start
(:meth:`~lamcap.solvers._min_norm_point.CorralState.from_weights`) builds the
augmented Gram matrix in the factor's own storage and factorises it in place
(:func:`~lamcap.solvers._min_norm_point.cholesky_in_place`), with block-row
temporaries of at most three :math:`b \times k_0` arrays (and the
:math:`k_0 \times d` rows and inputs it gathers); the factor then
doubles its capacity (at most to :math:`C`) when the corral needs more room,
keeping the old one alive while it copies, so the last growth holds
:math:`c^2 + C^2` numbers, :math:`c` the last capacity below :math:`C` in the
chain :math:`k_0, 2k_0, \dots` (no growth, and no such term, when
:math:`k_0 = C`).  The rest is the working
set (:math:`|S| \times d` directions, levels, weights) and the ``n x p``
membership mask.  NNLS and HiGHS hold the dense rows, :math:`8 |S| d^2`
bytes, about three times over (the rows, the stacked system and the
solver's copy), at the working-set size they start with.

Figures (Wolfe, factor alone, :math:`8 (d^2+2)^2`): 134 MB at d = 64,
680 MB at d = 96, 2.15 GB at d = 128, 34.4 GB at d = 256 (docs/solvers-at-scale.md).
"""

from __future__ import annotations

import os

from lamcap.solvers._min_norm_point import CHOLESKY_BLOCK

_WARM_START_PANELS = 3
_DENSE_COPIES = 3


def exact_stage_bytes(d: int, working_set: int, exact: str, n: int = 0, p: int = 0) -> int:
    r"""Upper estimate of the bytes the exact stage ``exact`` needs (formula in the module docstring).

    Parameters
    ----------
    d : int
        Dimension; the unknown ``W`` has :math:`d^2` entries.
    working_set : int
        Constraints in the working set when the stage starts.
    exact : {"wolfe", "nnls", "highs"}
        The exact stage.
    n, p : int
        Associations and outputs (the ``n x p`` membership mask).

    Examples
    --------
    >>> round(exact_stage_bytes(128, 8192, "wolfe") / 1e9, 2)  # grows 8193 -> 16386
    2.69
    >>> round(exact_stage_bytes(128, 14000, "wolfe") / 1e9, 2)  # 14001 -> 16386
    3.73
    >>> exact_stage_bytes(64, 1000, "nnls") > 3 * 8 * 1000 * 64**2
    True
    """
    arrays = 8 * working_set * (d + 2) + n * p
    if exact == "wolfe":
        capacity = d * d + 2
        first = min(capacity, max(working_set + 1, 64))
        panel = _WARM_START_PANELS * min(first, CHOLESKY_BLOCK) * first
        factor = first * first + panel + 2 * first * d  # + the gathered rows and inputs
        if first < capacity:  # grown by doubling: the last copy holds both factors
            last = first
            while 2 * last < capacity:
                last *= 2
            factor = max(factor, last * last + capacity * capacity)
        return 8 * factor + arrays
    return _DENSE_COPIES * 8 * working_set * d * d + arrays


def available_memory() -> int:
    """Bytes of memory available to new allocations without swapping (psutil, else sysconf).

    ``psutil.virtual_memory().available`` counts reclaimable page cache;
    without psutil the free pages reported by ``os.sysconf`` (a lower bound).

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415
    except ImportError:  # pragma: no cover - psutil comes with dask[distributed]
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    return int(psutil.virtual_memory().available)
