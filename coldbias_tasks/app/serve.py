"""Start and stop a local ``vllm serve`` of a model on 127.0.0.1 (tests and benchmarks).

:func:`vllm_server` is a context manager: it starts ``vllm serve`` on a free port of
127.0.0.1 in its own process group (prefix caching, eager mode, KV block size 32 as for the
offline CPU runs, the machine's dtype), waits until ``/v1/models`` answers (bounded), yields the
server root ``http://127.0.0.1:PORT`` and stops the whole process group on exit.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from coldbias_tasks.app.machine import choose_dtype
from coldbias_tasks.core.errors import ModelError

__all__ = ["free_port", "vllm_server"]


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
) -> Iterator[str]:
    """``vllm serve model`` on 127.0.0.1; yields its root URL. Raises :class:`ModelError` (with
    the log's tail) when the server exits or does not answer within ``timeout`` seconds."""
    port = free_port()
    cmd = [
        str(Path(sys.executable).with_name("vllm")), "serve", model,
        "--host", "127.0.0.1", "--port", str(port), "--dtype", choose_dtype(cuda=False),
        "--max-model-len", str(max_model_len), "--enforce-eager", "--enable-prefix-caching",
        "--block-size", "32", "--seed", str(seed),
    ]  # fmt: skip
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
