"""coldbias: cold-start bias of LLM recommenders, as lm-evaluation-harness tasks.

Layers, imports only downward (see ARCHITECTURE.md): :mod:`.core` (pure) →
:mod:`.lmeval` (lm-eval adapters) → :mod:`.analysis` (offline tables) → :mod:`.render`
(plots, HTML) → :mod:`.app` (CLI, demo, models).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("coldbias")
except PackageNotFoundError:  # running from a checkout without installing
    __version__ = "0.0.0+checkout"
