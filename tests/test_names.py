"""Other names of catalog and reference items (data/names/*.yaml) and script folding."""

from __future__ import annotations

import random

import pytest

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.parsing.grounding import grounder
from coldbias_tasks.core.parsing.script_fold import fold_script
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.names import load_names, name_key, names_files

DOMAINS = ("college", "movie")


@pytest.mark.parametrize("domain", DOMAINS)
def test_names_files_cover_items_and_each_name_grounds_to_its_item(domain: str) -> None:
    assert names_files(domain)
    g = grounder(domain, load_catalog(domain))
    names = g.names
    assert len(names) >= 60, "coverage fell"
    ids = [str(i) for i in g.catalog.table["id"]]
    row = {ident: i for i, ident in enumerate(ids)}
    pairs = [(f"c:{row[i]}", n) for i, ns in names.catalog.items() for n in ns]
    pairs += [(f"r:{i}", n) for i, ns in names.reference.items() for n in ns]
    owners: dict[str, str] = {}
    for key, name in pairs:
        assert owners.setdefault(name_key(name), key) == key, (name, key)  # one item per name
    for key, name in random.Random(7).sample(pairs, min(400, len(pairs))):
        got = g.ground(f"1. {name}")  # as a list entry ("I soliti ignoti" alone reads as prose)
        assert got is not None and got.key == key, (name, key, got)
    assert set(names.source_of.values()) <= set(names.sources)


def test_script_variants_fold() -> None:
    assert fold_script("ＭＩＴ") == "MIT"
    assert fold_script("國立臺灣大學") == "国立台湾大学"
    assert fold_script("Jaws") == "Jaws"
    colleges = grounder("college", load_catalog("college"))
    variants = ("北京大學", "北京大学", "ＭＩＴ", "Universite Paris Cite", "UNIVERSITÉ PARIS CITÉ")
    for variant in variants:
        assert colleges.ground(variant).level == "catalog", variant
    # ambiguous names are not written: 东北大学 is Tohoku in Japanese, Northeastern in Chinese
    assert colleges.ground("东北大学").level == "title"
    assert colleges.ground("東北大學").key == colleges.ground("东北大学").key  # one title key


def _write(tmp_path, text: str):
    (tmp_path / "names").mkdir()
    (tmp_path / "names" / "college.yaml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("sources: {s: x}\nitems: {college-999: {names: [A], source: s}}\n", "no such catalog"),
        ("sources: {s: x}\nitems: {college-157: {names: [A], source: t}}\n", "not declared"),
        ("sources: {s: x}\nitems: {college-157: {names: [], source: s}}\n", "non-empty list"),
        (
            "sources: {s: x}\nitems: {college-157: {names: [Tsinghua University], source: s}}\n",
            "also names",
        ),
        (
            "sources: {s: x}\nitems:\n  college-157: {names: [X大学], source: s}\n"
            "  college-158: {names: [X大學], source: s}\n",
            "also names",
        ),
        ("items: []\n", "needs a mapping"),
    ],
)
def test_bad_names_files_are_refused(tmp_path, monkeypatch, text: str, problem: str) -> None:
    monkeypatch.setenv("COLDBIAS_DATA_PATH", str(_write(tmp_path, text)))
    catalog = load_catalog("college")
    ids = [str(i) for i in catalog.table["id"]]
    own = [(t, *a) for t, a in zip(catalog.titles, catalog.aliases())]
    with pytest.raises(CatalogError, match=problem):
        load_names("college", ids, own, None)
