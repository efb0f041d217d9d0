"""Shared fixtures: every test starts from mpmath's default precision."""

from __future__ import annotations

from collections.abc import Iterator

import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mpmath_precision() -> Iterator[None]:
    saved = mpmath.mp.dps
    yield
    mpmath.mp.dps = saved
