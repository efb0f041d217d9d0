"""Large-p series of E[C_p]: coefficients, generated code block, exact vs series vs Monte Carlo.

Run ``python derivations/series.py`` (``--check`` to compare only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import main

if __name__ == "__main__":
    sys.exit(main(["series"]))
