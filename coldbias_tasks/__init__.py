"""coldbias: cold-start bias of LLM recommenders, as lm-evaluation-harness tasks.

Pure modules (no lm-eval import): :mod:`.catalog`, :mod:`.personas`, :mod:`.prompt`,
:mod:`.docs`, :mod:`.parse`, :mod:`.metrics`, :mod:`.aggregate`, :mod:`.exposure`.
lm-eval adapters: :mod:`.harness`. Tools: :mod:`.cli`, :mod:`.demo`, :mod:`.models`,
:mod:`.report`, :mod:`.leaderboard`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("coldbias")
except PackageNotFoundError:  # running from a checkout without installing
    __version__ = "0.0.0+checkout"
