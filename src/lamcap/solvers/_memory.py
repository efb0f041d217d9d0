r"""Memory the exact stage of the full-rank solver needs, and memory this machine has.

:func:`exact_stage_bytes` bounds what the solver allocates from the moment
the exact stage starts to the end of the run, beyond what the process
already holds then (the memory :func:`available_memory` reports has that
taken off already).  With :math:`D = d^2`, :math:`C = D + 2` (room for the
largest corral, :math:`D + 1` points), :math:`|S|` the working set at the
start, :math:`S^+ = \min(n(p-1), 4|S|)` the working set it may grow to,
:math:`B` the points added per major cycle and everything in float64
numbers (8 bytes) unless marked, Wolfe's exact stage
(:mod:`lamcap.solvers._min_norm_point`) needs

.. math::

    M_\text{Wolfe} = R + np\ \text{bytes} + 8\Big[(2d + 12)\,S^+
        + \max\big(k_0^2 + 2 b_0 k_0 + 2 k_0 d,\ c^2 + C^2,\
        C^2 + 2 b C + 2 C d,\ C^2 + (3B + 128)\, C,\ C^2 + P\big)\Big]\ \text{bytes},

the terms of the maximum being the phases, each with what is alive in it:

* **warm start**
  (:meth:`~lamcap.solvers._min_norm_point.CorralState.from_weights`): the
  factor of the first :math:`k_0 = \min(C, \max(|S| + 1, 64))` points,
  built in its own storage, with the temporaries of
  :func:`~lamcap.solvers._min_norm_point.cholesky_in_place`, at most two
  :math:`b_0 \times k_0` blocks (:math:`b_0 = \min(k_0, 2048)`,
  :data:`~lamcap.solvers._min_norm_point.CHOLESKY_BLOCK`: a panel and its
  product, or LAPACK's copy and result of one diagonal block) and the
  :math:`k_0 \times d` rows and inputs it gathers;
* **growth** (:meth:`~lamcap.solvers._min_norm_point.CorralState.grow`): the
  factor doubles its capacity (at most to :math:`C`), keeping the old one
  while it copies: :math:`c^2 + C^2` at the last growth, :math:`c` the last
  capacity below :math:`C` in the chain :math:`k_0, 2k_0, \dots` (no term
  when :math:`k_0 = C`);
* **sort** (:meth:`~lamcap.solvers._min_norm_point.CorralState.sort_by_weight`,
  before each exact round from ``large_dimension`` on; no term otherwise): the same
  factorisation as the warm start, on a corral of up to :math:`C` points in
  the full-size factor (:math:`b = \min(C, 2048)`);
* **major cycles**: the factor, and per cycle the :math:`B` candidates'
  entries against the corral, their forward substitutions and one row block
  of :data:`~lamcap.solvers._min_norm_point.FORWARD_BLOCK` (128) rows of the
  factor;
* **score passes** between exact rounds, the factor still held:
  :math:`P = 8np` numbers, eight ``n x p`` arrays (scores, scales,
  differences, normalised margins, the rows selected, their
  ``argpartition``, masks; all of them at once for the original model, a
  block of associations for the decoupled one), plus, when the decoupled
  outputs are drawn on demand (:math:`npd >` :data:`~lamcap.problems.CACHE_LIMIT`),
  one block of them, :math:`\max(2^{21}, T p d)` numbers (16 MiB, or
  :math:`T` associations at a time, :math:`T` drawing threads).  The
  verification of the result (:func:`~lamcap.solvers._result.build_result`)
  is one more such pass, after the factor is released.

The working set holds :math:`d + 4` numbers per constraint (direction,
association, competitor, weight) and briefly twice that while it grows, plus
a few per-constraint arrays of the exact stage (levels, norms, keys,
orderings): :math:`2d + 12`.  The ``n x p`` boolean membership mask is
counted in bytes.  :math:`R` (:data:`RUNTIME_BYTES`, 8 MiB) covers what
depends on no size: BLAS and LAPACK buffers and memory the allocator keeps
after it is freed.  Wolfe's compiled kernels are loaded before the check
(:func:`~lamcap.solvers._min_norm_point.load_kernels`), so the memory they
take (tens of MB when numba compiles them) is not counted as available.

Not included, because each checks its own need against
:func:`available_memory` when it is about to run and is skipped (with the
reason in ``details``) when it would not fit: the least-squares polish and
HiGHS' dual ray that may repair a Farkas vector on the dense rows
(:func:`dense_repair_bytes`), and the proofs of exact infeasibility
(:mod:`lamcap.solvers._infeasibility`: the perturbation proof up to
:math:`d = 64`, :func:`perturbation_proof_bytes`; the verified inverse above
it), which run after Wolfe's factor is released.

NNLS and HiGHS as exact stages (``exact="nnls"`` or ``"highs"``) hold the
dense rows, :math:`|S| \times D`, three times over (the rows, the stacked
system and the solver's copy): NNLS at :math:`|S| \le \max(|S_0|, D + 1 + 4n)`
rows (it prunes to the support each round, then adds at most 4 per
association); HiGHS keeps every row, so its estimate covers the rows it
starts with only (neither is measured).

Measured with Wolfe (``measurements/solvers_at_scale_memory.py``: the resident
memory at the check, then the kernel's peak from there to the end of the
run; infeasible instances at :math:`1.07\,p_c`, both models,
docs/solvers-at-scale.md): the estimate is above the need at every point,
1.3x at d = 32, 1.13-1.15x at d = 48, 1.07-1.08x at d = 64 and 1.05x at
d = 96 (decoupled; the working set grew 2.8-fold there).
Wolfe's factor alone, :math:`8 C^2`, is 134 MB at d = 64, 680 MB at
d = 96, 2.15 GB at d = 128 and 34.4 GB at d = 256.
"""

from __future__ import annotations

from lamcap._sizes import available_memory as available_memory  # noqa: PLC0414 - re-export
from lamcap._streams import thread_count
from lamcap.problems import CACHE_LIMIT
from lamcap.solvers._min_norm_point import CHOLESKY_BLOCK, FORWARD_BLOCK

RUNTIME_BYTES = 8 << 20
"""Size-independent allowance of :func:`exact_stage_bytes` (kernels, BLAS buffers, allocator)."""

_CHOLESKY_PANELS = 2
_DENSE_COPIES = 3
_PASS_ARRAYS = 8
_BLOCK_NUMBERS = 1 << 21  # lamcap.problems' block of drawn outputs
_CANDIDATES_PER_CYCLE = 3  # cross, its transpose, the substituted block: B x k each
_PER_CONSTRAINT = 12  # besides 2d: index, competitor, weight (twice while growing), levels, ...
_PROOF_RUNTIME_BYTES = 4 << 20
_HIGHS_BYTES_PER_ENTRY = 256  # measured 108-173 with the rows (dense random rows, 30-94 s of HiGHS)


def _factor_numbers(d: int, working_set: int, batch: int, sort: bool) -> int:
    """Largest phase of Wolfe's exact stage, in float64 numbers (module docstring)."""
    capacity = d * d + 2
    first = min(capacity, max(working_set + 1, 64))
    block = min(first, CHOLESKY_BLOCK)
    phases = [first * first + _CHOLESKY_PANELS * block * first + 2 * first * d]
    if first < capacity:  # grown by doubling: the last copy holds both factors
        last = first
        while 2 * last < capacity:
            last *= 2
        phases.append(last * last + capacity * capacity)
    if sort:
        block = min(capacity, CHOLESKY_BLOCK)
        phases.append(capacity * capacity + _CHOLESKY_PANELS * block * capacity + 2 * capacity * d)
    phases.append(capacity * capacity + (_CANDIDATES_PER_CYCLE * batch + FORWARD_BLOCK) * capacity)
    return max(phases)


def _pass_numbers(d: int, n: int, p: int) -> int:
    """Float64 numbers one score pass holds at once (module docstring)."""
    drawn = max(_BLOCK_NUMBERS, thread_count() * p * d) if n * p * d > CACHE_LIMIT else 0
    return _PASS_ARRAYS * n * p + drawn


def score_pass_bytes(d: int, n: int, p: int) -> int:
    r"""Bytes of one score pass over the instance, the least any solve needs.

    Every method holds :math:`W` (:math:`d^2` numbers, and as many for its
    update or gradient) and verifies it on all :math:`n(p-1)` constraints
    (:func:`~lamcap.solvers._result.build_result`), which holds the ``n x p``
    arrays of a pass and the membership mask: :math:`R + np + 8(P + 2d^2)`
    bytes (:math:`P` and :math:`R` as in the module docstring).
    :func:`lamcap.solve` compares it with :func:`available_memory` before it
    starts.

    Examples
    --------
    >>> score_pass_bytes(8, 10**9, 10**9) > 6 * 10**19  # lamcap.solve at p = 1e9
    True
    >>> score_pass_bytes(10**5, 3, 3) > 1.6e11  # d = 1e5: W alone is 80 GB
    True
    """
    return RUNTIME_BYTES + n * p + 8 * (_pass_numbers(d, n, p) + 2 * d * d)


def exact_stage_bytes(
    d: int,
    working_set: int,
    exact: str,
    n: int = 0,
    p: int = 0,
    *,
    batch: int = 64,
    sort: bool = True,
) -> int:
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
        Associations and outputs (score passes, the ``n x p`` membership mask).
    batch : int
        Points a Wolfe major cycle may add at once (``CuttingPlaneOptions.wolfe_batch``).
    sort : bool
        Whether the corral is sorted by weight before each exact round (from
        ``CuttingPlaneOptions.large_dimension`` on).

    Examples
    --------
    >>> round(exact_stage_bytes(96, 8033, "wolfe", 1190, 1190) / 1e9, 2)  # grows 8034 -> 9218
    1.26
    >>> round(exact_stage_bytes(128, 14000, "wolfe", 1940, 1940) / 1e9, 2)  # 14001 -> 16386
    3.85
    >>> exact_stage_bytes(64, 1000, "nnls") > 3 * 8 * 1000 * 64**2
    True
    """
    grown = min(n * (p - 1), 4 * working_set) if n and p else 4 * working_set
    fixed = RUNTIME_BYTES + n * p + 8 * (2 * d + _PER_CONSTRAINT) * grown
    passes = _pass_numbers(d, n, p)
    if exact == "wolfe":
        capacity = d * d + 2
        largest = max(_factor_numbers(d, working_set, batch, sort), capacity * capacity + passes)
        return fixed + 8 * largest
    rows = max(working_set, d * d + 1 + 4 * n)
    return fixed + 8 * (_DENSE_COPIES * rows * d * d + passes)


def dense_repair_bytes(count: int, unknowns: int, highs: bool) -> int:
    r"""Bytes to repair a Farkas vector on ``count`` dense rows of ``unknowns`` entries.

    The least-squares polish holds the rows, the stacked system and LAPACK's
    copy: :math:`3 \cdot 8\,kD` bytes.  HiGHS' dual ray holds the rows, their
    nonzero pattern and values, and HiGHS' own row- and column-wise copies:
    at most 96 bytes per entry (sized, not measured: the repair is skipped
    when it would not fit).

    Examples
    --------
    >>> dense_repair_bytes(100, 64, highs=False)
    153600
    """
    entries = count * unknowns
    return (_HIGHS_BYTES_PER_ENTRY if highs else 8 * _DENSE_COPIES) * entries


def perturbation_proof_bytes(count: int, dimension: int) -> int:
    r"""Bytes of the perturbation proof on ``count`` constraints in :math:`\mathbb R^D`.

    :math:`8\,(kD + \max(kD + 2D^2,\ 7D^2))`: the scaled columns
    (:math:`k \times D`; twice while they are scaled and squared) with the
    Gram matrix and its Cholesky factor, then, while a shifted Gram matrix is
    checked, the shifted matrix, its factor, their product and the residual,
    with the previous try's three still alive
    (:mod:`lamcap.solvers._infeasibility`); and 4 MiB that depend on no size
    (LAPACK's buffers, the allocator).

    Examples
    --------
    >>> round(perturbation_proof_bytes(4097, 4096) / 1e9, 2)  # d = 64, k = d^2 + 1
    1.08
    """
    square = dimension * dimension
    numbers = count * dimension + max(count * dimension + 2 * square, 7 * square)
    return _PROOF_RUNTIME_BYTES + 8 * numbers
