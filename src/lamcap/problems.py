r"""Random recall instances: the original and the decoupled problem.

An instance stores ``n`` associations :math:`e_\mu \mapsto u_{t(\mu)}` in a
:math:`d \times d` matrix :math:`W`; association :math:`\mu` is recalled iff its
target output scores strictly highest among the ``p`` outputs it sees,

.. math::

    s_{\mu\rho} = u^{(\mu)\top}_\rho W e_\mu, \qquad
    s_{\mu, t(\mu)} > s_{\mu\rho} \quad \forall \rho \ne t(\mu)

(docs/theory/index.md; arXiv:2605.10795).  With ``embeddings="gaussian"`` (the
default) every entry of every input and output is drawn independently from
:math:`\mathcal N(0, 1/d)`; with ``embeddings="sphere"`` every input and output is
uniform on the unit sphere :math:`S^{d-1}` (the Gaussian row of the same stream
divided by its norm: the protocol of Nichani et al., arXiv:2412.06538;
docs/theory/unit-norm.md).

Conventions (stable; the solvers rely on them)
-----------------------------------------------
* ``model="original"``: one shared ``p x d`` output matrix; association ``mu``
  targets row ``mu``, so ``targets = arange(n)`` and ``n <= p`` is required
  (default ``n = p``, the paper's setting).
* ``model="decoupled"``: association ``mu`` sees its own ``p x d`` output matrix
  :math:`U^{(\mu)}`; its target is **row 0** (``targets = zeros(n)``).
* Randomness: one :class:`numpy.random.SeedSequence` per instance seed; the
  inputs come from the child stream ``spawn_key=(0,)``, the shared outputs of
  the original model from ``(1,)`` and the outputs of decoupled association
  ``mu`` from ``(2, mu)``, each through an ``SFC64`` bit generator and
  ``standard_normal`` (then scaled by :math:`d^{-1/2}`).  Any association's
  outputs are therefore reproducible on their own in :math:`O(pd)` time and
  memory, identical whether computed once, twice, in blocks, in any order or on
  another machine (unit-norm rows divide the raw ``standard_normal`` row by the
  square root of its squared norm summed left to right, the same operations in
  numpy and in the kernel) (numpy's stream-compatibility policy for ``SFC64`` and
  ``standard_normal``).  Large blocks are drawn by a numba kernel
  (:mod:`lamcap._streams`) that calls the same bit generator and the same
  ziggurat (numba's port of numpy's ``Generator.standard_normal``): bit for bit
  identical to numpy, faster per core (docs/benchmarks.md), on
  :func:`numba.get_num_threads` threads at once.  The decoupled model has
  :math:`npd` numbers (about 70 GB at d = 256 near capacity): it is generated
  on demand and only cached when it is small (at most :data:`CACHE_LIMIT`
  numbers).
"""

from __future__ import annotations

import hashlib
import math
import numbers
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._sizes import check_memory
from lamcap._validation import (
    EMBEDDINGS,
    check_choice,
    check_embeddings,
    check_finite_array,
    check_integer,
    check_integer_array,
)

__all__ = [
    "CONVENTIONS",
    "EMBEDDINGS",
    "MODELS",
    "Instance",
    "ScoredBlock",
    "TransposedWeightsWarning",
    "hebbian_weights",
    "make_instance",
    "recall_accuracy",
    "scores",
]

MODELS = ("decoupled", "original")
CONVENTIONS = ("scores", "logits")
r"""How a given ``W`` scores: ``"scores"``, lamcap's :math:`u_\rho^\top W e_\mu` (the
default), or ``"logits"``, :math:`e_\mu^\top W u_\rho` (logits ``x W U^T`` of much ML
code), which is lamcap's ``W`` transposed."""
GIVEN = "given"
"""The ``embeddings`` label of an :meth:`Instance.from_arrays` instance not declared as either."""
UNIT_NORM_TOLERANCE = 1e-6
"""Rows declared ``embeddings="sphere"`` must have a norm within this of 1."""
CACHE_LIMIT = 1 << 25
"""Decoupled instances with at most this many output numbers (256 MiB) hold them in memory.

The one cache policy of lamcap: every score pass (:meth:`Instance.scored_blocks`,
used by the cutting plane, the certificates, the two-layer trainer and the Adam
baseline) reads the held outputs; larger instances are streamed block by block.
"""

_INPUT_STREAM = 0
_SHARED_OUTPUT_STREAM = 1
_ASSOCIATION_OUTPUT_STREAM = 2
_BLOCK_NUMBERS = 1 << 21  # numbers per block in blockwise passes (16 MiB)


def _generator(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    """The generator of stream ``(seed, key)``: SFC64 seeded by a spawned SeedSequence."""
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence(seed, spawn_key=key)))


def _normal(seed: int, key: tuple[int, ...], shape: tuple[int, ...], d: int) -> NDArray[np.float64]:
    """N(0, 1/d) numbers of the stream ``(seed, key)``, row-major in ``shape``."""
    values = _generator(seed, key).standard_normal(shape)
    values *= 1.0 / math.sqrt(d)
    return values


def _unit_rows(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row (last axis) divided by its norm, in place; the squared norm summed left to right.

    The order of the sum is that of :func:`lamcap._streams.draw_scored_unit_outputs`,
    so both give the same bits.
    """
    norm2 = np.zeros(values.shape[:-1])
    for column in range(values.shape[-1]):
        norm2 += values[..., column] * values[..., column]
    values /= np.sqrt(norm2)[..., None]
    return values


def unit_norm_rows(embeddings: str) -> bool:
    """True when instances of these ``embeddings`` are drawn with unit-norm rows.

    Examples
    --------
    >>> unit_norm_rows("sphere"), unit_norm_rows("gaussian")
    (True, False)
    """
    return check_embeddings(embeddings) == "sphere"


def _embedded(
    seed: int, key: tuple[int, ...], shape: tuple[int, ...], d: int, embeddings: str
) -> NDArray[np.float64]:
    """Rows of the stream ``(seed, key)``: N(0, 1/d) entries, or unit-norm rows (``"sphere"``)."""
    if unit_norm_rows(embeddings):
        return _unit_rows(_generator(seed, key).standard_normal(shape))
    return _normal(seed, key, shape, d)


def _check_unit_norm(name: str, rows: NDArray[np.float64]) -> None:
    """``ValueError`` naming the first row of ``rows`` whose norm is not 1 within the tolerance."""
    norms = np.sqrt(np.einsum("...d,...d->...", rows, rows))
    bad = np.argwhere(np.abs(norms - 1.0) > UNIT_NORM_TOLERANCE)
    if bad.size:
        index = tuple(bad[0].tolist())
        msg = (
            f"{name} declared embeddings='sphere' must have unit-norm rows "
            f"(| norm - 1 | <= {UNIT_NORM_TOLERANCE:g}), got norm "
            f"{float(norms[index]):.17g} at index {index}; "
            f"pass embeddings=None for other data (accepted: {EMBEDDINGS} or None)"
        )
        raise ValueError(msg)


class ScoredBlock(NamedTuple):
    r"""Scores of a block of associations ``start .. start + len(scores) - 1``.

    ``scores[b, rho]`` is :math:`u^{(\mu)\top}_\rho h_\mu` and ``norms2[b, rho]``
    is :math:`\|u^{(\mu)}_\rho\|^2` for :math:`\mu = ` ``start + b``; ``outputs``
    is the ``(b, p, d)`` block itself (a broadcast view for the original model)
    when it was asked for, else None.
    """

    start: int
    scores: NDArray[np.float64]
    norms2: NDArray[np.float64]
    outputs: NDArray[np.float64] | None


@dataclass(frozen=True, eq=False)
class Instance:
    r"""One recall instance: random (:func:`make_instance`) or given (:meth:`from_arrays`).

    See the module docstring for the conventions of random instances.

    Attributes
    ----------
    d, p, n : int
        Dimension, number of outputs per association, number of associations.
    model : str
        ``"decoupled"`` or ``"original"``.
    embeddings : str
        ``"gaussian"`` or ``"sphere"`` (how a random instance was drawn, or what
        :meth:`from_arrays` was told and checked), ``"given"`` for arrays not
        declared as either.
    seed : int
        The seed every number is derived from; ``-1`` for an instance built
        by :meth:`from_arrays`, whose numbers are the given arrays.
    inputs : ndarray, shape (n, d), read-only
        :math:`e_\mu` as rows.
    targets : ndarray of int64, shape (n,), read-only
        Index of association ``mu``'s target row in ``outputs(mu)``.

    Examples
    --------
    >>> instance = make_instance(4, 3, n=2, seed=0)
    >>> instance.inputs.shape, instance.outputs(1).shape, instance.targets.tolist()
    ((2, 4), (3, 4), [0, 0])
    """

    d: int
    p: int
    n: int
    model: str
    seed: int
    inputs: NDArray[np.float64] = field(repr=False)
    targets: NDArray[np.int64] = field(repr=False)
    embeddings: str = "gaussian"
    _cache: dict[str, NDArray[np.float64]] = field(repr=False, default_factory=dict)

    @property
    def constraint_count(self) -> int:
        """Number of recall constraints, :math:`n(p-1)`."""
        return self.n * (self.p - 1)

    @classmethod
    def from_arrays(
        cls,
        inputs: ArrayLike,
        outputs: ArrayLike,
        targets: ArrayLike,
        *,
        model: str = "decoupled",
        embeddings: str | None = None,
    ) -> Instance:
        r"""An instance holding given embeddings: inputs, outputs and each input's target.

        .. math::

            s_{\mu\rho} = u^{(\mu)\top}_\rho W e_\mu, \qquad
            \text{recall of } \mu \iff s_{\mu, t(\mu)} > s_{\mu\rho}\ \forall \rho \ne t(\mu)

        (arXiv:2605.10795; docs/howto/own-embeddings.md).  Every lamcap
        function that takes an instance (``solve``, ``verify``, ``scores``,
        ``recall_accuracy``, ``hebbian_weights``) then runs on your embeddings
        (unit-norm, learnt, taken from a model...); nothing is random.  The
        arrays are copied (float64, read-only).

        The convention: a ``W`` scores outputs on the left and inputs on the
        right, :math:`u_\rho^\top W e_\mu`.  Code that computes logits as
        ``x W U^T`` scores :math:`e_\mu^\top W u_\rho`, so its ``W`` is lamcap's
        transposed: pass ``convention="logits"`` to :func:`scores`,
        :func:`recall_accuracy` and :func:`lamcap.verify` (or pass ``W.T``).

        Parameters
        ----------
        inputs : array_like, shape (n, d)
            :math:`e_\mu` as rows: finite, none of them zero.
        outputs : array_like
            ``model="decoupled"``: shape ``(n, p, d)``, row ``rho`` of
            ``outputs[mu]`` is :math:`u^{(\mu)}_\rho`; ``model="original"``:
            shape ``(p, d)``, shared by all associations.  Finite, no zero row,
            ``p >= 2``.
        targets : int or array_like of int, shape (n,)
            Index of each association's target among its ``p`` outputs, in
            ``[0, p - 1]`` (an int applies to every association).  Several
            associations may share a target.
        model : {"decoupled", "original"}
            Whether each association has its own outputs.
        embeddings : {"gaussian", "sphere"}, optional
            What the arrays are, recorded as ``Instance.embeddings`` (default:
            ``"given"``, nothing declared).  ``"sphere"`` is checked: every input
            and output row must have norm 1 within :data:`UNIT_NORM_TOLERANCE`
            (``1e-6``), else ``ValueError``; ``"gaussian"`` cannot be checked on
            one draw and is recorded as stated.

        Returns
        -------
        Instance
            With ``seed = -1``; ``outputs(mu)``, ``scored_blocks`` and the
            solvers read the given arrays.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> e = rng.standard_normal((5, 8))
        >>> u = rng.standard_normal((5, 3, 8))
        >>> instance = Instance.from_arrays(e, u, 0)
        >>> instance.d, instance.p, instance.n, instance.targets.tolist()
        (8, 3, 5, [0, 0, 0, 0, 0])
        >>> Instance.from_arrays(e, u[0], [0, 1, 2, 0, 1], model="original").p
        3
        >>> unit = u / np.linalg.norm(u, axis=-1, keepdims=True)
        >>> Instance.from_arrays(e / np.linalg.norm(e, axis=1)[:, None], unit, 0,
        ...                      embeddings="sphere").embeddings
        'sphere'
        """
        model = check_choice("model", model, MODELS)
        label = GIVEN if embeddings is None else check_embeddings(embeddings)
        rows = _nonzero_rows("inputs", inputs, ndim=2)
        n, d = rows.shape
        shape = "(n, p, d)" if model == "decoupled" else "(p, d)"
        dimensions = np.ndim(outputs)
        if (model, dimensions) in (("decoupled", 2), ("original", 3)):
            other = "original" if dimensions == 2 else "decoupled"
            meaning = (
                "a (p, d) matrix shared by all associations"
                if dimensions == 2
                else "an (n, p, d) array, each association its own outputs"
            )
            msg = (
                f"outputs must have shape {shape} for model={model!r}, got shape "
                f"{np.shape(outputs)}: {meaning} is model={other!r}; pass model={other!r}"
            )
            raise ValueError(msg)
        values = _nonzero_rows("outputs", outputs, ndim=3 if model == "decoupled" else 2)
        p = values.shape[-2]
        if values.shape[-1] != d or (model == "decoupled" and values.shape[0] != n) or p < 2:
            msg = (
                f"outputs must have shape {shape} = {shape.replace('n', str(n)).replace('d', str(d))}"
                f" with p >= 2 for model={model!r} and inputs of shape ({n}, {d}), "
                f"got {values.shape}"
            )
            raise ValueError(msg)
        indices = np.broadcast_to(np.asarray(targets), (n,)) if np.ndim(targets) == 0 else targets
        chosen = check_integer_array("targets", indices, minimum=0, maximum=p - 1)
        if chosen.shape != (n,):
            msg = f"targets must be an int or have shape ({n},), got shape {chosen.shape}"
            raise ValueError(msg)
        chosen = chosen.copy()
        if label == "sphere":
            _check_unit_norm("inputs", rows)
            _check_unit_norm("outputs", values)
        for array in (rows, values, chosen):
            array.setflags(write=False)
        return cls(
            d=d,
            p=p,
            n=n,
            model=model,
            seed=-1,
            inputs=rows,
            targets=chosen,
            embeddings=label,
            _cache={"outputs": values},
        )

    @property
    def is_cached(self) -> bool:
        """Whether all outputs are held in memory (given arrays, original model, small decoupled)."""
        return self.seed < 0 or self.model == "original" or self.n * self.p * self.d <= CACHE_LIMIT

    @property
    def digest(self) -> str:
        """SHA-256 of the numbers that define the instance (what a result is bound to).

        Model, sizes, seed, inputs and targets (and the embeddings when they are
        not Gaussian, so Gaussian digests are unchanged); the outputs too when
        they were given (a random instance's outputs are a function of its seed).

        Examples
        --------
        >>> make_instance(3, 4, seed=1).digest == make_instance(3, 4, seed=1).digest
        True
        """
        key: tuple[Any, ...] = (self.model, self.d, self.p, self.n, self.seed)
        if self.embeddings != "gaussian":
            key = (*key, self.embeddings)
        hasher = hashlib.sha256(repr(key).encode())
        arrays = [self.inputs, self.targets]
        if self.seed < 0:
            arrays.append(self._shared_outputs())
        for array in arrays:
            hasher.update(np.ascontiguousarray(array).tobytes())
        return hasher.hexdigest()

    def _shared_outputs(self) -> NDArray[np.float64]:
        if "outputs" not in self._cache:
            if self.model == "original":
                values = _embedded(
                    self.seed, (_SHARED_OUTPUT_STREAM,), (self.p, self.d), self.d, self.embeddings
                )
            else:
                values = np.stack([self._generate(mu) for mu in range(self.n)])
            values.setflags(write=False)
            self._cache["outputs"] = values
        return self._cache["outputs"]

    def _cached_norms2(self) -> NDArray[np.float64]:
        """Squared norms of the held decoupled outputs, ``(n, p)``, computed once."""
        if "norms2" not in self._cache:
            outputs = self._shared_outputs()
            norms2 = np.einsum("bpd,bpd->bp", outputs, outputs)
            norms2.setflags(write=False)
            self._cache["norms2"] = norms2
        return self._cache["norms2"]

    def _generate(self, mu: int) -> NDArray[np.float64]:
        key = (_ASSOCIATION_OUTPUT_STREAM, mu)
        return _embedded(self.seed, key, (self.p, self.d), self.d, self.embeddings)

    def _check_association(self, mu: Any) -> int:
        return check_integer("mu", mu, minimum=0, maximum=self.n - 1)

    def outputs(self, mu: int) -> NDArray[np.float64]:
        r"""The ``p x d`` output matrix :math:`U^{(\mu)}` seen by association ``mu``.

        For the original model this is the shared matrix (a read-only array).
        For the decoupled model it is generated from the stream ``(seed, 2, mu)``
        in :math:`O(pd)` (or read from the cache of a small instance).

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> bool(np.array_equal(instance.outputs(2), instance.outputs(2)))
        True
        """
        mu = self._check_association(mu)
        if self.is_cached:
            outputs = self._shared_outputs()
            return outputs if self.model == "original" else outputs[mu]
        return self._generate(mu)

    def output_block(self, mus: ArrayLike) -> NDArray[np.float64]:
        r"""Outputs of several associations, shape ``(len(mus), p, d)``.

        ``output_block(mus)[i]`` equals ``outputs(mus[i])`` exactly, whatever the
        block or its order.  For the original model the result is a read-only
        broadcast view of the shared matrix (no copy).

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> block = instance.output_block([4, 0])
        >>> block.shape, bool(np.array_equal(block[0], instance.outputs(4)))
        ((2, 4, 3), True)
        """
        indices = np.atleast_1d(np.asarray(mus))
        if indices.ndim != 1:
            msg = f"mus must be a 1-d sequence of association indices, got shape {indices.shape}"
            raise ValueError(msg)
        checked = [self._check_association(mu) for mu in indices.tolist()]
        if self.model == "original":
            return np.broadcast_to(self._shared_outputs(), (len(checked), self.p, self.d))
        if self.is_cached:
            return self._shared_outputs()[np.asarray(checked, dtype=np.int64)]
        block, _, _ = self._draw(checked, np.zeros((len(checked), self.d)), keep=True)
        assert block is not None  # keep=True
        return block

    def _draw(
        self, mus: list[int], hidden: NDArray[np.float64], *, keep: bool
    ) -> tuple[NDArray[np.float64] | None, NDArray[np.float64], NDArray[np.float64]]:
        """Outputs (if ``keep``), scores against ``hidden[i]`` and squared norms of ``mus``."""
        count = len(mus)
        outputs = np.empty((count, self.p, self.d) if keep else (count, 0, 0))
        block_scores = np.empty((count, self.p))
        norms2 = np.empty((count, self.p))
        from lamcap._streams import (  # noqa: PLC0415 (numba)
            draw_scored_outputs,
            draw_scored_unit_outputs,
            in_threads,
        )

        scale = 1.0 / math.sqrt(self.d)
        hidden = np.ascontiguousarray(hidden, dtype=np.float64)
        unit = unit_norm_rows(self.embeddings)

        def work(lo: int, hi: int) -> None:
            row = np.empty(self.d)
            for i in range(lo, hi):
                generator = _generator(self.seed, (_ASSOCIATION_OUTPUT_STREAM, mus[i]))
                if unit:
                    draw_scored_unit_outputs(
                        generator, hidden[i], row, outputs[i], block_scores[i], norms2[i], keep
                    )
                else:
                    draw_scored_outputs(
                        generator, scale, hidden[i], outputs[i], block_scores[i], norms2[i], keep
                    )

        in_threads(count, work)
        return (outputs if keep else None), block_scores, norms2

    def scored_blocks(
        self, hidden: ArrayLike, *, keep_outputs: bool = False
    ) -> Iterator[ScoredBlock]:
        r"""Score every output against :math:`h_\mu`, block by block of associations.

        The one pass every solver and check makes: ``hidden`` is the ``n x d``
        matrix of :math:`h_\mu = W e_\mu` (rows).  Cached instances use matrix
        products; large decoupled ones draw each association's outputs once,
        in a numba kernel on :func:`numba.get_num_threads` threads, scoring rows
        while they are drawn (memory :math:`O(bpd)` only with ``keep_outputs``).
        Scores are float64 dot products, accurate to :math:`O(d\,\epsilon)`
        relative to :math:`\|u_\rho\|\,\|h_\mu\|` (the summation order, hence
        the last bits, differ between the two paths).

        Parameters
        ----------
        hidden : array_like, shape ``(n, d)``
            Row ``mu`` is :math:`h_\mu`.
        keep_outputs : bool
            Also return each block's outputs (``ScoredBlock.outputs``).

        Yields
        ------
        ScoredBlock
            ``start``, ``scores`` and ``norms2`` of shape ``(b, p)``, ``outputs``.

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> hidden = instance.inputs
        >>> block = next(instance.scored_blocks(hidden))
        >>> bool(np.allclose(block.scores[0], instance.outputs(0) @ hidden[0]))
        True
        """
        values = np.asarray(hidden, dtype=np.float64)
        if values.shape != (self.n, self.d):
            msg = f"hidden must have shape ({self.n}, {self.d}), got {values.shape}"
            raise ValueError(msg)
        if self.model == "original":
            shared = self._shared_outputs()
            block_scores = values @ shared.T
            norms2 = np.broadcast_to(np.einsum("pd,pd->p", shared, shared), block_scores.shape)
            outputs = np.broadcast_to(shared, (self.n, self.p, self.d)) if keep_outputs else None
            yield ScoredBlock(0, block_scores, norms2, outputs)
            return
        if self.is_cached:
            outputs, all_norms2 = self._shared_outputs(), self._cached_norms2()
            size = max(1, _BLOCK_NUMBERS // (self.p * self.d))
            for start in range(0, self.n, size):
                block = outputs[start : start + size]  # a read-only view, no copy
                yield ScoredBlock(
                    start,
                    np.einsum("bpd,bd->bp", block, values[start : start + size]),
                    all_norms2[start : start + size],
                    block if keep_outputs else None,
                )
            return
        from lamcap._streams import thread_count  # noqa: PLC0415 (numba)

        size = max(thread_count(), _BLOCK_NUMBERS // (self.p * self.d))
        for start in range(0, self.n, size):
            mus = list(range(start, min(self.n, start + size)))
            outputs, block_scores, norms2 = self._draw(mus, values[mus], keep=keep_outputs)
            yield ScoredBlock(start, block_scores, norms2, outputs)

    def blocks(self, size: int | None = None) -> Iterator[tuple[int, NDArray[np.float64]]]:
        """Iterate over ``(start, output_block(range(start, start + size)))``.

        The default ``size`` keeps each block near 16 MiB.

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> [(start, block.shape[0]) for start, block in instance.blocks(2)]
        [(0, 2), (2, 2), (4, 1)]
        """
        if size is None:
            size = max(1, _BLOCK_NUMBERS // (self.p * self.d))
        size = check_integer("size", size, minimum=1)
        for start in range(0, self.n, size):
            yield start, self.output_block(range(start, min(self.n, start + size)))

    def constraint_outputs(
        self, mus: ArrayLike, rhos: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        r"""Target and competitor rows of constraints ``(mus[k], rhos[k])``, each ``(k, d)``.

        Row ``k`` is :math:`u^{(\mu_k)}_{t(\mu_k)}` and :math:`u^{(\mu_k)}_{\rho_k}`; only
        the associations named are generated, a block of about 16 MiB of
        outputs at a time (memory :math:`O(kd)` beyond one block, not
        :math:`O(n_S p d)` for the :math:`n_S` associations named: 1.1 GB at
        d = 96 near capacity).

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> targets, competitors = instance.constraint_outputs([2, 2], [1, 3])
        >>> bool(np.array_equal(competitors[1], instance.outputs(2)[3]))
        True
        """
        association = np.asarray(mus, dtype=np.int64)
        competitor = np.asarray(rhos, dtype=np.int64)
        if self.model == "original":
            shared = self._shared_outputs()
            return shared[self.targets[association]], shared[competitor]
        used, position = np.unique(association, return_inverse=True)
        order = np.argsort(position, kind="stable")
        bounds = np.searchsorted(position[order], np.arange(used.size + 1))
        targets = np.empty((association.size, self.d))
        competitors = np.empty((association.size, self.d))
        size = max(1, _BLOCK_NUMBERS // (self.p * self.d))
        for start in range(0, used.size, size):
            stop = min(used.size, start + size)
            block = self.output_block(used[start:stop])
            rows = order[bounds[start] : bounds[stop]]
            local = position[rows] - start
            targets[rows] = block[local, self.targets[association[rows]]]
            competitors[rows] = block[local, competitor[rows]]
        return targets, competitors

    def target_outputs(self) -> NDArray[np.float64]:
        r"""The ``n x d`` matrix whose row ``mu`` is the target output :math:`u_{t(\mu)}`.

        Cheap for both models: a decoupled target is the first row of its stream,
        so only ``d`` numbers are drawn per association.

        Examples
        --------
        >>> instance = make_instance(3, 4, n=5, seed=1)
        >>> bool(np.array_equal(instance.target_outputs()[3], instance.outputs(3)[0]))
        True
        """
        if "targets" not in self._cache:
            if self.model == "original":
                rows = self._shared_outputs()[self.targets]
            elif self.is_cached:
                rows = self._shared_outputs()[np.arange(self.n), self.targets]
            else:
                rows = np.stack(
                    [
                        _embedded(
                            self.seed,
                            (_ASSOCIATION_OUTPUT_STREAM, mu),
                            (self.d,),
                            self.d,
                            self.embeddings,
                        )
                        for mu in range(self.n)
                    ]
                )
            rows = np.ascontiguousarray(rows)
            rows.setflags(write=False)
            self._cache["targets"] = rows
        return self._cache["targets"]


def _nonzero_rows(name: str, value: ArrayLike, *, ndim: int) -> NDArray[np.float64]:
    """``value`` as a finite float64 copy with ``ndim`` dimensions and no zero row."""
    array = np.array(check_finite_array(name, value), dtype=np.float64)
    if array.ndim != ndim or 0 in array.shape:
        msg = f"{name} must be a non-empty {ndim}-d array, got shape {array.shape}"
        raise ValueError(msg)
    zero = np.argwhere(~np.any(array != 0.0, axis=-1))
    if zero.size:
        msg = f"{name} must have no zero row, got one at index {tuple(zero[0].tolist())}"
        raise ValueError(msg)
    return array


def check_instance(instance: object, name: str = "instance") -> Instance:
    """Return ``instance`` if it is an :class:`Instance`, else raise ``ValueError``.

    Examples
    --------
    >>> check_instance("x")
    Traceback (most recent call last):
        ...
    ValueError: instance must be a lamcap Instance (make_instance or Instance.from_arrays), got str
    """
    if not isinstance(instance, Instance):
        msg = (
            f"{name} must be a lamcap Instance (make_instance or Instance.from_arrays), "
            f"got {type(instance).__name__}"
        )
        raise ValueError(msg)
    return instance


def _check_seed(seed: Any) -> int:
    is_integer = isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_)
    if not is_integer or seed < 0:
        msg = f"seed must be a non-negative integer, got {seed!r}"
        raise ValueError(msg)
    return int(seed)


def make_instance(
    d: int,
    p: int,
    *,
    n: int | None = None,
    model: str = "decoupled",
    seed: int,
    embeddings: str = "gaussian",
) -> Instance:
    r"""Draw a random recall instance (docs/theory/index.md).

    .. math::

        e_\mu,\ u^{(\mu)}_\rho \overset{iid}{\sim} \mathcal N(0, I_d / d)
        \quad\text{or}\quad \operatorname{Unif}(S^{d-1}),
        \qquad \mu = 0..n-1,\ \rho = 0..p-1.

    Parameters
    ----------
    d : int
        Dimension, ``d >= 1``.
    p : int
        Outputs per association, ``p >= 2``.
    n : int, optional
        Number of associations, ``n >= 1`` (default ``p``); ``n <= p`` for the
        original model, whose association ``mu`` targets shared output ``mu``.
    model : {"decoupled", "original"}
        Decoupled: each association has its own outputs, target row 0.
    seed : int
        Non-negative seed; the instance is a pure function of
        ``(d, p, n, model, seed, embeddings)``.
    embeddings : {"gaussian", "sphere"}
        ``"gaussian"``: entries N(0, 1/d) (the numbers of lamcap before this
        option, bit for bit).  ``"sphere"``: each input and output uniform on the
        unit sphere, the same stream's Gaussian row divided by its norm (the
        protocol of Nichani et al., arXiv:2412.06538; its law:
        docs/theory/unit-norm.md).

    Returns
    -------
    Instance
        Frozen; inputs are drawn at once, outputs on demand (see :class:`Instance`).

    Raises
    ------
    ValueError
        For a bad argument, or when the inputs (:math:`8n(d+1)` bytes with the
        targets) would not fit in the available memory; the message names the
        sizes and the bytes (:func:`lamcap._sizes.check_memory`).

    Examples
    --------
    >>> instance = make_instance(8, 5, model="original", seed=3)
    >>> instance.n, instance.targets.tolist()
    (5, [0, 1, 2, 3, 4])
    >>> a = make_instance(8, 5, seed=3).outputs(2)
    >>> bool(np.array_equal(a, make_instance(8, 5, seed=3).outputs(2)))
    True
    >>> u = make_instance(8, 5, seed=3, embeddings="sphere").outputs(2)
    >>> bool(np.allclose(np.linalg.norm(u, axis=1), 1.0))
    True
    """
    d = check_integer("d", d, minimum=1)
    p = check_integer("p", p, minimum=2)
    n = p if n is None else check_integer("n", n, minimum=1)
    model = check_choice("model", model, MODELS)
    if model == "original" and n > p:
        msg = f"n must be an integer in [1, {p}] (n <= p) for model='original', got {n!r}"
        raise ValueError(msg)
    seed = _check_seed(seed)
    embeddings = check_embeddings(embeddings)
    check_memory(
        f"make_instance with d = {d}, p = {p}, n = {n} (the inputs, n x d float64 numbers)",
        8 * n * (d + 1),
    )
    inputs = _embedded(seed, (_INPUT_STREAM,), (n, d), d, embeddings)
    inputs.setflags(write=False)
    targets = np.arange(n, dtype=np.int64) if model == "original" else np.zeros(n, dtype=np.int64)
    targets.setflags(write=False)
    return Instance(
        d=d,
        p=p,
        n=n,
        model=model,
        seed=seed,
        inputs=inputs,
        targets=targets,
        embeddings=embeddings,
    )


def check_weights(instance: Instance, weights: ArrayLike, name: str = "W") -> NDArray[np.float64]:
    """Return ``weights`` as a finite float64 ``d x d`` array or raise ``ValueError``.

    Examples
    --------
    >>> check_weights(make_instance(2, 2, seed=0), [[1, 0], [0, 1]]).dtype
    dtype('float64')
    """
    instance = check_instance(instance)
    array = check_finite_array(name, weights)
    if array.shape != (instance.d, instance.d):
        msg = f"{name} must have shape ({instance.d}, {instance.d}), got {array.shape}"
        raise ValueError(msg)
    return array


class TransposedWeightsWarning(UserWarning):
    r"""A given ``W`` recalls near chance while its transpose recalls far more.

    lamcap scores :math:`u_\rho^\top W e_\mu`; logits computed as ``x W U^T``
    score :math:`e_\mu^\top W u_\rho`, so such a ``W`` is lamcap's transposed.
    :func:`recall_accuracy` and :func:`lamcap.verify` warn once per call when a
    ``W`` recalls at most twice chance (:math:`2/p`) while its transpose recalls
    at least half of the associations and at least ten times as many, a count
    chance reaches with probability at most :math:`10^{-3}` (:data:`TRANSPOSE_RULE`).  Pass ``convention="logits"`` (or ``W.T``) if that
    is your convention; silence it with
    ``warnings.simplefilter("ignore", lamcap.TransposedWeightsWarning)``.

    Attributes
    ----------
    args : tuple of str
        The message: both accuracys, chance :math:`1/p` and the
        convention to pass.

    Examples
    --------
    >>> import warnings
    >>> instance = make_instance(32, 40, n=40, seed=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     recall_accuracy(instance, hebbian_weights(instance).T)
    0.0
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    W recalls 0.0% of the 40 associations (chance 1/p = 2.5%) but its transpose
    recalls 92.5%: with convention='scores' lamcap scores u_rho^T W e_mu; if your W
    scores the other way, pass convention='logits'
    """


TRANSPOSE_RULE = (2.0, 0.5, 10.0, 1e-3)
"""The transposed-``W`` warning: ``W`` recalls at most ``2.0 / p`` (twice chance)
while ``W.T`` recalls at least ``0.5`` and at least ``10.0`` times ``W``'s fraction, a
count that chance (``Binomial(n, 1/p)``) reaches with probability at most ``1e-3``."""


def check_convention(convention: str) -> str:
    """``convention`` checked against :data:`CONVENTIONS`, or ``ValueError``."""
    return check_choice("convention", convention, CONVENTIONS)


def oriented_weights(W: Any, convention: str) -> Any:
    r"""``W`` in lamcap's convention: as given for ``"scores"``, transposed for ``"logits"``.

    A pair ``(Q, R)`` (:math:`W = QR^\top`) transposes to ``(R, Q)``.

    Examples
    --------
    >>> oriented_weights(np.array([[1.0, 2.0], [3.0, 4.0]]), "logits").tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    if check_convention(convention) == "scores":
        return W
    if _is_factor_pair(W):
        return (W[1], W[0])
    return np.asarray(W).T


def _is_factor_pair(W: Any) -> bool:
    return isinstance(W, tuple | list) and len(W) == 2 and all(np.ndim(f) == 2 for f in W)


def _weight_matrix(instance: Instance, W: Any) -> NDArray[np.float64]:
    """``W`` checked as a ``d x d`` matrix, or a pair ``(Q, R)`` of ``d x r`` factors as ``Q R^T``."""
    if _is_factor_pair(W):
        instance = check_instance(instance)
        left, right = (check_finite_array(name, f) for name, f in zip("QR", W, strict=True))
        if left.shape[0] != instance.d or left.shape != right.shape:
            msg = (
                f"(Q, R) must be two arrays of shape (d, r) = ({instance.d}, r) with W = Q @ R.T, "
                f"got shapes {left.shape} and {right.shape}"
            )
            raise ValueError(msg)
        return left @ right.T
    return check_weights(instance, W)


def scores(instance: Instance, W: ArrayLike, *, convention: str = "scores") -> NDArray[np.float64]:
    r"""All scores :math:`s_{\mu\rho} = u^{(\mu)\top}_\rho W e_\mu`, shape ``(n, p)``.

    Computed block by block (memory :math:`O(np + d^2)` beyond one block);
    float64, each entry accurate to :math:`O(d\,\epsilon)` relative to
    :math:`\|u_\rho\|\,\|W e_\mu\|` (docs/theory/index.md; arXiv:2605.10795).

    Parameters
    ----------
    instance : Instance
        The associations: inputs :math:`e_\mu` and the outputs each one sees.
    W : array_like, shape ``(d, d)``, or pair ``(Q, R)`` of ``(d, r)`` arrays
        Finite weight matrix, or its factors :math:`W = QR^\top` (what a
        rank-constrained :func:`lamcap.solve` returns, as
        :func:`lamcap.verify` takes it); anything else raises ``ValueError``.
        Outputs on the left, inputs on the right: :math:`u_\rho^\top W e_\mu`.
    convention : {"scores", "logits"}
        How ``W`` scores: ``"scores"`` (default) as above; ``"logits"`` for a
        ``W`` that scores :math:`e_\mu^\top W u_\rho` (logits ``x W U^T``),
        used as ``W.T`` (``(Q, R)`` as ``(R, Q)``).  This function does not
        judge recall; :func:`recall_accuracy` and :func:`lamcap.verify` warn
        when ``W`` looks transposed (:class:`TransposedWeightsWarning`).

    Returns
    -------
    numpy.ndarray of float64, shape ``(n, p)``
        ``result[mu, rho]`` is :math:`s_{\mu\rho}`; the target of association
        ``mu`` is column ``instance.targets[mu]``.

    Examples
    --------
    >>> instance = make_instance(6, 4, n=3, seed=0)
    >>> s = scores(instance, np.eye(6))
    >>> s.shape, bool(np.isclose(s[1, 2], instance.outputs(1)[2] @ instance.inputs[1]))
    ((3, 4), True)
    >>> W = np.arange(36.0).reshape(6, 6)
    >>> bool(np.array_equal(scores(instance, W, convention="logits"), scores(instance, W.T)))
    True
    """
    weights = _weight_matrix(instance, oriented_weights(W, convention))
    check_memory(
        f"scores of n = {instance.n} associations with p = {instance.p} outputs (an n x p array)",
        8 * instance.n * instance.p + 8 * _BLOCK_NUMBERS,
    )
    result = np.empty((instance.n, instance.p))
    for block in instance.scored_blocks(instance.inputs @ weights.T):
        result[block.start : block.start + block.scores.shape[0]] = block.scores
    return result


def _recalled_fraction(instance: Instance, all_scores: NDArray[np.float64]) -> float:
    """Fraction of rows whose target column is strictly above every other (``all_scores`` is edited)."""
    rows = np.arange(instance.n)
    target_scores = all_scores[rows, instance.targets].copy()
    all_scores[rows, instance.targets] = -np.inf
    return float(np.mean(target_scores > all_scores.max(axis=1)))


def looks_transposed(fraction: float, transposed_fraction: float, p: int, n: int) -> bool:
    """The rule of :class:`TransposedWeightsWarning` (:data:`TRANSPOSE_RULE`) for ``n`` associations.

    Examples
    --------
    >>> looks_transposed(1 / 170, 1.0, 170, 170), looks_transposed(0.2, 1.0, 4, 100)
    (True, False)
    >>> looks_transposed(0.0, 1.0, 3, 2)  # 2 of 2 happens by chance once in 9
    False
    """
    from scipy.stats import binom  # noqa: PLC0415 - only for a W near chance

    chance_multiple, least, ratio, significance = TRANSPOSE_RULE
    recalled = round(transposed_fraction * n)
    return bool(
        fraction <= chance_multiple / p
        and transposed_fraction >= least
        and transposed_fraction >= ratio * fraction
        and binom.sf(recalled - 1, n, 1.0 / p) <= significance
    )


def warn_if_transposed(
    instance: Instance, W: Any, fraction: float, convention: str, *, stacklevel: int = 3
) -> None:
    """Warn (:class:`TransposedWeightsWarning`) when ``W`` recalls ``fraction`` and looks transposed.

    ``W`` is the user's, in ``convention``; one extra score pass, only when
    ``fraction`` is at most twice chance.
    """
    chance_multiple = TRANSPOSE_RULE[0]
    if fraction > chance_multiple / instance.p:
        return
    other = "logits" if convention == "scores" else "scores"
    transposed = _recalled_fraction(instance, scores(instance, W, convention=other))
    if looks_transposed(fraction, transposed, instance.p, instance.n):
        warnings.warn(
            f"W recalls {fraction:.1%} of the {instance.n} associations (chance 1/p = "
            f"{1 / instance.p:.1%}) but its transpose recalls {transposed:.1%}: with "
            f"convention={convention!r} lamcap scores "
            + ("u_rho^T W e_mu" if convention == "scores" else "e_mu^T W u_rho")
            + f"; if your W scores the other way, pass convention={other!r}",
            TransposedWeightsWarning,
            stacklevel=stacklevel,
        )


def recall_accuracy(instance: Instance, W: ArrayLike, *, convention: str = "scores") -> float:
    r"""Fraction of associations whose target scores strictly above every competitor.

    .. math::

        \frac1n \#\{\mu : s_{\mu t(\mu)} > \max_{\rho \ne t(\mu)} s_{\mu\rho}\},
        \qquad s_{\mu\rho} = u^{(\mu)\top}_\rho W e_\mu .

    Exact count over the float64 scores of :func:`scores` (docs/theory/index.md;
    arXiv:2605.10795); a tie counts as a failure.  Warns
    (:class:`TransposedWeightsWarning`) when ``W`` recalls at most twice
    chance (:math:`2/p`) while its transpose recalls at least half of the
    associations and ten times as many, more than chance could
    (:data:`TRANSPOSE_RULE`); that check costs one more score pass
    and runs only then.

    Parameters
    ----------
    instance : Instance
        The associations to recall.
    W : array_like, shape ``(d, d)``, or pair ``(Q, R)`` of ``(d, r)`` arrays
        Finite weight matrix, or its factors :math:`W = QR^\top` (as
        :func:`lamcap.verify` takes them); anything else raises ``ValueError``.
        Outputs on the left, inputs on the right: :math:`u_\rho^\top W e_\mu`.
    convention : {"scores", "logits"}
        ``"scores"`` (default) as above; ``"logits"`` for a ``W`` that scores
        :math:`e_\mu^\top W u_\rho` (logits ``x W U^T``), used as ``W.T``.

    Returns
    -------
    float
        The accuracy, a multiple of :math:`1/n` in ``[0, 1]``.

    Examples
    --------
    >>> instance = make_instance(32, 4, n=4, seed=0)
    >>> recall_accuracy(instance, hebbian_weights(instance))
    1.0
    >>> recall_accuracy(instance, (hebbian_weights(instance), np.eye(32)))  # W = Q R^T
    1.0
    >>> recall_accuracy(instance, hebbian_weights(instance).T, convention="logits")
    1.0
    """
    fraction = _recalled_fraction(instance, scores(instance, W, convention=convention))
    warn_if_transposed(instance, W, fraction, convention)
    return fraction


def hebbian_weights(instance: Instance) -> NDArray[np.float64]:
    r"""The Hebbian matrix :math:`W_H = \sum_\mu u_{t(\mu)} e_\mu^\top` (docs/theory/index.md).

    Uses only the target rows, :math:`O(nd^2)` time; float64, exact up to the
    rounding of one matrix product (arXiv:2605.10795).

    Parameters
    ----------
    instance : Instance
        The associations; only the inputs and the target outputs are read.

    Returns
    -------
    numpy.ndarray of float64, shape ``(d, d)``
        :math:`W_H`, mapping each input :math:`e_\mu` towards its target output.

    Examples
    --------
    >>> instance = make_instance(5, 3, n=2, seed=0)
    >>> W = hebbian_weights(instance)
    >>> u, e = instance.target_outputs(), instance.inputs
    >>> bool(np.allclose(W, np.outer(u[0], e[0]) + np.outer(u[1], e[1])))
    True
    """
    instance = check_instance(instance)
    return np.asarray(instance.target_outputs().T @ instance.inputs, dtype=np.float64)
