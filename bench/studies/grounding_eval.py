"""Precision and recall of open-answer grounding (``core/parsing/grounding.py``) on hand-labelled
real
answers: ``tests/data/open_answers.jsonl`` (the raw answers, model and date) and
``tests/data/open_labels.jsonl`` (one line per distinct listed entry of a domain).

A label's ``truth`` is ``"c:<catalog id>"`` (the catalog item the entry names), ``"r:<reference
id>"`` (the reference entry it names, not in the catalog), ``"real"`` (a real item that neither
list holds), ``"invented"`` (no such item exists, or the entry names one with wrong facts, e.g.
a real song under another artist) or ``"none"`` (no title: prose, a heading).

- **precision**: grounded entries (catalog or reference level) whose key is the truth, over all
  grounded entries;
- **recall**: entries whose truth is a catalog or reference entry that are grounded to it, over
  all such entries;
- **none kept out**: entries labelled "none" for which ``ground`` returns None or a title key.

    python bench/studies/grounding_eval.py
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from coldbias_tasks.core.parsing.grounding import grounder
from coldbias_tasks.core.world.catalog import load_catalog

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
ANSWERS = DATA / "open_answers.jsonl"
LABELS = DATA / "open_labels.jsonl"
_MARKER = re.compile(r"^\s*(?:[-*•+]\s+|\d{1,3}\s*[.)]\s*)")


def answer_entries(answer: str) -> Iterator[str]:
    """The list entries of one answer, without their list markers (the unit the labels are
    written for): its lines with a marker, or every non-empty line when none has one; a line
    of four or more short comma-separated parts is a list of its parts ("A, B, C, D"), a
    shorter one one entry ("University of Texas, Austin")."""
    lines = [line.strip() for line in answer.splitlines() if line.strip()]
    marked = [line for line in lines if _MARKER.match(line)]
    for line in marked or lines:
        line = _MARKER.sub("", line, count=1).strip()
        parts = [p.strip() for p in line.split(", ") if p.strip()]
        if len(parts) >= 4 and all(len(p.split()) <= 12 for p in parts):
            yield from parts
        else:
            yield line


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass(frozen=True)
class Scores:
    """Counts of one domain (distinct entries)."""

    domain: str
    entries: int
    grounded: int
    correct: int
    groundable: int  # truth is a catalog or reference entry
    found: int  # of those, grounded to the truth
    invented: int
    real_unlisted: int
    prose: int
    prose_kept_out: int

    @property
    def precision(self) -> float:
        return self.correct / self.grounded if self.grounded else float("nan")

    @property
    def recall(self) -> float:
        return self.found / self.groundable if self.groundable else float("nan")


def evaluate(labels: list[dict] | None = None) -> dict[str, Scores]:
    """Scores per domain of the labelled entries."""
    labels = read_jsonl(LABELS) if labels is None else labels
    out: dict[str, Scores] = {}
    for domain in sorted({row["domain"] for row in labels}):
        catalog = load_catalog(domain)
        row_of = {str(ident): i for i, ident in enumerate(catalog.table["id"])}
        ground = grounder(domain, catalog)
        n = dict.fromkeys(("entries", "grounded", "correct", "groundable", "found"), 0)
        n |= dict.fromkeys(("invented", "real_unlisted", "prose", "prose_kept_out"), 0)
        for row in (r for r in labels if r["domain"] == domain):
            truth = row["truth"]
            if truth.startswith("c:"):
                truth = f"c:{row_of[truth[2:]]}"
            got = ground.ground(row["entry"])
            level = got.level if got else None
            n["entries"] += 1
            if level in ("catalog", "reference"):
                n["grounded"] += 1
                n["correct"] += got.key == truth
            if truth[:2] in ("c:", "r:"):
                n["groundable"] += 1
                n["found"] += got is not None and got.key == truth
            n["invented"] += truth == "invented"
            n["real_unlisted"] += truth == "real"
            if truth == "none":
                n["prose"] += 1
                n["prose_kept_out"] += level in (None, "title")
        out[domain] = Scores(domain, **n)
    return out


def errors(domain: str, labels: list[dict] | None = None) -> list[tuple[str, str, str]]:
    """(entry, truth, grounded key) of every labelled entry of ``domain`` grounded wrongly or
    missed."""
    labels = read_jsonl(LABELS) if labels is None else labels
    catalog = load_catalog(domain)
    row_of = {str(ident): i for i, ident in enumerate(catalog.table["id"])}
    ground = grounder(domain, catalog)
    out = []
    for row in (r for r in labels if r["domain"] == domain):
        truth = row["truth"]
        key = f"c:{row_of[truth[2:]]}" if truth.startswith("c:") else truth
        got = ground.ground(row["entry"])
        wrong = got is not None and got.level != "title" and got.key != key
        missed = key[:2] in ("c:", "r:") and (got is None or got.key != key)
        if wrong or missed:
            out.append((row["entry"], row["truth"], got.key if got else "None"))
    return out


def main() -> None:
    labels = read_jsonl(LABELS)
    for part in (1, 2, 3, None):
        chosen = [r for r in labels if part is None or r.get("set") == part]
        print(f"== {'both sets' if part is None else f'set {part}'}")
        report(chosen)


def report(labels: list[dict]) -> None:
    """Print the scores and errors of ``labels`` per domain."""
    for domain, s in evaluate(labels).items():
        print(
            f"{domain}: {s.entries} distinct entries; precision {s.correct}/{s.grounded} = "
            f"{s.precision:.3f}; recall {s.found}/{s.groundable} = {s.recall:.3f}; "
            f"invented {s.invented}, real but unlisted {s.real_unlisted}, "
            f"no title {s.prose_kept_out}/{s.prose} kept out"
        )
        for entry, truth, got in errors(domain, labels):
            print(f"   {entry!r}: truth {truth}, grounded {got}")


if __name__ == "__main__":
    main()
