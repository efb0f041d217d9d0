"""Shared entry point of the derivation scripts: build topics and write docs/derivations/."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from lamcap.experiments import _derivation_tables as tables
from lamcap.symbolic import _codegen as codegen

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "derivations"


def main(topics: Sequence[str] | None, argv: Sequence[str] | None = None) -> int:
    """Write the pages of ``topics`` (all if None); ``--check`` only compares."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    pages = tables.build_all(topics)
    if "--check" in arguments:
        differing = tables.stale(pages, OUT, asymptotics=codegen.asymptotics_target(ROOT))
        for path in differing:
            print(f"stale: {path}")
        return 1 if differing else 0
    for path in tables.write(pages, OUT, asymptotics=codegen.asymptotics_target(ROOT)):
        print(f"wrote {path}")
    return 0
