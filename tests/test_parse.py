"""The parser on hand-written model answers, plus fuzzing: it never raises, never invents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coldbias_tasks.core.parsing.catalog_index import build_index, normalize
from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.world.domains import TITLE_KINDS, TitleKind
from tests.parse_cases import CASES, COLLEGES, KINDS, MOVIES, SONGS, ParseCase

CATALOGS = {"movies": MOVIES, "songs": SONGS, "colleges": COLLEGES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_answer(case: ParseCase) -> None:
    catalog = CATALOGS[case.catalog]
    got = parse_ranking(case.answer, catalog, case.k, kind=KINDS[case.catalog])
    assert [catalog[i] for i in got.items] == list(case.expected)
    assert len(got.out_of_catalog) == case.n_out_of_catalog, got.out_of_catalog
    assert len(got.duplicates) == case.n_duplicates, got.duplicates


def test_at_least_60_cases_in_every_catalog_style() -> None:
    assert len(CASES) >= 60
    assert {c.catalog for c in CASES} == set(CATALOGS)


def test_frozen_never_matches_short_titles() -> None:
    """The seed paper's parser mapped the hallucinated "Frozen" to the catalog title "M"."""
    got = parse_ranking("1. Frozen\n2. Frozen II\n3. Frozn", ["M", "Her", "Up", "It"], 5)
    assert got.items == () and len(got.out_of_catalog) == 3


def test_normalize_examples() -> None:
    assert normalize("The Godfather: Part II (1974)") == "godfather part 2 1974"
    assert normalize("Amélie") == "amelie"
    assert normalize("Schindler’s List") == "schindlers list"
    assert normalize("Godfather, The") == "godfather"
    assert normalize("Rock & Roll") == "rock and roll"


def test_index_is_built_once_per_catalog() -> None:
    assert build_index(list(MOVIES)) is build_index(tuple(MOVIES))


def test_non_str_and_degenerate_inputs() -> None:
    assert parse_ranking(None, MOVIES, 5).items == ()  # type: ignore[arg-type]
    assert parse_ranking("Jaws", MOVIES, 0).items == ()
    assert parse_ranking("Jaws", [], 5).items == ()


def test_repetition_loop_is_fast_and_counted() -> None:
    answer = "1. Jaws\n" + "2. Totally Invented Film\n" * 5000
    got = parse_ranking(answer, MOVIES, 20)
    assert [MOVIES[i] for i in got.items] == ["Jaws"]
    assert len(got.out_of_catalog) == 5000


catalog_text = st.sampled_from(MOVIES + SONGS)
noise = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
answers = st.lists(st.one_of(catalog_text, noise), max_size=30).map(lambda parts: st_join(parts))


def st_join(parts: list[str]) -> str:
    seps = ["\n", ", ", "\n1. ", "; ", "\n- ", " **", "<think>", "</think>"]
    return "".join(p + seps[i % len(seps)] for i, p in enumerate(parts))


@settings(max_examples=300, deadline=None)
@given(answers, st.integers(min_value=-1, max_value=25), st.sampled_from(TITLE_KINDS))
def test_fuzz_never_raises_and_returns_valid_unique_indices(
    text: str, k: int, kind: TitleKind
) -> None:
    catalog = MOVIES + SONGS
    got = parse_ranking(text, catalog, k, kind=kind)
    assert len(got.items) == len(set(got.items)) <= max(k, 0)
    assert all(0 <= i < len(catalog) for i in got.items)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text(text: str) -> None:
    got = parse_ranking(text, MOVIES, 20)
    assert len(got.items) == len(set(got.items)) <= 20


@pytest.mark.timeout(60)  # a hang guard, not a speed target (see bench/studies/parser_eval.py)
@pytest.mark.parametrize(
    "text",
    [
        "ft " * 60_000,
        ", ".join(["Jaws x"] * 30_000),
        "\n".join(", ".join([f"Jaws x{i}"] * 40) for i in range(2_000)),
        "**" * 90_000,
        '"a' * 90_000,
        " - a" * 50_000,
        "<think>" * 10_000 + "Jaws",
    ],
    ids=["feat", "commas", "comma-lines", "bold", "quotes", "dashes", "think-tags"],
)
def test_adversarial_inputs_return(text: str) -> None:
    got = parse_ranking(text, MOVIES, 20)
    assert len(got.items) <= 20


def test_aliases_match_exactly_and_never_override_titles() -> None:
    catalog = ["Massachusetts Institute of Technology", "University of Oxford", "MIT Press"]
    aliases = [("MIT",), ("Oxford",), ()]
    text = "1. MIT\n2. Oxford\n3. MIT Press\n4. Oxfrd"
    got = parse_ranking(text, catalog, 5, aliases=aliases, kind="institution")
    assert got.items == (0, 1, 2)
    assert got.out_of_catalog == ("Oxfrd",)  # aliases are exact-only
    assert parse_ranking("MIT", catalog, 5, kind="institution").items == ()  # no alias: no guess


#: Real film titles that are NOT in the movie catalog, next to the catalog title they resemble.
#: Found by bench/studies/parser_eval.py over 16k Wikidata titles; an earlier parser matched them
#: all.
NEAR_MISS_FILMS = [
    ("Predators", "Predator"),
    ("Driven", "Drive"),
    ("The Driver", "Drive"),
    ("Killers", "The Killer"),
    ("Martin", "The Martian"),
    ("Internal Affairs", "Infernal Affairs"),
    ("The Untouchables", "The Intouchables"),
    ("The Exterminator", "The Terminator"),
    ("Titanica", "Titanic"),
    ("Winter Sleepers", "Winter Sleep"),
    ("Big Shots", "The Big Short"),
    ("Il Posto", "Il Postino"),
    ("The Bridesmaid", "Bridesmaids"),
    ("Smother", "Mother"),
    ("The Inglorious Bastards", "Inglourious Basterds"),
    ("North", "North by Northwest"),
    ("Halloween: The Curse of Michael Myers", "Halloween"),
    ("Star Wars: Episode I – The Phantom Menace", "Star Wars"),
    ("A Chinese Ghost Story: The Tsui Hark Animation", "A Chinese Ghost Story"),
    ("Hara-Kiri: Death of a Samurai", "Harakiri"),
    ("Drive, He Said", "Drive"),
    ("I, Frankenstein", "Frankenstein"),
    ("Godzilla, King of the Monsters!", "Godzilla"),
]


@pytest.mark.parametrize(("answer", "resembles"), NEAR_MISS_FILMS)
def test_real_near_miss_titles_do_not_match(answer: str, resembles: str) -> None:
    from coldbias_tasks.core.world.catalog import load_catalog

    titles = load_catalog("movie").titles
    assert resembles in titles
    got = parse_ranking(f"1. {answer}", titles, 5)
    assert got.items == (), f"{answer!r} matched {[titles[i] for i in got.items]}"
    assert len(got.out_of_catalog) == 1
