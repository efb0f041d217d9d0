"""The committed derivation tables (docs/derivations) equal a fresh build."""

from __future__ import annotations

from collections.abc import Callable
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


@pytest.mark.parametrize("p", [2, 10, 1000])
def test_monte_carlo_dimension_matches_full_competitors_and_quadrature(
    p: int, sampled_active_set: Callable[[int, int, int], tuple[float, float]]
) -> None:
    # The table's sampler draws only the top order statistics; an independent simulation
    # draws all p - 1 competitors (tests/conftest.py), and the quadrature of
    # statistical_dimension gives E|A| = E[C_p] itself.
    import numpy as np

    from lamcap.experiments._derivation_tables import monte_carlo_dimension
    from lamcap.theory import statistical_dimension

    mean, error = monte_carlo_dimension(p, 10_000, 3)
    full, full_error = sampled_active_set(p, 10_000, 11)
    assert abs(mean - full) < 5 * np.hypot(error, full_error)
    assert abs(mean - float(statistical_dimension(p))) < 5 * error
