"""No circles in the import graph of ``lamcap`` (issue 35), and no hidden ones.

The graph is built statically, with :mod:`ast`, from every module under ``src/lamcap``:

- **Every import that runs counts**: top-level imports and imports inside functions
  and methods alike. An import deferred into a function still makes its module depend
  on the imported one; deferring it only hides the circle from the interpreter. The
  body of an ``if TYPE_CHECKING:`` block is skipped (it never runs; its ``else`` branch
  counts). Calls of ``importlib.import_module`` are not imports and are not seen (the
  lazy names of ``lamcap/__init__.py``, the method registry of ``lamcap.solve``, the
  command modules of ``lamcap.cli``).
- **Resolution.** Relative imports are resolved against the importing module's
  package. ``from lamcap.x import y`` is an edge to ``lamcap.x.y`` when ``y`` is a
  submodule, else to ``lamcap.x`` (``y`` is a name defined or re-exported there).
  ``import lamcap.x.y`` is an edge to ``lamcap.x.y``.
- **Package ``__init__`` modules.** A package is the node of its ``__init__.py``
  (importing ``lamcap.theory`` means ``lamcap/theory/__init__.py``). Importing
  ``lamcap.theory._cone`` is an edge to ``lamcap.theory._cone`` only, not to the
  packages above it: Python runs their ``__init__`` first, but the importing module
  uses nothing they define, and counting those implicit parent imports would make a
  circle of every package that re-exports its submodules. The edges *from* an
  ``__init__`` to the submodules it re-exports are real. A submodule that imports a name
  through its own package (``from lamcap.theory import capacity`` inside
  ``lamcap.theory._x``) depends on the ``__init__``, which depends on the submodules:
  that is a real circle, fixed by importing the sibling module directly.

A circle is a strongly connected component of more than one module (or a module that
imports itself); :func:`_strongly_connected` is Tarjan's algorithm. The failure lists
each circle as module chains that close it, with the import line of every edge.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

#: Known circles, allowed until they are removed: each the sorted modules of one strongly
#: connected component. A circle not listed, or listed with other modules (one that
#: grew), fails :func:`test_import_graph_has_no_cycles`, and so does a listed circle that
#: no longer exists (remove it here). Empty: keep it so.
ALLOWED_CYCLES: tuple[tuple[str, ...], ...] = ()

#: Packages whose function-level imports :func:`test_deferred_imports_say_why` does not
#: check yet: ``lamcap.experiments`` is being reworked separately (issue 35); include it
#: when its deferred imports carry their reasons.
UNCHECKED_DEFERRALS: tuple[str, ...] = ()

#: Third-party libraries that a function may import without a comment: slow to import
#: (numba, sympy, dask and distributed, matplotlib, scipy and its submodules, highspy),
#: or optional (psutil comes with distributed; pyarrow only for Parquet files).
HEAVY_OR_OPTIONAL = frozenset(
    {
        "numba",
        "sympy",
        "dask",
        "distributed",
        "matplotlib",
        "scipy",
        "highspy",
        "psutil",
        "pyarrow",
    }
)

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "lamcap"


@dataclass(frozen=True)
class Import:
    """One edge of the graph: an import statement of a lamcap module naming another."""

    source: str  # importing module
    target: str  # imported lamcap module
    line: int
    in_function: bool
    text: str  # the statement's first source line


def _module_files() -> dict[str, Path]:
    """Map each module name of the package to its file (a package to its ``__init__``)."""
    modules: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _module_files()


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``: the condition of a block never run."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(
    node: ast.AST, in_function: bool = False
) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that can run, with whether it sits inside a function."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            found.append((child, in_function))
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for branch in child.orelse:  # the ``else`` branch runs
                found.extend(_import_nodes(ast.Module(body=[branch], type_ignores=[]), in_function))
        else:
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            found.extend(_import_nodes(child, inside))
    return found


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The absolute module named by ``from ... import``, relative levels resolved."""
    if node.level == 0:
        return node.module or ""
    is_package = MODULES.get(module, Path()).name == "__init__.py"
    parts = (module if is_package else module.rpartition(".")[0]).split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The lamcap modules that one import statement of ``module`` makes it depend on."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in MODULES]
    origin = _absolute(module, node)
    targets: list[str] = []
    for alias in node.names:
        submodule = f"{origin}.{alias.name}"
        if submodule in MODULES:
            targets.append(submodule)
        elif origin in MODULES:
            targets.append(origin)
    return list(dict.fromkeys(targets))


def _imports() -> list[Import]:
    """Every import of a lamcap module by a lamcap module, in file order."""
    found: list[Import] = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node, in_function in _import_nodes(ast.parse(text)):
            found.extend(
                Import(module, target, node.lineno, in_function, lines[node.lineno - 1].strip())
                for target in _targets(module, node)
            )
    return found


def _graph(imports: list[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for edge in imports:
        graph[edge.source].add(edge.target)
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> tuple[str, list[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, sorted(graph[node])

    for root in sorted(graph):
        if root in index:
            continue
        work = [visit(root)]
        while work:
            node, successors = work[-1]
            if successors:
                successor = successors.pop()
                if successor not in index:
                    work.append(visit(successor))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The circles: components of several modules, or a module that imports itself."""
    return sorted(
        tuple(component)
        for component in _strongly_connected(graph)
        if len(component) > 1 or component[0] in graph[component[0]]
    )


def _chains(component: tuple[str, ...], graph: dict[str, set[str]]) -> list[list[str]]:
    """Module chains closing the circles of one component: one through each of its edges.

    For each edge A -> B inside the component, A -> B followed by the shortest path
    back from B to A (breadth first, inside the component); each chain is shown once,
    starting at its smallest module.
    """
    members = set(component)
    chains: list[list[str]] = []
    for source in component:
        for target in sorted(graph[source] & members):
            parents = {target: target}  # breadth first from target: node -> its predecessor
            frontier = [target]
            while frontier and source not in parents:
                following = []
                for node in frontier:
                    for successor in sorted(graph[node] & members - parents.keys()):
                        parents[successor] = node
                        following.append(successor)
                frontier = following
            back = [source]  # source, ..., target along the predecessors
            while back[-1] != target:
                back.append(parents[back[-1]])
            cycle = [source, *reversed(back[1:])]
            start = cycle.index(min(cycle))
            chain = [*cycle[start:], *cycle[:start]]
            if chain not in chains:
                chains.append(chain)
    return [[*chain, chain[0]] for chain in chains]


def _describe(component: tuple[str, ...], imports: list[Import]) -> str:
    members = set(component)
    lines = [f"circle of {len(component)} modules: {', '.join(component)}"]
    lines.extend("  " + " -> ".join(chain) for chain in _chains(component, _graph(imports)))
    lines.extend(
        f"    {MODULES[edge.source].relative_to(SRC.parent)}:{edge.line} "
        f"({'in a function' if edge.in_function else 'top level'}): {edge.text}"
        for edge in imports
        if edge.source in members and edge.target in members
    )
    return "\n".join(lines)


def test_imports_resolve_as_documented() -> None:
    """``TYPE_CHECKING`` bodies skipped (``else`` kept), relative imports and submodules resolved."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "import lamcap.theory._cone, numpy\n"
        "if TYPE_CHECKING:\n"
        "    from lamcap.solvers import solve\n"
        "else:\n"
        "    from lamcap import geometry\n"
        "def f():\n"
        "    from ..theory import _crofton, capacity\n"
        "    from . import _width\n"
        "    class A:\n"
        "        def g(self):\n"
        "            from ._unit_norm import score_cdf\n"
    )
    found = [
        (target, in_function)
        for node, in_function in _import_nodes(tree)
        for target in _targets("lamcap.theory._capacity", node)
    ]
    assert found == [
        ("lamcap.theory._cone", False),
        ("lamcap.geometry", False),
        ("lamcap.theory._crofton", True),
        ("lamcap.theory", True),
        ("lamcap.theory._width", True),
        ("lamcap.theory._unit_norm", True),
    ]
    package = ast.parse("from ._cone import statistical_dimension\nfrom .. import problems\n")
    assert [t for node, _ in _import_nodes(package) for t in _targets("lamcap.theory", node)] == [
        "lamcap.theory._cone",
        "lamcap.problems",
    ]


def test_graph_has_the_edges_of_the_package() -> None:
    """A few known edges: a package re-exporting, a submodule imported by name, in a function."""
    edges = {(edge.source, edge.target): edge for edge in _imports()}
    assert not edges[("lamcap.theory", "lamcap.theory._capacity")].in_function
    assert edges[("lamcap.theory._cone", "lamcap.theory._dimension_table")].in_function
    # importing lamcap.theory._cone does not make lamcap.theory (or lamcap) a target
    assert ("lamcap.theory._capacity", "lamcap.theory") not in edges
    assert ("lamcap.theory._capacity", "lamcap") not in edges


def test_tarjan_finds_each_circle_with_its_chains() -> None:
    graph = {
        "a": {"b"},
        "b": {"c", "a"},
        "c": {"a", "d"},
        "d": set(),
        "e": {"e"},
        "f": {"d", "g"},
        "g": {"f"},
    }
    assert _cycles(graph) == [("a", "b", "c"), ("e",), ("f", "g")]
    assert _chains(("a", "b", "c"), graph) == [["a", "b", "a"], ["a", "b", "c", "a"]]
    assert _chains(("e",), graph) == [["e", "e"]]
    long_chain = {str(i): {str(i + 1)} for i in range(5000)} | {"5000": {"0"}}
    assert len(_cycles(long_chain)[0]) == 5001  # no recursion limit


def test_import_graph_has_no_cycles() -> None:
    """No circle among the lamcap modules but the allowed ones (:data:`ALLOWED_CYCLES`)."""
    assert all(module.startswith("lamcap.experiments.") for c in ALLOWED_CYCLES for module in c)
    imports = _imports()
    cycles = _cycles(_graph(imports))
    report = [_describe(cycle, imports) for cycle in cycles if cycle not in ALLOWED_CYCLES]
    report.extend(
        f"allowed circle no longer exists, remove it from ALLOWED_CYCLES: {cycle}"
        for cycle in ALLOWED_CYCLES
        if cycle not in cycles
    )
    assert not report, "\n\n".join(report)


# --------------------------------------------------------------------------- deferred imports

_PRAGMA = re.compile(r"noqa(:\s*[A-Z]+[0-9]+(\s*,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore(\[[^]]*\])?")


def _comments(text: str) -> dict[int, str]:
    """Line number -> the comment on that line (without ``#``)."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return {t.start[0]: t.string.lstrip("#") for t in tokens if t.type == tokenize.COMMENT}


def _reason(comment: str) -> bool:
    """Whether a comment says something beyond its pragmas (``noqa``, ``type: ignore``)."""
    return re.search(r"[A-Za-z]{3,}", _PRAGMA.sub("", comment)) is not None


def _unexplained_deferrals() -> list[str]:
    """Function-level imports of something light with no reason on their lines."""
    found = []
    for module, path in MODULES.items():
        if module.startswith(UNCHECKED_DEFERRALS):
            continue
        text = path.read_text(encoding="utf-8")
        comments = _comments(text)
        for node, in_function in _import_nodes(ast.parse(text)):
            if not in_function:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                names = [_absolute(module, node)]
            if all(name.partition(".")[0] in HEAVY_OR_OPTIONAL for name in names):
                continue
            end = node.end_lineno or node.lineno
            if any(_reason(comments.get(line, "")) for line in range(node.lineno, end + 1)):
                continue
            first = text.splitlines()[node.lineno - 1].strip()
            found.append(f"{path.relative_to(SRC.parent)}:{node.lineno}: {first}")
    return found


def test_reasons_are_told_from_pragmas() -> None:
    assert not _reason(" noqa: PLC0415")
    assert not _reason(" type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415")
    assert _reason(" noqa: PLC0415 (numba)")
    assert _reason(" noqa: PLC0415 - keep the CLI start fast")


def test_deferred_imports_say_why() -> None:
    """An import inside a function loads something heavy or optional, or says why it waits.

    ``import lamcap`` and the command line start fast, so a function may defer a heavy
    library (:data:`HEAVY_OR_OPTIONAL`) without a word; any other deferred import carries
    its reason in a comment on its lines (``# noqa: PLC0415 - only when a plot is drawn``).
    A deferral is never the way out of an import circle
    (:func:`test_import_graph_has_no_cycles`). The packages of
    :data:`UNCHECKED_DEFERRALS` are not checked yet.
    """
    offenders = _unexplained_deferrals()
    assert not offenders, "deferred imports without a reason:\n" + "\n".join(offenders)
