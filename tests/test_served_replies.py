"""Odd HTTP 200 replies of a served model are counted and retried like an HTTP 500, never an
uncaught exception (coldbias_tasks.lmeval.served_reply): a stdlib HTTP server on 127.0.0.1,
started and stopped by each test with a bounded request loop, answers a third of its requests
with a malformed body, and the run through lm-eval's own evaluator completes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("tenacity", reason="lm-eval[api] is not installed")

from coldbias_tasks.lmeval.served_reply import Malformed, check_models_reply, check_reply
from tests.test_served import N_DOCS, _evaluate

GOOD = {
    "choices": [{"index": 0, "message": {"content": "1. A"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 100, "completion_tokens": 7},
}
#: HTTP 200 bodies no OpenAI-compatible server should send (the issue's hostile set).
MALFORMED = {
    "truncated JSON": b'{"choices": [',
    "a JSON list": b"[1, 2, 3]",
    "choices as an object": json.dumps({**GOOD, "choices": {"0": GOOD["choices"][0]}}).encode(),
    "token counts as text": json.dumps(
        {**GOOD, "usage": {"prompt_tokens": "100", "completion_tokens": "7"}}
    ).encode(),
    "message as a string": json.dumps({"choices": [{"message": "1. A"}]}).encode(),
    "content as a number": json.dumps({"choices": [{"message": {"content": 7}}]}).encode(),
    "no choices": json.dumps({"choices": []}).encode(),
    "nested 100k deep": b"[" * 100_000 + b"]" * 100_000,
}
#: Most requests a test server answers before it stops by itself (a bounded loop).
MAX_REQUESTS = 400


@pytest.mark.parametrize("body", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_reply_is_one_malformed_error(body: bytes) -> None:
    with pytest.raises(Malformed) as err:
        check_reply(body.decode())
    assert "\n" not in str(err.value) and str(err.value).startswith("reply")


def test_a_good_reply_passes_and_a_completions_reply_too() -> None:
    assert check_reply(json.dumps(GOOD))["choices"][0]["message"]["content"] == "1. A"
    assert check_reply(json.dumps({"choices": [{"text": None}]}))  # empty: counted elsewhere
    assert check_models_reply(json.dumps({"data": [{"max_model_len": 4096}, {}]})) == [4096]


@pytest.mark.parametrize(
    "body",
    ["[]", '{"data": {"max_model_len": 1}}', '{"data": [', '{"data": [{"max_model_len": "9"}]}'],
)
def test_a_malformed_models_reply_is_refused_or_ignored(body: str) -> None:
    try:
        assert check_models_reply(body) == []
    except Malformed as err:
        assert str(err).startswith("GET /v1/models")


class OddServer:
    """``/v1/models``, ``/health`` and ``/v1/chat/completions``: every ``every``-th
    completion request (and ``/v1/models`` when ``odd_models``) gets a malformed HTTP 200
    body, cycling through :data:`MALFORMED`; the others a good answer. The server answers at
    most :data:`MAX_REQUESTS` requests, then its loop ends."""

    def __init__(self, every: int = 3, odd_models: bool = False) -> None:
        self.every, self.odd_models = every, odd_models
        self.completions = self.malformed_sent = 0
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path == "/health":
                    self._send(b"{}")
                elif server.odd_models:
                    self._send(b'{"data": {"max_model_len": "lots"}')
                else:
                    self._send(json.dumps({"data": [{"max_model_len": 4096}]}).encode())

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path == "/tokenize":
                    n = len("".join(m["content"] for m in body["messages"])) // 4
                    self._send(json.dumps({"tokens": list(range(n))}).encode())
                    return
                self._send(server.reply(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.timeout = 0.2
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1/chat/completions"
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        for _ in range(MAX_REQUESTS * 10):  # handle_request returns after timeout when idle
            if self.stopped.is_set() or self.completions >= MAX_REQUESTS:
                break
            self.httpd.handle_request()

    def reply(self, body: dict[str, Any]) -> bytes:
        with self.lock:
            self.completions += 1
            if self.completions % self.every == 0:
                odd = list(MALFORMED.values())[self.malformed_sent % len(MALFORMED)]
                self.malformed_sent += 1
                return odd
        answer = {**GOOD["choices"][0], "message": {"content": f"seed {body['seed']}"}}
        return json.dumps({**GOOD, "choices": [answer]}).encode()

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)
        self.httpd.server_close()


@pytest.fixture
def odd() -> Iterator[OddServer]:
    server = OddServer()
    yield server
    server.close()


def test_a_third_of_replies_malformed_the_run_completes_counted_and_retried(
    odd: OddServer,
) -> None:
    results = _evaluate(odd, num_concurrent=1, max_retries=4)
    serving = results["config"]["coldbias_serving"]
    assert odd.malformed_sent >= N_DOCS // 3
    assert serving["malformed"] == odd.malformed_sent
    assert serving["retries"] == odd.malformed_sent and serving["failed"] == 0
    assert serving["server_dead"] is None
    answers = [s["resps"][0][0] for s in results["samples"]["coldbias_movie_gender"]]
    assert len(answers) == N_DOCS and all(a.startswith("seed ") for a in answers)


def test_a_malformed_models_reply_is_counted_not_a_crash() -> None:
    server = OddServer(every=10**9, odd_models=True)
    try:
        results = _evaluate(server, num_concurrent=1, max_retries=2)
    finally:
        server.close()
    serving = results["config"]["coldbias_serving"]
    assert serving["malformed"] == 1 and serving["max_model_len"] is None
    assert "GET /v1/models" in serving["errors"][0]
