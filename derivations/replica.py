"""RS free entropy: typical overlap q*(a) and log-volume tables at p = 2, 10, 100.

Run ``python derivations/replica.py`` (``--check`` to compare only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import main

if __name__ == "__main__":
    sys.exit(main(["replica"]))
