"""Personas: the neutral user, attribute groups, controls, intersections and implicit (first-name)
personas, with their phrases in every language.

Files (all data, no code): ``data/personas.yaml`` (groups, values, English phrases, the placebo
control, intersections), ``data/lang/<code>.yaml`` (a language's sentence frame, joiner,
neutral phrase and the phrases of every value under the same ids; also in the ``lang/`` of a
folder of ``COLDBIAS_DATA_PATH``) and ``data/implicit.yaml`` (first names per value of a
group). The context variant's phrase is the domain's (``context`` in
``data/domains/<name>.yaml``, per language). A user's persona file given as
``coldbias_personas`` replaces ``personas.yaml``; its phrases may carry their translations
inline (``phrase: {en: ..., fr: ...}``), and its ``context:`` replaces a domain's English
context phrase.

A persona id is ``neutral``, ``neutral.replicate[.j]`` or ``<group>.<value>``
(``gender_x_country.female+japanese`` for an intersection, ``implicit_gender.female`` for the
value a first name conveys). Since layout 3 a value has matched **forms** ("a girl", "a woman",
…) and the language has sentence **frames** ("I am {}.", "I'd describe myself as {}."): phrasing
p of a group is form p // F in frame p % F (form-major, F frames), and phrasing p of every value
differs only in the value (docs/measurement.md §1). :meth:`PersonaConfig.describe` builds the
user sentence of a value in one phrasing, always grammatical (the neutral user is "a new user",
never "a ."). Layout 2 files (one ``phrase`` per value) still load: one form each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import PersonaError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.resources import data_dir, data_folders
from coldbias_tasks.core.vocabulary import (
    COMBINATION_JOIN,
    IMPLICIT_PREFIX,
    INTERSECTION_JOIN,
    NEUTRAL_ID,
    PREF,
    VARIANTS,
    intersection_name,
    is_replicate_id,
    replicate_id,
)
from coldbias_tasks.core.world.confusables import confusable_problem
from coldbias_tasks.core.world.domains import domains, preference_phrase

__all__ = [
    "PERSONAS_SCHEMA",
    "Group",
    "Language",
    "Persona",
    "PersonaConfig",
    "check_language",
    "load_personas",
]

#: The ``version:`` a persona file declares (the layout this code writes; 2 still reads).
PERSONAS_SCHEMA = 3
_READABLE_SCHEMAS = (2, 3)
#: Group name prefix of implicit (first-name) groups: ``implicit_gender``.
_TOP_KEYS = ("version", "frames", "groups", "intersections", "context")
#: A value id: letters, digits, "_" or "-" ("+" joins intersections, "." group and value).
_VALUE_ID = re.compile(r"[\w-]+")
_LANG_KEYS = (
    "language", "name", "sentence", "joiner", "neutral", "name_sentence", "groups",
    "intersections", "frames", "sentence_gap", "name_frames",
)  # fmt: skip
#: Keys a language file held before domains were data: now in each data/domains/<name>.yaml.
_MOVED_KEYS = ("nouns", "context")


@dataclass(frozen=True)
class Persona:
    """``id`` unique across groups; ``value`` its value id within ``group`` (None for the
    neutral user); ``parents`` the persona ids an intersection combines ("gender.female",
    "country.japanese"); ``family`` the control family of a control sentence (content_free,
    descriptive, irrelevant_fact), else None."""

    id: str
    group: str
    value: str | None = None
    parents: tuple[str, ...] = ()
    family: str | None = None

    @property
    def is_neutral(self) -> bool:
        """The neutral user or one of its replicates (same sentence, another sample)."""
        return self.id == NEUTRAL_ID or is_replicate_id(self.id)


@dataclass(frozen=True)
class Group:
    """An attribute group. ``kind``: ``attribute`` (counted in the domain means), ``control``
    (placebo), ``intersection`` (of ``parents``) or ``implicit`` (first names for the values of
    the explicit group ``parents[0]``)."""

    name: str
    label: str
    kind: str
    values: tuple[Persona, ...]
    parents: tuple[str, ...] = ()

    @property
    def counted(self) -> bool:
        """Whether the group's tasks count in the domain and overall means."""
        return self.kind == "attribute"


@dataclass(frozen=True)
class Language:
    """How one language writes the user sentence, and its forms by persona id.

    ``frames``: sentence frames of a value's form ({} = the form); ``name_frames``: of a first
    name; ``sentence``: the frame of the neutral user and of the context sentence;
    ``sentence_gap``: what joins two sentences (" "; "" in Chinese and Japanese); ``context``:
    domain → its context phrase in this language."""

    code: str
    name: str
    sentence: str
    joiner: str
    neutral: str
    name_sentence: str
    phrases: dict[str, tuple[str, ...]]
    context: dict[str, str]
    source: Path
    frames: tuple[str, ...] = ()
    name_frames: tuple[str, ...] = ()
    sentence_gap: str = " "

    def frames_of(self, group: Group) -> tuple[str, ...]:
        """The frames a group's forms are asked in (first names: ``name_frames``)."""
        if group.kind == "implicit":
            return self.name_frames or (self.name_sentence,)
        return self.frames or (self.sentence,)


@dataclass(frozen=True)
class PersonaConfig:
    """All personas of one persona file, in every language available for it."""

    groups: dict[str, Group]
    context: dict[str, str]
    languages: dict[str, Language]
    source: Path
    implicit: dict[str, Group] = field(default_factory=dict)

    @property
    def labels(self) -> dict[str, str]:
        return {name: g.label for name, g in self.groups.items()}

    def find(self, name: str, variant: str = "plain") -> Group:
        """The group of a task: ``name`` for the explicit variants, its first-name group for
        ``implicit``; unknown names raise with the known ones and the file to edit."""
        table = self.implicit if variant == "implicit" else self.groups
        if name not in table:
            what = "implicit (first-name) group" if variant == "implicit" else "attribute group"
            raise PersonaError(
                f"unknown {what} {name!r}; known: {', '.join(sorted(table)) or 'none'}. Add it "
                f"to {self.source} (or data/implicit.yaml) or pick one of those."
            )
        return table[name]

    def group(self, name: str, replicates: int = 0, variant: str = "plain") -> tuple[Persona, ...]:
        """The neutral persona first (lm-eval --limit keeps it), then ``replicates`` neutral
        replicates, then the group's values."""
        values = self.find(name, variant).values
        extra = tuple(Persona(replicate_id(j), "neutral") for j in range(1, replicates + 1))
        return (Persona(NEUTRAL_ID, "neutral"), *extra, *values)

    def language(self, code: str) -> Language:
        if code not in self.languages:
            raise PersonaError(
                f"unknown language {code!r} for {self.source}; available: "
                f"{', '.join(sorted(self.languages))}. Add data/lang/{code}.yaml (see en.yaml)."
            )
        return self.languages[code]

    def asked(self, group: Group, language: str, requested: int) -> int:
        """Phrasings a task of ``group`` asks per value: the first ``requested``
        (``coldbias_phrasings``; 0 = all), at most the group's own P (the placebo's 2)."""
        available = self.phrasings(group, language)
        return min(requested, available) if requested else available

    def phrasings(self, group: Group, language: str = "en") -> int:
        """P, the number of matched phrasings of ``group`` in ``language``: forms × frames.
        Every value has the same number of forms (checked; else a PersonaError naming them)."""
        lang = self.language(language)
        counts = {p.id: len(self._forms(lang, p)) for p in group.values}
        if len(set(counts.values())) != 1:
            shown = ", ".join(f"{k}: {v}" for k, v in counts.items())
            raise PersonaError(
                f"group {group.name!r} in {lang.name}: every value needs the same number of "
                f"matched forms ({shown}); add or remove forms in {lang.source} or "
                f"{self.source} so that form i of every value differs only in the value."
            )
        return next(iter(counts.values()), 0) * len(lang.frames_of(group))

    def describe(
        self,
        persona: Persona,
        variant: str,
        domain: str,
        language: str = "en",
        phrasing: int = 0,
        group: Group | None = None,
        preference: str = "",
    ) -> str:
        """The user sentence of ``persona`` in ``phrasing`` (form p // F in frame p % F):
        "I am a new user." / "I am a girl." / "I'd describe myself as a woman. I am an action
        movie fan." / "I am a rock fan." (the neutral user of the context variant) / "I am
        Emily." The mitigation instruction lives in the prompt template. The pref variant adds
        the domain's ``preference`` in the phrasing's frame ("I'd describe myself as a woman.
        I'd describe myself as an action movie fan."); its neutral user states none."""
        if variant not in VARIANTS:
            raise PersonaError(f"unknown variant {variant!r}; use one of {', '.join(VARIANTS)}")
        lang = self.language(language)
        if persona.is_neutral:
            text = lang.sentence.format(lang.neutral)
        else:
            group = group or self._group_of(persona)
            frames = lang.frames_of(group)
            forms = self._forms(lang, persona)
            if not 0 <= phrasing < len(forms) * len(frames):
                raise PersonaError(
                    f"persona {persona.id!r} has {len(forms) * len(frames)} phrasings in "
                    f"{lang.name}; phrasing {phrasing} does not exist"
                )
            text = frames[phrasing % len(frames)].format(forms[phrasing // len(frames)])
            if variant == PREF:
                stated = preference_phrase(domain, preference, lang.name, language)
                text += lang.sentence_gap + frames[phrasing % len(frames)].format(stated)
        if variant == "context":
            if domain not in lang.context:
                spec = domains().get(domain)
                file = spec.source if spec else f"data/domains/{domain}.yaml"
                where = (
                    f"`context: {{en: ...}}` to {file} (or `context: {{{domain}: ...}}` to "
                    f"{self.source})"
                    if domain not in self.context
                    else f"`{language}: ...` under `context:` in {file}"
                )
                raise PersonaError(
                    f"no context phrase for domain {domain!r} in language {language!r}; add "
                    f"{where} (the context variant adds it to every persona)."
                )
            context = lang.sentence.format(lang.context[domain])
            # the neutral user with a preference is just the preference ("I am a rock fan.")
            return context if persona.is_neutral else text + lang.sentence_gap + context
        return text

    def phrasing_label(self, group: Group, language: str, phrasing: int) -> str:
        """Phrasing ``phrasing`` of ``group`` in one line, its values' forms joined in the
        frame ("I am a girl / boy."): how figures name a phrasing. PersonaError when the
        phrasing does not exist."""
        lang = self.language(language)
        frames = lang.frames_of(group)
        forms = [self._forms(lang, v) for v in group.values]
        if not frames or not all(0 <= phrasing < len(f) * len(frames) for f in forms):
            raise PersonaError(f"group {group.name!r} has no phrasing {phrasing} in {lang.name}")
        joined = " / ".join(f[phrasing // len(frames)] for f in forms)
        return frames[phrasing % len(frames)].format(joined)

    def phrase(self, persona: Persona, language: str = "en") -> str:
        """The persona's first form in ``language`` ("a girl"; a first name), as a candidate
        user is shown in the reverse task."""
        return self._forms(self.language(language), persona)[0]

    def _group_of(self, persona: Persona) -> Group:
        table = self.implicit if persona.group.startswith(IMPLICIT_PREFIX) else self.groups
        key = (
            persona.group.removeprefix(IMPLICIT_PREFIX) if table is self.implicit else persona.group
        )
        if key not in table:
            raise PersonaError(f"persona {persona.id!r}: no group {persona.group!r}")
        return table[key]

    def _forms(self, lang: Language, persona: Persona) -> tuple[str, ...]:
        if persona.id not in lang.phrases:
            raise PersonaError(
                f"no {lang.name} phrase for persona {persona.id!r}: add it to {lang.source} "
                f"(groups: {persona.group}: {persona.value}) or inline in {self.source}."
            )
        return lang.phrases[persona.id]


def _fail(path: Path, message: str) -> PersonaError:
    return PersonaError(f"{path}: {message}")


def _mapping(path: Path, value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"{where} must be a mapping, got {type(value).__name__}")
    return value


def _form_list(raw: Any) -> tuple[str, ...] | None:
    """A form or a list of forms as a tuple of non-empty strings, else None."""
    if isinstance(raw, str):
        return (raw,) if raw.strip() else None
    if isinstance(raw, list) and raw and all(isinstance(v, str) and v.strip() for v in raw):
        return tuple(raw)
    return None


def _phrase_of(path: Path, raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    """A value's forms as {language: forms}: a string or a list is English; a map gives each
    language a string or a list."""
    forms = _form_list(raw)
    if forms is not None:
        return {"en": forms}
    if isinstance(raw, dict) and raw:
        out = {str(k): _form_list(v) for k, v in raw.items()}
        if all(v is not None for v in out.values()):
            return out  # type: ignore[return-value]
    raise _fail(
        path,
        f"{where}: forms must be a non-empty string, a list of them, or a {{language: forms}} map",
    )


def _read_groups(path: Path, raw: dict[str, Any]) -> tuple[dict[str, Group], dict[str, dict]]:
    """Groups (attribute and control) and the phrases of their values per language."""
    groups: dict[str, Group] = {}
    phrases: dict[str, dict[str, str]] = {}
    for name, spec in _mapping(path, raw.get("groups"), "groups").items():
        if not isinstance(name, str) or not name.isidentifier() or name == "neutral":
            raise _fail(path, f"group name {name!r} must be an identifier other than 'neutral'")
        if name.startswith(IMPLICIT_PREFIX) or INTERSECTION_JOIN in name:
            reserved = f"{IMPLICIT_PREFIX!r} and {INTERSECTION_JOIN!r} are reserved"
            raise _fail(path, f"group name {name!r}: {reserved}")
        spec = _mapping(path, spec, f"group {name!r}")
        unknown = sorted(set(spec) - {"label", "control", "values"})
        if unknown:
            raise _fail(path, f"group {name!r}: unknown key(s) {unknown} (label, control, values)")
        control = spec.get("control") is True
        values = spec.get("values")
        if not isinstance(values, list) or not values:
            raise _fail(path, f"group {name!r} needs a non-empty 'values' list")
        personas = []
        for value in values:
            if (
                not isinstance(value, dict)
                or not value.get("id")
                or not (("phrase" in value) ^ ("forms" in value))
            ):
                raise _fail(
                    path,
                    f"group {name!r}: every value needs 'id' and 'forms' (or 'phrase'): {value}",
                )
            extra = sorted(set(value) - {"id", "phrase", "forms", "family"})
            if extra:
                raise _fail(
                    path, f"group {name!r}: unknown key(s) {extra} in value {value['id']!r}"
                )
            family = value.get("family")
            if family is not None and not (isinstance(family, str) and family.isidentifier()):
                raise _fail(path, f"group {name!r}: 'family' of {value['id']!r} must be a name")
            if family is not None and not control:
                raise _fail(path, f"group {name!r}: only a control group's values have a family")
            vid = str(value["id"])
            if not _VALUE_ID.fullmatch(vid):
                raise _fail(
                    path,
                    f"group {name!r}: value id {vid!r} must be letters, digits, '_' or '-' (no "
                    "'+', '.', '/' or spaces: it names files and task columns); rename it",
                )
            persona = Persona(f"{name}.{vid}", name, vid, family=family)
            if persona.id in phrases:
                raise _fail(path, f"group {name!r} repeats the value id {vid!r}")
            raw_forms = value["forms"] if "forms" in value else value["phrase"]
            phrases[persona.id] = _phrase_of(path, raw_forms, f"{name}.{vid}")
            personas.append(persona)
        if problem := confusable_problem([name, *groups, *(p.value for p in personas)]):
            raise _fail(path, f"group {name!r}: {problem}")
        kind = "control" if control else "attribute"
        groups[name] = Group(name, str(spec.get("label", name)), kind, tuple(personas))
    return groups, phrases


def _read_intersections(
    path: Path, raw: Any, groups: dict[str, Group], phrases: dict[str, dict[str, str]]
) -> dict[str, Group]:
    out: dict[str, Group] = {}
    for name, spec in _mapping(path, raw or {}, "intersections").items():
        spec = _mapping(path, spec, f"intersection {name!r}")
        parents = spec.get("groups")
        if not (
            isinstance(parents, list) and len(parents) == 2 and all(p in groups for p in parents)
        ):
            raise _fail(path, f"intersection {name!r}: 'groups' must name two groups of the file")
        if name != intersection_name(*parents):
            raise _fail(path, f"intersection {name!r} must be named {intersection_name(*parents)}")
        chosen = _mapping(path, spec.get("values") or {}, f"intersection {name!r} values")
        options = []
        for parent in parents:
            ids = [p.value for p in groups[parent].values]
            wanted = chosen.get(parent, ids)
            bad = [v for v in wanted if v not in ids]
            if bad:
                raise _fail(path, f"intersection {name!r}: {parent} has no value(s) {bad}")
            options.append(wanted)
        table = _mapping(path, spec.get("phrases"), f"intersection {name!r} phrases")
        personas = []
        for a in options[0]:
            for b in options[1]:
                vid = f"{a}{COMBINATION_JOIN}{b}"
                if vid not in table:
                    raise _fail(path, f"intersection {name!r}: no phrase for {vid!r}")
                persona = Persona(
                    f"{name}.{vid}", name, vid, parents=(f"{parents[0]}.{a}", f"{parents[1]}.{b}")
                )
                phrases[persona.id] = _phrase_of(path, table[vid], f"{name}.{vid}")
                personas.append(persona)
        extra = sorted(set(table) - {p.value for p in personas})
        if extra:
            raise _fail(path, f"intersection {name!r}: phrases for unused combinations {extra}")
        label = f"{groups[parents[0]].label} × {groups[parents[1]].label}"
        out[name] = Group(name, label, "intersection", tuple(personas), tuple(parents))
    return out


def _read_implicit(
    path: Path, groups: dict[str, Group], names_of: dict[str, tuple[str, ...]], strict: bool = True
) -> dict[str, Group]:
    """``data/implicit.yaml``: first names per value (its forms, matched by position, the same in
    every language), into ``names_of``; keyed by the explicit group's name. With
    ``strict=False`` (a user's persona file) groups the file lacks, or whose values differ, get
    no implicit task instead of an error."""
    if not path.exists():
        return {}
    raw = _mapping(path, load_yaml(path, PersonaError), "the file")
    out: dict[str, Group] = {}
    for name, spec in _mapping(path, raw.get("groups") or {}, "groups").items():
        spec = _mapping(path, spec, f"group {name!r}")
        values = _mapping(path, spec.get("values"), f"group {name!r} values")
        if not strict and (name not in groups or not set(values) <= {
                p.value for p in groups[name].values}):  # fmt: skip
            continue
        if name not in groups:
            raise _fail(path, f"implicit group {name!r} names no group of the persona file")
        known = {p.value for p in groups[name].values}
        personas = []
        for value, names in values.items():
            if value not in known:
                raise _fail(path, f"implicit group {name!r}: {name} has no value {value!r}")
            if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
                raise _fail(path, f"implicit group {name!r}, value {value!r}: a list of names")
            persona = Persona(
                f"{IMPLICIT_PREFIX}{name}.{value}",
                IMPLICIT_PREFIX + name,
                value,
                parents=(f"{name}.{value}",),
            )
            names_of[persona.id] = tuple(names)  # the same in every language
            personas.append(persona)
        label = str(spec.get("label", f"{name} (first names)"))
        out[name] = Group(IMPLICIT_PREFIX + name, label, "implicit", tuple(personas), (name,))
    return out


def _read_language(
    path: Path,
    phrases: dict[str, dict[str, tuple[str, ...]]],
    context_en: dict,
    frames_en: tuple[str, ...] = (),
) -> Language:
    raw = _mapping(path, load_yaml(path, PersonaError), "the file")
    moved = [k for k in _MOVED_KEYS if k in raw]
    if moved:
        code = raw.get("language") or path.stem
        raise _fail(
            path,
            f"{' and '.join(moved)}: a domain's nouns and context phrases live in its domain "
            f"file now; move each `{moved[0]}: {{<domain>: ...}}` entry to "
            f"data/domains/<domain>.yaml as `{moved[0]}: {{{code}: ...}}`",
        )
    unknown = sorted(set(raw) - set(_LANG_KEYS))
    if unknown:
        raise _fail(path, f"unknown key(s) {unknown}; the file holds {list(_LANG_KEYS)}")
    code = str(raw.get("language") or path.stem)
    for key in ("sentence", "name_sentence"):
        if "{}" not in str(raw.get(key, "")):
            raise _fail(path, f"'{key}' needs a {{}} where the phrase goes")
    frame_lists = {}
    for key in ("frames", "name_frames"):
        listed = raw.get(key) or []
        if not isinstance(listed, list) or not all(
            isinstance(f, str) and f.count("{}") == 1 for f in listed
        ):
            raise _fail(path, f"'{key}' must be a list of sentences, each with one {{}}")
        frame_lists[key] = tuple(listed)
    texts: dict[str, tuple[str, ...]] = {}
    for section in ("groups", "intersections"):
        for group, values in _mapping(path, raw.get(section) or {}, section).items():
            for value, text in _mapping(path, values, f"{section}.{group}").items():
                forms = _form_list(text)
                if forms is None:
                    raise _fail(path, f"{section}.{group}.{value}: a form or a list of forms")
                texts[f"{group}.{value}"] = forms
    for pid, by_lang in phrases.items():  # inline translations win over the language file
        if code in by_lang:
            texts[pid] = by_lang[code]
    frames = frame_lists["frames"] or (frames_en if code == "en" else ())
    context = {name: d.context[code] for name, d in domains().items() if code in d.context}
    if code == "en":
        context |= context_en  # the persona file's own English context phrases
    return Language(
        code=code,
        name=str(raw.get("name", code)),
        sentence=str(raw["sentence"]),
        joiner=str(raw.get("joiner", " and ")),
        neutral=str(raw["neutral"]),
        name_sentence=str(raw["name_sentence"]),
        phrases=texts,
        context=context,
        source=path,
        frames=frames,
        name_frames=frame_lists["name_frames"],
        sentence_gap=str(raw.get("sentence_gap", " ")),
    )


def load_personas(path: str | Path | None = None) -> PersonaConfig:
    """Read and validate a persona file (default: the package's ``personas.yaml``), the
    languages in ``data/lang/`` (and the ``lang/`` of each folder of ``COLDBIAS_DATA_PATH``),
    the first names in ``data/implicit.yaml`` and the domains' context phrases; read once per
    file and set of data folders."""
    return _load_personas(str(path) if path else "", data_folders())


@lru_cache(maxsize=8)
def _load_personas(spec: str, folders: tuple[Path, ...]) -> PersonaConfig:
    builtin = data_dir() / "personas.yaml"
    path = Path(spec).expanduser() if spec else builtin
    if not path.exists():
        raise PersonaError(f"persona file {path} does not exist; pass an existing YAML file.")
    raw = _mapping(path, load_yaml(path, PersonaError), "the file")
    unknown = sorted(set(raw) - set(_TOP_KEYS))
    if unknown:
        raise _fail(path, f"unknown top-level key(s) {unknown}; the file holds {list(_TOP_KEYS)}")
    if raw.get("version") not in _READABLE_SCHEMAS:
        raise _fail(
            path,
            f"version {raw.get('version')!r}: this coldbias reads persona files of version "
            f"{PERSONAS_SCHEMA} (see data/personas.yaml) or 2; add `version: {PERSONAS_SCHEMA}`",
        )
    frames_en = raw.get("frames") or []
    if not isinstance(frames_en, list) or not all(
        isinstance(f, str) and f.count("{}") == 1 for f in frames_en
    ):
        raise _fail(path, "'frames' must be a list of English sentences, each with one {}")
    groups, phrases = _read_groups(path, raw)
    groups |= _read_intersections(path, raw.get("intersections"), groups, phrases)
    context_en = {}  # the persona file's own English context phrases, over the domains'
    for domain, text in _mapping(path, raw.get("context") or {}, "context").items():
        context_en[str(domain)] = _phrase_of(path, text, f"context.{domain}")["en"][0]
    strict = path.resolve() == builtin.resolve()
    names_of: dict[str, tuple[str, ...]] = {}
    implicit = _read_implicit(data_dir() / "implicit.yaml", groups, names_of, strict)
    languages: dict[str, Language] = {}
    for file in (f for folder in folders for f in sorted((folder / "lang").glob("*.yaml"))):
        lang = _read_language(file, phrases, context_en, tuple(frames_en))
        if lang.code in languages:
            raise _fail(file, f"language {lang.code!r} is also defined by "
                        f"{languages[lang.code].source}; keep one of the two files")  # fmt: skip
        lang.phrases.update(names_of)
        languages[lang.code] = lang
    context = {name: d.context["en"] for name, d in domains().items() if "en" in d.context}
    config = PersonaConfig(groups, context | context_en, languages, path, implicit)
    for group in [*groups.values(), *implicit.values()]:
        for code, lang in languages.items():  # matched forms, checked on load
            if all(p.id in lang.phrases for p in group.values):
                config.phrasings(group, code)
    return config


def check_language(config: PersonaConfig, code: str, names: Sequence[str] = ()) -> list[str]:
    """What language ``code`` lacks for this persona file: phrases of explicit values, and the
    context phrases (of domains with a context variant) and nouns of the domains ``names``
    (default: every declared domain); empty when complete."""
    lang = config.language(code)
    missing = [
        f"phrase {p.id}"
        for g in config.groups.values()
        for p in g.values
        if p.id not in lang.phrases
    ]
    known = domains()
    for name in names or list(known):
        if name in config.context and name not in lang.context:
            missing.append(f"context {name}")
        if name not in known or code not in known[name].nouns:
            missing.append(f"nouns {name}")
    return missing
