"""The answer clean-up both parsers share (``core/parsing/answer_text.py``): the same reasoning
blocks,
code fences, HTML lists and JSON are read the same way by the forward and the reverse parser."""

from __future__ import annotations

import pytest

from coldbias_tasks.core.parsing.answer_text import (
    break_html_lists,
    json_values,
    strip_html,
    strip_reasoning,
)
from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.parsing.parse_users import parse_user_ranking

FILMS = ("Jaws", "Alien", "Heat", "Psycho")
USERS = ("a boy", "a female", "a girl", "a male")

#: Answers with reasoning around the list ``{}``; the reasoning names another item (``X``), so
#: reading it would change the result.
REASONING = {
    "exact": "<think>1. X</think>\n{}",
    "spaces_in_tags": "< think >1. X\n</ think >\n{}",
    "upper_case": "<THINK>1. X</THINK>{}",
    "attributes": '<think reason="x">1. X</think>\n{}',
    "opening_in_the_prompt": "1. X\nso the answer is:</think>\n{}",
    "two_stray_closings": "1. X</think>\n2. X</think>\n{}",
    "unclosed": "{}\n<think>1. X",
    "nested": "<think>1. X<think>2. X</think>more</think>{}",
}


@pytest.mark.parametrize("template", REASONING.values(), ids=REASONING.keys())
def test_both_parsers_ignore_the_same_reasoning_blocks(template: str) -> None:
    forward = template.format("1. Jaws\n2. Alien").replace("X", "Heat")
    reverse = template.format("1. a girl\n2. a boy").replace("X", "a male")
    assert parse_ranking(forward, FILMS, 5).items == (0, 1)
    assert parse_user_ranking(reverse, USERS).order == (2, 0)


def test_a_block_between_entries_is_a_line_break() -> None:
    assert parse_ranking("1. Jaws<think>1. Heat</think>2. Alien", FILMS, 5).items == (0, 1)
    assert parse_user_ranking("1. a girl<think>1. a male</think>2. a boy", USERS).order == (2, 0)


def test_strip_reasoning_keeps_the_text_around_a_block() -> None:
    assert strip_reasoning("A<think>x</think>B") == "A\nB"
    assert strip_reasoning("x</think>y</think>B") == "B"
    assert strip_reasoning("A<think>never closed") == "A"
    assert strip_reasoning("<think>" * 10_000 + "Jaws") == ""


@pytest.mark.parametrize(
    "fence",
    ["```json\n{}\n```", "```JSON\n{}```", "```\n{}\n```", "```json {}```", "```json\n{}"],
    ids=["json", "upper_unclosed_line", "bare", "one_line", "unclosed"],
)
def test_both_parsers_read_json_in_the_same_fences(fence: str) -> None:
    forward = "Here you go:\n" + fence.format('["Jaws", "Alien",]') + "\nEnjoy [them]!"
    reverse = "Here you go:\n" + fence.format("[3, 1,]") + "\nEnjoy!"
    assert parse_ranking(forward, FILMS, 5).items == (0, 1)
    assert parse_user_ranking(reverse, USERS).order == (2, 0)


def test_json_values_inline_and_at_line_starts() -> None:
    assert list(json_values('Here: ["Jaws"]', inline=True)) == [["Jaws"]]
    assert list(json_values("user [3] is best", inline=False)) == []
    assert list(json_values("Ranking:\n[3, 1]\nuser [2] next", inline=False)) == [[3, 1]]
    assert list(json_values("[1, 2,]", inline=False)) == [[1, 2]]
    assert list(json_values("[" * 100_000, inline=True)) == []


def test_both_parsers_read_the_same_html_lists() -> None:
    forward = "<ol>\n  <li class='x'>Jaws</li>\n  <li>Alien &amp; more</li>\n</ol>"
    reverse = "<ol><li>a girl</li><li>a boy</li></ol>"
    assert parse_ranking(forward, FILMS, 5).items == (0,)
    assert parse_ranking(forward.replace(" &amp; more", ""), FILMS, 5).items == (0, 1)
    assert parse_user_ranking(reverse, USERS).order == (2, 0)
    assert break_html_lists("<ul><li>a</li><li>b</li></ul>").split() == ["-", "a", "-", "b"]
    assert strip_html("<b>Tom &amp; Jerry</b>") == "Tom & Jerry"
