"""Fuzz every command's options: exit 0, or exit 2 with one line, never a traceback or a hang.

Each command starts from a valid, quick command line; every option in turn gets
each value of :data:`VALUES` (malformed numbers, NaN, infinities, negatives,
numbers beyond any size, ranges, empty strings).  The commands run through
:func:`lamcap.cli.main` in new Python processes (one per command, restarted
after a hang) under a memory limit; an exception escaping ``main`` (a
traceback for the user), an exit code other than 0 or 2, an error message of
more than one line or a call longer than :data:`SECONDS` fails the case.  The
long-running commands (``sweep``, ``reproduce``, ``figures``) get only values
that no option of theirs accepts, so each call must end at argument checking.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lamcap.cli import build_parser

pytestmark = pytest.mark.slow

SECONDS = 20.0
MEMORY_LIMIT = 4 * 2**30

#: Values no numeric or path option of a long-running command accepts.
INVALID = ("-1", "nan", "inf", "-inf", "abc", "", "1e400", "10**100", "[1]", "2:1")
#: Sizes far beyond the machine, which the quick commands must refuse or answer.
HUGE = ("1e15", "1000000000", "10" + "0" * 100)

#: A valid, quick command line per command; ``{tmp}`` is a fresh folder.
BASE: dict[str, list[str]] = {
    "capacity": ["capacity", "--kappa", "0.5"],
    "critical-p": ["critical-p", "--d", "16"],
    "feasibility": ["feasibility", "--d", "12", "--p", "40"],
    "solve": ["solve", "--d", "8", "--p", "20", "--max-seconds", "10"],
    "sweep": ["sweep", "--d", "8", "--seeds", "1", "--db", "{tmp}/sweep.sqlite", "--quiet"],
    "reproduce": ["reproduce", "--quick", "--out", "{tmp}/reproduce", "--quiet"],
    "figures": ["figures", "--db", "{tmp}/missing.sqlite", "--out", "{tmp}/figures"],
    "results summary": ["results", "summary", "--db", "{tmp}/missing.sqlite"],
    "results export": ["results", "export", "--db", "{tmp}/missing.sqlite"],
    "results transitions": ["results", "transitions", "--db", "{tmp}/missing.sqlite"],
    "results merge": ["results", "merge", "{tmp}/merged.sqlite", "{tmp}/missing.sqlite"],
    "tables": ["tables", "--check", "--quiet"],
}
QUICK = frozenset({"capacity", "critical-p", "feasibility", "solve"})
#: Options that take no value or that the fuzz leaves alone (paths a value would create).
SKIPPED = frozenset({"--json", "--quiet", "--quick", "--check", "--dask-local", "--help"})


def _subparser(words: list[str]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def _options(command: str) -> list[str]:
    """The options to fuzz; for the long-running commands only the numeric ones.

    A long-running command with a valid value would run for minutes (a path, a
    sweep name, a scheduler address accept almost any string), so it gets only
    the options whose every valid value is a number, which :data:`INVALID` never is.
    """
    parser = _subparser(command.split())
    return [
        action.option_strings[0]
        for action in parser._actions
        if action.option_strings
        and action.option_strings[0] not in SKIPPED
        and action.nargs != 0
        and not isinstance(action, argparse._HelpAction)
        and (command in QUICK or action.type in (int, float) or action.choices is not None)
    ]


def _cases() -> list[Any]:
    return [
        pytest.param(command, option, id=f"{command}{option}")
        for command in sorted(BASE)
        for option in _options(command)
    ]


def _argv(command: str, option: str, value: str, tmp: Path) -> list[str]:
    base = [word.replace("{tmp}", str(tmp)) for word in BASE[command]]
    if option in base:  # replace the base's value
        index = base.index(option)
        return [*base[:index], option, value, *base[index + 2 :]]
    return [*base, option, value]


_CHILD = """
import contextlib, io, json, pickle, resource, sys, traceback
calls, limit = pickle.load(sys.stdin.buffer)
with open("/proc/self/status", encoding="ascii") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (size + limit, size + limit))
from lamcap.cli import main
for argv in calls:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code, escaped = main(argv), ""
        except SystemExit as stop:
            code, escaped = stop.code if isinstance(stop.code, int) else 2, ""
        except BaseException as error:
            code, escaped = -1, "".join(traceback.format_exception(error))[-600:]
    print(json.dumps([code, err.getvalue()[-600:], escaped]), flush=True)
"""


def outcomes(
    child_lines: Callable[..., Iterator[bytes | None]], calls: list[list[str]], folder: Path
) -> Iterator[tuple[int, str, str]]:
    """``(exit code, stderr, escaped traceback)`` per call, run in ``folder`` (what a value
    names as an output file lands there); a hang or a death (code -9) ends the run."""
    for line in child_lines(
        _CHILD, (calls, MEMORY_LIMIT), len(calls), seconds=SECONDS, folder=folder
    ):
        if line is None:
            yield (-9, "", f"timed out or died within {SECONDS:g} s")
            return
        code, error, escaped = json.loads(line)
        yield (code, error, escaped)


def _problems(argv: list[str], outcome: tuple[int, str, str]) -> str | None:
    code, error, escaped = outcome
    if escaped or code not in (0, 2):
        return f"{' '.join(argv)}: exit {code} {escaped or error}"
    if code == 2 and "Traceback" in error:
        return f"{' '.join(argv)}: traceback on stderr {error}"
    lines = [line for line in error.splitlines() if line.startswith("lamcap")]
    if code == 2 and len(lines) > 1:
        return f"{' '.join(argv)}: {len(lines)} error lines {error}"
    return None


@pytest.mark.parametrize(("command", "option"), _cases())
def test_every_option_ends_in_exit_0_or_2(
    command: str,
    option: str,
    tmp_path: Path,
    child_lines: Callable[..., Iterator[bytes | None]],
) -> None:
    values = INVALID + (HUGE if command in QUICK else ())
    calls = [_argv(command, option, value, tmp_path) for value in values]
    problems = [
        problem
        for argv, outcome in zip(calls, outcomes(child_lines, calls, tmp_path), strict=False)
        if (problem := _problems(argv, outcome)) is not None
    ]
    assert problems == []
