"""Where an open task's listed items resolved (docs/open.md "Grounding"): the share grounded to
the domain's catalog or reference list, and the share grounded to the catalog. Open tasks only;
computed by :func:`coldbias_tasks.core.parsing.open_answers.grounding` over unique items, at
most k per answer."""

from __future__ import annotations

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.stats.estimate import Estimate

__all__ = ["CATALOG_RATE", "GROUNDED_RATE"]

GROUNDED_RATE = register(Measure(
    "grounded_rate", lambda s: Estimate(float(s.grounding.grounded_rate)), True, (0.0, 1.0),
    "open tasks only: share of the listed items (unique, at most k per answer) resolved to an "
    "entry of the domain's catalog or reference list; the rest are titles known to neither "
    "(possibly invented)", protocol="open", order=300,
))  # fmt: skip
CATALOG_RATE = register(Measure(
    "catalog_rate", lambda s: Estimate(float(s.grounding.catalog_rate)), True, (0.0, 1.0),
    "open tasks only: share of the listed items (unique, at most k per answer) resolved to the "
    "domain's catalog (the items whose categories exposure reads)", protocol="open", order=310,
))  # fmt: skip
