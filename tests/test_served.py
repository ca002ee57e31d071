"""The served models (coldbias_tasks.lmeval.served) against a small OpenAI-compatible test
server on 127.0.0.1 (a fake of the transport only: it records each request and answers with a
text that depends on the request's seed), driven through lm-eval's own evaluator."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tenacity", reason="lm-eval[api] is not installed")

from coldbias_tasks.app.launch import prepare
from coldbias_tasks.core.errors import ModelError
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.lmeval.served import request_seed, server_root

TASK = "coldbias_movie_gender"
META = {"coldbias_n_items": 12, "coldbias_k": 3, "coldbias_repeats": 2, "coldbias_replicates": 2,
        "coldbias_phrasings": 2}  # fmt: skip
N_DOCS = (1 + 2 + 2 * 2) * 2  # (neutral + 2 replicates + 2 values × 2 phrasings) × 2 repeats


class FakeServer:
    """``/v1/models`` (``max_model_len``), ``/tokenize`` (4 characters a token) and
    ``/v1/chat/completions``; ``fail``: answer the next N completions with HTTP 503;
    ``die_after``: answer every completion after that many answers with HTTP 500 and
    ``die_body``; ``slow``: sleep that long once; ``empty``: answer with null content;
    ``health``: the status of ``GET /health``."""

    def __init__(self, max_model_len: int = 4096) -> None:
        self.max_model_len = max_model_len
        self.requests: list[dict[str, Any]] = []
        self.fail = 0
        self.die_after: int | None = None
        self.die_body: dict[str, Any] = {"error": "engine died"}
        self.health = 200
        self.answered = 0
        self.slow = 0.0
        self.empty = False
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/health":
                    self._send(server.health, {})
                    return
                model = {"id": "served-model", "max_model_len": server.max_model_len}
                self._send(200, {"object": "list", "data": [model]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path == "/tokenize":
                    n = len("".join(m["content"] for m in body["messages"])) // 4
                    self._send(200, {"count": n, "tokens": list(range(n)), "max_model_len": 0})
                    return
                self._send(*server.answer(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.handle_error = lambda *args: None  # a client that timed out hung up
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1/chat/completions"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            if self.die_after is not None and self.answered >= self.die_after:
                return 500, self.die_body
            if self.fail:
                self.fail -= 1
                return 503, {"error": "busy"}
            slow, self.slow = self.slow, 0.0
            self.answered += 1
        time.sleep(slow)
        content = None if self.empty else f"answer drawn with seed {body['seed']}"
        usage = {"prompt_tokens": 100, "completion_tokens": 7}
        choice = {"index": 0, "message": {"content": content}, "finish_reason": "stop"}
        return 200, {"choices": [choice], "usage": usage}

    def close(self) -> None:
        self.httpd.shutdown()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.close()


def _evaluate(server: FakeServer, cache: Path | None = None, **model_args: Any) -> dict:
    """One lm-eval run of TASK through coldbias-local-chat-completions."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    import coldbias_tasks.lmeval.served  # noqa: F401

    args = {"model": "served-model", "base_url": server.base_url, "num_concurrent": 4,
            "max_retries": 2, **model_args}  # fmt: skip
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=META)
    results = simple_evaluate(
        model="coldbias-local-chat-completions",
        model_args=",".join(f"{k}={v}" for k, v in args.items()),
        tasks=[TASK],
        task_manager=manager,
        apply_chat_template=True,
        log_samples=True,
        use_cache=str(cache) if cache else None,
        metadata=META,
        verbosity="ERROR",
    )
    assert results is not None
    return results


def _answers(results: dict) -> dict[tuple[str, int], str]:
    return {
        (s["doc"]["persona_id"], s["doc"]["repeat"]): s["resps"][0][0]
        for s in results["samples"][TASK]
    }


def test_request_seeds_differ_between_replicates_and_repeat_on_rerun() -> None:
    doc = {"persona_id": "neutral", "repeat": 0}
    replicate = {"persona_id": "neutral.replicate", "repeat": 0}
    seed = request_seed(1234, TASK, doc, 0)
    assert seed == request_seed(1234, TASK, dict(doc), 5)  # the document, not its position
    assert seed != request_seed(1234, TASK, replicate, 1)
    assert seed != request_seed(1235, TASK, doc, 0)
    assert seed != request_seed(1234, TASK, doc, 0, n=1)  # lm-eval repeats of one document
    assert 0 <= seed < 2**31
    assert server_root("http://h:8/v1/chat/completions") == "http://h:8"
    assert server_root("http://h:8/v1/completions/") == "http://h:8"


def test_served_run_sends_per_request_seeds_and_the_task_settings(server: FakeServer) -> None:
    results = _evaluate(server)
    assert len(server.requests) == N_DOCS
    seeds = [r["seed"] for r in server.requests]
    assert len(set(seeds)) == N_DOCS  # every document its own seed
    answers = _answers(results)
    for r in (0, 1):  # the same prompt, different answers
        same_prompt = {answers[("neutral", r)], answers[("neutral.replicate", r)],
                       answers[("neutral.replicate.2", r)]}  # fmt: skip
        assert len(same_prompt) == 3
    from coldbias_tasks.core.prompting.documents import domain_budget

    for body in server.requests:  # the task's generation settings, as the task defines them
        assert body["temperature"] == 0.7
        assert body["max_tokens"] == 256  # the YAML's budget (coldbias eval sizes it)
        assert body["stop"] == []
        assert (body["top_p"], body["top_k"], body["repetition_penalty"]) == (1.0, -1, 1.0)
    serving = results["config"]["coldbias_serving"]
    assert serving["requests"] == N_DOCS and serving["failed"] == 0
    assert serving["prompt_tokens"] == 100 * N_DOCS
    assert serving["completion_tokens"] == 7 * N_DOCS
    assert serving["max_model_len"] == 4096
    assert serving["settings"][TASK]["temperature"] == 0.7
    assert domain_budget("movie", META) < 256
    rerun = FakeServer()
    try:
        _evaluate(rerun)
        assert sorted(r["seed"] for r in rerun.requests) == sorted(seeds)  # reproducible
    finally:
        rerun.close()


def test_too_long_prompt_is_refused_before_any_request() -> None:
    fake = FakeServer(max_model_len=300)
    try:
        with pytest.raises(ModelError) as err:
            _evaluate(fake)
    finally:
        fake.close()
    text = str(err.value)
    assert TASK in text and "max_gen_toks 256" in text and "300 tokens" in text
    assert "--max-model-len" in text and "coldbias_n_items" in text
    assert fake.requests == []  # nothing was sent


def test_server_down_is_one_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from coldbias_tasks.lmeval.served import ServedChat

    with pytest.raises(ModelError, match=r"cannot reach the model server at http://127\.0\.0\.1"):
        ServedChat(base_url=f"http://127.0.0.1:{port}/v1/chat/completions", model="m")


def test_retries_timeouts_and_empty_content_are_counted(server: FakeServer) -> None:
    server.fail = 2
    server.slow = 3.0
    results = _evaluate(server, timeout=1)
    serving = results["config"]["coldbias_serving"]
    assert serving["retries"] == 3 and serving["timeouts"] == 1 and serving["failed"] == 0
    assert serving["requests"] == N_DOCS
    empty = FakeServer()
    empty.empty = True
    try:
        results = _evaluate(empty)
    finally:
        empty.close()
    assert results["config"]["coldbias_serving"]["empty_content"] == N_DOCS
    assert results["results"][TASK]["empty_rate,ranked"] == 1.0  # counted, never hidden


def test_a_run_that_dies_halfway_resumes_from_use_cache(server: FakeServer, tmp_path) -> None:
    cache = tmp_path / "cache"
    answered = 5
    first = FakeServer()
    first.die_after = answered
    try:
        with pytest.raises(ModelError, match=r"requests got no answer.*rerun the same command"):
            _evaluate(first, cache=cache, num_concurrent=1)
    finally:
        first.close()
    results = _evaluate(server, cache=cache)
    assert len(server.requests) == N_DOCS - answered  # only the unanswered prompts
    serving = results["config"]["coldbias_serving"]
    assert serving["cached"] == answered
    answers = _answers(results)
    assert len(set(answers.values())) == N_DOCS  # cached replicates kept their own answers


def test_coldbias_eval_runs_served_backends_as_the_coldbias_models() -> None:
    url = "http://127.0.0.1:1/v1/chat/completions"
    launch = prepare(["--model", "local-chat-completions", "--tasks", TASK,
                      "--model_args", f"model=m,base_url={url}"])  # fmt: skip
    argv = launch.argv
    assert argv[argv.index("--model") + 1] == "coldbias-local-chat-completions"
    assert any("seed per request" in n for n in launch.notes)
    assert "dtype" not in argv[argv.index("--model_args") + 1]


def test_report_and_leaderboard_show_what_a_served_run_cost(server: FakeServer, tmp_path) -> None:
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report
    from coldbias_tasks.lmeval.served import ServedChat
    from tests.synthetic import run_synthetic

    server.fail = 1
    lm = ServedChat(base_url=server.base_url, model="served-model", num_concurrent=2)
    run_synthetic(lm, [TASK], META, tmp_path / "run", model_name="served-model",
                  apply_chat_template=True)  # fmt: skip
    summary = build_report(tmp_path / "run", tmp_path / "report").summary
    (line,) = [s for s in summary if "served (" in s]
    assert f"{N_DOCS} requests" in line and "1 retries" in line and "0 failed" in line
    assert f"{100 * N_DOCS} prompt + {7 * N_DOCS} generated tokens" in line
    (row,) = build_leaderboard([tmp_path / "run"], resamples=20).rows
    assert row.cells["cost"].value.startswith(f"{100 * N_DOCS:,} prompt + {7 * N_DOCS} generated")
