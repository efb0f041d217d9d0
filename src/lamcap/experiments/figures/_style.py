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
  dates or software versions, so the files are byte-reproducible (:func:`save`);
* everything inside the frame: :func:`legend` wraps a wide legend onto more
  rows until it fits the figure's width, and :func:`outside_frame` /
  :func:`check_fits` find any title, label, tick label, text or legend that the
  saved image would cut (:func:`save` warns about them).

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
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import matplotlib as mpl
from cycler import cycler
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.transforms import Bbox

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
    "#882255",  # wine (Tol's muted scheme): an eighth size, as the quick plan has
)
"""Okabe–Ito colours, and Tol's wine for an eighth (distinguishable with the common
colour-vision deficiencies)."""

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
    marker and line.

    With ``ncols`` greater than 1, the entries are laid out in as few rows as fit the
    figure's width: one row of ``ncols`` columns if it fits, else two rows, three ...
    (measured on the drawn figure, so long labels and many dimensions d wrap instead
    of running past the edges of the image).
    """
    handler_map = {tuple: HandlerTuple(ndivide=1)}
    columns = int(options.pop("ncols", 1))
    count = max(len(handles), 1)
    widths = sorted({max(1, min(columns, math.ceil(count / rows))) for rows in range(1, count + 1)})
    for ncols in reversed(widths):  # fewest rows first
        result = owner.legend(handles, labels, handler_map=handler_map, ncols=ncols, **options)
        if ncols == 1 or _fits_width(result):
            break
        result.remove()
    return result


def _renderer(figure: Figure) -> Any:
    """Lay out and draw ``figure`` (without writing anything); return its renderer."""
    if not hasattr(figure.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415

        FigureCanvasAgg(figure)
    canvas: Any = figure.canvas  # Agg: has get_renderer
    canvas.draw()
    return canvas.get_renderer()


def _fits_width(artist: Any) -> bool:
    figure = artist.get_figure(root=True)
    box = artist.get_window_extent(_renderer(figure))
    return bool(box.x0 >= figure.bbox.x0 - 0.5 and box.x1 <= figure.bbox.x1 + 0.5)


def _named_extents(axis: Any, renderer: Any, name: str) -> Iterator[tuple[str, Bbox]]:
    """(description, window extent) of the text-like artists of one axes and its children."""
    title = axis.title.get_text() or name
    if axis.title.get_visible() and axis.title.get_text():
        yield f"title {title!r}", axis.title.get_window_extent(renderer)
    for which, side in (("x", axis.xaxis), ("y", axis.yaxis)):
        if side.get_visible():
            box = side.get_tightbbox(renderer)
            if box is not None and box.width > 0:
                yield f"{which} axis (label and tick labels) of {title!r}", box
    for text in axis.texts:
        if text.get_visible() and text.get_text():
            yield f"text {text.get_text()!r} in {title!r}", text.get_window_extent(renderer)
    axis_legend = axis.get_legend()
    if axis_legend is not None and axis_legend.get_visible():
        yield f"legend of {title!r}", axis_legend.get_window_extent(renderer)
    for child in axis.child_axes:
        yield from _named_extents(child, renderer, f"{title} (secondary axis)")


def outside_frame(figure: Figure, *, tolerance: float = 0.5) -> list[str]:
    """Artists that the saved image would cut: text or legends beyond the figure's edges.

    The figure is drawn (with its layout engine) and the window extent of every
    title, axis label, tick label, text and legend, of the axes and of the figure
    itself, is compared with the figure's bounding box.

    Parameters
    ----------
    figure
        A matplotlib figure.
    tolerance
        Pixels (at the figure's dpi) that an extent may exceed the frame by.

    Returns
    -------
    list of str
        One line per artist outside the frame, naming it and by how many pixels
        it exceeds each edge; empty when everything fits.
    """
    renderer = _renderer(figure)
    extents: list[tuple[str, Bbox]] = []
    children = {id(child) for axis in figure.get_axes() for child in axis.child_axes}
    for index, axis in enumerate(figure.get_axes()):
        if axis.get_visible() and id(axis) not in children:  # children: with their parent
            extents += _named_extents(axis, renderer, f"panel {index + 1}")
    for text in figure.texts:  # suptitle and supxlabel included
        if text.get_visible() and text.get_text():
            extents.append((f"figure text {text.get_text()!r}", text.get_window_extent(renderer)))
    for index, figure_legend in enumerate(figure.legends):
        extents.append((f"figure legend {index + 1}", figure_legend.get_window_extent(renderer)))
    frame = figure.bbox
    problems = []
    for name, box in extents:
        excess = {
            "left": frame.x0 - box.x0,
            "right": box.x1 - frame.x1,
            "bottom": frame.y0 - box.y0,
            "top": box.y1 - frame.y1,
        }
        cut = [f"{edge} by {value:.1f} px" for edge, value in excess.items() if value > tolerance]
        if cut:
            problems.append(f"{name} is cut at the {', '.join(cut)}")
    return problems


def check_fits(figure: Figure, *, tolerance: float = 0.5) -> None:
    """Raise when a title, label, tick label, text or legend leaves the figure's frame.

    Parameters
    ----------
    figure
        A matplotlib figure (drawn here; see :func:`outside_frame`).
    tolerance
        Pixels that an extent may exceed the frame by.

    Raises
    ------
    ValueError
        Listing every artist outside the frame and by how much.
    """
    problems = outside_frame(figure, tolerance=tolerance)
    if problems:
        msg = "figure does not fit its frame: " + "; ".join(problems)
        raise ValueError(msg)


class FigureFitWarning(UserWarning):
    """A saved figure cuts one of its texts or legends (see :func:`outside_frame`)."""


def save(figure: Figure, directory: Path, name: str) -> list[Path]:
    """Write ``name.png`` (300 dpi) and ``name.pdf`` without dates: byte-reproducible.

    Before writing, the figure is checked with :func:`outside_frame`; anything cut
    is reported as a :class:`FigureFitWarning` (the files are still written, so a
    long run never loses its figures; the test suite turns the warning into an error).
    """
    directory.mkdir(parents=True, exist_ok=True)
    png, pdf = directory / f"{name}.png", directory / f"{name}.pdf"
    with context():
        problems = outside_frame(figure)
        if problems:
            warnings.warn(f"{name}: " + "; ".join(problems), FigureFitWarning, stacklevel=2)
        figure.savefig(png, metadata={"Software": None})
        figure.savefig(
            pdf,
            metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
        )
    return [png, pdf]
