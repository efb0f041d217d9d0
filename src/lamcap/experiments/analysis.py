r"""Transition analysis of stored sweeps, side by side with the theory.

For every cell (d, κ, model, method) of a results database the storable
fraction vs p is fitted by the logistic model of
:mod:`lamcap.experiments.fitting` (maximum likelihood, 95% profile-likelihood
interval), giving :math:`p_c(d)` and the critical load

.. math::

    \alpha_c(d) = \frac{p_c \log p_c}{d^2}

(the interval maps through this increasing function).  Next to it:

* ``critical_p(d, κ)`` — the finite-size threshold :math:`n\,E[C_p] = w_m^2`
  (THEORY.md §2 fact 4, §3);
* the median of the Crofton curve ``feasibility_probability(d, p, κ)``
  (THEORY.md §2 fact 5), the p at which it crosses 1/2;
* for ``method="hebbian"``: the p at which ``hebbian_recall(p, α,
  all_associations=True)`` crosses 1/2 (THEORY.md §4).

The verdict "agrees" is the acceptance criterion of the issue: the measured
p_c lies within 3% of the prediction (``tolerance``); whether the prediction
lies inside the 95% interval is reported separately.

Examples
--------
>>> round(load(40, 12), 4)
1.0247
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lamcap.experiments.fitting import TransitionFit, fit_transition, wilson_interval
from lamcap.experiments.store import ResultsStore
from lamcap.experiments.sweep import Cell

__all__ = [
    "CellData",
    "TransitionRow",
    "cell_data",
    "crofton_median",
    "format_fits",
    "hebbian_transition",
    "load",
    "theory_p",
    "transition_table",
]


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
        """Logistic fit (None when no instance is decided)."""
        keep = self.decided > 0
        if not keep.any():
            return None
        return fit_transition(self.p[keep], self.feasible[keep], self.decided[keep])


def cell_data(database: str | os.PathLike[str]) -> dict[Cell, CellData]:
    """Aggregate every stored instance by cell and p (cells in a fixed order)."""
    with ResultsStore(database, readonly=True) as store:
        rows = store.rows()
    grouped: dict[Cell, dict[int, list[tuple[str, float]]]] = {}
    for row in rows:
        kappa = 1.0 if row["rank"] >= row["d"] else row["rank"] / row["d"]
        cell = Cell(row["d"], round(kappa, 6), row["model"], row["method"])
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


def _bisect_half(probability: Callable[[float], float], low: float, high: float) -> float:
    """Real p in [low, high] where the decreasing ``probability(p)`` crosses 1/2."""
    for _ in range(60):
        middle = 0.5 * (low + high)
        if probability(middle) > 0.5:
            low = middle
        else:
            high = middle
        if high - low < 1e-6 * high:
            break
    return 0.5 * (low + high)


def hebbian_transition(d: int, n: int | None = None) -> float:
    r"""p at which the Hebbian rule recalls all associations with probability 1/2.

    Solves ``hebbian_recall(p, p log p / d², all_associations=True) = 1/2``
    for real p by bisection (THEORY.md §4, Hebbian).
    """
    from lamcap import hebbian_recall  # noqa: PLC0415

    del n

    def probability(p: float) -> float:
        return float(hebbian_recall(p, load(p, d), all_associations=True))

    high = 4.0
    while probability(high) > 0.5 and high < 1e9:
        high *= 2
    return _bisect_half(probability, 2.0, high)


def crofton_median(d: int, kappa: float = 1.0) -> float:
    """p at which the Crofton curve ``feasibility_probability(d, p, κ)`` crosses 1/2.

    Linear interpolation between the integers around the crossing.
    """
    from lamcap import critical_p, feasibility_probability  # noqa: PLC0415

    centre = float(critical_p(d, kappa=kappa))
    ps = np.arange(max(2, math.floor(0.5 * centre)), math.ceil(2.0 * centre) + 2)
    values = np.asarray(feasibility_probability(d, ps, kappa=kappa), dtype=np.float64)
    below = np.flatnonzero(values < 0.5)
    if below.size == 0 or below[0] == 0:
        return math.nan
    i = below[0]
    p0, p1, v0, v1 = ps[i - 1], ps[i], values[i - 1], values[i]
    return float(p0 + (v0 - 0.5) / (v0 - v1) * (p1 - p0))


def theory_p(cell: Cell) -> float:
    """Predicted transition of ``cell``: ``critical_p`` or the Hebbian crossing (NaN if unknown)."""
    try:
        if cell.method == "hebbian":
            return hebbian_transition(cell.d)
        from lamcap import critical_p  # noqa: PLC0415

        return float(critical_p(cell.d, kappa=cell.kappa))
    except (ImportError, AttributeError):
        return math.nan


def _crofton_or_nan(cell: Cell) -> float:
    if cell.method == "hebbian":
        return math.nan
    try:
        return crofton_median(cell.d, cell.kappa)
    except (ImportError, AttributeError, NotImplementedError):
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
    crofton: float

    @property
    def alpha(self) -> tuple[float, float, float]:
        """α_c with its 95% interval."""
        d = self.cell.d
        return load(self.p_c, d), load(self.low, d), load(self.high, d)

    @property
    def relative_gap(self) -> float:
        """p_c / theory - 1."""
        return self.p_c / self.theory - 1.0

    def agrees(self, tolerance: float = 0.03) -> bool:
        """Measured p_c within ``tolerance`` (relative) of the prediction."""
        return bool(self.bracketed and abs(self.relative_gap) <= tolerance)

    def theory_inside(self) -> bool:
        """The prediction lies inside the 95% interval."""
        return bool(self.low <= self.theory <= self.high)


def transition_table(
    database: str | os.PathLike[str], *, with_crofton: bool = True
) -> list[TransitionRow]:
    """Fit every cell of ``database`` and attach the predictions."""
    rows = []
    for cell, data in cell_data(database).items():
        fit = data.fit()
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
                crofton=_crofton_or_nan(cell) if with_crofton else math.nan,
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
