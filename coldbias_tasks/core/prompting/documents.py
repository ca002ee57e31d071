"""The documents of one coldbias task: one per (persona, repeat), neutral persona first.

Settings come from lm-eval ``--metadata`` (:mod:`coldbias_tasks.core.settings`): k, the
catalog items shown (a seeded subset stratified by the domain's ``stratum`` field, proportional
allocation, largest remainder), repeats, neutral replicates per repeat, the catalog order
(``shuffle``: a seeded order per repeat, the same for every persona, attribute group and
variant of a domain, so the counterfactual pairing holds and vLLM shares the prefix; or
``fixed``), the seed, the test level, the template and language, and a user's catalog or
persona file.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from coldbias_tasks import __version__
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.prompting.prompt import load_template, render_prompt, render_reverse_prompt
from coldbias_tasks.core.records import ReverseDoc, TaskDoc
from coldbias_tasks.core.settings import DEFAULTS, Settings
from coldbias_tasks.core.vocabulary import (
    OPEN,
    PREF,
    VARIANTS,
    reverse_task_name,
    sentence_id,
    task_name,
)
from coldbias_tasks.core.world.catalog import Catalog, load_catalog
from coldbias_tasks.core.world.domains import domain as domain_of
from coldbias_tasks.core.world.domains import domains, preference_ids
from coldbias_tasks.core.world.personas import Group, PersonaConfig, load_personas

__all__ = [
    "DEFAULTS",
    "TEMPERATURE",
    "Settings",
    "answer_list_tokens",
    "build_docs",
    "build_reverse_docs",
    "cell_parts",
    "domain_budget",
    "forward_tasks",
    "generation_budget",
    "shown_order",
    "shown_titles",
    "subset",
    "variant_domains",
    "variant_groups",
]


def cell_parts(cell: int, n_phrasings: int) -> tuple[int, int]:
    """A pref task's cell j as (preference index, phrasing): cell j = q × P + p states preference
    q in phrasing p (P = ``n_phrasings``); a plain task's phrasing p is (0, p)."""
    return divmod(cell, n_phrasings)


#: Sampling temperature of every task (the seed study's setting), in every harness.
TEMPERATURE = 0.7


def variant_groups(config: PersonaConfig, variant: str) -> list[Group]:
    """The groups that get tasks in ``variant``: attribute groups and controls in every
    explicit variant (``open`` included) but ``pref`` (attribute groups only), intersections in
    ``plain`` only, first-name groups in ``implicit``."""
    if variant == "implicit":
        return list(config.implicit.values())
    if variant == PREF:
        return [g for g in config.groups.values() if g.kind == "attribute"]
    kinds = (
        ("attribute", "control", "intersection") if variant == "plain" else ("attribute", "control")
    )
    return [g for g in config.groups.values() if g.kind in kinds]


def variant_domains(config: PersonaConfig, variant: str) -> list[str]:
    """The domains that get tasks in ``variant`` (the context variant: those with a context
    phrase; the pref variant: those declaring preferences), in display order."""
    return [
        d
        for d in domains()
        if (variant != "context" or d in config.context)
        and (variant != PREF or domains()[d].preferences)
    ]


def forward_tasks(config: PersonaConfig | None = None) -> list[tuple[str, str, str]]:
    """(domain, group key, variant) of every forward task, in task-file order: the tasks
    ``taskgen`` writes YAML for and Inspect registers (an implicit group's key is its parent
    attribute group)."""
    config = config or load_personas()
    out = []
    for variant in VARIANTS:
        groups = variant_groups(config, variant)
        for domain in variant_domains(config, variant):
            for group in groups:
                out.append((domain, group.parents[0] if group.kind == "implicit" else group.name,
                            variant))  # fmt: skip
    return out


def subset(catalog: Catalog, n_items: int, seed: int, stratum: str | None) -> list[int]:
    """Seeded, stratified choice of ``n_items`` catalog indices, returned in catalog order."""
    total = len(catalog)
    if n_items >= total:
        return list(range(total))
    rng = random.Random(f"{seed}:{catalog.sha256}:subset")
    if not stratum or stratum not in catalog.table.columns:
        return sorted(rng.sample(range(total), n_items))
    groups: dict[str, list[int]] = {}
    for index, value in enumerate(catalog.table[stratum]):
        groups.setdefault(str(value), []).append(index)
    exact = {g: n_items * len(members) / total for g, members in groups.items()}
    quota = {g: int(x) for g, x in exact.items()}
    leftover = n_items - sum(quota.values())
    for g in sorted(exact, key=lambda g: (quota[g] - exact[g], g))[:leftover]:
        quota[g] += 1
    chosen: list[int] = []
    for g in sorted(groups):
        chosen.extend(rng.sample(groups[g], quota[g]))
    return sorted(chosen)


#: Characters per token assumed by :func:`generation_budget`. Qwen2.5's tokenizer averages 2.7
#: (movies), 3.0 (songs) and 3.8 (universities) characters per numbered answer line.
CHARS_PER_TOKEN = 3.0
#: Characters around a title on an answer line: numbering ("20. "), JSON quotes and comma.
LINE_OVERHEAD_CHARS = 6
#: Room over the mean answer length (years, a short comment, a longer pick of titles).
BUDGET_MARGIN = 1.5
#: Tokens for a lead-in sentence, a closing sentence or a code fence around the list.
PREAMBLE_TOKENS = 32


def generation_budget(titles: Sequence[str], k: int) -> int:
    """``max_gen_toks`` (tokens) for an answer of ``k`` titles picked from ``titles``:
    :data:`PREAMBLE_TOKENS` + k × (mean title length + :data:`LINE_OVERHEAD_CHARS`) /
    :data:`CHARS_PER_TOKEN` × :data:`BUDGET_MARGIN`, rounded up to a multiple of 16. A complete
    answer fits (measured p99 of 20-title answers with Qwen's tokenizer: 167 / 248 / 178 tokens
    for movies / songs / universities, budgets 240 / 384 / 352); a repetition loop is cut after
    about 1.5 answers. Reasoning models need more: ``--gen_kwargs max_gen_toks=4096``.
    """
    if not titles or k < 1:
        return PREAMBLE_TOKENS
    tokens = PREAMBLE_TOKENS + answer_list_tokens(titles, k) * BUDGET_MARGIN
    return 16 * math.ceil(tokens / 16 - 1e-9)


def answer_list_tokens(titles: Sequence[str], k: int) -> float:
    """Expected tokens of the list part of a complete answer of ``k`` titles picked from
    ``titles``: k × (mean title length + :data:`LINE_OVERHEAD_CHARS`) / :data:`CHARS_PER_TOKEN`
    (0 for no titles or k < 1). A whole answer adds :data:`PREAMBLE_TOKENS` at most."""
    if not titles or k < 1:
        return 0.0
    mean = sum(len(t) for t in titles) / len(titles)
    return k * (mean + LINE_OVERHEAD_CHARS) / CHARS_PER_TOKEN


def domain_budget(domain: str, metadata: Mapping[str, Any]) -> int:
    """:func:`generation_budget` for the catalog items a task of ``domain`` shows with these
    ``coldbias_*`` settings (the subset, the user's catalog, k).
    """
    return generation_budget(shown_titles(domain, metadata), Settings.from_metadata(metadata).k)


def shown_titles(domain: str, metadata: Mapping[str, Any]) -> list[str]:
    """The titles of the catalog subset a task of ``domain`` shows with these settings (in
    catalog order)."""
    catalog, settings = _catalog_and_settings(domain, metadata)
    items = subset(catalog, settings.n_items, settings.seed, _stratum(domain))
    return [catalog.titles[i] for i in items]


def _stratum(domain: str) -> str | None:
    spec = domains().get(domain)
    return spec.stratum if spec else None


def _catalog_and_settings(domain: str, metadata: Mapping[str, Any]) -> tuple[Catalog, Settings]:
    settings = Settings.from_metadata(metadata)
    catalog = load_catalog(settings.catalog or domain)
    return catalog, settings.for_catalog(len(catalog), settings.catalog or domain)


def shown_order(
    items: list[int], order: str, seed: int, catalog: Catalog, repeat: int
) -> list[int]:
    """The catalog indices in the order shown at ``repeat``."""
    if order == "fixed":
        return list(items)
    shuffled = list(items)
    random.Random(f"{seed}:{catalog.sha256}:repeat{repeat}").shuffle(shuffled)
    return shuffled


def build_docs(domain: str, group: str, variant: str, metadata: Mapping[str, Any]) -> list[TaskDoc]:
    """All documents of task ``coldbias_{domain}[_{variant}]_{group}``, neutral persona first:
    the neutral user and its replicates, then every value in each of its first P matched
    phrasings (``coldbias_phrasings``; 0 = all), in every repeat. The pref variant asks every
    value in P × Q cells: cell j states preference j // P (the domain's ``preferences``, in
    order) in phrasing j % P; its documents' ``phrasing`` is the cell j.

    Each doc carries what the filter and the aggregations need (persona, value, phrasing,
    repeat, k, the shown order, the test level) and the provenance of its prompt (catalog and
    template hashes, template name, language, seed). An open task's documents show no catalog
    (``shown_ids`` empty; the template's open form, :func:`~.prompt.open_template_name`); its
    answers are grounded against the domain's whole catalog.
    """
    if variant not in VARIANTS:
        raise SettingsError(f"unknown variant {variant!r}; use one of {', '.join(VARIANTS)}")
    catalog, settings = _catalog_and_settings(domain, metadata)
    config = load_personas(settings.personas)
    spec = config.find(group, variant)
    personas = config.group(group, replicates=settings.replicates, variant=variant)
    n_phrasings = config.asked(spec, settings.language, settings.phrasings)
    # the pref variant: cell j states preference q in phrasing p (cell_parts)
    stated = preference_ids(domain) if variant == PREF else ("",)
    sentences = [(p, 0) for p in personas if p.is_neutral]
    sentences += [
        (p, j) for p in personas if not p.is_neutral for j in range(n_phrasings * len(stated))
    ]
    settings.check_requests(
        len(sentences) * settings.repeats,
        task_name(domain, group, variant),
        f"{len(sentences)} sentences × {settings.repeats} repeats",
    )
    is_open = variant == OPEN
    template = load_template(settings.template, settings.language, "open" if is_open else "forward")
    noun = domain_of(domain).nouns_in(settings.language)
    items = subset(catalog, settings.n_items, settings.seed, _stratum(domain))
    orders = [
        [] if is_open else shown_order(items, settings.order, settings.seed, catalog, r)
        for r in range(settings.repeats)
    ]
    docs = []
    for persona, phrasing in sentences:
        q, p = cell_parts(phrasing, n_phrasings)
        preference = "" if persona.is_neutral else stated[q]
        user = config.describe(persona, variant, domain, settings.language, p, spec, preference)
        persona_id = persona.id if persona.is_neutral else sentence_id(persona.id, phrasing)
        for repeat, shown in enumerate(orders):
            prompt = render_prompt(
                template,
                domain,
                [catalog.titles[i] for i in shown],
                settings.k,
                user,
                mitigation=variant == "mitigation",
                noun=noun,
                language=settings.language,
            )
            docs.append(
                TaskDoc(
                    persona_id=persona_id,
                    attribute_group=spec.name,
                    user=user,
                    domain=domain,
                    variant=variant,
                    repeat=repeat,
                    k=settings.k,
                    order=settings.order,
                    seed=settings.seed,
                    catalog=settings.catalog or domain,
                    catalog_sha256=catalog.sha256,
                    template_sha256=template.sha256,
                    coldbias_version=__version__,
                    shown_ids=tuple(shown),
                    prompt=prompt,
                    alpha=settings.alpha,
                    template=template.name,
                    language=settings.language,
                    control_task=spec.kind == "control",
                    value=persona.id,
                    phrasing=phrasing,
                    family=persona.family or "",
                    preference=preference,
                )
            )
    return docs


def build_reverse_docs(domain: str, group: str, metadata: Mapping[str, Any]) -> list[ReverseDoc]:
    """All documents of task ``coldbias_reverse_{domain}_{group}``: for each of a seeded
    stratified sample of ``coldbias_items`` catalog items and each repeat, the item and the
    group's users in a seeded shuffled order (a new order per item and repeat)."""
    catalog, settings = _catalog_and_settings(domain, metadata)
    config = load_personas(settings.personas)
    users = config.find(group).values
    if len(users) < 2:
        raise SettingsError(f"reverse task: group {group!r} needs at least two values to rank")
    phrases = {p.id: config.phrase(p, settings.language) for p in users}
    template = load_template(None, settings.language, kind="reverse")
    noun = domain_of(domain).nouns_in(settings.language)[0]
    n_items = min(settings.items, len(catalog))
    settings.check_requests(
        n_items * settings.repeats,
        reverse_task_name(domain, group),
        f"{n_items} items × {settings.repeats} repeats",
    )
    items = subset(catalog, n_items, settings.seed, _stratum(domain))
    docs = []
    for item in items:
        for repeat in range(settings.repeats):
            order = [p.id for p in users]
            random.Random(f"{settings.seed}:{catalog.sha256}:reverse:{item}:{repeat}").shuffle(
                order
            )
            shown = [phrases[pid] for pid in order]
            docs.append(
                ReverseDoc(
                    item_id=item,
                    item_title=catalog.titles[item],
                    domain=domain,
                    attribute_group=group,
                    repeat=repeat,
                    candidates=tuple(order),
                    phrases=tuple(shown),
                    seed=settings.seed,
                    catalog=settings.catalog or domain,
                    catalog_sha256=catalog.sha256,
                    template_sha256=template.sha256,
                    coldbias_version=__version__,
                    prompt=render_reverse_prompt(
                        template, domain, catalog.titles[item], shown, noun, settings.language
                    ),
                    alpha=settings.alpha,
                    template=template.name,
                    language=settings.language,
                )
            )
    return docs
