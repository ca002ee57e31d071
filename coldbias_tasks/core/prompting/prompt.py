"""Prompt templates: the built-in named ones (``tasks/templates/<name>.<lang>.jinja``, listed in
``tasks/templates/templates.yaml``) or a user's Jinja file, rendered per persona and order.

A template gets ``domain, noun, noun_singular, items`` (titles in the order shown), ``k``,
``mitigation`` (bool), ``user`` (the persona sentence) and ``language``. On load every template
is rendered with probe values and must contain the user sentence, every shown title and k
(:func:`check_contract`); otherwise, or for an undefined variable, a :class:`TemplateError`
names the file and what is missing.

An open task (no catalog in the prompt) uses the template's open form ``open_<name>``
(:func:`open_template_name`): ``lines``, ``numbered`` and ``json`` have one; ``user_first`` has
none (its point is the user before the catalog). An open template gets ``items`` empty and must
show the user sentence and k but no catalog (:func:`check_open_contract`).

Templates are data, not code: they run in Jinja's immutable sandbox (no attribute of Python
internals, no method that changes a value), ``{% include %}`` and ``{% import %}`` reach only
files of the template's own folder; anything else is a :class:`TemplateError`. Persona phrases
and titles are values passed to the template, shown as literal text (never compiled).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2
import jinja2.sandbox

from coldbias_tasks.core.errors import TemplateError
from coldbias_tasks.core.files.jsonl import read_text
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.resources import tasks_dir

__all__ = [
    "DEFAULT_TEMPLATE",
    "Template",
    "TemplateInfo",
    "builtin_templates",
    "check_contract",
    "check_open_contract",
    "check_reverse_contract",
    "load_template",
    "open_template_name",
    "render_prompt",
    "render_reverse_prompt",
    "template_dir",
]

DEFAULT_TEMPLATE = "lines"
_PROBE_TITLES = ("Probe Title Alpha", "Probe Title Beta", "Probe Title Gamma")
_PROBE_USERS = ("I am probe user one.", "I am probe user two.")
_PROBE_K = 7
#: The domain and nouns templates are probed with (any domain's are passed the same way).
_PROBE_DOMAIN = "probe"
_PROBE_NOUNS = ("probe items", "probe item")
#: Largest template file read (bytes).
TEMPLATE_LIMIT = 1 << 20
#: What a template may not do (caught on load and on render).
_REFUSED = (jinja2.TemplateError, TypeError, ArithmeticError, RecursionError)
#: Longest text or list a template may build by repetition (``"x" * n``).
_REPEAT_LIMIT = 10_000


class _FolderLoader(jinja2.FileSystemLoader):
    """Includes from the template's own folder only: regular files up to the size limit."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, object]:
        path = Path(self.searchpath[0]).joinpath(*jinja2.loaders.split_template_path(template))
        big = path.is_file() and path.stat().st_size > TEMPLATE_LIMIT
        if big or (path.exists() and not path.is_file()):
            raise jinja2.TemplateNotFound(template)
        return super().get_source(environment, template)


class _Sandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox, also refusing ``**`` and huge repetitions (a template that would
    run for hours or fill the memory)."""

    intercepted_binops = frozenset({"**", "*"})

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: object, right: object
    ) -> object:
        if operator == "**":
            raise jinja2.sandbox.SecurityError("the power operator ** is not allowed")
        sizes = [x for x in (left, right) if isinstance(x, int) and not isinstance(x, bool)]
        if any(isinstance(x, (str, list, tuple)) for x in (left, right)) and any(
            n > _REPEAT_LIMIT for n in sizes
        ):
            raise jinja2.sandbox.SecurityError(
                f"repeating a text or list more than {_REPEAT_LIMIT:,} times is not allowed"
            )
        return super().call_binop(context, operator, left, right)


@dataclass(frozen=True)
class TemplateInfo:
    """A built-in template: ``format`` of the answer it asks for, whether it ``shares_prefix``,
    its ``languages`` (files present) and a ``description``."""

    name: str
    format: str
    shares_prefix: bool
    languages: tuple[str, ...]
    description: str
    kind: str = "forward"


@dataclass(frozen=True)
class Template:
    """A loaded template: the compiled Jinja ``template``, its ``name`` (built-in name or the
    file path), ``language``, ``sha256`` of the file text, ``file`` and ``shares_prefix``."""

    template: jinja2.Template
    name: str
    language: str
    sha256: str
    file: Path
    shares_prefix: bool


def template_dir() -> Path:
    return tasks_dir() / "templates"


@lru_cache(maxsize=1)
def builtin_templates() -> dict[str, TemplateInfo]:
    """The built-in templates by name, from ``templates.yaml`` and the files present."""
    folder = template_dir()
    raw = load_yaml(folder / "templates.yaml", TemplateError)
    out = {}
    for name, spec in raw.items():
        languages = sorted(p.name.split(".")[-2] for p in folder.glob(f"{name}.*.jinja"))
        out[name] = TemplateInfo(
            name,
            str(spec["format"]),
            bool(spec["shares_prefix"]),
            tuple(languages),
            str(spec.get("description", "")),
            str(spec.get("kind", "forward")),
        )
    return out


def _file(spec: str | None, language: str, kind: str = "forward") -> tuple[Path, str]:
    name = spec or {"forward": DEFAULT_TEMPLATE, "open": "open_lines"}.get(kind, "reverse")
    known = {n: i for n, i in builtin_templates().items() if i.kind == kind}
    if name in known:
        if language not in known[name].languages:
            raise TemplateError(
                f"template {name!r} has no {language!r} version (languages: "
                f"{', '.join(known[name].languages)}); pick another coldbias_language, or the "
                f"default template {DEFAULT_TEMPLATE!r}, or add {name}.{language}.jinja."
            )
        return template_dir() / f"{name}.{language}.jinja", name
    path = Path(name).expanduser()
    if path.suffix in (".jinja", ".j2", ".txt") or path.exists() or "/" in name:
        return path, str(path)
    raise TemplateError(
        f"coldbias_template {name!r} is neither a built-in template ({', '.join(known)}) nor an "
        "existing file; see `coldbias templates`."
    )


def render_prompt(
    template: Template | jinja2.Template,
    domain: str,
    items: Sequence[str],
    k: int,
    user: str,
    mitigation: bool,
    noun: tuple[str, str] = ("items", "item"),
    language: str = "en",
) -> str:
    """The user message for one persona and one catalog order. An undefined variable raises a
    TemplateError naming the template file."""
    jinja = template.template if isinstance(template, Template) else template
    try:
        return jinja.render(
            domain=domain,
            noun=noun[0],
            noun_singular=noun[1],
            items=list(items),
            k=k,
            user=user,
            mitigation=mitigation,
            language=language,
        ).strip()
    except jinja2.UndefinedError as err:
        where = template.file if isinstance(template, Template) else "the prompt template"
        raise TemplateError(
            f"prompt template {where}: {err.message}; it may use domain, noun, noun_singular, "
            "items, k, mitigation, user and language."
        ) from err
    except _REFUSED as err:
        where = template.file if isinstance(template, Template) else "the prompt template"
        raise _not_allowed(where, err) from err


def _not_allowed(where: object, err: Exception) -> TemplateError:
    """The error for a template doing what the sandbox refuses (internals, outside files)."""
    what = (
        f"includes {err.name!r}, not a file of the template's own folder"
        if isinstance(err, jinja2.TemplateNotFound)
        else f"does what a prompt template may not ({err})"
    )
    return TemplateError(
        f"prompt template {where} {what}; a template may only show its variables (loops, "
        "conditions, filters) and include files beside it. Remove that part of the template."
    )


def _probe(template: Template, titles: Sequence[str]) -> tuple[list[str], list[str]]:
    """The probe users' prompts with ``titles`` shown, and what the first one lacks, in order:
    the user sentence, each title, k (empty: nothing)."""
    renders = [
        render_prompt(template, _PROBE_DOMAIN, titles, _PROBE_K, user, True, _PROBE_NOUNS)
        for user in _PROBE_USERS
    ]
    first = renders[0]
    missing = [] if _PROBE_USERS[0] in first else ["the user sentence ({{ user }})"]
    missing += [f"the title {t!r}" for t in titles if t not in first]
    if str(_PROBE_K) not in first:
        missing.append("k ({{ k }})")
    return renders, missing


def check_contract(template: Template) -> bool:
    """Render with probe values: every shown title, k and the user sentence must appear (else
    a TemplateError naming what is missing). Returns whether the template shares the prompt
    prefix up to the user sentence across personas."""
    renders, missing = _probe(template, _PROBE_TITLES)
    first = renders[0]
    if missing:
        raise TemplateError(
            f"prompt template {template.file} cannot measure anything: its prompt lacks "
            f"{', '.join(missing)}. Every persona must see the catalog ({{% for title in items %}}"
            "…), the number to recommend and its own user sentence."
        )
    start = first.index(_PROBE_USERS[0])
    return first[:start] == renders[1][:start] and all(
        first.index(t) < start for t in _PROBE_TITLES
    )


#: Prefix of a built-in template's open form (``open_lines``: ``lines`` without a catalog).
OPEN_PREFIX = "open_"


def open_template_name(spec: str | None) -> str:
    """The template an open task uses for ``coldbias_template`` ``spec``: the built-in's open
    form (``lines`` → ``open_lines``; default ``open_lines``), an open form or a file path as
    given. A built-in without an open form raises a TemplateError naming those that have one."""
    name = spec or DEFAULT_TEMPLATE
    known = builtin_templates()
    if name in known and known[name].kind == "open":
        return name
    if name in known:
        if OPEN_PREFIX + name in known:
            return OPEN_PREFIX + name
        forms = ", ".join(n.removeprefix(OPEN_PREFIX) for n, i in known.items() if i.kind == "open")
        why = "its user-first order means nothing" if name == "user_first" else "it has no form"
        raise TemplateError(
            f"template {name!r} cannot ask an open task: with no catalog shown {why}. Use one "
            f"of {forms} (or your own Jinja file without the catalog) for open tasks."
        )
    return name


def check_open_contract(template: Template) -> bool:
    """An open prompt must show the user sentence and k, and no catalog: it renders the same
    with and without probe titles (else a TemplateError). Returns whether every persona shares
    the prompt up to the user sentence."""
    renders, missing = _probe(template, ())
    first = renders[0]
    if missing:
        raise TemplateError(
            f"open prompt template {template.file} cannot measure anything: its prompt lacks "
            f"{', '.join(missing)}."
        )
    shown = render_prompt(
        template, _PROBE_DOMAIN, _PROBE_TITLES, _PROBE_K, _PROBE_USERS[0], True, _PROBE_NOUNS
    )
    if shown != first:
        raise TemplateError(
            f"open prompt template {template.file} shows the catalog ({{{{ items }}}}); an open "
            "task asks without one. Remove the catalog from the template (see open_lines)."
        )
    start = first.index(_PROBE_USERS[0])
    return first[:start] == renders[1][:start]


@lru_cache(maxsize=32)
def load_template(spec: str | None = None, language: str = "en", kind: str = "forward") -> Template:
    """Load a built-in template by name (default :data:`DEFAULT_TEMPLATE`; ``kind="reverse"``:
    the reverse task's; ``kind="open"``: the open form, :func:`open_template_name`) in
    ``language``, or a Jinja file by path; checks the contract (:func:`check_contract` /
    :func:`check_reverse_contract` / :func:`check_open_contract`)."""
    if kind == "open":
        spec = open_template_name(spec)
    file, name = _file(spec, language, kind)
    try:
        text = read_text(file, TemplateError, TEMPLATE_LIMIT)
    except TemplateError as err:
        raise TemplateError(
            f"prompt template {str(err).rstrip('.')}; pass an existing Jinja file or a "
            "built-in template name as coldbias_template in --metadata."
        ) from err
    if not text.strip():
        raise TemplateError(f"prompt template {file} is empty; write the prompt in it.")
    env = _Sandbox(
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        loader=_FolderLoader(file.resolve().parent),
    )
    try:
        jinja = env.from_string(text)
    except jinja2.TemplateSyntaxError as err:
        raise TemplateError(f"prompt template {file}, line {err.lineno}: {err.message}") from err
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    probe = Template(jinja, name, language, sha, file, False)
    checks = {"forward": check_contract, "open": check_open_contract}
    shares = checks.get(kind, check_reverse_contract)(probe)
    return Template(jinja, name, language, sha, file, shares)


def render_reverse_prompt(
    template: Template, domain: str, item: str, users: Sequence[str], noun: str, language: str
) -> str:
    """The user message of one reverse document: one item and the users in the order shown."""
    try:
        return template.template.render(
            domain=domain, noun=noun, item=item, users=list(users), language=language
        ).strip()
    except jinja2.UndefinedError as err:
        raise TemplateError(
            f"reverse prompt template {template.file}: {err.message}; it may use domain, noun, "
            "item, users and language."
        ) from err
    except _REFUSED as err:
        raise _not_allowed(template.file, err) from err


def check_reverse_contract(template: Template) -> bool:
    """The reverse prompt must show the item and every user; returns False (no shared prefix:
    every prompt starts with its own item)."""
    users = ("probe user alpha", "probe user beta", "probe user gamma")
    text = render_reverse_prompt(
        template, _PROBE_DOMAIN, "Probe Item Title", users, _PROBE_NOUNS[0], "en"
    )
    missing = [f"the user {u!r}" for u in users if u not in text]
    if "Probe Item Title" not in text:
        missing.insert(0, "the item ({{ item }})")
    if missing:
        raise TemplateError(
            f"reverse prompt template {template.file} lacks {', '.join(missing)}; it must show "
            "the item and every user ({% for user in users %}…)."
        )
    return False
