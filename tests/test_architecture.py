"""docs/architecture.md matches the code: its module map and its cost-model rule.

The module map lists every module of ``src/lamcap`` (no more, no fewer), so a module
added, moved or removed without its row fails here.  The cost-model rule: in
``theory/`` and ``experiments/`` the name of a kind of embeddings appears in code only
where its model is defined; the public laws ask :func:`lamcap.theory.cost_model`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lamcap"
PAGE = ROOT / "docs" / "architecture.md"


def _module_map() -> list[str]:
    """Module paths (relative to ``src/lamcap``) in the rows of the page's "Module map"."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([\w/]+\.py)` \|", section, flags=re.MULTILINE)


def test_module_map_lists_every_module_once() -> None:
    listed = _module_map()
    modules = sorted(
        str(path.relative_to(SRC)) for path in SRC.rglob("*.py") if path.name != "__main__.py"
    )
    assert len(listed) == len(set(listed)), "a module is listed twice"
    assert sorted(listed) == modules


def _string_constants(path: Path) -> list[tuple[int, str]]:
    """(line, value) of every string constant in code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_embeddings_are_named_only_where_their_model_is_defined() -> None:
    """No code in theory/ or experiments/ tests the name of a non-Gaussian embedding."""
    found = [
        f"{path.relative_to(SRC)}:{line}"
        for layer in ("theory", "experiments")
        for path in sorted((SRC / layer).rglob("*.py"))
        for line, value in _string_constants(path)
        if value == "sphere"
    ]
    assert [place.split(":")[0] for place in found] == ["theory/_cost_models.py"], found
