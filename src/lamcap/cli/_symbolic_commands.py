"""Symbolic-layer sub-command of lamcap: tables.

lamcap tables rebuilds the derivation pages and tables (Markdown, with LaTeX
copies in tex/) and the generated code block of lamcap.theory._asymptotics,
deterministically.  It writes only where it is told:

* inside a lamcap checkout (found from the current folder upwards, or given with
  --repo PATH): the pages into docs/derivations/ of the checkout and the code
  block into its src/lamcap/theory/_asymptotics.py;
* with --out DIR: the pages into DIR (the code block only with --repo as well);
* anywhere else it writes nothing and exits with code 2.

It never writes into the installed package.  --check writes nothing: it exits
1 when a committed file differs from a fresh build (listing the files), 0 when
all are up to date, and 2 when there is nothing to check (no checkout and no
--out).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import lamcap
from lamcap._progress import Progress

TOPICS = ("series", "replica", "rank", "hebbian")
_CODE_TOPIC = "series"  # the topic whose build includes the generated code block


def _installed_package() -> Path:
    return Path(lamcap.__file__).resolve().parent


def _refuse_installed_package(folder: Path, checkout: Path | None) -> None:
    """ValueError if ``folder`` lies inside the installed package (outside any checkout)."""
    package = _installed_package()
    if checkout is not None and package.is_relative_to(checkout):
        return  # an editable install: the package is the checkout's source
    if folder.resolve().is_relative_to(package):
        msg = f"refusing to write into the installed package {str(package)!r}; choose another --out"
        raise ValueError(msg)


def _checkout(arguments: argparse.Namespace) -> Path | None:
    from lamcap.symbolic import _codegen as codegen  # noqa: PLC0415 - sympy, only when the command runs

    if arguments.repo is not None:
        codegen.asymptotics_target(arguments.repo)  # ValueError unless a checkout
        return Path(arguments.repo).resolve()
    return codegen.find_checkout(Path.cwd())


def _destinations(arguments: argparse.Namespace) -> tuple[Path, Path | None] | None:
    """(pages folder, code module or None), or None when there is nowhere to write."""
    from lamcap.symbolic import _codegen as codegen  # noqa: PLC0415 - sympy, only when the command runs

    checkout = _checkout(arguments)
    code = None
    if checkout is not None and (arguments.out is None or arguments.repo is not None):
        code = codegen.asymptotics_target(checkout)
    if arguments.out is not None:
        out = Path(arguments.out)
    elif checkout is not None:
        out = checkout / "docs" / "derivations"
    else:
        return None
    _refuse_installed_package(out, checkout)
    return out, code


def _nowhere(check: bool) -> int:
    where = f"{str(Path.cwd())!r} is not inside a lamcap checkout"
    if check:
        print(
            f"lamcap tables --check: nothing to check: {where}; pass --repo PATH or --out DIR",
            file=sys.stderr,
        )
    else:
        print(
            f"lamcap tables: error: {where}; run it in a checkout or pass --repo PATH or --out DIR",
            file=sys.stderr,
        )
    return 2


def _build(tables: Any, topics: list[str], *, progress: bool) -> dict[str, str]:
    """Build the pages topic by topic, showing which one runs (series and replica take seconds)."""
    pages: dict[str, str] = {}
    notes = [f"building {topic}" for topic in topics[1:]] + ["built"]
    first = f"building {topics[0]}"
    with Progress("tables", total=len(topics), unit="topics", note=first, enabled=progress) as bar:
        for topic, after in zip(topics, notes, strict=True):
            pages.update(tables.build_all([topic]))
            bar.advance(note=after)
    return pages


def run_tables(arguments: argparse.Namespace) -> int:
    """Handler of ``lamcap tables``; returns the exit code."""
    destinations = _destinations(arguments)
    if destinations is None:
        return _nowhere(arguments.check)
    out, code = destinations
    from lamcap.experiments import _derivation_tables as tables  # noqa: PLC0415 (sympy only when the command runs)

    topics = arguments.topic or list(TOPICS)
    pages = _build(tables, topics, progress=not arguments.quiet)
    skipped_code = code is None and _CODE_TOPIC in topics
    if arguments.check:
        differing = tables.stale(pages, out, asymptotics=code)
        for path in differing:
            print(f"stale: {path}", file=sys.stderr)
        if skipped_code:
            print("not checked: the generated code block (pass --repo PATH)", file=sys.stderr)
        if differing:
            print("lamcap tables: committed tables differ; run `lamcap tables`", file=sys.stderr)
            return 1
        checked = len(pages) - skipped_code
        print(f"lamcap tables: {checked} files up to date")
        return 0
    for path in tables.write(pages, out, asymptotics=code):
        print(f"wrote {path}")
    if skipped_code:
        print("not written: the generated code block (pass --repo PATH)", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``tables`` sub-command."""
    parser = subparsers.add_parser(
        "tables",
        help="regenerate the derivation tables in docs/derivations (sympy)",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a committed file is stale, 2 if there is nothing to check",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        default=None,
        metavar="PATH",
        help="the lamcap checkout to update (default: the one containing the current folder)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the pages into DIR instead of the checkout's docs/derivations",
    )
    parser.add_argument(
        "--topic",
        action="append",
        choices=TOPICS,
        help="only this topic (repeatable; default: all four)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (the result lines remain)"
    )
    parser.set_defaults(handler=run_tables)
