"""Symbolic-layer sub-command of ``lamcap``: ``tables``.

``lamcap tables`` rebuilds every derivation page and table in
``docs/derivations/`` (Markdown, with LaTeX copies in ``tex/``) and the generated
code block of :mod:`lamcap.theory.asymptotics`, deterministically.
``lamcap tables --check`` writes nothing and exits 1 when a committed file
differs from a fresh build (listing the files).  Run it from the repository root
or pass ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register", "run_tables"]

TOPICS = ("series", "replica", "rank", "hebbian")


def run_tables(arguments: argparse.Namespace) -> int:
    """Handler of ``lamcap tables``; returns the exit code."""
    from lamcap.symbolic import tables  # noqa: PLC0415 (sympy only when the command runs)

    out = Path(arguments.out)
    topics = arguments.topic or None
    pages = tables.build_all(topics)
    if arguments.check:
        differing = tables.stale(pages, out)
        for path in differing:
            print(f"stale: {path}", file=sys.stderr)
        if differing:
            print("lamcap tables: committed tables differ; run `lamcap tables`", file=sys.stderr)
            return 1
        print(f"lamcap tables: {len(pages)} files up to date")
        return 0
    for path in tables.write(pages, out):
        print(f"wrote {path}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``tables`` sub-command."""
    parser = subparsers.add_parser(
        "tables",
        help="regenerate the derivation tables in docs/derivations (sympy)",
        description=__doc__,
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a committed table is stale"
    )
    parser.add_argument(
        "--out", default="docs/derivations", help="output folder (default: docs/derivations)"
    )
    parser.add_argument(
        "--topic",
        action="append",
        choices=TOPICS,
        help="only this topic (repeatable; default: all)",
    )
    parser.set_defaults(handler=run_tables)
