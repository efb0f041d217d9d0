r"""Sweep descriptions: which instances an empirical-capacity study solves.

A :class:`Sweep` is a frozen, validated description of a study.  It is split
into *cells*, one per combination of dimension ``d``, rank ratio
:math:`\kappa`, model (``"decoupled"`` / ``"original"``) and solver method;
inside a cell ``p`` (outputs per association, with as many associations,
``n = p``) is either a fixed grid (``p_grid`` or ``loads``) or refined
adaptively around the transition by
:mod:`lamcap.experiments._runner`.  Every instance is a :class:`Task` whose seed
is derived from (sweep seed, d, κ, model, p, replicate) only
(:func:`instance_seed`), so that results never depend on scheduling and the
same instance is shared by every solver method (paired comparisons).

A fixed-grid sweep can be split into ``N`` disjoint, deterministic *shards*
(:meth:`Sweep.shard_keys`, ``lamcap sweep --shard I/N``): its instances in the
fixed order of :meth:`Sweep.fixed_tasks`, the ``j``-th one going to shard
``j mod N + 1``, so every shard gets a mix of small and large instances.  Each
shard runs into its own store; ``lamcap results merge`` joins them.

Examples
--------
>>> sweep = Sweep(dims=(8, 12), seeds_per_point=4)
>>> [cell.d for cell in sweep.cells()]
[8, 12]
>>> grid = Sweep(dims=(8,), p_grid=(10, 20), seeds_per_point=3)
>>> [len(grid.shard_keys(i, 4)) for i in (1, 2, 3, 4)]
[2, 2, 1, 1]
>>> Sweep.from_mapping({"dims": [8], "colour": "red"})
Traceback (most recent call last):
    ...
ValueError: unknown sweep parameter(s) ['colour']; accepted: ...
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lamcap._deprecation import renamed_keywords
from lamcap._validation import check_embeddings, check_integer, check_real

MODELS = ("decoupled", "original")
"""Problem models (docs/theory/index.md): decoupled (DP) and original (OP)."""

METHODS = ("auto", "cutting_plane", "full_lp", "hebbian", "adam_ce", "two_layer")
"""Solver methods a sweep may name (``"auto"`` and the keys of ``lamcap.solvers.METHODS``)."""

MAX_DIMENSION = 1024
"""Largest dimension a sweep accepts (d² weights; larger runs are impractical)."""

STORED_NAMES = {"raw_margin": "margin"}
"""Parameter name -> its name in the results database (column and sweep description).

The database keeps the names it was created with, so stores written by any lamcap
version resume and merge; the code maps at this boundary (docs/vocabulary.md).
"""


def p_from_load(load: float, d: int) -> int:
    r"""The ``p`` (``n = p`` associations) whose load is closest to ``load``.

    Solves :math:`p \log p / d^2 = \alpha` for real ``p`` (monotone for
    :math:`p \ge 2`) and rounds to the nearest integer ``>= 2``.

    Examples
    --------
    >>> p_from_load(1.0, 12)
    39
    """
    target = load * d * d
    low, high = 2.0, max(4.0, target + 2.0)
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle * math.log(middle) < target:
            low = middle
        else:
            high = middle
    return max(2, round(0.5 * (low + high)))


_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """Read a shard ``"I/N"`` (the I-th of N slices, 1 <= I <= N) into ``(I, N)``.

    Examples
    --------
    >>> parse_shard("3/8")
    (3, 8)
    >>> parse_shard("0/8")
    Traceback (most recent call last):
        ...
    ValueError: shard must be I/N with whole numbers 1 <= I <= N, got '0/8'
    """
    match = _SHARD.fullmatch(text)
    index, count = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    if not 1 <= index <= count:
        msg = f"shard must be I/N with whole numbers 1 <= I <= N, got {text!r}"
        raise ValueError(msg)
    return index, count


def instance_seed(sweep_seed: int, d: int, kappa: float, model: str, p: int, replicate: int) -> int:
    """Deterministic 63-bit seed of one instance.

    SHA-256 of the canonical text ``"sweep_seed|d|kappa|model|p|replicate"``
    (κ printed with 12 significant digits), so the seed is the same on every
    machine, Python version and scheduling order.

    Examples
    --------
    >>> instance_seed(0, 8, 1.0, "decoupled", 20, 0) == instance_seed(0, 8, 1.0, "decoupled", 20, 0)
    True
    >>> instance_seed(0, 8, 1.0, "decoupled", 20, 0) == instance_seed(0, 8, 1.0, "decoupled", 20, 1)
    False
    """
    text = f"{sweep_seed}|{d}|{kappa:.12g}|{model}|{p}|{replicate}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Cell:
    """One transition to locate: fixed d, κ, model, solver method and embeddings."""

    d: int
    kappa: float
    model: str
    method: str
    embeddings: str = "gaussian"

    @property
    def rank(self) -> int:
        """Rank m = round(κ d) of the weights (d for full rank)."""
        return max(1, round(self.kappa * self.d))

    @property
    def link(self) -> str:
        """Shape of the transition curve fitted to this cell (``link`` of ``fit_transition``).

        ``"cloglog"`` for the Hebbian rule, whose all-recalled probability is close
        to :math:`P_1^n` with :math:`n(1 - P_1)` a power of p near the transition
        (the logistic fit places its 50% point 1.4–2.4% too low at the design of
        docs/measurements/data/hebbian.sqlite, docs/measurements/capacity.md);
        ``"logistic"`` otherwise.
        """
        return "cloglog" if self.method == "hebbian" else "logistic"

    def label(self) -> str:
        """Short human label, e.g. ``d=12 κ=1 decoupled/auto`` (`` sphere`` appended for unit norm)."""
        label = f"d={self.d} κ={self.kappa:g} {self.model}/{self.method}"
        return label if self.embeddings == "gaussian" else f"{label} {self.embeddings}"


@dataclass(frozen=True)
class Task:
    """One instance to solve: a cell, ``p`` (``n = p`` associations) and a replicate."""

    d: int
    kappa: float
    rank: int
    model: str
    method: str
    p: int
    replicate: int
    seed: int
    raw_margin: float
    max_seconds: float | None
    embeddings: str = "gaussian"

    def key(self) -> tuple[int, int, str, str, int, float, int, str]:
        """Identity of the instance in the results store (its UNIQUE key; the raw margin is its ``margin`` column)."""
        return (
            self.d,
            self.rank,
            self.model,
            self.method,
            self.p,
            self.raw_margin,
            self.seed,
            self.embeddings,
        )


def _as_tuple(name: str, value: Any) -> tuple[Any, ...]:
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        value = (value,)
    result = tuple(value)
    if not result:
        msg = f"{name} must not be empty"
        raise ValueError(msg)
    return result


@dataclass(frozen=True)
class Sweep:
    r"""Validated description of an empirical-capacity sweep.

    Parameters
    ----------
    dims : dimensions ``d`` (integers in [2, 1024]).
    kappas : rank ratios :math:`\kappa \in (0, 1]` (rank ``round(κ d)``).
    models : ``"decoupled"`` and/or ``"original"``.
    embeddings : names of :data:`lamcap.theory.COST_MODELS` (:func:`lamcap.make_instance`); a
        unit-norm instance has the seed of its Gaussian twin (the same numbers,
        each row divided by its norm), so the two are paired.
    methods : solver methods (see :data:`METHODS`); ``"hebbian"`` measures the
        Hebbian rule's perfect-recall transition.
    p_grid : fixed values of ``p`` (``n = p`` associations) for every cell (brute grid), or
    loads : fixed loads :math:`\alpha = p\log p/d^2` (converted per d), or
        neither (default): adaptive refinement around the transition.
    seeds_per_point : replicates per (cell, p).
    seed : sweep seed from which every instance seed derives.
    raw_margin : right-hand side :math:`c > 0` of the raw recall constraints
        passed to the solver (``lamcap.solve(raw_margin=...)``; a scale of
        ``W`` only; stored in the ``margin`` column of the results database).
    max_seconds : per-instance time limit (``None``: none).  A limit can turn
        results into ``undecided``, the only verdict that may depend on the
        machine.
    rounds : adaptive refinement rounds after the bracket is found.
    bracket : relative p factors of the first adaptive round around the guess.
    name : label stored with the results.
    """

    dims: tuple[int, ...]
    kappas: tuple[float, ...] = (1.0,)
    models: tuple[str, ...] = ("decoupled",)
    methods: tuple[str, ...] = ("auto",)
    embeddings: tuple[str, ...] = ("gaussian",)
    p_grid: tuple[int, ...] | None = None
    loads: tuple[float, ...] | None = None
    seeds_per_point: int = 8
    seed: int = 0
    raw_margin: float = 1.0
    max_seconds: float | None = None
    rounds: int = 3
    bracket: tuple[float, ...] = (0.6, 0.8, 1.0, 1.25, 1.6)
    name: str = "sweep"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(
            self,
            "dims",
            tuple(
                check_integer("d", d, minimum=2, maximum=MAX_DIMENSION)
                for d in _as_tuple("dims", self.dims)
            ),
        )
        set_(
            self,
            "kappas",
            tuple(
                check_real("kappa", k, minimum=0.0, maximum=1.0, closed="(]")
                for k in _as_tuple("kappas", self.kappas)
            ),
        )
        models = _as_tuple("models", self.models)
        for model in models:
            if model not in MODELS:
                msg = f"model must be one of {MODELS}, got {model!r}"
                raise ValueError(msg)
        set_(self, "models", models)
        methods = _as_tuple("methods", self.methods)
        for method in methods:
            if method not in METHODS:
                msg = f"method must be one of {METHODS}, got {method!r}"
                raise ValueError(msg)
        set_(self, "methods", methods)
        set_(
            self,
            "embeddings",
            tuple(check_embeddings(e) for e in _as_tuple("embeddings", self.embeddings)),
        )
        if self.p_grid is not None and self.loads is not None:
            msg = "give either p_grid or loads, not both"
            raise ValueError(msg)
        if self.p_grid is not None:
            set_(
                self,
                "p_grid",
                tuple(
                    sorted(
                        {check_integer("p", p, minimum=2) for p in _as_tuple("p_grid", self.p_grid)}
                    )
                ),
            )
        if self.loads is not None:
            set_(
                self,
                "loads",
                tuple(
                    sorted(
                        {
                            check_real("load", a, minimum=0.0, closed="()")
                            for a in _as_tuple("loads", self.loads)
                        }
                    )
                ),
            )
        set_(
            self,
            "seeds_per_point",
            check_integer("seeds_per_point", self.seeds_per_point, minimum=1, maximum=100_000),
        )
        set_(self, "seed", check_integer("seed", self.seed, minimum=0))
        set_(
            self,
            "raw_margin",
            check_real("raw_margin", self.raw_margin, minimum=0.0, closed="()"),
        )
        if self.max_seconds is not None:
            set_(
                self,
                "max_seconds",
                check_real("max_seconds", self.max_seconds, minimum=0.0, closed="()"),
            )
        set_(self, "rounds", check_integer("rounds", self.rounds, minimum=0, maximum=50))
        bracket = tuple(
            check_real("bracket", b, minimum=0.0, closed="()")
            for b in _as_tuple("bracket", self.bracket)
        )
        set_(self, "bracket", tuple(sorted(set(bracket))))
        if not self.name:
            msg = f"name must be a non-empty string, got {self.name!r}"
            raise ValueError(msg)
        for d in self.dims:
            for kappa in self.kappas:
                if kappa < 1.0 and round(kappa * d) < 1:
                    msg = f"kappa={kappa} gives rank round(kappa*d) = 0 at d={d}; need >= 1"
                    raise ValueError(msg)

    @property
    def adaptive(self) -> bool:
        """True when p is refined adaptively (no fixed grid given)."""
        return self.p_grid is None and self.loads is None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Sweep:
        """Build a sweep from a dict (e.g. parsed JSON), rejecting unknown keys."""
        accepted = sorted(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
        unknown = sorted(set(mapping) - set(accepted))
        if unknown:
            msg = f"unknown sweep parameter(s) {unknown}; accepted: {accepted}"
            raise ValueError(msg)
        if "dims" not in mapping:
            msg = "sweep parameter 'dims' is required"
            raise ValueError(msg)
        return cls(**dict(mapping))

    def to_mapping(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable) that :meth:`from_mapping` accepts."""
        return {
            f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
            for f in dataclasses.fields(self)
            if not f.name.startswith("_")
        }

    def cells(self) -> Iterator[Cell]:
        """Iterate over the cells in a fixed order (d, κ, model, embeddings, method)."""
        for d in self.dims:
            for kappa in self.kappas:
                for model in self.models:
                    for embeddings in self.embeddings:
                        for method in self.methods:
                            yield Cell(d, kappa, model, method, embeddings)

    def fixed_grid(self, d: int) -> tuple[int, ...]:
        """The fixed p values at dimension ``d`` (empty for adaptive sweeps)."""
        if self.p_grid is not None:
            return self.p_grid
        if self.loads is not None:
            return tuple(sorted({p_from_load(a, d) for a in self.loads}))
        return ()

    def task(self, cell: Cell, p: int, replicate: int) -> Task:
        """The instance of ``cell`` with ``n = p`` associations and the given replicate."""
        return Task(
            d=cell.d,
            kappa=cell.kappa,
            rank=cell.rank,
            model=cell.model,
            method=cell.method,
            p=p,
            replicate=replicate,
            seed=instance_seed(self.seed, cell.d, cell.kappa, cell.model, p, replicate),
            raw_margin=self.raw_margin,
            max_seconds=self.max_seconds,
            embeddings=cell.embeddings,
        )

    @renamed_keywords(p_values="p_grid")
    def tasks(self, cell: Cell, p_grid: tuple[int, ...] | list[int]) -> list[Task]:
        """The instances of ``cell`` at the outputs ``p_grid``, replicates 0..seeds_per_point-1.

        ``p_values=`` is the deprecated name of ``p_grid`` (a p-value is a test's).
        """
        return [self.task(cell, p, r) for p in p_grid for r in range(self.seeds_per_point)]

    def fixed_tasks(self) -> list[Task]:
        """Every instance of a fixed-grid sweep, in the order cells, p, replicate.

        Raises ``ValueError`` for an adaptive sweep, whose instances are only
        known round by round.
        """
        if self.adaptive:
            msg = (
                "an adaptive sweep has no fixed list of instances (each round is planned "
                "from the previous one); give p_grid (--p-grid) or loads (--loads)"
            )
            raise ValueError(msg)
        return [task for cell in self.cells() for task in self.tasks(cell, self.fixed_grid(cell.d))]

    def shard_keys(
        self, index: int, count: int
    ) -> frozenset[tuple[int, int, str, str, int, float, int, str]]:
        """Keys (:meth:`Task.key`) of shard ``index`` of ``count`` (1-based).

        The ``j``-th instance of :meth:`fixed_tasks` belongs to shard
        ``j mod count + 1``: the shards are disjoint, cover the sweep and
        depend on nothing but the sweep description.
        """
        index, count = parse_shard(f"{index}/{count}")
        return frozenset(
            task.key() for j, task in enumerate(self.fixed_tasks()) if j % count == index - 1
        )

    def description(self) -> str:
        """Canonical JSON of :meth:`to_mapping` (sorted keys): the sweep's identity in a store.

        The raw margin is written under its database name ``margin`` (the store
        format predates the name ``raw_margin``), so the description, and the
        digest, of a sweep do not depend on the lamcap version that runs it; for the
        same reason ``embeddings`` is left out when it is only ``"gaussian"`` (the
        sweeps written before the option keep their digests).
        """
        mapping = self.to_mapping()
        mapping[STORED_NAMES["raw_margin"]] = mapping.pop("raw_margin")
        if mapping["embeddings"] == ["gaussian"]:
            del mapping["embeddings"]
        return json.dumps(mapping, sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        """First 16 hex digits of the SHA-256 of :meth:`description`."""
        return hashlib.sha256(self.description().encode()).hexdigest()[:16]
