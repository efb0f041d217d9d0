"""Figures render headless, contain the expected artists, and are byte-reproducible."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pytest
from scipy.special import lambertw

from lamcap.experiments._analysis import CellData, TransitionRow
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments._sweep import Cell
from lamcap.experiments.figures import _finite_size as finite_size
from lamcap.experiments.figures import _rank_capacity as rank_capacity
from lamcap.experiments.figures import _scores as scores
from lamcap.experiments.figures import _spectrum as spectrum
from lamcap.experiments.figures import _storable_fraction as storable_fraction


def _cell_data(cell: Cell, ps: list[int], feasible: list[int], total: int) -> CellData:
    return CellData(
        cell=cell,
        p=np.array(ps),
        feasible=np.array(feasible),
        decided=np.full(len(ps), total),
        undecided=np.zeros(len(ps), dtype=int),
        mean_accuracy=np.ones(len(ps)),
    )


def _row(cell: Cell, p_c: float) -> TransitionRow:
    return TransitionRow(
        cell=cell,
        instances=40,
        undecided=0,
        p_c=p_c,
        low=0.95 * p_c,
        high=1.05 * p_c,
        bracketed=True,
        theory=p_c,
        finite_theory=p_c,
    )


def _sample(kappa: float, *, d: int = 6, p: int = 12, method: str = "auto") -> SolutionSample:
    rng = np.random.default_rng(0)
    return SolutionSample(
        d=d,
        kappa=kappa,
        p=p,
        method=method,
        solved=4,
        feasible=3,
        singular_values=rng.uniform(0.2, 1.8, 18),
        target=rng.normal(1.2, 0.3, 36),
        competitors=rng.normal(0, 1, 400),
        hebbian_target=rng.normal(2, 1, 36),
        hebbian_competitors=rng.normal(0, 1, 400),
    )


def test_backend_is_headless() -> None:
    assert (
        mpl.get_backend().lower() in {"agg", "module://matplotlib_inline.backend_inline"}
        or "agg" in mpl.get_backend().lower()
    )


def _inside_and_apart(figure: Any) -> None:
    """Every title and text lies inside the figure; titles of panels do not overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from lamcap.experiments.figures import _style as style

    style.check_fits(figure)  # legends, labels and tick labels too
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    frame = figure.bbox
    titles = [
        axis.title.get_window_extent(renderer) for axis in figure.get_axes() if axis.get_title()
    ]
    texts = [t for axis in figure.get_axes() for t in axis.texts] + list(figure.texts)
    for box in titles + [t.get_window_extent(renderer) for t in texts]:
        assert frame.x0 - 0.5 <= box.x0, (box, frame)
        assert box.x1 <= frame.x1 + 0.5, (box, frame)
        assert frame.y0 - 0.5 <= box.y0, (box, frame)
        assert box.y1 <= frame.y1 + 0.5, (box, frame)
    for a, b in itertools.combinations(titles, 2):
        assert not a.overlaps(b)


@pytest.mark.slow
def test_storable_fraction_panels_and_theory_curves(tmp_path: Path) -> None:
    cells = {
        Cell(6, 1.0, "decoupled", "auto"): _cell_data(
            Cell(6, 1.0, "decoupled", "auto"), [8, 12, 16, 20], [4, 4, 2, 0], 4
        ),
        Cell(6, 1.0, "original", "auto"): _cell_data(
            Cell(6, 1.0, "original", "auto"), [8, 12, 16, 20], [4, 3, 1, 0], 4
        ),
    }
    figure = storable_fraction.draw(cells, tmp_path)
    axes = [axis for axis in figure.get_axes() if axis.get_title()]
    assert [a.get_title() for a in axes] == [
        "decoupled problem, optimal W",
        "original problem, optimal W",
    ]
    for axis in axes:
        assert len(axis.containers) == 1  # one errorbar per d
        measured_colour = axis.containers[0].lines[0].get_color()
        theory = _curves(axis)
        assert len(theory) == 1, "the Crofton curve is drawn"
        (curve,) = theory
        assert curve.get_color() == measured_colour  # the theory of d has d's colour
        assert np.all(np.diff(curve.get_ydata()) <= 1e-12)  # decreasing in p
        # the law is drawn at every integer p of its range (fine grid, no kinks)
        p = np.rint(np.exp(np.real(lambertw(np.asarray(curve.get_xdata()) * 36))))
        assert np.all(np.diff(p) == 1)
        assert len(p) >= 15
        # the asymptote 1/2 is drawn and labelled above the axes
        assert any(np.allclose(line.get_xdata(), 0.5) for line in axis.get_lines())
        (top,) = axis.child_axes
        assert [label.get_text() for label in top.get_xticklabels()] == ["1/2 (d → ∞)"]
    (legend,) = figure.legends
    assert legend.get_texts()[0].get_text() == "d = 6"
    _inside_and_apart(figure)
    first = (tmp_path / f"{storable_fraction.NAME}.png").read_bytes()
    storable_fraction.draw(cells, tmp_path)
    assert (tmp_path / f"{storable_fraction.NAME}.png").read_bytes() == first
    assert (tmp_path / f"{storable_fraction.NAME}.pdf").stat().st_size > 0


def _curves(axis: Any) -> list[Any]:
    """Theory lines of an axes (not the asymptotes, not the markers of measurements)."""
    return [
        line
        for line in axis.get_lines()
        if len(line.get_xdata()) > 2 and line.get_linestyle() != "None"
    ]


def test_hebbian_panel_draws_both_laws_in_the_colour_of_d() -> None:
    cell = Cell(8, 1.0, "decoupled", "hebbian")
    figure = storable_fraction.draw({cell: _cell_data(cell, [6, 10, 14], [4, 3, 0], 4)})
    (axis,) = (a for a in figure.get_axes() if a.get_title())
    colour = axis.containers[0].lines[0].get_color()
    assert {line.get_linestyle() for line in _curves(axis)} == {"-", ":"}  # exact, d → ∞
    assert {line.get_color() for line in _curves(axis)} == {colour}
    (top,) = axis.child_axes
    assert [label.get_text() for label in top.get_xticklabels()] == ["1/8 (d → ∞)"]


def test_rank_and_finite_size_figures(tmp_path: Path) -> None:
    rows = [
        _row(Cell(8, 1.0, "decoupled", "auto"), 22.2),
        _row(Cell(8, 1.0, "original", "auto"), 22.5),
        _row(Cell(8, 0.5, "decoupled", "auto"), 20.7),
    ]
    figure = rank_capacity.draw(rows, tmp_path)
    (axis,) = figure.get_axes()
    assert len(axis.containers) == 1
    asymptote = axis.get_lines()[0]
    assert asymptote.get_ydata()[-1] == pytest.approx(0.5)  # α_c(1) = 1/2
    figure = finite_size.draw(rows, tmp_path)
    (axis,) = figure.get_axes()
    assert len(axis.containers) == 2  # decoupled and original
    assert any(np.allclose(line.get_ydata(), 0.5) for line in axis.get_lines())
    for name in (rank_capacity.NAME, finite_size.NAME):
        assert (tmp_path / f"{name}.png").exists()
        assert (tmp_path / f"{name}.pdf").exists()


def test_spectrum_and_scores_figures(tmp_path: Path) -> None:
    figure = spectrum.draw([_sample(1.0), _sample(0.5)], tmp_path)
    axes = figure.get_axes()
    assert len(axes) == 2
    for axis in axes:
        assert len(axis.patches) == 30  # histogram bars
    # κ = 1: the learnt law and the Gaussian start are one quarter circle, said once
    (line,) = axes[0].get_lines()
    assert "quarter circle at κ = 1" in line.get_label()
    assert len(axes[1].get_lines()) == 2  # learnt and initial densities differ below
    assert "κ = 0.5" in axes[1].get_title()
    _inside_and_apart(figure)
    figure = scores.draw(_sample(1.0), tmp_path)
    left, right = figure.get_axes()
    assert len(left.get_lines()) == 2
    assert len(right.get_lines()) == 2
    _inside_and_apart(figure)
    assert (tmp_path / f"{scores.NAME}.pdf").exists()


def test_max_margin_spectrum_shows_the_finite_size_law_and_labels_the_asymptote() -> None:
    from lamcap.experiments._claims import spectrum_prediction
    from lamcap.theory._spectrum import singular_value_moment

    figure = spectrum.draw([_sample(1.0, d=12, p=37, method="max_margin")])
    axis = figure.get_axes()[0]
    finite, asymptote = axis.get_lines()
    assert finite.get_label() == "finite-size density, d = 12, p = 37"
    # the printed prediction is the spectrum claim's, at the measured d and p
    histogram = next(t for t in axis.get_legend_handles_labels()[1] if "measured" in t)
    predicted = spectrum_prediction(1.0, 12, 37)
    assert predicted is not None
    assert f"{predicted[0]:.2f} finite-size law at d = 12, p = 37" in histogram
    assert predicted[0] == float(singular_value_moment(4, 1.0, d=12, p=37))
    assert predicted[0] > 2.3  # the finite-size excess at d = 12, not the asymptote 2
    # the drawn curve is a density (its mass on the plotted grid), not the quarter circle
    s, density = finite.get_xdata(), finite.get_ydata()
    assert float(np.trapezoid(density, s)) == pytest.approx(1.0, abs=0.01)
    assert not np.allclose(density, asymptote.get_ydata(), atol=0.02)
    assert asymptote.get_label().startswith("d → ∞ asymptote: quarter circle")
    assert asymptote.get_label().endswith("= 2.00")
    assert asymptote.get_color() == "0.45"  # the grey of every asymptote
    _inside_and_apart(figure)


def test_score_figure_draws_the_law_at_the_margin_of_the_score_claim() -> None:
    from lamcap.experiments._claims import score_prediction

    figure = scores.draw(_sample(1.0, d=16, p=58, method="max_margin"))
    left = figure.get_axes()[0]
    _, target = left.get_lines()
    mean, margin = score_prediction(16, 58)
    assert left.get_legend().get_title().get_text() == f"law at m = {margin:.3f}"
    assert margin > 0.05  # below capacity: not the m = 0 law
    # the drawn target density is the claim's law: its mean on the plotted grid
    x, density = target.get_xdata(), target.get_ydata()
    step = x[1] - x[0]
    assert float(np.sum(density) * step) == pytest.approx(1.0, abs=1e-3)
    assert float(np.sum(x * density) * step) == pytest.approx(mean, abs=0.01)
    # any other matrix is drawn against the law at capacity
    other = scores.draw(_sample(1.0, d=16, p=58, method="first_feasible"))
    assert other.get_axes()[0].get_legend().get_title().get_text() == "law at m = 0.000"


def test_at_full_rank_the_learnt_and_initial_laws_are_the_same() -> None:
    """Why figure 4 draws one curve at κ = 1: both laws are the quarter circle."""
    from lamcap import singular_value_density

    s = np.linspace(0.0, 2.2, 301)
    quarter_circle = np.sqrt(np.maximum(4 - s * s, 0.0)) / np.pi  # independent closed form
    for law in ("optimum", "gaussian"):
        values = singular_value_density(s, 1.0, family=law, normalization="raw")
        assert np.allclose(values, quarter_circle, atol=1e-12)
    below = singular_value_density(s, 0.5, family="optimum", normalization="raw")
    assert not np.allclose(below, quarter_circle)


def test_one_style_for_every_figure() -> None:
    from lamcap.experiments.figures import _style as style

    assert style.new_figure(1)[0].get_figwidth() == style.COLUMN_WIDTH
    assert style.new_figure(3)[0].get_figwidth() == style.PAGE_WIDTH
    for module in (storable_fraction, rank_capacity, finite_size, spectrum, scores):
        assert hasattr(module.draw, "__wrapped__"), module.__name__  # drawn inside style.context()


def test_fourth_moment_ratio_of_the_quarter_circle() -> None:
    # independent: samples of the quarter circle by inverse transform of sqrt(4-s^2)
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 2, 400000)
    keep = rng.uniform(0, 1, s.size) < np.sqrt(4 - s * s) / 2
    assert spectrum.fourth_moment_ratio(s[keep]) == pytest.approx(2.0, abs=0.02)


# ------------------------------------------------------------ everything in frame


def test_outside_frame_names_a_legend_cut_at_both_edges() -> None:
    from lamcap.experiments.figures import _style as style

    figure, (axis,) = style.new_figure(1)
    with style.context():
        lines = [axis.plot([0, 1], [0, i])[0] for i in range(6)]
        labels = [f"a long label number {i}" for i in range(6)]
        figure.legend(lines, labels, loc="outside lower center", ncols=6)
        (problem,) = style.outside_frame(figure)
    assert problem.startswith("figure legend 1 is cut at the left by")
    assert "right by" in problem
    with pytest.raises(ValueError, match="figure does not fit its frame: figure legend 1"):
        style.check_fits(figure)


def test_outside_frame_finds_titles_texts_and_tick_labels_past_the_edge() -> None:
    from matplotlib.figure import Figure

    from lamcap.experiments.figures import _style as style

    figure = Figure(figsize=(style.COLUMN_WIDTH, 2.6))  # no layout engine to make room
    axis = figure.add_subplot()
    with style.context():
        axis.set_title("a title " * 12)
        axis.text(1.3, 0.5, "beyond the right edge", transform=axis.transAxes)
        axis.secondary_xaxis("top").set_xticks([1.0], labels=["x" * 80])
        problems = style.outside_frame(figure)
    assert any(p.startswith("title 'a title") for p in problems)
    assert any(p.startswith("text 'beyond the right edge'") for p in problems)
    assert any("secondary axis" in p for p in problems)


def test_a_figure_that_fits_passes() -> None:
    from lamcap.experiments.figures import _style as style

    figure, (axis,) = style.new_figure(1)
    with style.context():
        axis.plot([0, 1], [0, 1], label="line")
        axis.set(title="title", xlabel="x", ylabel="y")
        axis.legend()
        style.mark_asymptote(axis, 0.5, "1/2 (d → ∞)", vertical=True)
        assert style.outside_frame(figure) == []
        style.check_fits(figure)


def test_legend_wraps_onto_rows_until_it_fits_the_width() -> None:
    from lamcap.experiments.figures import _style as style

    figure, (axis,) = style.new_figure(1)
    with style.context():
        lines = [axis.plot([0, 1], [0, i])[0] for i in range(7)]
        labels = [f"label {i} of the legend" for i in range(7)]
        legend = style.legend(figure, lines, labels, loc="outside lower center", ncols=7)
        assert style.outside_frame(figure) == []
    assert 1 < legend._ncols < 7  # wrapped, yet not one entry per row
    assert [t.get_text() for t in legend.get_texts()] == labels
    assert len(figure.legends) == 1  # the wider attempts were removed


def test_save_warns_when_a_figure_is_cut(tmp_path: Path) -> None:
    from lamcap.experiments.figures import _style as style

    figure, (axis,) = style.new_figure(1)
    with style.context():
        lines = [axis.plot([0, 1], [0, i])[0] for i in range(6)]
        figure.legend(lines, [f"a long label number {i}" for i in range(6)], ncols=6)
    with pytest.warns(style.FigureFitWarning, match="cut: figure legend 1 is cut at the left"):
        style.save(figure, tmp_path, "cut")
    assert (tmp_path / "cut.png").stat().st_size > 0  # written all the same


@pytest.mark.slow
def test_storable_fraction_legend_of_many_dimensions_fits(tmp_path: Path) -> None:
    """The legend of figure 1 with the dimensions of a full reproduce run stays inside."""
    cells = {}
    for d in (8, 12, 16, 24, 32, 48, 64):
        cell = Cell(d, 1.0, "decoupled", "auto")
        p_c = d * d / (2 * np.log(d))
        cells[cell] = _cell_data(cell, [round(p_c * f) for f in (0.8, 1.0, 1.2)], [4, 2, 0], 4)
    figure = storable_fraction.draw(cells, tmp_path)  # save() warns (an error here) if cut
    assert style_outside(figure) == []
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()][:7] == [
        f"d = {d}" for d in (8, 12, 16, 24, 32, 48, 64)
    ]


def style_outside(figure: Any) -> list[str]:
    from lamcap.experiments.figures import _style as style

    return style.outside_frame(figure)
