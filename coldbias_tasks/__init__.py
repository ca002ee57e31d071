"""coldbias: cold-start bias of LLM recommenders, as lm-evaluation-harness tasks.

Layers, imports only downward (see ARCHITECTURE.md): :mod:`.core` (pure) →
:mod:`.lmeval` (lm-eval adapters) and :mod:`.inspect` (Inspect adapters) → :mod:`.analysis`
(offline tables) → :mod:`.render` (plots, HTML) → :mod:`.app` (CLI, demo, models).

The task YAMLs are the subpackage ``coldbias_tasks.tasks`` (a folder of YAML, no Python): the
``lm_eval.tasks`` entry point names it, so a resolver that locates it with
``importlib.util.find_spec`` and scans its folder finds every task (docs/lm-eval.md §4). In the
wheel the folder is ``coldbias_tasks/tasks/``; in a checkout (an editable install, or
``PYTHONPATH`` set to the checkout) it is the checkout's top-level ``tasks/``, reached by adding
the checkout's root to this package's search path (only then: the root has ``tasks/`` and
``pyproject.toml`` and the package has no ``tasks/`` of its own).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("coldbias")
except PackageNotFoundError:  # running from a checkout without installing
    __version__ = "0.0.0+checkout"

_HERE = Path(__file__).resolve().parent
_CHECKOUT = (_HERE.parent / "tasks").is_dir() and (_HERE.parent / "pyproject.toml").is_file()
if _CHECKOUT and not (_HERE / "tasks").is_dir():  # a checkout: tasks/ beside the package
    __path__.append(str(_HERE.parent))
