"""Command-line interface ``lamcap``.

Each layer contributes its sub-commands from a module of its own in this
package (``theory_commands``, ``solver_commands``, ...).  A module listed in
:data:`COMMAND_MODULES` exposes ``register(subparsers)``, which adds its
sub-commands; each sub-command stores its handler as ``handler`` via
``set_defaults``.  Handlers return the process exit code.  A ``ValueError``
raised by the library becomes a one-line message on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lamcap import __version__

__all__ = ["build_parser", "main"]

COMMAND_MODULES = (
    "lamcap.cli._theory_commands",
    "lamcap.cli._symbolic_commands",
    "lamcap.cli._solver_commands",
    "lamcap.cli._experiment_commands",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the ``lamcap`` argument parser with every available sub-command."""
    parser = argparse.ArgumentParser(
        prog="lamcap",
        description="Capacity of linear associative memories (arXiv:2605.10795).",
    )
    parser.add_argument("--version", action="version", version=f"lamcap {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue  # that layer has no commands yet
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lamcap`` command line; return the exit code."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
    handler = getattr(arguments, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(arguments))
    except ValueError as error:
        print(f"lamcap {arguments.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
