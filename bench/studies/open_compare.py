"""Open vs catalog tasks of one report (issue 33): the Markdown tables of docs/open.md "Runs".

    python bench/studies/open_compare.py REPORT_DIR [REPORT_DIR ...]

Reads a ``coldbias report`` folder (``groups.csv``, ``fidelity.csv``, ``exposure.csv``,
``exposure_between.csv``) holding catalog tasks and their open counterparts
(``coldbias_{domain}_{group}`` and ``coldbias_{domain}_open_{group}``) and prints: the IOU
divergences and headline side by side; the grounding rates; the share of ungrounded (possibly
invented) items per value with the between-values test; and, per catalog field, the category
whose exposure differs most between values (smallest omnibus p) in each protocol. Every number
is read from the report's CSVs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd


def _num(x: float, digits: int = 3) -> str:
    return "–" if pd.isna(x) else f"{x:+.{digits}f}" if x < 0 else f"{x:.{digits}f}"


def _pairs(groups: pd.DataFrame) -> list[tuple[str, str]]:
    """(domain, group) of every catalog task with an open counterpart."""
    iou = groups[groups["metric"] == "iou"]
    keys = set(zip(iou["domain"], iou["attribute_group"], iou["variant"]))
    return sorted((d, g) for d, g, v in keys if v == "plain" and (d, g, "open") in keys)


def divergence_table(groups: pd.DataFrame) -> str:
    """Catalog and open task side by side (one model per report: the report of one run)."""
    iou = groups[groups["metric"] == "iou"].set_index(["domain", "attribute_group", "variant"])
    rows = [
        "| domain × group | protocol | raw IOU divergence | noise floor | IOU excess [95 % CI] "
        "| IOU disparity [95 % CI] | disparity p | SNSR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d, g in _pairs(groups):
        for variant, name in (("plain", "catalog"), ("open", "open")):
            r = iou.loc[[(d, g, variant)]].iloc[0]
            rows.append(
                f"| {d} × {g} | {name} | {_num(r['mean'])} | {_num(r['noise_floor'])} | "
                f"{_num(r['excess'])} [{_num(r['excess_ci_low'])}, {_num(r['excess_ci_high'])}] "
                f"| {_num(r['disparity'])} [{_num(r['disparity_ci_low'])}, "
                f"{_num(r['disparity_ci_high'])}] | {_num(r['disparity_p'])} | {_num(r['snsr'])} |"
            )
    return "\n".join(rows)


def grounding_table(fidelity: pd.DataFrame) -> str:
    rows = [
        "| task | answers | grounded_rate | catalog_rate | ungrounded entries | duplicates | "
        "exact-k | degenerate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in fidelity[fidelity["variant"] == "open"].iterrows():
        rows.append(
            f"| {r['task']} | {r['n_answers']} | {_num(r['grounded_rate'])} | "
            f"{_num(r['catalog_rate'])} | {_num(r['out_of_catalog_rate'])} | "
            f"{_num(r['duplicate_rate'])} | {_num(r['exact_k_rate'])} | "
            f"{'yes: ' + str(r['degenerate_reasons']) if r['degenerate'] else 'no'} |"
        )
    return "\n".join(rows)


def ungrounded_table(exposure: pd.DataFrame, between: pd.DataFrame) -> str:
    """Per open task and value: mean over its sentences of the ungrounded share, the neutral
    share, and the between-values omnibus p of the category."""
    rows = [
        "| task | value | ungrounded share (mean over phrasings) | neutral answers' share | "
        "between-values p (task) |",
        "|---|---|---|---|---|",
    ]
    ex = exposure[(exposure["field"] == "grounding") & (exposure["category"] == "ungrounded")]
    bw = between[(between["field"] == "grounding") & (between["category"] == "ungrounded")]
    for task, part in ex.groupby("task", sort=False):
        value = part["persona_id"].str.partition("#")[0]
        p = bw.loc[bw["task"] == task, "category_p"]
        for v, shares in part.groupby(value, sort=True):
            rows.append(
                f"| {task} | {v} | {_num(shares['share'].mean())} | "
                f"{_num(shares['neutral_share'].mean())} | {_num(p.iloc[0]) if len(p) else '–'} |"
            )
    return "\n".join(rows)


def exposure_table(between: pd.DataFrame) -> str:
    """Per (task, field): the category with the smallest between-values omnibus p."""
    rows = [
        "| task | field | category (smallest p) | spread of the values' shares | omnibus p |",
        "|---|---|---|---|---|",
    ]
    firsts = between.drop_duplicates(["task", "field", "category"])
    for (task, field), part in firsts.groupby(["task", "field"], sort=False):
        if field == "grounding":
            continue
        r = part.sort_values(["category_p", "category_spread"], ascending=[True, False]).iloc[0]
        rows.append(
            f"| {task} | {field} | {r['category']} | {_num(r['category_spread'])} | "
            f"{_num(r['category_p'])} |"
        )
    return "\n".join(rows)


def main(folders: list[str]) -> None:
    for folder in folders:
        root = Path(folder)
        groups = pd.read_csv(root / "groups.csv")
        between = pd.read_csv(root / "exposure_between.csv")
        print(f"## {', '.join(sorted(set(groups['model'])))}\n")
        print(divergence_table(groups), end="\n\n")
        print(grounding_table(pd.read_csv(root / "fidelity.csv")), end="\n\n")
        print(ungrounded_table(pd.read_csv(root / "exposure.csv"), between), end="\n\n")
        print(exposure_table(between), end="\n\n")


if __name__ == "__main__":
    main(sys.argv[1:])
