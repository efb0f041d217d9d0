"""Rebuild every derivation page and table in docs/derivations/ (same as ``lamcap tables``).

Run ``python derivations/build_all.py`` from anywhere; ``--check`` exits 1 when a
committed file differs from a fresh build.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import main

if __name__ == "__main__":
    sys.exit(main(None))
