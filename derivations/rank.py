"""Rank-kappa capacity alpha_c(kappa) = F(kappa)/2 to 30 digits.

Run ``python derivations/rank.py`` (``--check`` to compare only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import main

if __name__ == "__main__":
    sys.exit(main(["rank"]))
