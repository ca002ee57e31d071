"""Invisible and control characters in an answer change no parsed item, in either parser: a BOM,
zero-width space, bidi mark, NUL or ESC before a list number is removed before the answer is
split and matched, and what is still unreadable is counted, never dropped."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coldbias_tasks.core.parsing.answer_text import (
    INVISIBLE_CHARS,
    LINE_BREAK_CONTROLS,
    strip_invisible,
)
from coldbias_tasks.core.parsing.parse import Ranking, parse_ranking
from coldbias_tasks.core.parsing.parse_users import UserRanking, parse_user_ranking
from tests.parse_cases import CASES, COLLEGES, EXTRA_CASES, KINDS, MOVIES, SONGS, USER_FILMS

CATALOGS = {"movies": MOVIES, "songs": SONGS, "colleges": COLLEGES, "user_films": USER_FILMS}
#: Answers of the golden cases over the fixture catalogs (no catalog file is loaded).
FORWARD = [c for c in CASES + EXTRA_CASES if c.catalog in CATALOGS]
GENDER = ("a boy", "a female", "a girl", "a male")
REVERSE = [
    "1. a girl\n2. a boy\n3. a female\n4. a male",
    "3\n1\n4\n2",
    "Ranking: 3, 1, 2, 4",
    "- User 3 (a girl)\n- User 1 (a boy)\n- a male\n- Candidate 2",
    '```json\n[3, 1, {"user": 4}, "a female"]\n```',
    "<think>1. a boy</think>\n1. a girl\n2. a male",
    "<ol><li>a girl</li><li>a boy</li></ol>",
    "1. a girl\n2. nobody at all\n3. a girl\n4. 9",
]
#: Characters removed outright (tab, newline and carriage return are kept; the controls that
#: ``str.splitlines`` reads as line breaks become one).
HIDDEN = sorted(
    {*INVISIBLE_CHARS, *(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)])}
    - {"\t", "\n", "\r", *LINE_BREAK_CONTROLS}
)
NAMED = {
    "bom": "\ufeff",
    "zwsp": "\u200b",
    "zwnj": "\u200c",
    "zwj": "\u200d",
    "word_joiner": "\u2060",
    "lrm": "\u200e",
    "rlm": "\u200f",
    "rlo": "\u202e",
    "rli": "\u2067",
    "pdi": "\u2069",
    "nul": "\x00",
    "esc": "\x1b",
    "bell": "\x07",
    "del": "\x7f",
    "csi": "\x9b",
    "colour": "\x1b[1;31m",
}


def _before_every_line(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def _forward(text: str, case_catalog: str, k: int) -> Ranking:
    return parse_ranking(text, CATALOGS[case_catalog], k, kind=KINDS[case_catalog])


def test_bom_before_the_first_number_keeps_both_items() -> None:
    t0, t1 = MOVIES[24], MOVIES[25]  # "Jaws", "Psycho"
    got = parse_ranking("\ufeff1. " + t0 + "\n2. " + t1, MOVIES, 2)
    assert [MOVIES[i] for i in got.items] == [t0, t1]
    assert got.out_of_catalog == () and got.n_entries == 2


@pytest.mark.parametrize("char", NAMED.values(), ids=NAMED.keys())
def test_a_hidden_character_before_every_line_changes_no_item(char: str) -> None:
    changed = []
    for case in FORWARD:
        plain = _forward(case.answer, case.catalog, case.k)
        hidden = _forward(_before_every_line(case.answer, char), case.catalog, case.k)
        if hidden != plain:
            changed.append(case.name)
    assert not changed, changed
    for answer in REVERSE:
        hidden = parse_user_ranking(_before_every_line(answer, char), GENDER)
        assert hidden == parse_user_ranking(answer, GENDER), answer


@pytest.mark.parametrize("char", NAMED.values(), ids=NAMED.keys())
def test_a_hidden_character_inside_titles_changes_no_item(char: str) -> None:
    answer = "1. Ja" + char + "ws\n2. " + char + "Psy" + char + "cho" + char + "\n3. Alien"
    got = parse_ranking(answer, MOVIES, 3)
    assert [MOVIES[i] for i in got.items] == ["Jaws", "Psycho", "Alien"]
    assert parse_user_ranking("1. a gi" + char + "rl\n2." + char + " a boy", GENDER).order == (2, 0)


def test_line_break_controls_still_break_lines() -> None:
    for char in LINE_BREAK_CONTROLS:
        got = parse_ranking("1. Jaws" + char + "2. Psycho", MOVIES, 2)
        assert [MOVIES[i] for i in got.items] == ["Jaws", "Psycho"], repr(char)
        assert parse_user_ranking("1. a girl" + char + "2. a boy", GENDER).order == (2, 0)


def test_what_is_left_unreadable_is_counted() -> None:
    got = parse_ranking("\u200b1. Jaws\n\u200f2. A Film Nobody Made\n\x003. \x1b\x1b", MOVIES, 5)
    assert [MOVIES[i] for i in got.items] == ["Jaws"]
    assert got.out_of_catalog == ("A Film Nobody Made",)
    users = parse_user_ranking("\ufeff1. a girl\n\u200b2. a teenager", GENDER)
    assert users.order == (2,) and users.invalid == ("a teenager",)


def test_strip_invisible_keeps_visible_text() -> None:
    text = "1. Amélie\t(2001)\r\n2. 千と千尋の神隠し — Spirited Away\n"
    assert strip_invisible(text) == text
    assert strip_invisible("\ufeff1.\u200b Ja\x00ws\x1b[0m\x85") == "1. Jaws\n"


_lines_with_hidden = st.lists(st.lists(st.sampled_from(HIDDEN), max_size=3), max_size=40)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FORWARD), _lines_with_hidden)
def test_hidden_characters_at_line_starts_never_change_the_parse(case, prefixes) -> None:
    lines = case.answer.split("\n")
    marked = [
        "".join(prefixes[i]) + line if i < len(prefixes) else line for i, line in enumerate(lines)
    ]
    plain = _forward(case.answer, case.catalog, case.k)
    assert _forward("\n".join(marked), case.catalog, case.k) == plain


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(REVERSE), _lines_with_hidden)
def test_hidden_characters_at_line_starts_never_change_the_user_parse(answer, prefixes) -> None:
    lines = answer.split("\n")
    marked = [
        "".join(prefixes[i]) + line if i < len(prefixes) else line for i, line in enumerate(lines)
    ]
    plain: UserRanking = parse_user_ranking(answer, GENDER)
    assert parse_user_ranking("\n".join(marked), GENDER) == plain


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FORWARD), st.data())
def test_hidden_characters_anywhere_never_change_the_parse(case, data) -> None:
    answer = case.answer
    positions = data.draw(st.lists(st.integers(0, len(answer)), max_size=12))
    for pos in sorted(positions, reverse=True):
        answer = answer[:pos] + data.draw(st.sampled_from(HIDDEN)) + answer[pos:]
    plain = _forward(case.answer, case.catalog, case.k)
    assert _forward(answer, case.catalog, case.k) == plain
