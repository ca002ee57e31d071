"""Parser accuracy on hand-labelled real answers of other models (the development set).

    python bench/studies/parser_dev_eval.py --seed-repo /path/to/biais_llm_rec \
        [--json OUT] [--show N]

The answers and catalogs are read at run time from a local copy of the seed study's repository
(GauthierRoy/biais_llm_rec); this project stores only the labels, ``bench/studies/parser_dev/
labels_<domain>.jsonl``: one object per answer, {"answer", "file", "group", "persona" (null =
the "neutral" entry), "lines": [[line_no, catalog_index | -1 | [indices]], ...]}. ``line_no`` is
1-based over ``response.splitlines()``, indices are 0-based into ``data/datasets/<domain>.json``,
-1 is an entry naming an item not in the catalog, lines not listed are not entries.

Only the context-variant result files (``*_mathy_*``, ``*_action_movie_fan_*``,
``*_rock_fan_*``) are development data; every other file is a held-out test set, and this
script refuses to open one.

Prints per domain and overall: answers, gold items, precision (correct predicted items /
predicted items), recall (correct predicted items / gold items) and exact ranked lists
(predicted list == gold list), for the parser and for a baseline line matcher (each non-empty
line, numbering stripped, matched to its best catalog title with rapidfuzz ``fuzz.WRatio`` ≥ 88).
``--show N`` prints up to N differing answers per domain (diagnosis only; nothing is stored).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rapidfuzz import fuzz, process, utils

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.world.domains import domain as domain_spec

DOMAINS = ("movie", "music", "college")
K = 20
LABELS = Path(__file__).resolve().parent / "parser_dev"
#: The development files; anything else in the seed repository is held out.
DEV_FILE = re.compile(
    r"^[a-z0-9.]+_[a-z0-9.]+_(?:college_mathy|movie_action_movie_fan|music_rock_fan)_\d\.json$"
)
_NUMBERING = re.compile(r"^\s*(?:[-*•]\s+|#?\d{1,3}\s*[.):\]]\s*)")


class HeldOutFileError(RuntimeError):
    """A label names a file outside the development set."""


def check_dev_file(name: str) -> str:
    if "/" in name or "\\" in name or not DEV_FILE.match(name):
        raise HeldOutFileError(f"refusing {name!r}: not a development (context-variant) file")
    return name


def load_labels(domain: str) -> list[dict]:
    rows = []
    with open(LABELS / f"labels_{domain}.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                check_dev_file(row["file"])
                rows.append(row)
    return rows


def gold_list(row: dict) -> list[int]:
    """Labelled indices in line order, -1 dropped, repeats dropped, cut at K."""
    out: list[int] = []
    for _, value in sorted(row["lines"], key=lambda pair: pair[0]):
        for index in value if isinstance(value, list) else [value]:
            if index >= 0 and index not in out:
                out.append(index)
    return out[:K]


def baseline(text: str, catalog: Sequence[str]) -> list[int]:
    """The seed-style line matcher: best WRatio title per line, ≥ 88."""
    choices = [utils.default_process(t) for t in catalog]
    out: list[int] = []
    for line in text.splitlines():
        body = _NUMBERING.sub("", line).strip()
        if not body:
            continue
        hit = process.extractOne(
            utils.default_process(body), choices, scorer=fuzz.WRatio, score_cutoff=88
        )
        if hit is not None and hit[2] not in out:
            out.append(hit[2])
        if len(out) >= K:
            break
    return out


def parser(text: str, catalog: Sequence[str], domain: str) -> list[int]:
    """coldbias' parser, told the domain's declared title kind."""
    return list(parse_ranking(text, catalog, K, kind=domain_spec(domain).title_kind).items)


def score(pairs: list[tuple[list[int], list[int]]]) -> dict[str, float | int]:
    predicted = sum(len(p) for p, _ in pairs)
    gold = sum(len(g) for _, g in pairs)
    correct = sum(len(set(p) & set(g)) for p, g in pairs)
    exact = sum(1 for p, g in pairs if p == g)
    return {
        "answers": len(pairs),
        "gold_items": gold,
        "predicted_items": predicted,
        "precision": correct / predicted if predicted else 1.0,
        "recall": correct / gold if gold else 1.0,
        "exact_lists": exact / len(pairs) if pairs else 1.0,
    }


def evaluate(seed_repo: Path, show: int = 0) -> dict[str, dict[str, dict[str, float | int]]]:
    results_dir = seed_repo / "data" / "raw_text_results"
    matchers: dict[str, Callable[[str, Sequence[str], str], list[int]]] = {
        "parser": parser,
        "baseline": lambda text, catalog, _domain: baseline(text, catalog),
    }
    pairs: dict[str, dict[str, list]] = {name: {} for name in matchers}
    for domain in DOMAINS:
        catalog = json.loads((seed_repo / "data" / "datasets" / f"{domain}.json").read_text())
        cache: dict[str, dict] = {}
        shown = 0
        for row in load_labels(domain):
            name = check_dev_file(row["file"])
            if name not in cache:
                cache[name] = json.loads((results_dir / name).read_text(encoding="utf-8"))
            data = cache[name]
            entry = (
                data["neutral"] if row["persona"] is None else data[row["group"]][row["persona"]]
            )
            text = entry["response"]
            gold = gold_list(row)
            for matcher_name, matcher in matchers.items():
                got = matcher(text, catalog, domain)
                pairs[matcher_name].setdefault(domain, []).append((got, gold))
                if matcher_name == "parser" and got != gold and shown < show:
                    shown += 1
                    _show(domain, row, text, catalog, got, gold)
    report: dict[str, dict[str, dict[str, float | int]]] = {}
    for matcher_name, by_domain in pairs.items():
        report[matcher_name] = {d: score(p) for d, p in by_domain.items()}
        report[matcher_name]["all"] = score([x for p in by_domain.values() for x in p])
    return report


def _show(domain: str, row: dict, text: str, catalog, got: list[int], gold: list[int]) -> None:
    print(f"--- {domain} #{row['answer']} {row['file']} {row['group']}/{row['persona']}")
    labelled = {n: v for n, v in row["lines"]}
    for n, line in enumerate(text.splitlines(), 1):
        value = labelled.get(n, "")
        print(f"  {n:3d} [{value!s:>5}] {line[:150]}")
    extra = [catalog[i] for i in got if i not in gold]
    missed = [catalog[i] for i in gold if i not in got]
    print(f"  false: {extra}\n  missed: {missed}")
    if not extra and not missed:
        print("  (order differs)")


def _table(report: dict[str, dict[str, dict[str, float | int]]]) -> str:
    lines = [
        f"{'matcher':9s} {'domain':8s} {'answers':>7s} {'gold':>5s} {'pred':>5s} "
        f"{'precision':>9s} {'recall':>7s} {'exact':>7s}"
    ]
    for matcher_name, by_domain in report.items():
        for domain, s in by_domain.items():
            lines.append(
                f"{matcher_name:9s} {domain:8s} {s['answers']:7d} {s['gold_items']:5d} "
                f"{s['predicted_items']:5d} {s['precision']:9.4f} {s['recall']:7.4f} "
                f"{s['exact_lists']:7.1%}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed-repo", type=Path, required=True, help="local copy of biais_llm_rec")
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    ap.add_argument("--show", type=int, default=0, help="print N differing answers per domain")
    args = ap.parse_args(argv)
    try:
        report = evaluate(args.seed_repo, args.show)
    except HeldOutFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(_table(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
