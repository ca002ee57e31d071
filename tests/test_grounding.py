"""Grounding open-ended titles: catalog, then reference list, then the normalised title key."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.parsing.grounding import (
    Grounded,
    Grounder,
    grounder,
    stated_year,
    title_key,
)
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.reference import RefEntry, Reference, load_reference


@pytest.fixture(scope="module")
def movies():
    return grounder("movie", load_catalog("movie"))


@pytest.fixture(scope="module")
def colleges():
    return grounder("college", load_catalog("college"))


def test_catalog_hit_wins(movies) -> None:
    got = movies.ground("1. **The Godfather** (1972)")
    assert got is not None and got.level == "catalog"
    assert got.key == f"c:{got.catalog_index}"
    assert got.title == "The Godfather"


def test_reference_hit_outside_the_catalog(movies) -> None:
    got = movies.ground("Abe Lincoln in Illinois")
    assert got == Grounded("r:tt0032181", "reference", None, "Abe Lincoln in Illinois")


def test_remake_with_year_picks_the_remake(movies) -> None:
    """The catalog's "Psycho" is the 1960 film; the 1998 remake grounds in the reference."""
    original = movies.ground("Psycho")
    remake = movies.ground("Psycho (1998)")
    assert original is not None and original.level == "catalog"
    assert remake is not None and remake.key == "r:tt0155975"


def test_invented_title_keeps_its_title_key(movies) -> None:
    got = movies.ground("- Zorblax of the Moon (2019) - a space romance")
    assert got == Grounded("t:zorblax of the moon", "title", None, got.title)


@pytest.mark.parametrize(
    "entry", ["", "   ", "Here are 20 movies you might enjoy:", "Sure! Here are some picks.", "**"]
)
def test_prose_is_no_title(movies, entry: str) -> None:
    assert movies.ground(entry) is None


def test_college_reference_hit(colleges) -> None:
    got = colleges.ground("Michigan Technological University")
    assert got is not None and got.key == "r:mtu.edu" and got.level == "reference"
    assert colleges.ground("University of Zorblax").level == "title"


@pytest.mark.parametrize(
    ("entry", "level"),
    [
        ("University of Colorado Denver (UCD)", "reference"),  # not the catalog's UCD (Dublin)
        ("University of Science and Technology (IST)", "title"),  # IST does not fit the name
        ("Vincennes (Paris VIII) Université Saint-Denis Returns", "title"),  # abbreviation alone
        ("Soochow University", "title"),  # two universities of this name (TW, CN)
        ("Singapore (NUS)", "catalog"),
    ],
)
def test_bracketed_abbreviations_and_shared_names(colleges, entry: str, level: str) -> None:
    assert colleges.ground(entry).level == level


def test_reference_entry_that_is_a_catalog_item_resolves_to_the_catalog(colleges) -> None:
    """swot's "University of Campinas" (alias "Unicamp") is the catalog's Unicamp."""
    got = colleges.ground("Universidade de Campinas - renowned for its academic excellence.")
    assert got is not None and got.level == "catalog"
    assert got.title == "Universidade Estadual de Campinas"


@pytest.mark.parametrize(
    ("entry", "level"),
    [
        ('"Stairway to Heaven" by Led Zeppelin (The Sign of the Web)', "catalog"),
        ('"Hotel California" by The Beatles (Hotel California)', "title"),
        ("Hotel California (Charlie Parker)", "title"),
        ('Taylor Swift, "Hotel California"', "title"),
        ("Hotel California (The Eagles)", "catalog"),
        ("Sweet Dreams (Are Made of This)", "catalog"),
    ],
)
def test_songs_naming_another_artist(entry: str, level: str) -> None:
    assert grounder("music", load_catalog("music")).ground(entry).level == level


def test_music_without_reference_says_so() -> None:
    music = grounder("music", load_catalog("music"))
    assert load_reference("music") is None
    assert "No reference list" in music.coverage
    assert music.ground("Bohemian Rhapsody by Queen").level == "catalog"


def test_title_key_is_fairllm_clean_up() -> None:
    assert title_key('1. "The Matrix" (1999) - Wachowskis') == "the matrix"
    assert title_key("**Amélie** [2001]") == "amélie"


@pytest.mark.parametrize(
    ("entry", "year"),
    [("Jaws (1975)", 1975), ("Jaws (1975, Spielberg)", 1975), ("Jaws - 1975", 1975),
     ("Blade Runner 2049", None), ("1917", None), ("2001: A Space Odyssey", None)],
)  # fmt: skip
def test_stated_year(entry: str, year: int | None) -> None:
    assert stated_year(entry) == year


# --- a small synthetic domain: the year rules on a reference that holds remakes ---------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    path = folder / "tiny.jsonl"
    rows = [{"title": "Solaris", "year": 1972}, {"title": "Heat", "year": 1995}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    entries = (
        RefEntry("r1", "Solaris", 1972),
        RefEntry("r2", "Solaris", 2002),
        RefEntry("r3", "Psycho", 1960),
        RefEntry("r4", "Psycho", 1998),
        RefEntry("r5", "The Killing Fields", 1984),
        RefEntry("r6", "Sans Soleil", None, ("Sunless",)),
    )
    reference = Reference("tiny", entries, "six films", kind="work")
    return Grounder("movie", load_catalog(path), reference)


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ("Solaris", "c:0"),  # the catalog wins over the reference's two films
        ("Solaris (1972)", "c:0"),
        ("Solaris (1973)", "c:0"),  # a year one off still fits
        ("Solaris (2002)", "r:r2"),  # the remake is not the catalog's film
        ("Solaris (2003, Soderbergh)", "r:r2"),
        ("Solaris (1990)", "t:solaris"),  # a year no entry has: no guess
        ("Psycho", "t:psycho"),  # two reference films, no year: no guess
        ("Psycho (1960)", "r:r3"),
        ("**Psycho** - 1998", "r:r4"),
        ("Psycho (1975)", "t:psycho"),
        ("The Killing Fields (1984)", "r:r5"),
        ("Killing Fields", "r:r5"),  # the article is optional
        ("The Killing Fields (2011)", "t:the killing fields"),  # a later film of that name
        ("The Killing Feilds", "r:r5"),  # a typo, through the guarded fuzzy stage
        ("Sunless", "r:r6"),  # an alias
        ("Heat 2", "t:heat 2"),  # a sequel number is no typo
        ("The Killing", "t:the killing"),  # a leading part of a title is another film
    ],
)
def test_year_rules(tiny, entry: str, key: str) -> None:
    got = tiny.ground(entry)
    assert got is not None and got.key == key, (entry, got)


def test_reference_rejects_bad_files(tmp_path) -> None:
    from coldbias_tasks.core.world import reference

    path = tmp_path / "movie.jsonl"
    path.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"line 1.*'id' and 'title'"):
        reference.read_reference("movie", path)
    path.write_text('{"id": "x", "title": "Heat"}\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"sources\.json is missing"):
        reference.read_reference("movie", path)
    (tmp_path / "sources.json").write_text('{"music": {"coverage": "songs"}}', encoding="utf-8")
    with pytest.raises(CatalogError, match="no 'coverage' sentence for 'movie'"):
        reference.read_reference("movie", path)


HOSTILE = [
    "\x00\x1b[31mJaws\x1b[0m",
    "(" * 5000,
    "(" + "1999 " * 400 + ")",
    "a" * 100_000,
    "\u202e\u200bPsycho\ufeff",
    "🎬🍿" * 300,
    "- - - - -",
    "1.",
    "**()**",
    "[[[]]] (((1975)))",
    "Psycho (0000)",
    "Psycho (99999999999999999999)",
    "\n\n\t",
    "東京大学",
    "' OR 1=1 --",
    "${jndi:ldap://x}",
]


@pytest.mark.parametrize("entry", HOSTILE)
def test_hostile_strings_never_crash(movies, colleges, entry: str) -> None:
    for domain in (movies, colleges):
        got = domain.ground(entry)
        assert got is None or (got.key[:2] in ("c:", "r:", "t:") and len(got.key) > 2)
    assert movies.ground(123) is None  # type: ignore[arg-type]
    assert movies.ground("\x1b[31mJaws\x1b[0m\x00").level == "catalog"


# --- precision and recall on hand-labelled real open answers (docs/open.md "Grounding") -------

#: Precision bound per domain: the catalog parser's precision is 0.999 on 279 labelled answers
#: (README "Parser"); grounding adds a reference list 30-35x larger than the catalog, so a few
#: errors in a hundred grounded entries are tolerated, but not the 2 in 25 that grounding series
#: names to a film of that title ("The Lord of the Rings", "The Hobbit") would cause.
MIN_PRECISION = 0.95


def test_labels_name_real_ids() -> None:
    from bench.studies.grounding_eval import LABELS, read_jsonl

    truths = {"real", "invented", "none"}
    for row in read_jsonl(LABELS):
        truth = row["truth"]
        if truth.startswith("c:"):
            assert truth[2:] in set(load_catalog(row["domain"]).table["id"]), row
        elif truth.startswith("r:"):
            assert truth[2:] in load_reference(row["domain"]).ids, row
        else:
            assert truth in truths, row


def test_precision_and_recall_on_labelled_answers() -> None:
    from bench.studies.grounding_eval import evaluate

    scores = evaluate()
    assert set(scores) == {"movie", "music", "college"}
    for domain, s in scores.items():
        assert s.entries >= 40, domain
        if s.grounded >= 10:
            assert s.precision >= MIN_PRECISION, (domain, s)
        assert s.prose_kept_out == s.prose, (domain, s)
    pooled = sum(s.correct for s in scores.values()) / sum(s.grounded for s in scores.values())
    assert pooled >= MIN_PRECISION
    assert scores["movie"].recall >= 0.8 and scores["college"].recall >= 0.8


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=300) | st.from_regex(r"[-*1-9.()\[\]\"' A-Za-z]{0,80}( \((19|20)\d\d\))?"))
def test_any_string_grounds_or_is_none(movies, colleges, entry: str) -> None:
    for domain in (movies, colleges):
        got = domain.ground(entry)
        assert got is None or (got.key[:2] in ("c:", "r:", "t:") and len(got.key) > 2)
        assert got is None or (got.level == "catalog") == (got.catalog_index is not None)


def test_user_catalog_with_odd_years(tmp_path) -> None:
    path = tmp_path / "films.jsonl"
    rows = [{"title": "Heat", "year": "c. 1995"}, {"title": "Solaris", "year": None}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    films = Grounder("movie", load_catalog(path), None)
    assert films.ground("Heat (1995)").key == "c:0"
    assert films.ground("Solaris (2002)").key == "c:1"  # no own year: any stated year fits
    assert "No reference list" in films.coverage
