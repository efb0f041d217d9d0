"""Every script in examples/ runs (in-process, via runpy) and prints what it promises.

The examples are documentation: running them here keeps them working with the
current API. They run with small arguments; the checks are on the printed tables.
"""

from __future__ import annotations

import itertools
import math
import re
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NUMBER = r"[-+]?\d+\.\d+|nan"


def run_example(
    name: str, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    monkeypatch.setattr(sys, "argv", [str(EXAMPLES / name), *args])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def table_rows(output: str, columns: int) -> list[list[float]]:
    """Rows of a printed table that consist of exactly ``columns`` numbers."""
    rows = []
    for line in output.splitlines():
        fields = re.findall(rf"(?<![\w.])(?:\d+|{NUMBER})(?![\w.])", line.replace("|", " "))
        if len(fields) == columns and len(line.split()) - line.count("|") == columns:
            rows.append([float(field) for field in fields])
    return rows


def test_every_example_is_tested() -> None:
    tested = {"capacity_table.py", "finite_size_curve.py", "spectrum_overlay.py",
              "hebbian_vs_optimal.py"}  # fmt: skip
    assert {path.name for path in EXAMPLES.glob("*.py")} == tested


@pytest.mark.slow
def test_capacity_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    output = run_example("capacity_table.py", [], monkeypatch, capsys)
    asymptotic, finite, critical = (table_rows(part, 3) for part in output.split("\n\n"))
    assert asymptotic[-1][:2] == [1.0, 0.5]  # full rank: alpha_c = 1/2
    # alpha_c(kappa) increases with kappa, and alpha_c / kappa -> 2 as kappa -> 0
    assert all(a[1] < b[1] for a, b in itertools.pairwise(asymptotic))
    assert abs(asymptotic[0][2] - 2.0) < 0.15
    # finite-size capacity: log p / E[C_p] from the printed E[C_p], above 1/2, decreasing
    for p, dimension, alpha in finite:
        assert alpha == pytest.approx(math.log(p) / dimension, abs=1e-4)
    assert all(a[2] > b[2] > 0.5 for a, b in itertools.pairwise(finite))
    # p_c(d) grows with d, and a rank-d/2 memory stores fewer associations
    assert all(full > half for _d, full, half in critical)
    assert all(a[1] < b[1] for a, b in itertools.pairwise(critical))


@pytest.mark.slow
def test_finite_size_curve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    output = run_example(
        "finite_size_curve.py", ["--d", "6", "--seeds", "3", "--points", "4"], monkeypatch, capsys
    )
    rows = table_rows(output, 4)
    assert len(rows) >= 3
    crofton = [row[2] for row in rows]
    assert all(0.0 <= value <= 1.0 for value in crofton)
    assert crofton == sorted(crofton, reverse=True)  # more associations: harder
    assert all(math.isnan(row[3]) or 0.0 <= row[3] <= 1.0 for row in rows)


@pytest.mark.slow
def test_spectrum_overlay_on_a_user_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Gaussian matrix: its singular values follow the quarter circle exactly as d grows.
    weights = np.random.default_rng(0).standard_normal((300, 300))
    np.save(tmp_path / "W.npy", weights)
    output = run_example(
        "spectrum_overlay.py",
        ["--weights", str(tmp_path / "W.npy"), "--plot", str(tmp_path / "overlay.png")],
        monkeypatch,
        capsys,
    )
    ks = float(re.search(rf"Kolmogorov-Smirnov distance: ({NUMBER})", output).group(1))
    assert ks < 1.36 / math.sqrt(300)  # 95% KS band: the quarter circle fits
    ratio = float(re.search(rf"measured ({NUMBER})", output).group(1))
    assert ratio == pytest.approx(2.0, abs=0.1)
    assert (tmp_path / "overlay.png").stat().st_size > 1000


@pytest.mark.slow
def test_spectrum_overlay_on_solver_weights(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    output = run_example("spectrum_overlay.py", ["--d", "12"], monkeypatch, capsys)
    assert "12 non-zero singular values" in output


@pytest.mark.slow
def test_hebbian_vs_optimal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = 2
    output = run_example(
        "hebbian_vs_optimal.py", ["--d", "16", "--seeds", str(seeds)], monkeypatch, capsys
    )
    rows = table_rows(output, 8)
    assert len(rows) == 4
    for p, _alpha, hebbian, finite, limit, optimal, _gap_h, _gap_o in rows:
        assert 0.0 <= hebbian <= 1.0
        # measured Hebbian recall vs the exact finite-d law: 5 binomial standard errors
        sigma = math.sqrt(max(finite * (1 - finite), 0.01) / (p * seeds))
        assert abs(hebbian - finite) < 5 * sigma + 0.02
        assert finite <= limit + 1e-3  # finite d recalls less than the d -> oo limit
        assert math.isnan(optimal) or optimal == 1.0  # a feasible W recalls everything
