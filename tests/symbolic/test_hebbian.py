"""Hebbian thresholds (symbolic.hebbian) against a direct large-deviation minimisation."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from lamcap.symbolic import _hebbian as hebbian


def test_thresholds() -> None:
    assert hebbian.thresholds() == (sp.Rational(1, 8), sp.Rational(1, 2))


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.125, 0.2, 0.3, 0.45, 0.6])
def test_exponent_matches_grid_minimisation(alpha: float) -> None:
    """min_t (m - t)^2/2 + (t^2/2 - 1)_+ on a fine grid, m = 1/sqrt(alpha)."""
    m = 1 / np.sqrt(alpha)
    t = np.linspace(-1, 2 * m, 400_001)
    rate = (m - t) ** 2 / 2 + np.maximum(t**2 / 2 - 1, 0)
    expected = rate.min() if m > np.sqrt(2) else 0.0
    value = float(hebbian.error_exponent().subs(hebbian.ALPHA, alpha))
    assert value == pytest.approx(expected, abs=1e-4)  # grid step ~1e-5 at a kink


def test_theory_md_exponent_only_valid_above_one_eighth() -> None:
    exponent = hebbian.error_exponent()
    claimed = (1 - sp.sqrt(2 * hebbian.ALPHA)) ** 2 / (2 * hebbian.ALPHA)
    assert float((exponent - claimed).subs(hebbian.ALPHA, 0.3)) == pytest.approx(0, abs=1e-14)
    assert float((exponent - claimed).subs(hebbian.ALPHA, 0.05)) < -0.1
