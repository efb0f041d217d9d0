"""``lamcap tables``: writes only into a checkout or --out, never into the installed package."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lamcap.cli import _symbolic_commands as symbolic_commands
from lamcap.cli import build_parser, main
from lamcap.experiments import _derivation_tables as tables
from lamcap.symbolic import _codegen as codegen

FAKE_PYPROJECT = '[project]\nname = "lamcap"\nversion = "0"\n'
STALE_BLOCK = f"{codegen.BEGIN_MARKER}\nOLD = 1\n{codegen.END_MARKER}\n"
MODULE_HEAD = '"""A checkout\'s asymptotics module."""\n\nimport numpy as np\n\n'
MODULE_TAIL = "\n\ndef after() -> int:\n    return 2\n"


def _files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture
def fake_checkout(tmp_path: Path) -> Path:
    """A folder that looks like a lamcap checkout, with an out-of-date generated block."""
    root = tmp_path / "checkout"
    module = root / codegen.ASYMPTOTICS_PATH
    module.parent.mkdir(parents=True)
    module.write_text(MODULE_HEAD + STALE_BLOCK + MODULE_TAIL, encoding="utf-8")
    (root / "pyproject.toml").write_text(FAKE_PYPROJECT, encoding="utf-8")
    (root / "docs").mkdir()
    return root


@pytest.fixture(scope="module")
def series_pages() -> tables.Pages:
    return tables.build_series()


@pytest.fixture
def fast_series(monkeypatch: pytest.MonkeyPatch, series_pages: tables.Pages) -> None:
    """Build the (5 s) series topic once per module; the pages are the real ones."""
    monkeypatch.setitem(tables.BUILDERS, "series", lambda: dict(series_pages))


@pytest.fixture
def installed_module() -> tuple[Path, bytes, int]:
    import lamcap.theory._asymptotics as installed

    path = Path(installed.__file__)
    return path, path.read_bytes(), path.stat().st_mtime_ns


def _unchanged(installed: tuple[Path, bytes, int]) -> bool:
    path, content, mtime = installed
    return path.read_bytes() == content and path.stat().st_mtime_ns == mtime


# ----------------------------------------------------------------- checkout detection


def test_checkout_is_found_from_a_subfolder(fake_checkout: Path) -> None:
    nested = fake_checkout / "a" / "b"
    nested.mkdir(parents=True)
    assert codegen.find_checkout(nested) == fake_checkout.resolve()
    assert codegen.find_checkout(fake_checkout.parent) is None


def test_a_pyproject_of_another_project_is_not_a_checkout(fake_checkout: Path) -> None:
    (fake_checkout / "pyproject.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    assert not codegen.is_checkout(fake_checkout)
    with pytest.raises(ValueError, match="is not a lamcap checkout"):
        codegen.asymptotics_target(fake_checkout)


def test_the_installed_package_is_not_a_checkout() -> None:
    import lamcap

    package = Path(lamcap.__file__).resolve().parent
    assert not codegen.is_checkout(package)
    assert not codegen.is_checkout(package.parent)  # src/ (editable) or site-packages/


def test_extract_block_needs_both_markers() -> None:
    assert codegen.extract_block("x\n" + STALE_BLOCK + "y\n") == STALE_BLOCK
    with pytest.raises(ValueError, match="no generated block"):
        codegen.extract_block(codegen.BEGIN_MARKER + "\nno end\n")


# -------------------------------------------------------------- outside a checkout


def test_outside_a_checkout_nothing_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    installed_module: tuple[Path, bytes, int],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["tables", "--topic", "hebbian"]) == 2
    message = _one_line(capsys.readouterr().err)
    assert "is not inside a lamcap checkout" in message
    assert "--repo PATH or --out DIR" in message
    assert _files(tmp_path) == []
    assert _unchanged(installed_module)


def test_check_outside_a_checkout_has_nothing_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["tables", "--check"]) == 2
    captured = capsys.readouterr()
    assert "nothing to check" in _one_line(captured.err)
    assert "stale" not in captured.err
    assert _files(tmp_path) == []


def test_repo_that_is_not_a_checkout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tables", "--topic", "hebbian", "--repo", str(tmp_path)]) == 2
    assert "is not a lamcap checkout" in _one_line(capsys.readouterr().err)
    assert _files(tmp_path) == []


@pytest.mark.usefixtures("fast_series")
def test_out_outside_a_checkout_writes_the_pages_only(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    installed_module: tuple[Path, bytes, int],
) -> None:
    work, out = tmp_path / "work", tmp_path / "pages"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["tables", "--topic", "series", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "not written: the generated code block" in captured.err
    written = {path.relative_to(out).as_posix() for path in _files(out)}
    assert "series.md" in written
    assert not any(name.endswith(".py") for name in written)
    assert _files(work) == []
    assert _unchanged(installed_module)
    assert main(["tables", "--check", "--topic", "series", "--out", str(out)]) == 0
    assert "not checked: the generated code block" in capsys.readouterr().err


def test_out_inside_the_installed_package_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "site-packages" / "lamcap"
    package.mkdir(parents=True)
    monkeypatch.setattr(symbolic_commands, "_installed_package", lambda: package)
    monkeypatch.chdir(tmp_path)
    assert main(["tables", "--topic", "hebbian", "--out", str(package / "docs")]) == 2
    assert "refusing to write into the installed package" in _one_line(capsys.readouterr().err)
    assert _files(tmp_path) == []


# ------------------------------------------------------------------ in a checkout


def test_in_a_checkout_pages_go_to_its_docs(
    fake_checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nested = fake_checkout / "docs" / "somewhere"
    nested.mkdir()
    monkeypatch.chdir(nested)
    assert main(["tables", "--topic", "hebbian"]) == 0
    page = fake_checkout / "docs" / "derivations" / "hebbian.md"
    assert page.read_text(encoding="utf-8") == tables.build_hebbian()["hebbian.md"]
    assert _files(nested) == []
    capsys.readouterr()
    assert main(["tables", "--check", "--topic", "hebbian"]) == 0
    page.write_text(page.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main(["tables", "--check", "--topic", "hebbian"]) == 1
    assert f"stale: {page}" in capsys.readouterr().err


@pytest.mark.usefixtures("fast_series")
def test_code_block_goes_into_the_checkout_not_the_installed_package(
    fake_checkout: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    installed_module: tuple[Path, bytes, int],
) -> None:
    monkeypatch.chdir(tmp_path)  # not inside the checkout: --repo names it
    module = fake_checkout / codegen.ASYMPTOTICS_PATH
    assert main(["tables", "--check", "--topic", "series", "--repo", str(fake_checkout)]) == 1
    assert f"stale: {module}" in capsys.readouterr().err
    assert main(["tables", "--topic", "series", "--repo", str(fake_checkout)]) == 0
    text = module.read_text(encoding="utf-8")
    assert text == MODULE_HEAD + codegen.asymptotics_block() + MODULE_TAIL
    assert (fake_checkout / "docs" / "derivations" / "series.md").is_file()
    assert _unchanged(installed_module)
    assert main(["tables", "--check", "--topic", "series", "--repo", str(fake_checkout)]) == 0


# -------------------------------------------------------------------------- help


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]  # type: ignore[no-any-return]


def test_tables_help_is_plain_text_with_help_for_every_option() -> None:
    parser = _subparser("tables")
    text = parser.format_help()
    for markup in ("``", ":func:", ":mod:", ":math:"):
        assert markup not in text
    for action in parser._actions:
        assert action.help, action.option_strings
    assert "{series,replica,rank,hebbian}" in text


def test_progress_is_one_line_per_topic_in_logs(
    fake_checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(fake_checkout)
    assert main(["tables", "--topic", "hebbian", "--topic", "rank"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(", ")[:2] for line in lines] == [
        ["tables: 0/2 topics (0%)", "building hebbian"],
        ["tables: 1/2 topics (50%)", "building rank"],
        ["tables: 2/2 topics (100%)", "built"],
    ]
    assert main(["tables", "--topic", "hebbian", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
