#!/usr/bin/env -S uv run --script
# /// script
# dependencies = ["nox>=2025.2.9"]
# ///
"""Task runner: `nox -s <session>` (or `nox -l` to list sessions).

Every session only wraps a command documented in CONTRIBUTING.md, so nothing here
is required: the same commands work in any environment where lamcap is installed.
"""

from __future__ import annotations

import argparse

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"


@nox.session(default=True)
def lint(session: nox.Session) -> None:
    """Run ruff, ruff-format and codespell through pre-commit."""
    session.install("pre-commit")
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure", *session.posargs)


@nox.session(default=True)
def tests(session: nox.Session) -> None:
    """Run the test suite (doctests and examples included)."""
    session.install("-e.[test]")
    session.run("pytest", *session.posargs)


@nox.session(default=False)
def fast(session: nox.Session) -> None:
    """Run the fast tier: every test not marked slow, on all cores (CONTRIBUTING.md)."""
    session.install("-e.[test]")
    session.run("pytest", "-m", "not slow", "-n", "auto", *session.posargs)


@nox.session(default=False)
def mypy(session: nox.Session) -> None:
    """Type-check the package in strict mode."""
    session.install("-e.", "mypy>=1.13", "scipy-stubs>=1.14")
    session.run("mypy", *session.posargs)


@nox.session(reuse_venv=True, default=False)
def docs(session: nox.Session) -> None:
    """Build the documentation site with warnings as errors; `-- --serve` to preview."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", action="store_true", help="serve after building")
    args, posargs = parser.parse_known_args(session.posargs)
    session.install(".[docs]")
    if args.serve:
        session.run("mkdocs", "serve", *posargs)
    else:
        session.run("mkdocs", "build", "--strict", *posargs)


@nox.session(default=False)
def tables(session: nox.Session) -> None:
    """Regenerate the derivation tables in docs/derivations/."""
    session.install("-e.")
    session.run("lamcap", "tables", *session.posargs)


@nox.session(default=False)
def benchmarks(session: nox.Session) -> None:
    """Run every benchmark and print the ratio tables."""
    session.install("-e.[bench]")
    session.run("python", "benchmarks/run.py", *session.posargs)


if __name__ == "__main__":
    nox.main()
