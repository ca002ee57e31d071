"""Splitting open-answer entries into title / credit / other name / year (real answers of the
committed open runs, leaderboards/open/*/samples)."""

from __future__ import annotations

import pytest

from coldbias_tasks.core.parsing.grounding import grounder
from coldbias_tasks.core.parsing.title_split import Split, split_title
from coldbias_tasks.core.world.catalog import load_catalog


@pytest.mark.parametrize(
    ("entry", "split"),
    [
        ('"Kesariya by Aamir Khan" by Aamir Khan', Split("Kesariya", "Aamir Khan")),
        ('"Yesterday by The Beatles" (The Beatles)', Split("Yesterday", "The Beatles")),
        ('"Love Story" by Queen (by Queen)', Split("Love Story", "Queen")),
        ('"Checkmate (by Michael Jackson)"', Split("Checkmate", "Michael Jackson")),
        (
            '"Chanson d\'été" by Alain Touamé (by Alain Touamé)',
            Split("Chanson d'été", "Alain Touamé"),
        ),
        (
            '"Stairway to Heaven (Remix) by The Eagles" by The Eagles please',
            Split("Stairway to Heaven (Remix)", "The Eagles"),
        ),
        ('"卧虎藏龙" (The White Tiger)', Split("卧虎藏龙", other="The White Tiger")),
        ("《我和我的家乡》(My Motherland)", Split("我和我的家乡", other="My Motherland")),
        ('"Skyward" (日本語: "スカイワード")', Split("Skyward", other="スカイワード")),
        ('"Jaws" (1975)', Split("Jaws", year=1975)),
    ],
)
def test_real_entries_split(entry: str, split: Split) -> None:
    assert split_title(entry) == split


@pytest.mark.parametrize(
    "entry",
    [
        '"Come Together" by The Beatles (by Jimi Hendrix)',  # credits disagree
        '"Rock by Michael Jackson" by The Rolling Stones (Best)',
        '"North by Northwest"',  # its own "by", no credit after it
        "North by Northwest (1959)",  # not quoted
        "《流浪地球》",
        "",
        '"',
    ],
)
def test_not_split(entry: str) -> None:
    assert split_title(entry) is None


def test_split_entries_ground_and_key_once() -> None:
    songs = grounder("music", load_catalog("music"))
    got = songs.ground('"Let It Be by The Beatles" (The Beatles)')
    assert got is not None and got.level == "catalog" and got.title == "Let It Be by The Beatles"
    assert songs.ground('"Let It Be by The Beatles" by The Beatles').key == got.key
    kesariya = songs.ground('"Kesariya by Aamir Khan" by Aamir Khan')
    assert kesariya is not None and kesariya.key == "t:kesariya by aamir khan"
    # a credit that is not the catalog artist is not the catalog song
    assert songs.ground('"Let It Be" (Charlie Parker)').level == "title"
    films = grounder("movie", load_catalog("movie"))
    assert films.ground('"Jaws" (Steven Spielberg)').level == "catalog"
    assert films.ground('"North by Northwest"').title == "North by Northwest"
    # a translation in brackets grounds when the title does not
    tiger = films.ground('"卧虎藏龙" (Crouching Tiger, Hidden Dragon)')
    assert tiger is not None and tiger.title == "Crouching Tiger, Hidden Dragon"
