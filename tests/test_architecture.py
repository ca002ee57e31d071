"""The layering is real: imports only go downward, no cycles, computing never renders (a new
domain needs only data files: tests/test_domains.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import coldbias_tasks

PACKAGE = Path(coldbias_tasks.__file__).resolve().parent
#: layer → layers it may import (besides itself and the package root's ``__version__``)
ALLOWED = {
    "core": set(),
    "lmeval": {"core"},
    "inspect": {"core"},
    "analysis": {"core"},
    "render": {"core", "analysis"},
    "app": {"core", "lmeval", "inspect", "analysis", "render"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _imports(path: Path, module: str) -> set[str]:
    """Every coldbias module ``module`` imports, at any depth of the file (lazy imports too)."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    modules = _modules()
    return {m for m in found if m in modules and m != module}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else None


def test_every_module_sits_in_a_layer() -> None:
    loose = [m for m in _modules() if m.count(".") == 1 and m.split(".")[1] not in ALLOWED]
    assert loose == ["coldbias_tasks.__main__"], loose


#: The most lines a module of the package may have: past it, a module holds more than one
#: concept (ARCHITECTURE.md).
MAX_MODULE_LINES = 600


def test_no_module_is_over_the_size_of_one_concept() -> None:
    sizes = {p.relative_to(PACKAGE): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_imports_only_go_downward() -> None:
    bad = []
    for module, path in _modules().items():
        layer = _layer(module)
        if layer is None:
            continue
        for target in _imports(path, module):
            other = _layer(target)
            if other is None:  # the package root: __version__ only
                assert target == "coldbias_tasks", (module, target)
                continue
            if other != layer and other not in ALLOWED[layer]:
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = {m: _imports(p, m) for m, p in modules.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.rpartition(".")[0] == node or node.rpartition(".")[0] == nxt:
                continue  # a package and its own submodules
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " → ".join([*stack, nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_core_and_analysis_never_import_lm_eval_or_plotting() -> None:
    for module, path in _modules().items():
        if _layer(module) not in ("core", "analysis"):
            continue
        text = path.read_text(encoding="utf-8")
        for heavy in ("import lm_eval", "from lm_eval", "matplotlib"):
            assert heavy not in text, f"{module} uses {heavy}"


def test_each_harness_adapter_imports_only_its_own_harness() -> None:
    """lmeval/ never imports Inspect and inspect/ never imports lm-eval: the two adapters share
    only core (documents, prompts, parsing, task_result)."""
    foreign = {"lmeval": ("import inspect_ai", "from inspect_ai"),
               "inspect": ("import lm_eval", "from lm_eval")}  # fmt: skip
    for module, path in _modules().items():
        layer = _layer(module)
        text = path.read_text(encoding="utf-8")
        for heavy in foreign.get(layer or "", ()):
            assert heavy not in text, f"{module} uses {heavy}"
