"""Prompt rendering from a Jinja template file (default ``tasks/templates/recommend.jinja``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import jinja2

from coldbias_tasks.core.errors import TemplateError
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.vocabulary import DOMAINS

__all__ = ["default_template_path", "load_template", "render_prompt"]


def default_template_path() -> Path:
    return tasks_dir() / "templates" / "recommend.jinja"


@lru_cache(maxsize=8)
def load_template(path: str | None = None) -> tuple[jinja2.Template, str]:
    """(compiled template, sha256 of its text). Missing or broken files raise a clear error."""
    file = Path(path) if path else default_template_path()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as err:
        raise TemplateError(
            f"prompt template {file} cannot be read ({err.strerror}); pass an existing Jinja file "
            "as coldbias_template in --metadata."
        ) from err
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False)
    try:
        template = env.from_string(text)
    except jinja2.TemplateSyntaxError as err:
        raise TemplateError(f"prompt template {file}, line {err.lineno}: {err.message}") from err
    return template, hashlib.sha256(text.encode("utf-8")).hexdigest()


def render_prompt(
    template: jinja2.Template,
    domain: str,
    items: Sequence[str],
    k: int,
    user: str,
    mitigation: bool,
) -> str:
    """The user message for one persona and one catalog order."""
    spec = DOMAINS.get(domain)
    noun, singular = (spec.noun, spec.noun_singular) if spec else ("items", "item")
    return template.render(
        domain=domain,
        noun=noun,
        noun_singular=singular,
        items=list(items),
        k=k,
        user=user,
        mitigation=mitigation,
    ).strip()
