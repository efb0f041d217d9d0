"""The scripts beside the package: ``measurements/`` feeds the pages, ``benchmarks/`` compares.

Every measurement script is reached by ``measurements/run.py`` (one command per page
regenerates its data), every option the runner passes is one the script defines, and
every script the documentation, the docstrings or the tests cite exists (a retired
one is cited with the commit that still holds it).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
_CITED = re.compile(r"\b(?:benchmarks|measurements)/[A-Za-z0-9_]+\.py")
_CITING = ("docs", "src", "tests", "measurements", "benchmarks", "derivations", "examples")


def _runner() -> ModuleType:
    path = REPO / "measurements" / "run.py"
    spec = importlib.util.spec_from_file_location("_measurements_run", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands() -> list[tuple[str, list[str]]]:
    runner = _runner()
    return [
        (page, runner.command_line(command, REPO / "work"))
        for page, (_, commands) in runner.PAGES.items()
        for command in commands
    ]


def test_every_measurement_script_feeds_a_page() -> None:
    scripts = {path.name for path in (REPO / "measurements").glob("*.py")} - {"run.py"}
    used = {Path(words[1]).name for _, words in _commands() if words[1] != "-m"}
    assert scripts - used == set(), "add the script's command to PAGES in measurements/run.py"
    pages = {document for document, _ in _runner().PAGES.values()}
    assert all((REPO / page).is_file() for page in pages), pages


@pytest.mark.parametrize(("page", "words"), _commands(), ids=lambda v: str(v)[:40])
def test_runner_passes_only_options_the_script_defines(page: str, words: list[str]) -> None:
    if words[1] == "-m":  # the installed command line, tested in tests/cli
        return
    script = REPO / words[1]
    assert script.is_file(), (page, script)
    source = script.read_text(encoding="utf-8")
    for option in (word for word in words[2:] if word.startswith("--")):
        assert f'"{option}"' in source, f"{script.name} defines no {option} ({page})"


def test_runner_inputs_exist() -> None:
    # named inputs (not globs, which may match nothing in a fresh checkout, nor outputs)
    for _, commands in _runner().PAGES.values():
        for word in " ".join(commands).split():
            if word.startswith("docs/") and "*" not in word:
                assert (REPO / word).exists() or word.endswith((".csv", ".png", ".jsonl")), word


def test_cited_scripts_exist() -> None:
    missing = []
    files = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "noxfile.py"]
    for folder in _CITING:
        files += [p for p in (REPO / folder).rglob("*") if p.suffix in {".py", ".md"}]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in _CITED.finditer(text):
            if (REPO / match.group(0)).is_file():
                continue
            # a retired script is cited with the commit that holds it
            if not re.search(
                r"commit|git show", text[max(0, match.start() - 200) : match.end() + 200]
            ):
                missing.append(f"{path.relative_to(REPO)}: {match.group(0)}")
    assert not missing, missing


def test_runner_lists_the_pages(capsys: pytest.CaptureFixture[str]) -> None:
    assert _runner().main(["--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert "capacity (docs/measurements/capacity.md):" in shown
    assert shlex.split(shown.splitlines()[1])[1] == "python"
