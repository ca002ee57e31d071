"""Golden cases for catalog-derived aliases, institution names, native scripts, songs with and
without artists, structured answers and lead-ins (``tests.parse_cases.EXTRA_CASES``)."""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.parsing.parse import parse_ranking
from tests.parse_cases import EXTRA_CASES, KINDS, USER_COLLEGES, USER_FILMS, USER_SONGS, ParseCase

USER_CATALOGS = {
    "user_colleges": USER_COLLEGES,
    "user_songs": USER_SONGS,
    "user_films": USER_FILMS,
}


@cache
def catalog_titles(name: str) -> tuple[str, ...]:
    if name in USER_CATALOGS:
        return USER_CATALOGS[name]
    from coldbias_tasks.core.world.catalog import load_catalog

    return load_catalog(name).titles


@pytest.mark.parametrize("case", EXTRA_CASES, ids=[c.name for c in EXTRA_CASES])
def test_answer(case: ParseCase) -> None:
    catalog = catalog_titles(case.catalog)
    for title in case.expected:
        assert title in catalog, title
    got = parse_ranking(case.answer, catalog, case.k, kind=KINDS[case.catalog])
    assert [catalog[i] for i in got.items] == list(case.expected), got
    assert len(got.out_of_catalog) == case.n_out_of_catalog, got.out_of_catalog
    assert len(got.duplicates) == case.n_duplicates, got.duplicates


def test_every_extra_catalog_is_used() -> None:
    assert {c.catalog for c in EXTRA_CASES} == {*USER_CATALOGS, "movie", "music", "college"}
    assert len({c.name for c in EXTRA_CASES}) == len(EXTRA_CASES)


def test_derived_alias_never_overrides_a_catalog_title() -> None:
    catalog = ("Oxford Brookes University - Headington", "Oxford Brookes University", "MIT")
    got = parse_ranking("1. Oxford Brookes University\n2. MIT", catalog, 5, kind="institution")
    assert got.items == (1, 2)


def test_user_aliases_and_derived_aliases_combine() -> None:
    catalog = ("Massachusetts Institute of Technology (MIT)", "University of Oxford")
    got = parse_ranking("1. Oxford\n2. MIT", catalog, 5, [(), ("Oxford",)], kind="institution")
    assert got.items == (1, 0)


def test_abbreviation_shared_by_two_items_is_no_alias() -> None:
    catalog = ("Nanyang Technological University (NTU)", "National Taiwan University (NTU)")
    got = parse_ranking("- NTU\n- Nanyang Technological University", catalog, 5, kind="institution")
    assert got.items == (0,) and got.out_of_catalog == ("NTU",)


def test_main_part_that_begins_another_title_is_no_alias() -> None:
    catalog = ("University of Colorado, Denver", "University of Colorado Boulder", "MIT (MIT)")
    answer = "1. University of Colorado\n2. University of Colorado Boulder"
    got = parse_ranking(answer, catalog, 5, kind="institution")
    assert got.items == (1,) and len(got.out_of_catalog) == 1


def test_film_catalogs_get_no_main_part_aliases() -> None:
    """ "Top Gun" is another film than "Top Gun: Maverick", "Puss in Boots" than "…: The Last
    Wish": main parts are aliases only in institution catalogs."""
    catalog = ("Top Gun: Maverick", "Puss in Boots: The Last Wish", "Jaws")
    got = parse_ranking("1. Top Gun\n2. Puss in Boots\n3. Jaws", catalog, 5)
    assert got.items == (2,) and len(got.out_of_catalog) == 2


def test_json_syntax_is_never_an_entry() -> None:
    answer = '```json\n{\n  "movies": [\n    {"title": "Jaws", "year": 1975}\n  ]\n}\n```'
    got = parse_ranking(answer, ("Jaws", "Alien"), 5)
    assert got.items == (0,) and got.out_of_catalog == () and got.n_entries == 1


def test_json_without_titles_falls_back_to_lines() -> None:
    got = parse_ranking("1. Jaws [1]\n2. Alien [2]\n\n[1] Spielberg 1975", ("Jaws", "Alien"), 5)
    assert got.items == (0, 1)


structured_noise = st.lists(
    st.one_of(
        st.sampled_from(USER_COLLEGES + USER_SONGS),
        st.sampled_from(['{"title": ', '"', "[", "]", "{", "}", ",", ":", "<li>", "</li>", "<ol>"]),
        st.sampled_from(["```json\n", "```", "（1）", "１．", "1、", "《", "》", "東京", "\t"]),
        st.text(max_size=12),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(structured_noise, st.sampled_from(sorted(USER_CATALOGS)))
def test_fuzz_structured_answers_never_raise(text: str, name: str) -> None:
    catalog = USER_CATALOGS[name]
    got = parse_ranking(text, catalog, 20, kind=KINDS[name])
    assert len(got.items) == len(set(got.items)) <= 20
    assert all(0 <= i < len(catalog) for i in got.items)


@pytest.mark.timeout(60)  # a hang guard, not a speed target
@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "{" * 100_000,
        '["a", ' * 20_000,
        "<li>" * 40_000,
        "```json\n" * 20_000,
        "（" * 100_000,
        "東京" * 60_000,
        "1、" * 60_000,
        ": " * 60_000,
        " - " * 60_000,
        " by " * 40_000,
        '"' * 100_000 + " by x",
        "(" * 50_000 + "MIT" + ")" * 50_000,
        '[\n"' + "9" * 10_000 + ' by Lorde",\n',
        "1. " + "9" * 1_990 + " by Lorde",
    ],
    ids=lambda t: repr(t[:8]),
)
@pytest.mark.parametrize("name", sorted(USER_CATALOGS))
def test_adversarial_structured_inputs_return(text: str, name: str) -> None:
    got = parse_ranking(text, USER_CATALOGS[name], 20, kind=KINDS[name])
    assert len(got.items) <= 20


@pytest.mark.parametrize(
    "line",
    [
        "1. **Hara-Kiri: Death of a Samurai** (2011)",
        "- Halloween: The Curse of Michael Myers - Joe Chappelle",
        '1. "Star Wars: Episode I – The Phantom Menace" by George Lucas',
        "1. Drive, He Said (1971)",
    ],
)
def test_formatted_near_miss_films_do_not_match(line: str) -> None:
    titles = catalog_titles("movie")
    got = parse_ranking(line, titles, 5)
    assert got.items == (), [titles[i] for i in got.items]
    assert len(got.out_of_catalog) == 1


#: A book catalog in the "Title by Author" form a song catalog uses.
BOOKS = (
    "Emma by Jane Austen",
    "Persuasion by Jane Austen",
    "Dracula by Bram Stoker",
    "Middlemarch by George Eliot",
)
BOOK_ANSWER = "1. Jane Austen - Emma\n2. Persuasion\n3. Dracula by Bram Stoker"


def test_title_by_author_catalog_declared_as_works_is_not_split_as_songs() -> None:
    """The kind is declared, not guessed from the titles (all four read "X by Y"): as works,
    only the title as written matches; "Author - Title" and the bare title are song forms."""
    works = parse_ranking(BOOK_ANSWER, BOOKS, 5, kind="work")
    assert works.items == (2,)
    assert works.out_of_catalog == ("Jane Austen - Emma", "Persuasion")
    assert parse_ranking(BOOK_ANSWER, BOOKS, 5, kind="song").items == (0, 1, 2)
    with pytest.raises(SettingsError, match=r"title kind 'book' is not one of work, song, inst"):
        parse_ranking(BOOK_ANSWER, (), 5, kind="book")  # type: ignore[arg-type]


def test_a_domain_declares_its_title_kind_and_the_answer_parser_uses_it(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new "novel" domain (works) declared in a data folder parses its answers as works; an
    unknown kind is refused when the domain file is read."""
    from coldbias_tasks.core.parsing.answers import record_from_answer
    from coldbias_tasks.core.prompting.documents import build_docs
    from coldbias_tasks.core.resources import DATA_PATH_ENV
    from coldbias_tasks.core.world.domains import read_domain

    (tmp_path / "domains").mkdir()
    (tmp_path / "novel.jsonl").write_text(
        "".join(json.dumps({"id": f"n{i}", "title": t}) + "\n" for i, t in enumerate(BOOKS)),
        encoding="utf-8",
    )
    spec = (
        "order: 5\ntitle_column: title\ntitle_kind: work\nschema: {id: str, title: str}\n"
        "nouns: {en: {plural: novels, singular: novel}}\n"
    )
    (tmp_path / "domains" / "novel.yaml").write_text(spec, encoding="utf-8")
    monkeypatch.setenv(DATA_PATH_ENV, str(tmp_path))
    meta = {"coldbias_n_items": 4, "coldbias_k": 3, "coldbias_repeats": 1}
    record = record_from_answer(BOOK_ANSWER, build_docs("novel", "gender", "plain", meta)[0])
    assert record.titles == ("Dracula by Bram Stoker",) and record.n_out_of_catalog == 2
    verse = tmp_path / "other" / "domains" / "verse.yaml"
    verse.parent.mkdir(parents=True)
    verse.write_text(spec.replace("work", "poem"), encoding="utf-8")
    with pytest.raises(SettingsError, match=r"verse\.yaml: title_kind: title kind 'poem' is not"):
        read_domain(verse)
