"""Numbers quoted by the how-to and measurement pages, against what produces them.

Each how-to and measurement page opens with a three-line "What this page found" box
(issue 38 item 5); a box line that quotes a number a CSV holds is checked against the
CSV here, as are the corrections of issue 36 item 4.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from scipy.optimize import brentq

import lamcap

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _table(text: str, header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown table whose header starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_nichani_prediction_table_is_the_theory() -> None:
    rows = _table(_page("howto/nichani-protocol.md"), "| $d$ | unit-norm law |")
    assert [int(row[0]) for row in rows] == [8, 11, 16, 22, 32, 45, 64, 90, 128, 181, 256]
    for row in rows:
        d = int(row[0])
        unit = float(lamcap.critical_p(d, embeddings="sphere"))
        fit = brentq(lambda n, d=d: n * math.log(n) - d * d / 1.3, 2.0, 1e6)
        assert row[1:] == [
            f"{unit:.1f}",
            f"{unit * math.log(unit) / d**2:.3f}",
            f"{float(lamcap.critical_p(d)):.1f}",
            f"{float(lamcap.critical_p(d, accuracy=0.99)):.1f}",
            f"{float(lamcap.critical_p(d, accuracy=0.99, embeddings='sphere')):.1f}",
            f"{fit:.1f}",
        ], d


def test_nichani_page_says_what_the_transpose_changes() -> None:
    text = _page("howto/nichani-protocol.md")
    assert "the transpose changes nothing" not in text
    assert "no unit-norm version" not in text
    assert 'convention="logits"' in text


def test_getting_started_says_when_lamcap_solve_prints_the_compile_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import dataclasses
    import json

    from lamcap.cli import main
    from lamcap.cli._solver_commands import _print_text

    text = _page("getting-started.md")
    assert "`lamcap solve` prints both" not in text
    assert "adds a `compiling:` line only when the call compiled something" in text
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"seconds", "compile_seconds"} <= set(summary)
    instance = lamcap.make_instance(8, 6, n=4, seed=0)
    result = lamcap.solve(instance)
    summary = {"objective": "feasible", "certificate_bound": None}
    for compile_seconds, shown in ((0.0, False), (10.6, True)):
        _print_text(dataclasses.replace(result, compile_seconds=compile_seconds), instance, summary)
        out = capsys.readouterr().out
        assert re.search(r"^seconds: \d+\.\d{3} \(wall clock, cutting_plane\)$", out, re.M)
        line = "compiling: 10.6 s (numba, first solves after an install only; cached on disk)"
        assert (line in out) is shown
        assert (f"`{line}`" in text) is True
