"""The committed derivation tables (docs/derivations) equal a fresh build."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "derivations"


@pytest.mark.slow
def test_committed_tables_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    from lamcap.cli import main

    code = main(["tables", "--check", "--repo", str(ROOT)])
    captured = capsys.readouterr()
    assert code == 0, captured.err


def test_check_fails_on_a_stale_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lamcap.cli import main

    assert main(["tables", "--topic", "hebbian", "--out", str(tmp_path)]) == 0
    assert main(["tables", "--check", "--topic", "hebbian", "--out", str(tmp_path)]) == 0
    page = tmp_path / "hebbian.md"
    page.write_text(page.read_text().replace("0.171573", "0.171574"))
    assert main(["tables", "--check", "--topic", "hebbian", "--out", str(tmp_path)]) == 1
    assert "stale:" in capsys.readouterr().err


def test_monte_carlo_dimension_is_deterministic() -> None:
    from lamcap.experiments._derivation_tables import monte_carlo_dimension

    assert monte_carlo_dimension(1000, 2000, 3) == monte_carlo_dimension(1000, 2000, 3)
