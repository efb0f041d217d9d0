"""``reproduce``: stage progress, the pipeline on a tiny plan, the CLI's quiet mode."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from lamcap.experiments import reproduce as reproduce_module
from lamcap.experiments.reproduce import Plan, Stage, reproduce, summary
from lamcap.experiments.sweep import Sweep


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_progress_lines_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reproduce_module, "PLAIN_INTERVAL", 0.0)
    stream = io.StringIO()
    stage = Stage("solutions", 3, stream=stream)
    for _ in range(3):
        stage.step()
    stage.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "lamcap reproduce: solutions: started (3 to do)"
    assert lines[1].startswith("lamcap reproduce: solutions: 1/3 done, ")
    assert lines[-1].startswith("lamcap reproduce: solutions: done (3/3), ")
    assert "\r" not in stream.getvalue()


def test_blocking_stage_keeps_talking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reproduce_module, "PLAIN_INTERVAL", 0.0)
    stream = io.StringIO()
    stage = Stage("theory tables", stream=stream)
    with stage.ticking():
        stage.tick()
    stage.close()
    lines = stream.getvalue().splitlines()
    assert any("still running" in line for line in lines)
    assert lines[-1].startswith("lamcap reproduce: theory tables: done, ")


def test_terminal_gets_a_bar_and_quiet_gets_nothing() -> None:
    terminal = _Terminal()
    stage = Stage("figures", 2, stream=terminal)
    stage.step(2)
    stage.close()
    assert "figures" in terminal.getvalue()
    assert "2/2" in terminal.getvalue()
    assert "lamcap reproduce:" not in terminal.getvalue()
    quiet = io.StringIO()
    stage = Stage("figures", 2, enabled=False, stream=quiet)
    stage.step(2)
    stage.close()
    assert quiet.getvalue() == ""


_TINY = Plan(
    name="tiny",
    sweeps=(
        Sweep(
            name="optimal",
            dims=(6, 8, 10),
            models=("decoupled", "original"),
            seeds_per_point=3,
            rounds=0,
        ),
    ),
    mechanism_dims=(6, 8),
    mechanism_seeds=3,
)


@pytest.mark.slow
def test_reproduce_tiny_plan_writes_report_claims_and_figures(tmp_path: Path) -> None:
    report = reproduce(tmp_path / "out", workers=0, progress=False, plan=_TINY, with_tables=False)
    text = report.read_text()
    assert "| claim | kind | finite-size prediction | measured [95% interval] |" in text
    assert "DP capacity: transition p, d = 6" in text
    assert "OP = DP as d → ∞" in text
    assert "in-process (0 workers)" in text
    assert "*OP* is the original problem" in text
    assert "docs/measurements/capacity.md" in text
    assert "**no**" not in text
    for number in range(1, 6):
        assert list((tmp_path / "out" / "figures").glob(f"fig{number}_*.png"))
    claims = json.loads((tmp_path / "out" / "claims.json").read_text())
    assert {c["verdict"].split(":")[0].split(" (")[0] for c in claims} <= {
        "consistent",
        "inconsistent",
        "not tested",
        "comparison",
    }
    assert "consistent" in summary(report)
    samples = np.load(tmp_path / "out" / "figures" / "mechanism_samples.npz")
    assert any(key.endswith("singular_values") for key in samples.files)


@pytest.mark.slow
def test_cli_quiet_hides_progress_but_not_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lamcap.cli import main

    monkeypatch.setattr(reproduce_module, "QUICK", _TINY)
    monkeypatch.setattr(reproduce_module, "build_tables", dict)
    out = tmp_path / "out"
    assert main(["reproduce", "--quick", "--quiet", "--workers", "0", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines()[0].startswith("claims: ")
    assert captured.out.splitlines()[1] == f"report -> {out / 'report.md'}"
