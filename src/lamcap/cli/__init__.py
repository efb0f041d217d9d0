"""Command-line interface ``lamcap``.

Each layer contributes its sub-commands from a module of its own in this
package (``theory_commands``, ``solver_commands``, ...).  A module listed in
:data:`COMMAND_MODULES` exposes ``register(subparsers)``, which adds its
sub-commands; each sub-command stores its handler as ``handler`` via
``set_defaults``.  Handlers return the process exit code.  A ``ValueError``
raised by the library (bad input, or work that would not fit in memory)
becomes a one-line message on stderr and exit code 2; a closed stdout
(``lamcap ... | head``) ends the command quietly with code 141, as SIGPIPE
ends a Unix tool.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
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
        code = int(handler(arguments))
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
    except ValueError as error:
        print(f"lamcap {arguments.command}: error: {error}", file=sys.stderr)
        return 2
    except MemoryError:  # a backstop: every allocating function checks its memory first
        print(f"lamcap {arguments.command}: error: out of memory", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as error:  # a path that cannot be used: a folder for a file, a file for a folder
        where = f" {error.filename!r}" if error.filename else ""
        print(
            f"lamcap {arguments.command}: error: cannot use{where}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 2
    return code


def _closed_pipe() -> int:
    """The reader of stdout went away (``lamcap ... | head``): end quietly, as Unix tools do.

    Python's documented recipe (the ``signal`` module, "Note on SIGPIPE"):
    point stdout at ``/dev/null`` so that the interpreter's final flush does
    not fail again; the exit code is 141 (128 + SIGPIPE), what a shell reports
    for a tool that SIGPIPE ended.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
