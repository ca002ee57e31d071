"""The docs agree with the code (issue 38, item 6): no retired headline wording outside history
sections, every docs page in the index, the task card's results-key table equal to the keys the
generated task YAMLs list, module paths the docs name exist, and ``coldbias demo --help`` states
the demo's size from its constants. Fast: reads files only."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from coldbias_tasks.core.similarities import SIMILARITY_NAMES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CARD = ROOT / "tasks" / "README.md"
#: The pages whose wording must follow the code (history sections excepted).
PAGES = [ROOT / "README.md", CARD, *sorted(DOCS.glob("*.md"))]

#: Wording of retired behaviour: (pattern, what is true now).
_HEADLINE = "the headline is the disparity between values, controlled for phrasing"
RETIRED = [
    (r"headline\W{0,4}(is\s+)?(the\s+)?\**excess over", _HEADLINE),
    (r"reported as \**excess over", _HEADLINE),
    (r"±\s*1\.96", "intervals use Student t (P − 1 df, or Welch df when pooled)"),
    (r"_stderr_stderr", "coldbias eval removes these keys; do not document them as results"),
    (r"attribute_excess", "retired in task version 4.0"),
    (r"gender \(4\)", "gender has 2 values × 12 phrasings"),
    (r"placebo \(5 facts", "the placebo has 18 control sentences in 3 families"),
    (r"\{iou, serp, prag\}", "the similarities are " + ", ".join(SIMILARITY_NAMES)),
]
#: A Markdown heading whose section is history (its text may name retired behaviour).
HISTORY_HEADING = re.compile(r"history|changelog|task version [0-3]\.\d", re.I)
#: A paragraph or list item marked as history.
HISTORY_PARAGRAPH = re.compile(r"^\W*\(?history\b", re.I)


def _current_text(path: Path) -> list[tuple[int, str]]:
    """(line number, paragraph) of ``path`` outside history sections and history paragraphs;
    fenced code blocks are kept (a command line can carry retired wording too)."""
    out: list[tuple[int, str]] = []
    history_level = 0
    block: list[str] = []
    start = 0

    def flush() -> None:
        text = " ".join(block)
        if block and not HISTORY_PARAGRAPH.match(text):
            out.append((start, text))
        block.clear()

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        heading = re.match(r"^(#+)\s+(.*)", line)
        if heading:
            flush()
            level = len(heading[1])
            if history_level and level <= history_level:
                history_level = 0
            if not history_level and HISTORY_HEADING.search(heading[2]):
                history_level = level
            continue
        if history_level:
            continue
        if not line.strip() or re.match(r"^\s*([*-]|\d+\.)\s", line):
            flush()
            start = number
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
    flush()
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_retired_headline_wording_outside_history(page: Path) -> None:
    found = [
        f"{page.relative_to(ROOT)}:{line}: {m[0]!r} ({fix})"
        for line, text in _current_text(page)
        for pattern, fix in RETIRED
        if (m := re.search(pattern, text, re.I))
    ]
    assert not found, "retired wording (fix it, or mark the section as history):\n" + "\n".join(
        found
    )


def test_history_sections_are_skipped_and_others_are_not(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "# Page\n\nThe headline is the excess over the noise floor.\n\n"
        "## Changelog\n\n* 2.0: headline `{m}_excess` over the floor, ± 1.96.\n\n"
        "## Next\n\n(History) the headline, the excess over it.\n\n- a ± 1.96 item\n",
        encoding="utf-8",
    )
    texts = [t for _, t in _current_text(page)]
    hits = [p for t in texts for p, _ in RETIRED if re.search(p, t, re.I)]
    assert len(hits) == 2  # the first paragraph and the list item; not the history parts


def test_every_docs_page_is_in_the_index() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)#]+\.md)\)", index))
    pages = {p.name for p in DOCS.glob("*.md") if p.name != "README.md"}
    assert pages - linked == set(), f"docs/README.md does not list {sorted(pages - linked)}"
    assert {p for p in linked if "/" not in p} - pages == set(), "the index names missing pages"
    for target in ("../tasks/README.md", "../ARCHITECTURE.md", "../BENCHMARKS.md",
                   "../data/README.md"):  # fmt: skip
        assert f"]({target})" in index, f"docs/README.md should point to {target}"


def _table_keys() -> set[str]:
    """The results keys the task card's metric table names ({m} expanded over the card's
    similarities)."""
    text = CARD.read_text(encoding="utf-8")
    table = text.split("<!-- metric table:", 1)[1].split("<!-- end of metric table -->", 1)[0]
    sims = re.search(r"m ∈ \{([^}]*)\}", text)
    assert sims, "tasks/README.md should say which similarities {m} stands for (m ∈ {…})"
    names = [s.strip() for s in sims[1].split(",")]
    assert names == list(SIMILARITY_NAMES), f"the card's m ∈ {{…}} lists {names}"
    keys: set[str] = set()
    for row in table.splitlines()[3:]:
        first = row.split(" | ")[0]
        for key in re.findall(r"`([^`]+)`", first):
            keys |= {key.replace("{m}", m) for m in names} if "{m}" in key else {key}
    return keys


def _yaml_keys(path: Path) -> set[str]:
    text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if "!function" not in line)  # fmt: skip
    return {m["metric"] for m in yaml.safe_load(text).get("metric_list") or []}


def test_the_card_table_names_exactly_the_keys_the_task_yamls_list() -> None:
    tasks = ROOT / "tasks"
    templates = [tasks / "_coldbias_template_yaml", tasks / "_coldbias_open_template_yaml",
                 tasks / "_coldbias_pref_template_yaml",
                 tasks / "reverse" / "_reverse_yaml"]  # fmt: skip
    listed = set().union(*(_yaml_keys(p) for p in templates))
    documented = _table_keys()
    assert documented - listed == set(), f"in the card, in no task YAML: {documented - listed}"
    assert listed - documented == set(), f"in the YAMLs, not in the card: {listed - documented}"
    for path in tasks.glob("*/coldbias_*.yaml"):  # tasks that list their own (placebo)
        assert _yaml_keys(path) <= documented, f"{path.name} lists keys the card lacks"


def test_module_paths_named_in_the_docs_exist() -> None:
    missing = []
    for page in [*PAGES, ROOT / "ARCHITECTURE.md", ROOT / "data" / "README.md"]:
        text = page.read_text(encoding="utf-8")
        for name in set(re.findall(r"\b((?:coldbias_tasks/)?(?:core|analysis|lmeval|render|app)"
                                   r"/[a-z_/]+\.py)\b", text)):  # fmt: skip
            path = name if name.startswith("coldbias_tasks/") else f"coldbias_tasks/{name}"
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {name}")
    assert not missing, "docs name modules that do not exist:\n" + "\n".join(missing)


def test_demo_help_states_what_the_demo_runs() -> None:
    from coldbias_tasks.app import demo

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        demo.main(["--help"])
    text = " ".join(out.getvalue().split())
    meta = demo.DEMO_METADATA
    assert f"{meta['coldbias_repeats']} repeats" in text
    assert f"first {meta['coldbias_phrasings']} matched phrasings" in text
    assert f"{meta['coldbias_n_items']}-item" in text and f"k = {meta['coldbias_k']}" in text
    assert f"{len(demo.DEMO_TASKS)} tasks" in text
    assert "``" not in text and "expected time here" in text  # plain text, the estimate named
    assert not re.search(r"\d+ repeats", demo.__doc__ or ""), "numbers belong in DEMO_METADATA"


def test_eval_help_says_what_coldbias_adds_to_lm_eval() -> None:
    from coldbias_tasks.app import cli

    text = cli._eval_help()
    assert text.startswith("usage: coldbias eval") and "--log_samples" in text
    assert "``" not in text and ":func:" not in text  # the launcher's docstring, unmarked


def test_the_card_counts_values_and_phrasings_as_the_persona_file_has_them() -> None:
    from coldbias_tasks.core.world.personas import load_personas

    config = load_personas()
    text = " ".join(CARD.read_text(encoding="utf-8").split())
    stated = {g: (int(v), int(p)) for g, v, p in re.findall(r"(\w+) \((\d+) × (\d+)", text)}
    counted = {g: (len(config.find(g).values), config.phrasings(config.find(g)))
               for g in config.groups if config.find(g).kind == "attribute"}  # fmt: skip
    assert stated == counted, f"tasks/README.md says {stated}; data/personas.yaml has {counted}"
    placebo = config.find("placebo")
    assert f"placebo` ({len(placebo.values)} control sentences × " in text
