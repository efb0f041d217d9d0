"""Hebbian thresholds 1/8 and 1/2 and the error exponent.

Run ``python derivations/hebbian.py`` (``--check`` to compare only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import main

if __name__ == "__main__":
    sys.exit(main(["hebbian"]))
