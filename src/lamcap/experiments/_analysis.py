r"""Transition analysis of stored sweeps, side by side with the theory.

For every cell (d, κ, model, method) of a results database the storable
fraction vs p is fitted by the cell's finite-size law moved along
:math:`\log p` (:meth:`CellData.transition`,
:func:`lamcap.experiments._shift.law_transition`: maximum likelihood, 95%
likelihood-ratio interval whose coverage is measured in
docs/measurements/capacity.md), giving :math:`p_c(d)` and the critical load

.. math::

    \alpha_c(d) = \frac{p_c \log p_c}{d^2}

(the interval maps through this increasing function).  Next to it:

* ``critical_p(d, κ)`` — the finite-size threshold :math:`n\,E[C_p] = w_r^2`
  (docs/theory/capacity.md, docs/theory/rank.md);
* the median of the Crofton curve ``feasibility_probability(d, p, κ)``
  (docs/theory/crofton.md), the p at which it crosses 1/2;
* for ``method="hebbian"``: the p at which ``hebbian_recall(p, α,
  all_associations=True)`` crosses 1/2 (docs/theory/hebbian.md, the d → ∞ law), and the
  same crossing of the finite-d law ``hebbian_recall_finite`` (decoupled; P₁ exact, P(all) the pair law, a model).

Undecided instances are left out at full rank and count as failures for
κ < 1 (:meth:`CellData.fit`).

The verdict "agrees" is the acceptance criterion of the issue: the measured
p_c lies within 3% of the reference prediction (``critical_p``; the exact
finite-d law for Hebbian cells); whether the reference lies inside the 95%
interval is reported separately.

Examples
--------
>>> round(load(40, 12), 4)
1.0247
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap import critical_p, feasibility_probability, hebbian_recall
from lamcap.experiments._fitting import TransitionFit, fit_transition, wilson_interval
from lamcap.experiments._shift import cell_law, law_transition
from lamcap.experiments._store import ResultsStore, row_key
from lamcap.experiments._sweep import Cell
from lamcap.theory._cost_models import cost_model
from lamcap.theory._hebbian import hebbian_recall_finite


def load(p: float, d: int) -> float:
    r"""Load :math:`\alpha = p \log p / d^2` (natural log)."""
    return p * math.log(p) / (d * d)


@dataclass(frozen=True)
class CellData:
    """Aggregated outcomes of one cell: per p, storable / decided / undecided counts."""

    cell: Cell
    p: NDArray[np.int64]
    feasible: NDArray[np.int64]
    decided: NDArray[np.int64]
    undecided: NDArray[np.int64]
    mean_accuracy: NDArray[np.float64]

    @property
    def fraction(self) -> NDArray[np.float64]:
        """Storable fraction among decided instances at each p."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.feasible / self.decided

    def interval(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """95% Wilson interval of :attr:`fraction`."""
        return wilson_interval(self.feasible, np.maximum(self.decided, 1))

    def fit(self) -> TransitionFit | None:
        """Transition fit with the cell's link (:attr:`Cell.link`; None when no instance counts).

        Undecided instances are left out at every rank: an instance counts only
        with a verified W (storable) or a checkable certificate (not storable).
        Below full rank the trainer leaves many instances undecided near the
        transition; the claims of a reproduction report their share and call a
        transition with more than 10% undecided in its window inconclusive
        (:func:`lamcap.experiments._claims.undecided_share`).
        """
        p, feasible, total = self.counts()
        if p.size == 0:
            return None
        return fit_transition(p, feasible, total, link=self.cell.link)

    def transition(self) -> TransitionFit | None:
        r"""The cell's transition point with its 95% interval of measured coverage (None if no count).

        The shape of the curve is the cell's finite-size law
        (:func:`lamcap.experiments._shift.finite_size_law`: Crofton
        ``feasibility_probability(d, p, κ)``, or ``hebbian_recall_finite(p,
        d, all_associations=True)`` for the Hebbian rule), moved along
        :math:`\log p` to the data (:func:`lamcap.experiments._shift.law_transition`):
        its slope free within ±20%, profile-likelihood interval.  Its 95%
        interval covers the true 50% point 94.8% (d = 16) and 94.3% (d = 64)
        of the time when the truth is the law, 91–96% when the truth is 20%
        flatter or steeper; the free-slope fit (:meth:`fit`) 93.8% and 91.1%
        under the law (docs/measurements/capacity.md).  The counts are those of
        :meth:`fit` (:meth:`counts`).  Falls back on :meth:`fit` when the
        counts do not locate the law's transition (flat likelihood).
        """

        p, feasible, total = self.counts()
        if p.size == 0:
            return None
        law = cell_law(self.cell)
        located = law_transition(p, feasible, total, law)
        return located if located is not None else self.fit()

    def counts(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(p, storable, decided) at every p with a decided instance, as :meth:`fit` uses them."""
        keep = self.decided > 0
        return self.p[keep], self.feasible[keep], self.decided[keep]


_Key = tuple[int, int, str, str, int, float, int, str]


def stored_rows(
    databases: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> list[dict[str, Any]]:
    """Rows of one or several results databases, each instance once (read-only).

    An instance (its store key: d, rank, model, method, p, margin, seed) found
    in several databases counts once, so a partial copy and the complete
    database of one sweep can be given together; the same instance with
    different verdicts raises ``ValueError`` naming it and both databases.
    """
    paths = [databases] if isinstance(databases, str | os.PathLike) else list(databases)
    if not paths:
        msg = "give at least one results database"
        raise ValueError(msg)
    seen: dict[_Key, tuple[dict[str, Any], str]] = {}
    for path in paths:
        with ResultsStore(path, readonly=True) as store:
            rows = store.rows()
        for row in rows:
            key = row_key(row)
            if key not in seen:
                seen[key] = (row, str(path))
            elif seen[key][0]["verdict"] != row["verdict"]:
                first, where = seen[key]
                msg = (
                    f"instance {key} is {first['verdict']!r} in {where!r} but "
                    f"{row['verdict']!r} in {str(path)!r}; give only one of them"
                )
                raise ValueError(msg)
    return [row for row, _ in seen.values()]


def row_cell(row: Mapping[str, Any]) -> Cell:
    """The sweep cell of a stored row (κ from its rank, Gaussian embeddings if unrecorded)."""
    kappa = 1.0 if row["rank"] >= row["d"] else row["rank"] / row["d"]
    embeddings = row.get("embeddings") or "gaussian"
    return Cell(row["d"], round(kappa, 6), row["model"], row["method"], embeddings)


def counts_verdict(row: Mapping[str, Any], *, proven_only: bool) -> bool:
    """Whether a stored row enters the fits (``proven_only``: infeasible ones proven exactly)."""
    return not (
        proven_only and row["verdict"] == "infeasible" and row.get("infeasible_proof") != "exact"
    )


def cell_data(
    database: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    proven_only: bool = False,
) -> dict[Cell, CellData]:
    r"""Aggregate every stored instance by cell and p (cells in a fixed order).

    ``database`` may be several databases (:func:`stored_rows`: each instance
    once).  With ``proven_only`` an ``infeasible`` verdict counts only when its
    certificate proves :math:`\gamma^* \le 0` exactly (``infeasible_proof`` =
    ``"exact"``); infeasible verdicts proving only :math:`\gamma^* \le
    \varepsilon`, and those of databases written before the proof was stored
    (unknown), are left out of the cell altogether.
    """
    rows = [row for row in stored_rows(database) if counts_verdict(row, proven_only=proven_only)]
    return cell_data_of_rows(rows)


def cell_data_of_rows(rows: Sequence[Mapping[str, Any]]) -> dict[Cell, CellData]:
    """:func:`cell_data` of the given stored rows (e.g. only the instances a plan has planned)."""
    grouped: dict[Cell, dict[int, list[tuple[str, float]]]] = {}
    for row in rows:
        cell = row_cell(row)
        accuracy = math.nan if row["accuracy"] is None else row["accuracy"]
        grouped.setdefault(cell, {}).setdefault(row["p"], []).append((row["verdict"], accuracy))
    result = {}
    for cell in sorted(grouped, key=lambda c: (c.d, c.kappa, c.model, c.method)):
        by_p = grouped[cell]
        ps = sorted(by_p)
        verdicts = [[v for v, _ in by_p[p]] for p in ps]
        result[cell] = CellData(
            cell=cell,
            p=np.array(ps, dtype=np.int64),
            feasible=np.array([v.count("feasible") for v in verdicts]),
            decided=np.array([len(v) - v.count("undecided") for v in verdicts]),
            undecided=np.array([v.count("undecided") for v in verdicts]),
            mean_accuracy=np.array(
                [
                    np.nanmean([a for _, a in by_p[p]])
                    if any(not math.isnan(a) for _, a in by_p[p])
                    else math.nan
                    for p in ps
                ]
            ),
        )
    return result


@dataclass(frozen=True)
class ProofCounts:
    """Infeasible verdicts of one cell by what they prove (see :mod:`lamcap.experiments._store`)."""

    exact: int
    r"""Proven exactly: no W recalls every association (:math:`\gamma^* \le 0`)."""
    bounded: int
    r"""Qualified: only :math:`\gamma^* \le \varepsilon` is proven."""
    unknown: int
    """Written before the store recorded it (schema version 1)."""


def infeasible_proofs(
    database: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> dict[Cell, ProofCounts]:
    """Count the infeasible verdicts of every cell by their proof (cells in a fixed order).

    Hebbian cells are left out: their "infeasible" is a failed recall, not a certificate.
    """
    counts: dict[Cell, dict[str | None, int]] = {}
    for row in stored_rows(database):
        if row["verdict"] != "infeasible" or row["method"] == "hebbian":
            continue
        by_proof = counts.setdefault(row_cell(row), {})
        proof = row.get("infeasible_proof")
        by_proof[proof] = by_proof.get(proof, 0) + 1
    return {
        cell: ProofCounts(
            counts[cell].get("exact", 0), counts[cell].get("bounded", 0), counts[cell].get(None, 0)
        )
        for cell in sorted(counts, key=lambda c: (c.d, c.kappa, c.model, c.method))
    }


def _integer_crossing(probability: Callable[[int], float], start: int = 2) -> float:
    """Real p where the decreasing ``probability`` (defined on integers) crosses 1/2.

    Doubling search for an integer with probability < 1/2, integer bisection,
    then linear interpolation between the two integers around the crossing.
    """
    low, high = start, max(start + 1, 4)
    while probability(high) >= 0.5:
        low, high = high, 2 * high
        if high > 10**9:
            return math.nan
    if probability(low) < 0.5:
        return float(low)
    while high - low > 1:
        middle = (low + high) // 2
        if probability(middle) >= 0.5:
            low = middle
        else:
            high = middle
    upper, lower = probability(low), probability(high)
    return low + (upper - 0.5) / (upper - lower)


@functools.lru_cache(maxsize=256)
def hebbian_transition(d: int, *, finite: bool = False) -> float:
    r"""p at which the Hebbian rule recalls all associations with probability 1/2 (n = p).

    Solves ``hebbian_recall(p, p log p / d², all_associations=True) = 1/2``
    (docs/theory/hebbian.md, the d → ∞ law at the load of (p, d)), or, with ``finite``,
    ``hebbian_recall_finite(p, d, all_associations=True, pairs=True) = 1/2`` (the pair
    law of P(all) at this d, decoupled problem; docs/theory/hebbian.md).  Interpolated
    linearly between integer p.
    """
    if finite:
        return _integer_crossing(
            lambda p: float(hebbian_recall_finite(p, d, all_associations=True, pairs=True))
        )

    return _integer_crossing(lambda p: float(hebbian_recall(p, load(p, d), all_associations=True)))


@functools.lru_cache(maxsize=256)
def crofton_median(d: int, kappa: float = 1.0, embeddings: str = "gaussian") -> float:
    """p at which the Crofton curve ``feasibility_probability(d, p, κ, embeddings=...)`` crosses 1/2.

    Steps over integers from ``floor(critical_p(d, κ))`` to the crossing (two or
    three evaluations in practice) and interpolates linearly between them.
    """

    def probability(p: int) -> float:
        return float(feasibility_probability(d, p, kappa=kappa, embeddings=embeddings))

    p = max(2, math.floor(float(critical_p(d, kappa=kappa, embeddings=embeddings))))
    value = probability(p)
    step = 1 if value >= 0.5 else -1
    for _ in range(10 * d):
        neighbour = probability(p + step)
        if (neighbour < 0.5) != (value < 0.5):
            upper, lower = (p, p + step) if step == 1 else (p + step, p)
            v_upper, v_lower = (value, neighbour) if step == 1 else (neighbour, value)
            return upper + (v_upper - 0.5) / (v_upper - v_lower) * (lower - upper)
        p, value = p + step, neighbour
        if p + step < 2:
            break
    return math.nan


def theory_p(cell: Cell) -> float:
    """Predicted transition of ``cell``: ``critical_p`` or the Hebbian crossing (NaN if unknown).

    ``critical_p(d, κ, embeddings=...)``: the law of the cell's cost model
    (:class:`lamcap.theory.CostModel`; NaN where the model has none, e.g. below full rank
    for a full-rank-only model, or a Hebbian cell of a model without a Hebbian law).
    """
    try:
        if cell.method == "hebbian":
            return (
                hebbian_transition(cell.d) if cost_model(cell.embeddings).hebbian_law else math.nan
            )

        return float(critical_p(cell.d, kappa=cell.kappa, embeddings=cell.embeddings))
    except (ImportError, AttributeError, ValueError):
        return math.nan


def finite_theory_p(cell: Cell) -> float:
    """Second prediction: Crofton median, or the finite-d Hebbian crossing (NaN if unknown)."""
    try:
        if cell.method == "hebbian":
            known = cell.model == "decoupled" and cost_model(cell.embeddings).hebbian_law
            return hebbian_transition(cell.d, finite=True) if known else math.nan
        return crofton_median(cell.d, cell.kappa, cell.embeddings)
    except (ImportError, AttributeError, NotImplementedError, ValueError):
        return math.nan


@dataclass(frozen=True)
class TransitionRow:
    """Measured transition of one cell next to its predictions."""

    cell: Cell
    instances: int
    undecided: int
    p_c: float
    low: float
    high: float
    bracketed: bool
    theory: float
    finite_theory: float

    @property
    def alpha(self) -> tuple[float, float, float]:
        """α_c with its 95% interval."""
        d = self.cell.d
        return load(self.p_c, d), load(self.low, d), load(self.high, d)

    @property
    def reference(self) -> float:
        """The prediction judged against: ``critical_p``, or the finite-d Hebbian crossing."""
        if self.cell.method == "hebbian" and math.isfinite(self.finite_theory):
            return self.finite_theory
        return self.theory

    @property
    def relative_gap(self) -> float:
        """p_c / reference - 1."""
        return self.p_c / self.reference - 1.0

    def agrees(self, tolerance: float = 0.03) -> bool:
        """Measured p_c within ``tolerance`` (relative) of :attr:`reference`."""
        return bool(self.bracketed and abs(self.relative_gap) <= tolerance)

    def reference_inside(self) -> bool:
        """The reference prediction lies inside the 95% interval."""
        return bool(self.low <= self.reference <= self.high)


def transition_table(
    database: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    with_finite: bool = True,
    proven_only: bool = False,
) -> list[TransitionRow]:
    """Fit every cell of ``database`` (one or several) and attach the predictions."""
    return transition_rows(cell_data(database, proven_only=proven_only), with_finite=with_finite)


def transition_rows(
    cells: Mapping[Cell, CellData], *, with_finite: bool = True
) -> list[TransitionRow]:
    """Fit every cell of ``cells`` (see :func:`cell_data`) and attach the predictions."""
    rows = []
    for cell, data in cells.items():
        fit = data.transition()
        if fit is None:
            continue
        rows.append(
            TransitionRow(
                cell=cell,
                instances=int(data.decided.sum() + data.undecided.sum()),
                undecided=int(data.undecided.sum()),
                p_c=fit.p_c,
                low=fit.low,
                high=fit.high,
                bracketed=fit.bracketed,
                theory=theory_p(cell),
                finite_theory=finite_theory_p(cell) if with_finite else math.nan,
            )
        )
    return rows


def format_fits(fits: Mapping[Cell, TransitionFit | None]) -> str:
    """Plain-text lines ``cell: p_c [low, high]  alpha_c`` for a sweep's fits."""
    lines = []
    for cell, fit in fits.items():
        if fit is None:
            lines.append(f"{cell.label()}: no decided instance")
            continue
        note = "" if fit.bracketed else "  (transition not bracketed)"
        lines.append(
            f"{cell.label()}: p_c = {fit.p_c:.2f} [{fit.low:.2f}, {fit.high:.2f}]  "
            f"alpha_c = {load(fit.p_c, cell.d):.4f}{note}"
        )
    return "\n".join(lines)
