"""Prompt templates run in a sandbox: template code is refused and runs nothing, includes stay in
the template's own folder, persona phrases and titles stay literal text, special or huge
template files are refused (issue 24)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coldbias_tasks.core.errors import (
    TemplateError,
)
from coldbias_tasks.core.prompting.prompt import load_template, render_prompt

# --- 2. templates in a sandbox --------------------------------------------------------------

_BODY = "{{ user }} {% for t in items %}{{ t }}\n{% endfor %} pick {{ k }}"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}", "unsafe"),
        ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "unsafe"),
        ("{{ items.append(1) }}", "unsafe"),
        ("{% include '/etc/passwd' %}", "not a file of the template's own folder"),
        ("{% include '../victim.txt' %}", "not a file of the template's own folder"),
        ("{% include 'fifo.txt' %}", "not a file of the template's own folder"),
        ("{{ 9**9**9 }}", "power operator"),
        ("{{ 'x' * 10**3 * 10**6 }}", "not allowed"),
        ("{{ 'x' * 100000000 }}", "more than 10,000 times"),
        ("{{ 1 / 0 }}", "division by zero"),
        ("{% include 'self.jinja' %}", "recursion"),
    ],
)
def test_template_code_is_refused_and_runs_nothing(
    tmp_path: Path, monkeypatch, code: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "tpl"
    folder.mkdir()
    (tmp_path / "victim.txt").write_text("secret")
    os.mkfifo(folder / "fifo.txt")
    path = folder / "self.jinja"
    path.write_text(code + _BODY)
    with pytest.raises(TemplateError, match=message) as err:
        load_template(str(path))
    assert str(path) in str(err.value) and "Remove that part" in str(err.value)
    assert not (tmp_path / "PWNED").exists()


def test_template_includes_from_its_own_folder_work(tmp_path: Path) -> None:
    (tmp_path / "intro.txt").write_text("Hello from the intro.")
    path = tmp_path / "t.jinja"
    path.write_text("{% include 'intro.txt' %} " + _BODY)
    text = render_prompt(load_template(str(path)), "movie", ["Heat"], 1, "I am me.", False)
    assert text.startswith("Hello from the intro.") and "Heat" in text


def test_persona_phrases_and_titles_stay_literal_text() -> None:
    """Data is never compiled: Jinja in a title or user sentence is shown as typed."""
    evil = "{{ cycler.__init__.__globals__.os.popen('id').read() }}"
    titles = ["Heat", "{% for x in range(3) %}X{% endfor %}", evil]
    text = render_prompt(load_template(), "movie", titles, 2, f"I am {evil}.", False)
    assert text.count(evil) == 2 and titles[1] in text


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_template_that_is_not_a_regular_file_is_refused(tmp_path: Path, special: str) -> None:
    path = special
    if special == "fifo":
        path = str(tmp_path / "t.jinja")
        os.mkfifo(path)
    with pytest.raises(TemplateError, match="not a regular file"):
        load_template(path)


def test_huge_template_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.jinja"
    path.write_text(_BODY + " " * (2 << 20))
    with pytest.raises(TemplateError, match="more than the 1,048,576 coldbias reads"):
        load_template(str(path))
