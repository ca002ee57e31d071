"""Personas: the neutral user plus attribute groups, read from ``data/personas.yaml``.

A persona id is ``"neutral"`` or ``"<group>.<value id>"`` ("country.american" and
"continent.american" stay distinct). ``describe`` turns a persona and a variant into the sentence
the prompt shows, always grammatical (the neutral user is "a new user", never "a .").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from coldbias_tasks.core.errors import PersonaError
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.vocabulary import NEUTRAL_ID, NEUTRAL_REPLICATE_ID, VARIANTS

__all__ = ["PERSONAS_SCHEMA", "Persona", "PersonaConfig", "describe", "load_personas"]

#: The ``version:`` a persona file declares (the layout this code reads).
PERSONAS_SCHEMA = 1
_TOP_KEYS = ("version", "groups", "context")


@dataclass(frozen=True)
class Persona:
    """``id`` unique across groups; ``phrase`` completes "I am ..." (None for neutral)."""

    id: str
    group: str
    phrase: str | None

    @property
    def is_neutral(self) -> bool:
        """The neutral user or its replicate (same sentence, a second sample)."""
        return self.id in (NEUTRAL_ID, NEUTRAL_REPLICATE_ID)


@dataclass(frozen=True)
class PersonaConfig:
    groups: dict[str, tuple[Persona, ...]]
    labels: dict[str, str]
    context: dict[str, str]
    neutral: Persona
    neutral_replicate: Persona

    def group(self, name: str, replicate: bool = False) -> tuple[Persona, ...]:
        """The neutral persona first (lm-eval --limit keeps it), then with ``replicate`` the
        neutral replicate, then the group's values.
        """
        if name not in self.groups:
            known = ", ".join(sorted(self.groups))
            raise PersonaError(
                f"unknown attribute group {name!r}; known groups: {known}. "
                f"Add it to {data_dir() / 'personas.yaml'} or pick one of those."
            )
        extra = (self.neutral_replicate,) if replicate else ()
        return (self.neutral, *extra, *self.groups[name])


def _fail(path: Path, message: str) -> PersonaError:
    return PersonaError(f"{path}: {message}")


@lru_cache(maxsize=8)
def load_personas(path: str | Path | None = None) -> PersonaConfig:
    """Read and validate the persona file (default: the package's ``personas.yaml``)."""
    path = Path(path) if path else data_dir() / "personas.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or not isinstance(raw.get("groups"), dict):
        raise _fail(path, "expected a mapping with a 'groups' mapping of group name → values")
    unknown = sorted(set(raw) - set(_TOP_KEYS))
    if unknown:
        raise _fail(path, f"unknown top-level key(s) {unknown}; the file holds {list(_TOP_KEYS)}")
    if raw.get("version", PERSONAS_SCHEMA) != PERSONAS_SCHEMA:
        raise _fail(
            path,
            f"version {raw.get('version')!r}: this coldbias reads persona files of version "
            f"{PERSONAS_SCHEMA}; write the file in that layout or upgrade coldbias",
        )
    groups: dict[str, tuple[Persona, ...]] = {}
    labels: dict[str, str] = {}
    for name, spec in raw["groups"].items():
        values = spec.get("values") if isinstance(spec, dict) else None
        if not values:
            raise _fail(path, f"group {name!r} needs a non-empty 'values' list")
        personas = []
        for value in values:
            if not isinstance(value, dict) or not value.get("id") or not value.get("phrase"):
                raise _fail(path, f"group {name!r}: every value needs 'id' and 'phrase': {value}")
            personas.append(Persona(f"{name}.{value['id']}", name, str(value["phrase"])))
        ids = [p.id for p in personas]
        if len(set(ids)) != len(ids):
            raise _fail(path, f"group {name!r} repeats a value id: {ids}")
        groups[name] = tuple(personas)
        labels[name] = str(spec.get("label", name))
    neutral = Persona(NEUTRAL_ID, "neutral", None)
    replicate = Persona(NEUTRAL_REPLICATE_ID, "neutral", None)
    return PersonaConfig(groups, labels, dict(raw.get("context") or {}), neutral, replicate)


def describe(persona: Persona, variant: str, domain: str, config: PersonaConfig) -> str:
    """The user sentence: "I am a new user." / "I am a girl." / "I am a girl and an action movie
    fan." The mitigation instruction lives in the prompt template, identical for all personas.
    """
    if variant not in VARIANTS:
        raise PersonaError(f"unknown variant {variant!r}; use one of {', '.join(VARIANTS)}")
    parts = [persona.phrase] if persona.phrase else []
    if variant == "context":
        if domain not in config.context:
            raise PersonaError(f"no context preference for domain {domain!r} in personas.yaml")
        parts.append(config.context[domain])
    if not parts:
        return "I am a new user."
    return "I am " + " and ".join(parts) + "."
