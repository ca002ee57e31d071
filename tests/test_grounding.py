"""Grounding open-ended titles: catalog, then reference list, then the normalised title key."""

from __future__ import annotations

import pytest

from coldbias_tasks.core.catalog import load_catalog
from coldbias_tasks.core.grounding import Grounded, grounder, stated_year, title_key
from coldbias_tasks.core.reference import load_reference


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
