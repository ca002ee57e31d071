"""The measures of a task's answers, one module each, and their registry (:mod:`.base`).

Every module of this package is imported here, so a module that registers a measure is all a
new measure needs; :func:`coldbias_tasks.core.result.task_result` computes them once per task.
The selectors the analysis uses (``DISPARITY``, ``DIVERGENCE``, ``EXCESS`` …) are the registered
:class:`~.base.Measure` objects, never names.
"""

from __future__ import annotations

import importlib
import pkgutil

from coldbias_tasks.core.measures.base import (
    LmKey,
    Measure,
    lm_keys,
    measure,
    measures,
    register,
    withdraw,
)

__all__ = [
    "DISPARITY",
    "DIVERGENCE",
    "EXCESS",
    "LmKey",
    "Measure",
    "lm_keys",
    "measure",
    "measures",
    "register",
    "withdraw",
]

for _info in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_info.name}")

DISPARITY = measure("disparity")
DIVERGENCE = measure("divergence")
EXCESS = measure("excess")
