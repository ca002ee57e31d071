"""Every module, file and function ARCHITECTURE.md names exists, and so does every module of
README.md's "Layout": the pages that say where things are fail here when a move leaves them
behind. Fast (reads text only)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "coldbias_tasks"
#: Where a path of the pages may start: the repository, the package, a data folder.
BASES = (ROOT, PACKAGE, ROOT / "data")
_SPAN = re.compile(r"`([^`\n]+)`")
_PATHLIKE = re.compile(r"^[\w./<>*-]+$")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]*/?$")
_DOTTED = re.compile(r"^([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)$")
_FILE_SUFFIXES = {"py", "yaml", "yml", "jsonl", "json", "md", "jinja", "j2", "csv", "png", "sh"}


def _exists(path: str) -> bool:
    """``path`` (``<placeholder>`` = any name) is a file or folder below one of the bases."""
    pattern = re.sub(r"<[^>]+>", "*", path.rstrip("/"))
    return any(list(base.glob(pattern)) for base in BASES)


def _defines(module: Path, name: str) -> bool:
    """``module`` (a .py file) defines ``name`` at top level or as a method."""
    text = module.read_text(encoding="utf-8")
    return bool(re.search(rf"^(?:    )?(?:def|class) {name}\b|^{name}\s*[:=]", text, re.M))


def _module_files(dotted_head: str) -> list[Path]:
    """The .py files a page's ``dir/module`` may mean (any base)."""
    out = []
    for base in BASES:
        out += [base / f"{dotted_head}.py", base / dotted_head / "__init__.py"]
    return [p for p in out if p.is_file()]


def _problem(span: str) -> str | None:
    """Why the page's path-like ``span`` names nothing, or None."""
    if _exists(span) or _exists(span + ".py"):
        return None
    head, _, last = span.rpartition("/")
    module, dot, attr = last.partition(".")
    if not dot or "<" in attr:
        return f"`{span}`: no such file or folder"
    files = _module_files(f"{head}/{module}")
    if not files:
        return f"`{span}`: no module {head}/{module}"
    if not any(_defines(f, attr.split(".")[0]) for f in files):
        return f"`{span}`: {head}/{module} defines no {attr.split('.')[0]}"
    return None


def _layer_names(layer: str) -> set[str]:
    folder = PACKAGE / layer.strip("/")
    found = {p.stem for p in folder.rglob("*.py")} | {p.name for p in folder.rglob("*")}
    found |= {str(p.relative_to(folder)) for p in folder.rglob("*")}
    return found


def test_every_path_architecture_md_names_exists() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    problems, checked = [], 0
    stems: dict[str, list[Path]] = {}
    for path in PACKAGE.rglob("*.py"):
        stems.setdefault(path.stem, []).append(path)
    for line in text.splitlines():
        spans = _SPAN.findall(line)
        if line.startswith("| `") and spans and spans[0].endswith("/"):  # a layer's row
            names = _layer_names(spans[0])
            modules_column = line.split("|")[2]
            for name in _SPAN.findall(modules_column):
                checked += 1
                if name.rstrip("/") not in names:
                    problems.append(f"layer {spans[0]}: no module or folder `{name}`")
            continue
        for span in spans:
            dotted = _DOTTED.match(span)
            if dotted and dotted[1] in stems and dotted[2] not in _FILE_SUFFIXES:
                checked += 1
                if not any(_defines(f, dotted[2]) for f in stems[dotted[1]]):
                    problems.append(f"`{span}`: no module {dotted[1]} defines {dotted[2]}")
                continue
            if "/" in span and _PATHLIKE.match(span) and not span.startswith("/"):
                checked += 1
                if (why := _problem(span)) is not None:
                    problems.append(why)
    assert checked > 60, "the page's paths were not found (format changed?)"
    assert not problems, "ARCHITECTURE.md names what does not exist:\n" + "\n".join(problems)


def test_the_route_has_at_most_ten_steps() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    route = text.split("## One answer, from lm-eval to the leaderboard cell", 1)[1]
    route = route.split("\n## ", 1)[0]
    steps = re.findall(r"^(\d+)\. \*\*", route, re.M)
    assert 5 <= len(steps) <= 10
    assert steps == [str(i) for i in range(1, len(steps) + 1)]


def _layout_problems(block: str) -> tuple[list[str], int]:
    problems, checked = [], 0
    entries: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line and not line[0].isspace():
            path, _, rest = line.partition(" ")
            entries.append((path, rest))
        elif entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + " " + line.strip())
    for path, rest in entries:
        checked += 1
        if not (ROOT / path).exists():
            problems.append(f"Layout: no {path}")
            continue
        if not path.startswith("coldbias_tasks/"):
            continue
        names = _layer_names(path.removeprefix("coldbias_tasks/"))
        groups = re.findall(r"\(([^()]*)\)", rest)
        prose = re.sub(r"\([^()]*\)", "", rest)
        listed = [n for g in groups for n in _items(g)] + _items(prose.split(":", 1)[-1])
        for name in listed:
            checked += 1
            if name.rstrip("/") not in names:
                problems.append(f"Layout {path}: no module or folder {name}")
    return problems, checked


def _items(text: str) -> list[str]:
    """The module names of a comma list (all of them, or none when it is prose)."""
    parts = [p.strip().rstrip("…").strip() for p in re.split(r"[,;]", text) if p.strip()]
    parts = [p for p in parts if p]
    return parts if parts and all(_IDENT.match(p) for p in parts) else []


def test_every_module_of_readme_layout_exists() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    problems, checked = _layout_problems(block)
    assert checked > 40, "the Layout block's modules were not found (format changed?)"
    assert not problems, "\n".join(problems)


def test_the_checks_catch_a_missing_module() -> None:
    """The checks above can fail: a renamed module or function is reported."""
    assert _problem("core/measures/no_such_measure.py") is not None
    assert _problem("core/result.no_such_function") is not None
    assert _problem("core/result.task_result") is None
    assert _problem("tasks/templates/lines.<code>.jinja") is None
    problems, _ = _layout_problems("coldbias_tasks/core/      pure: errors, gone_module\n")
    assert problems == ["Layout coldbias_tasks/core/: no module or folder gone_module"]
