"""Ranked-list similarities, one module each (docs/measurement.md §1), registered here.

A similarity compares two ranked lists of item ids (best first) and returns a number in [0, 1]:
1 for identical lists, 0 for disjoint ones, 0 when either list is empty (the caller flags the
pair invalid); repeated ids are ignored after their first occurrence. A divergence is
1 − similarity. Every measure that compares lists (the headline disparity, the raw divergence,
the excess over noise, the per-value and group tests) is computed once per registered
similarity, and its lm-eval keys are ``{name}_{measure}`` (``iou_disparity``, ``rbo_disparity``).

Adding a similarity: one module in this package that calls :func:`register` with a
:class:`Similarity` (its ``order`` places it among the others), and its reference-value tests.
The modules are found by name (:func:`_discover`); every layer reads :data:`SIMILARITY_NAMES`
and :func:`similarity`. :data:`HEADLINE_SIMILARITY` is the one the headline and the leaderboard's
main columns use.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

__all__ = [
    "HEADLINE_SIMILARITY",
    "SIMILARITIES",
    "SIMILARITY_NAMES",
    "Similarity",
    "register",
    "similarity",
    "unique",
]

#: A similarity function: (list a, list b) of hashable item ids, best first → [0, 1].
SimilarityFn = Callable[[Sequence[Hashable], Sequence[Hashable]], float]


@dataclass(frozen=True)
class Similarity:
    """One registered similarity: ``name`` (the lm-eval key prefix, lower case), ``label``
    (its printed name), ``function``, ``description`` (one sentence: what it rewards, its
    parameters), ``symmetric`` (Sim(a, b) = Sim(b, a); asymmetric ones are symmetrised where
    two answers are compared as equals) and ``order`` (its place among the similarities)."""

    name: str
    label: str
    function: SimilarityFn
    description: str
    symmetric: bool = True
    order: int = 100

    def __call__(self, a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
        return self.function(a, b)


_REGISTRY: dict[str, Similarity] = {}


def register(sim: Similarity) -> Similarity:
    """Add ``sim`` to the registry (ValueError when its name is taken or not a lower-case
    identifier: it becomes part of lm-eval metric keys)."""
    if not sim.name.isidentifier() or sim.name != sim.name.lower():
        raise ValueError(f"similarity name {sim.name!r} must be a lower-case identifier")
    if sim.name in _REGISTRY and _REGISTRY[sim.name] is not sim:
        raise ValueError(f"similarity {sim.name!r} is registered twice")
    _REGISTRY[sim.name] = sim
    return sim


def unique(items: Sequence[Hashable]) -> list[Hashable]:
    """Items in order, later repeats dropped."""
    return list(dict.fromkeys(items))


def _discover() -> dict[str, Similarity]:
    """Import every module of this package (each registers its similarity), in ``order``."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(_REGISTRY.items(), key=lambda kv: (kv[1].order, kv[0])))


#: The registered similarities by name, in their declared order.
SIMILARITIES: dict[str, Similarity] = _discover()
#: Their names, the prefixes of the per-similarity lm-eval keys.
SIMILARITY_NAMES: tuple[str, ...] = tuple(SIMILARITIES)
#: The similarity of the headline and of the leaderboard's main columns.
HEADLINE_SIMILARITY: str = "iou"


def similarity(name: str) -> Similarity:
    """The registered similarity ``name``; KeyError naming the registered ones otherwise."""
    try:
        return SIMILARITIES[name]
    except KeyError:
        raise KeyError(
            f"no similarity {name!r}; registered: {', '.join(SIMILARITIES)} "
            "(a module in coldbias_tasks/core/similarities/ registers one)"
        ) from None
