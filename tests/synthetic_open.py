"""A synthetic open recommender: for an open task (no catalog shown) it lists known shares of
catalog titles, reference titles outside the catalog and invented titles.

:class:`OpenRecommender` is an ``lm_eval.api.model.LM`` like
:class:`tests.synthetic.SyntheticRecommender`: lm-eval builds the real open task docs and
prompts, applies the coldbias filter (which grounds every listed title) and the aggregations.
Per answer it draws ``n_catalog`` titles from the domain's catalog, ``n_reference`` from
:func:`reference_pool` (reference entries that ground at the reference level) and
``n_invented`` made-up titles (:func:`invented_title`, grounding at the title level), shuffled,
numbered; the expected ``grounded_rate`` is (n_catalog + n_reference) / k and ``catalog_rate``
n_catalog / k (k = the three counts' sum, the task's ``coldbias_k``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from coldbias_tasks.core.parsing.grounding import grounder
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.reference import load_reference
from tests.synthetic import SyntheticRecommender, _rng

_SYLLABLES = ("zor", "blax", "quen", "vry", "thul", "mox", "ix", "dra", "pel", "wyn", "gor")


def invented_title(rng: random.Random) -> str:
    """A made-up title ("Quenvry of the Moxthul") no reference list holds."""
    word = lambda: "".join(rng.choice(_SYLLABLES) for _ in range(3)).capitalize()  # noqa: E731
    return f"{word()} of the {word()} {rng.randint(2, 99)}"


def _pool(domain: str, titles: Sequence[str], level: str, size: int) -> tuple[str, ...]:
    """The first ``size`` of ``titles`` that ground at ``level``, one per grounding key."""
    ground = grounder(domain, load_catalog(domain))
    pool: dict[str, str] = {}
    for title in titles:
        found = ground.ground(title)
        if found is not None and found.level == level:
            pool.setdefault(found.key, title)
        if len(pool) == size:
            break
    return tuple(pool.values())


@cache
def catalog_pool(domain: str) -> tuple[str, ...]:
    """The catalog titles of ``domain`` that ground to their catalog row (distinct keys)."""
    return _pool(domain, load_catalog(domain).titles, "catalog", len(load_catalog(domain)))


@cache
def reference_pool(domain: str, size: int = 200) -> tuple[str, ...]:
    """``size`` reference titles of ``domain`` that ground at the reference level (real items
    outside the catalog; distinct keys), in file order."""
    reference = load_reference(domain)
    assert reference is not None, f"no reference list for {domain}"
    return _pool(domain, [e.title for e in reference.entries], "reference", size)


class OpenRecommender(SyntheticRecommender):
    """Answers open prompts with a known mix of catalog, reference and invented titles (the
    catalog recommender's request handling, its own answers)."""

    def __init__(
        self, n_catalog: int, n_reference: int, n_invented: int, seed: int = 0, **_: Any
    ) -> None:
        super().__init__(seed=seed)
        self.counts = (n_catalog, n_reference, n_invented)

    @property
    def tokenizer_name(self) -> str:
        return "coldbias-synthetic-open"

    def _answer(self, doc: Mapping[str, Any]) -> str:
        rng = _rng(self.seed, "open", doc["attribute_group"], doc["persona_id"], doc["repeat"])
        n_catalog, n_reference, n_invented = self.counts
        titles = rng.sample(catalog_pool(doc["domain"]), n_catalog)
        titles += rng.sample(reference_pool(doc["domain"]), n_reference)
        invented: set[str] = set()
        while len(invented) < n_invented:
            invented.add(invented_title(rng))
        titles += sorted(invented)
        rng.shuffle(titles)
        return "\n".join(f"{n}. {t}" for n, t in enumerate(titles, start=1))


@cache
def chinese_named_pool(domain: str = "college") -> tuple[tuple[str, str], ...]:
    """(catalog title, its Chinese name) of the catalog items whose names file gives a name in
    Chinese script (data/names/<domain>.yaml), in catalog order."""
    ground = grounder(domain, load_catalog(domain))
    ids = [str(i) for i in ground.catalog.table["id"]]
    pool = []
    for row, ident in enumerate(ids):
        chinese = [
            n
            for n in ground.names.catalog.get(ident, ())
            if any("\u4e00" <= c <= "\u9fff" for c in n)
        ]
        if chinese:
            pool.append((ground.catalog.titles[row], chinese[0]))
    return tuple(pool)


class NamingRecommender(SyntheticRecommender):
    """Issue 41's naming-only recommender: every user gets ``k`` universities drawn alike from
    one pool (:func:`chinese_named_pool`, the first ``pool_size``), named in Chinese for users
    who state the ``chinese`` value and in English for everyone else. What is recommended does
    not depend on the value; only how it is named does."""

    def __init__(self, seed: int = 0, pool_size: int = 25, chinese: str = "country.chinese",
                 **_: Any) -> None:  # fmt: skip
        super().__init__(seed=seed)
        self.pool_size = pool_size
        self.chinese = chinese

    @property
    def tokenizer_name(self) -> str:
        return "coldbias-synthetic-naming"

    def _answer(self, doc: Mapping[str, Any]) -> str:
        rng = _rng(self.seed, "naming", doc["attribute_group"], doc["persona_id"], doc["repeat"])
        pool = chinese_named_pool(doc["domain"])[: self.pool_size]
        picked = rng.sample(pool, int(doc["k"]))
        in_chinese = doc.get("value") == self.chinese
        return "\n".join(
            f"{n}. {zh if in_chinese else en}" for n, (en, zh) in enumerate(picked, start=1)
        )
