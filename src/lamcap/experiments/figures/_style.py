r"""One style for every lamcap figure: sizes, fonts, colours, line styles and output.

Every ``draw`` function of :mod:`lamcap.experiments.figures` (and the figures of
the documentation, ``docs/figures/make_figures.py``) runs inside
:func:`context`, so all figures share:

* journal sizes: :data:`COLUMN_WIDTH` (one column, 86 mm) and :data:`PAGE_WIDTH`
  (two columns, 178 mm); 8 pt text, 7 pt ticks and legends;
* the colour-blind-safe Okabe–Ito palette (:data:`PALETTE`), one colour per
  dimension ``d`` (:func:`colour`), the same colour for a measurement and the
  theory curve at that ``d``;
* measurements as markers with 95% interval bars, theory as lines (solid: the
  law at finite ``d``; dotted: a second law, named in the legend), asymptotes as
  grey dashed lines labelled in the axes (:func:`mark_asymptote`);
* output: PNG at 300 dpi and PDF with embedded TrueType fonts, both without
  dates or software versions, so the files are byte-reproducible (:func:`save`).

Examples
--------
>>> figure, (axis,) = new_figure(1)
>>> with context():
...     _ = axis.plot([0, 1], [0, 1], color=colour(0))
...     mark_asymptote(axis, 0.5, "1/2")
>>> bool(figure.get_figwidth() == COLUMN_WIDTH)
True
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import matplotlib as mpl
from cycler import cycler
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple

COLUMN_WIDTH = 3.4
"""Width of a one-column figure, inches (86 mm)."""

PAGE_WIDTH = 7.0
"""Width of a two-column figure, inches (178 mm)."""

PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermilion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
)
"""Okabe–Ito colours (distinguishable with the common colour-vision deficiencies)."""

ASYMPTOTE: dict[str, Any] = {"color": "0.45", "lw": 0.9, "ls": (0, (4, 2)), "zorder": 1}
"""Line style of an asymptote (d → ∞)."""

_LABEL_BOX = {"facecolor": "white", "edgecolor": "none", "pad": 0.6, "alpha": 0.85}

RC: dict[str, Any] = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "legend.frameon": False,
    "legend.handlelength": 2.0,
    "legend.borderaxespad": 0.3,
    "axes.linewidth": 0.6,
    "axes.prop_cycle": cycler(color=PALETTE),
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.4,
    "ytick.minor.width": 0.4,
    "xtick.direction": "in",
    "ytick.direction": "in",
    "xtick.top": True,
    "ytick.right": True,
    "lines.linewidth": 1.1,
    "lines.markersize": 3.5,
    "errorbar.capsize": 1.5,
    "savefig.dpi": 300,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
}
"""matplotlib settings applied by :func:`context`."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


def context() -> contextlib.AbstractContextManager[Any]:
    """Context in which figures are created, drawn and saved with :data:`RC`."""
    settings: Any = RC  # rc_context's stub types the keys as literals
    return mpl.rc_context(settings)


def styled(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """Decorator: run a drawing function inside :func:`context`."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        with context():
            return function(*args, **kwargs)

    return wrapper


def colour(index: int) -> str:
    """The ``index``-th colour of :data:`PALETTE` (one per dimension d)."""
    return PALETTE[index % len(PALETTE)]


def new_figure(
    columns: int = 1, *, width: float | None = None, height: float = 2.6
) -> tuple[Figure, list[Any]]:
    """A figure of ``columns`` side-by-side axes (no pyplot, so headless).

    The default width is one journal column for one panel and the page width
    for two or more.
    """
    with context():
        if width is None:
            width = COLUMN_WIDTH if columns == 1 else PAGE_WIDTH
        figure = Figure(figsize=(width, height), layout="constrained")
        axes = [figure.add_subplot(1, columns, i + 1) for i in range(columns)]
    return figure, axes


def mark_asymptote(
    axis: Any, value: float, text: str, *, vertical: bool = False, position: float = 0.97
) -> None:
    """Draw the asymptote ``value`` as a grey dashed line labelled ``text``.

    A horizontal line is labelled inside the axes, ``position`` (a fraction of
    the axes) from the left; a vertical line is labelled above the axes, on a
    top axis of its own, where no data can hide the label.
    """
    if vertical:
        axis.axvline(value, **ASYMPTOTE)
        top = axis.secondary_xaxis("top")
        top.set_xticks([value], labels=[text], color=ASYMPTOTE["color"])
        top.tick_params(length=0, pad=1.5, labelsize=RC["legend.fontsize"])
        return
    axis.axhline(value, **ASYMPTOTE)
    axis.text(
        position,
        value,
        text,
        transform=axis.get_yaxis_transform(),
        ha="right",
        va="bottom",
        color=ASYMPTOTE["color"],
        fontsize=RC["legend.fontsize"],
        bbox=_LABEL_BOX,
    )


def paired_handle(measured: Any, theory: Any) -> tuple[Any, Any]:
    """Legend handle showing a measurement's marker on its theory line (same colour)."""
    return (theory, measured)


def legend(owner: Any, handles: Sequence[Any], labels: Sequence[str], **options: Any) -> Any:
    """A legend (of axes or figure) whose tuple handles (:func:`paired_handle`) overlay
    marker and line."""
    return owner.legend(handles, labels, handler_map={tuple: HandlerTuple(ndivide=1)}, **options)


def save(figure: Figure, directory: Path, name: str) -> list[Path]:
    """Write ``name.png`` (300 dpi) and ``name.pdf`` without dates: byte-reproducible."""
    directory.mkdir(parents=True, exist_ok=True)
    png, pdf = directory / f"{name}.png", directory / f"{name}.pdf"
    with context():
        figure.savefig(png, metadata={"Software": None})
        figure.savefig(
            pdf,
            metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
        )
    return [png, pdf]
