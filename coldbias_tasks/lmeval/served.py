"""lm-eval API models for served endpoints that keep the noise floor (docs/serving.md).

lm-eval 0.4.13's API models (``local-chat-completions``, ``local-completions``,
``openai-chat-completions``) send the same ``seed`` (default 1234) in every request: a server
that honours request seeds (vLLM) then answers the M same-prompt neutral replicates with the
neutral answer itself and the noise floor collapses to 0. The subclasses registered here
(``coldbias-<name>``; ``coldbias eval --model <name>`` uses them) change only the request loop:

- **Per-request seeds**: ``seed = sha256(run seed, task, persona, repeat)`` (for other tasks:
  task, doc id and the repeat index of lm-eval's ``repeats``), below 2**31. Replicates of one
  repeat get different seeds; a rerun with the same ``--model_args seed=N`` (default 1234)
  sends the same seeds. The seed travels in the request's arguments, not in the task's
  ``generation_kwargs``: lm-eval groups requests by their generation kwargs and sends each
  group separately, so one seed per document there would serialise ``num_concurrent``.
  A ``seed`` in ``--gen_kwargs`` wins (then the answers are deterministic and the report
  refuses them, :mod:`coldbias_tasks.core.measures.determinism`).
- **Context check before the first request**: the server's ``max_model_len`` (``/v1/models``)
  against the longest prompts of each task (tokenized by the server's ``/tokenize``, else the
  local tokenizer) plus ``max_gen_toks``; too long raises :class:`ModelError` naming the task,
  the lengths and the fix, and nothing is sent. Nothing is ever truncated here.
- **Generation settings as the task defines them**: ``temperature``, ``until`` (stop) and
  ``max_gen_toks`` (``max_tokens``) go into every request; ``do_sample: false`` sends
  temperature 0 (lm-eval would drop ``do_sample`` and keep the temperature). Plain
  temperature sampling is spelled out (``top_p`` 1; to local servers also ``top_k`` -1,
  ``min_p`` 0, ``repetition_penalty`` 1), as lm-eval's offline vLLM backend samples: otherwise
  a server applies the model's ``generation_config.json`` defaults on top (vLLM does). Any of
  them given in ``--gen_kwargs`` wins.
- **Counted, never silent**: retries, timeouts, failed requests, empty ``content`` (e.g. a
  reasoning parser that moved the answer to ``reasoning_content``), answers cut at
  ``max_tokens``, malformed HTTP 200 replies (retried like a 500: :mod:`.served_reply`),
  prompt and generated tokens (the server's ``usage``) and wall time go into
  ``results["config"]["coldbias_serving"]`` (lm-eval's ``get_model_info``). A request that
  still fails after ``max_retries`` attempts is never turned into an empty answer: once every
  other request is done the run stops with :class:`ModelError`.
- **A dead server stops the run at once**: an error response with a dead engine's text
  (vLLM's ``EngineDeadError``: "EngineCore encountered an issue"), or :data:`_PROBE_AFTER`
  failed attempts in a row (5xx, connection errors) after which ``/health`` does not answer
  200, ends the request loop: the requests not yet answered are not retried, and the run stops
  with one :class:`ModelError` line naming the cause and the fix (:func:`dead_server_message`).
  A server without ``/health`` (404) keeps lm-eval's retry semantics.
- **Resume**: with lm-eval's ``--use_cache PATH`` every answer is written to lm-eval's cache
  as it arrives, under a key that includes the request seed (lm-eval itself skips caching
  sampled requests because same-prompt replicates would share one key); a rerun of the same
  command asks only the prompts that have no answer yet.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from lm_eval.api.model import hash_args
from lm_eval.api.registry import register_model
from lm_eval.models.api_models import JsonChatStr
from lm_eval.models.openai_completions import (
    LocalChatCompletion,
    LocalCompletionsAPI,
    OpenAIChatCompletion,
)
from lm_eval.models.utils import postprocess_generated_text

from coldbias_tasks.core.errors import ModelError
from coldbias_tasks.core.vocabulary import SERVED_BACKENDS
from coldbias_tasks.lmeval.served_reply import (
    DEAD_SERVER_FIX,
    Malformed,
    check_models_reply,
    check_reply,
    dead_server_message,
    engine_dead,
)

__all__ = [
    "DEAD_SERVER_FIX",
    "ServingStats",
    "check_context",
    "dead_server_message",
    "engine_dead",
    "request_seed",
    "server_root",
]

log = logging.getLogger(__name__)

#: Prompts per task whose tokens are counted by the context check (the longest by characters:
#: the prompts of a task differ only by the persona sentence and the catalog order).
_LONGEST = 3
_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
#: Largest ``/v1/models`` reply read (characters).
_MODELS_LIMIT = 1 << 20
#: Failed attempts in a row (over all requests, no answer in between) after which the server's
#: ``/health`` is asked whether it is alive.
_PROBE_AFTER = 3


def request_seed(
    run_seed: int, task: str, doc: Mapping[str, Any] | None, doc_id: int, n: int = 0
) -> int:
    """The sampling seed of one request, in [0, 2**31): a function of the run seed and the
    document (coldbias documents: task, persona and repeat; others: task, doc id), plus ``n``,
    the index of the request among lm-eval ``repeats`` of the same document."""
    if isinstance(doc, Mapping) and "persona_id" in doc and "repeat" in doc:
        who = f"{doc['persona_id']}|{doc['repeat']}"
    else:
        who = f"doc{doc_id}"
    text = f"{run_seed}|{task}|{who}|{n}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") & 0x7FFFFFFF


def server_root(base_url: str) -> str:
    """``http://host:port`` of an OpenAI-compatible ``base_url`` (``…/v1/chat/completions``)."""
    root = base_url.rstrip("/")
    for tail in ("/chat/completions", "/completions", "/v1"):
        if root.endswith(tail):
            root = root[: -len(tail)]
    return root


@dataclass
class ServingStats:
    """What a served run cost and what went wrong; counts are requests unless named.

    ``cached``: answers read back from ``--use_cache`` (not sent); ``retries``: extra
    attempts; ``timeouts``: attempts that hit ``timeout``; ``failed``: requests without an
    answer after ``max_retries`` attempts; ``empty_content``: answers whose content was empty
    or null; ``malformed``: HTTP 200 replies of the wrong shape (each retried);
    ``cut_at_max_tokens``: answers that stopped at ``max_tokens``; tokens from the
    server's ``usage``; ``wall_s``: seconds in the request loop.
    """

    requests: int = 0
    cached: int = 0
    retries: int = 0
    timeouts: int = 0
    failed: int = 0
    aborted: int = 0
    empty_content: int = 0
    malformed: int = 0
    cut_at_max_tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    seeds: str = "per request: sha256(run seed, task, persona, repeat)"
    max_model_len: int | None = None
    num_concurrent: int = 1
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_task: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    server_dead: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_context(
    task: str, prompt_tokens: int, max_gen_toks: int, max_model_len: int | None, url: str
) -> None:
    """Raise :class:`ModelError` when ``prompt_tokens + max_gen_toks`` exceeds the server's
    ``max_model_len`` (None: unknown, nothing checked)."""
    if max_model_len is None or prompt_tokens + max_gen_toks <= max_model_len:
        return
    raise ModelError(
        f"{task}: a prompt of {prompt_tokens} tokens + max_gen_toks {max_gen_toks} = "
        f"{prompt_tokens + max_gen_toks} tokens does not fit the server's context of "
        f"{max_model_len} tokens (max_model_len at {url}); no request was sent. Fix: restart "
        f"the server with a larger context (vllm serve ... --max-model-len "
        f"{_round_up(prompt_tokens + max_gen_toks)}), or show fewer items "
        """(--metadata '{"coldbias_n_items": N}'), or lower --gen_kwargs max_gen_toks."""
    )


def _round_up(n: int) -> int:
    return 1 << (n - 1).bit_length()


class _Served:
    """The request loop shared by the three served models (see the module docstring)."""

    stats: ServingStats
    #: Sampling fields sent unless the request sets them: plain temperature sampling.
    plain_sampling: Mapping[str, float] = {
        "top_p": 1.0, "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0,
    }  # fmt: skip

    def _preflight(self, base_url: str | None, timeout: float = 10.0) -> None:
        """Reach the server before anything else: one clear line when it is down; read
        ``max_model_len`` from ``/v1/models`` when it tells."""
        import requests

        self.stats = ServingStats()
        if not base_url:
            return
        url = server_root(base_url) + "/v1/models"
        try:
            response = requests.get(url, timeout=timeout, headers=self._auth_header())
        except requests.RequestException as err:
            raise ModelError(
                f"cannot reach the model server at {base_url} ({type(err).__name__}: "
                f"{_first_line(err)}). Start it (e.g. vllm serve MODEL --host 127.0.0.1 "
                "--port 8000) or fix --model_args base_url=http://HOST:PORT/v1/chat/completions."
            ) from err
        if not response.ok:
            return  # an API that does not list models: nothing to learn here
        try:
            known = check_models_reply(response.text[:_MODELS_LIMIT])
        except Malformed as err:  # counted; the prompt lengths are then not checked
            self.stats.malformed += 1
            self.stats.errors.append(str(err))
            log.warning("coldbias: %s: %s", url, err)
            known = []
        self.stats.max_model_len = min(known) if known else None

    def _auth_header(self) -> dict[str, str]:
        import os

        key = os.environ.get("OPENAI_API_KEY", "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    # --- lm-eval hooks --------------------------------------------------------------------

    def get_model_info(self) -> dict[str, Any]:
        """Added by lm-eval to ``results["config"]``."""
        return {"coldbias_serving": self.stats.to_dict()}

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        start = time.perf_counter()
        self._failures_in_row = 0
        self.stats.num_concurrent = max(1, self._concurrent)
        jobs = self._jobs(requests)
        self._check_lengths(jobs)
        answers: list[str | None] = [None] * len(jobs)
        todo = []
        db = getattr(self.cache_hook, "dbdict", None)
        for i, job in enumerate(jobs):
            if db is not None and job["key"] in db:
                answers[i] = db[job["key"]]
                self._count(job["task"], "cached")
            else:
                todo.append(i)
        if todo:
            results = asyncio.run(self._send_all([jobs[i] for i in todo], disable_tqdm))
            for i, text in zip(todo, results):
                answers[i] = text
        self.stats.wall_s += time.perf_counter() - start
        failed = [jobs[i] for i, a in enumerate(answers) if a is None]
        if self.stats.server_dead is not None:
            raise ModelError(
                dead_server_message(
                    server_root(self.base_url),
                    self.stats.server_dead,
                    len(jobs) - len(failed),
                    len(jobs),
                    db is not None,
                )
            )
        if failed:
            raise ModelError(
                f"{len(failed)} of {len(jobs)} requests got no answer after {self.max_retries} "
                f"attempts (first: {failed[0]['task']}: {self.stats.errors[0]}); no empty answer "
                "was recorded for them. "
                + (
                    "The answered ones are in the --use_cache file: rerun the same command to "
                    "ask only the missing ones."
                    if db is not None
                    else "Rerun with --use_cache PATH so that a rerun asks only the missing ones."
                )
            )
        return [a for a in answers if a is not None]

    # --- building the requests ------------------------------------------------------------

    def _jobs(self, requests: Sequence[Any]) -> list[dict[str, Any]]:
        seen: Counter[tuple[str, int]] = Counter()
        jobs = []
        for req in requests:
            context, gen_kwargs = req.args[0], dict(req.args[1])
            task = str(getattr(req, "task_name", None) or "task")
            doc_id = int(getattr(req, "doc_id", 0) or 0)
            n = seen[(task, doc_id)]
            seen[(task, doc_id)] += 1
            seed = gen_kwargs.pop("seed", None)
            if seed is None:
                seed = request_seed(self._seed, task, getattr(req, "doc", None), doc_id, n)
            else:
                self.stats.seeds = f"fixed by --gen_kwargs seed={seed}"
            if gen_kwargs.get("do_sample") is False:
                gen_kwargs["temperature"] = 0.0
            max_gen_toks = int(gen_kwargs.get("max_gen_toks", self._max_gen_toks))
            payload = self._create_payload(
                self.create_message([self._encode(context)]),
                generate=True,
                gen_kwargs=copy.deepcopy(gen_kwargs),
                seed=int(seed),
                eos=self.eos_string,
            )
            payload["seed"] = int(seed)
            for key, value in self.plain_sampling.items():
                payload.setdefault(key, value)
            self.stats.settings.setdefault(task, _settings(payload))
            args = (context, {**dict(req.args[1]), "seed": seed})
            jobs.append(
                {
                    "task": task,
                    "context": context,
                    "payload": payload,
                    "args": args,
                    "key": hash_args("generate_until", args),
                    "max_gen_toks": max_gen_toks,
                }
            )
        return jobs

    def _encode(self, context: Any) -> Any:
        """The prompt as the server takes it: token ids for tokenized completions (a chat from
        lm-eval's remote tokenizer is templated and tokenized by the server's ``/tokenize``)."""
        if isinstance(context, JsonChatStr) or not self.tokenized_requests:
            return context
        if isinstance(context, list):
            tokens = self._server_tokenize({"model": self.model, "messages": context})
            if tokens is None:
                raise ModelError(
                    f"{self.base_url}: cannot apply the chat template (the server has no "
                    "/tokenize): pass --model_args tokenizer_backend=huggingface,tokenizer=MODEL"
                )
            return tokens
        return self.tok_encode(context, add_special_tokens=self.add_bos_token)

    # --- the context check ----------------------------------------------------------------

    def _check_lengths(self, jobs: Sequence[dict[str, Any]]) -> None:
        limit = self.stats.max_model_len
        if limit is None:
            if jobs:
                log.warning(
                    "coldbias: the server does not report max_model_len; prompt lengths are "
                    "not checked before sending (an over-long prompt fails and is counted)."
                )
            return
        by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for job in jobs:
            by_task[job["task"]].append(job)
        for task, group in by_task.items():
            longest = sorted(group, key=lambda j: -len(_text(j["context"])))[:_LONGEST]
            for job in longest:
                n = self._count_tokens(job)
                if n is None:
                    log.warning("coldbias: %s: prompt length unknown; not checked", task)
                    break
                check_context(task, n, job["max_gen_toks"], limit, self.base_url)

    def _count_tokens(self, job: dict[str, Any]) -> int | None:
        """Prompt tokens of one request: the server's ``/tokenize`` (vLLM, SGLang), else the
        local tokenizer, else None."""
        payload = job["payload"]
        prompt = payload.get("prompt")
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], list):
            return len(prompt[0])  # already token ids
        key = "messages" if "messages" in payload else "prompt"
        found = self._server_tokenize({"model": payload.get("model"), key: payload[key]})
        if found is not None:
            return len(found)
        if self.tokenizer is not None and hasattr(self.tokenizer, "encode"):
            return len(self.tokenizer.encode(_text(job["context"])))
        return None

    def _server_tokenize(self, body: dict[str, Any]) -> list[int] | None:
        """Token ids from the server's ``/tokenize`` (messages get the chat template), None
        when the server has no such endpoint."""
        import requests

        try:
            response = requests.post(
                server_root(self.base_url) + "/tokenize",
                json=body,
                timeout=30,
                headers=self._auth_header(),
            )
            tokens = response.json().get("tokens") if response.ok else None
        except (requests.RequestException, ValueError):
            return None
        return list(tokens) if isinstance(tokens, list) else None

    # --- the request loop -----------------------------------------------------------------

    async def _send_all(self, jobs: Sequence[dict[str, Any]], disable_tqdm: bool) -> list:
        from aiohttp import ClientSession, ClientTimeout, TCPConnector
        from tqdm.asyncio import tqdm_asyncio

        concurrent = max(1, self._concurrent)
        sem = asyncio.Semaphore(concurrent)
        connector = TCPConnector(limit=concurrent, ssl=self.verify_certificate)
        async with ClientSession(
            connector=connector, timeout=ClientTimeout(total=self.timeout)
        ) as session:
            tasks = [self._send(session, sem, job) for job in jobs]
            return await tqdm_asyncio.gather(*tasks, desc="Requesting API", disable=disable_tqdm)

    async def _send(self, session: Any, sem: asyncio.Semaphore, job: dict[str, Any]) -> str | None:
        import aiohttp

        task = job["task"]
        headers = {**self.header, "Content-Type": "application/json"}
        error = ""
        for attempt in range(max(1, self.max_retries)):
            if self.stats.server_dead is not None:
                break
            if attempt:
                self._count(task, "retries")
                await asyncio.sleep(min(10.0, 0.5 * 2**attempt))
            async with sem:
                if self.stats.server_dead is not None:
                    break
                if attempt == 0:
                    self._count(task, "requests")
                try:
                    async with session.post(
                        self.base_url, json=job["payload"], headers=headers
                    ) as response:
                        if response.status != 200:
                            text = await response.text()
                            error = f"HTTP {response.status}: {text[:300]}"
                            if response.status >= 500 and engine_dead(text):
                                self._declare_dead(f"its engine died ({error})")
                                break
                            if response.status in _RETRY_STATUS:
                                await self._attempt_failed(session, error, connection=False)
                                continue
                            break
                        outputs = check_reply(await response.text(errors="replace"))
                except Malformed as err:  # an odd HTTP 200 reply: counted, retried like a 500
                    self._count(task, "malformed")
                    error = f"HTTP 200 with a malformed {err}"
                    await self._attempt_failed(session, error, connection=False)
                    continue
                except asyncio.TimeoutError:
                    self._count(task, "timeouts")
                    error = f"no answer within timeout={self.timeout} s"
                    continue
                except aiohttp.ClientError as err:
                    error = f"{type(err).__name__}: {_first_line(err)}"
                    await self._attempt_failed(session, error, connection=True)
                    continue
            self._failures_in_row = 0
            text = self._answer(task, outputs)
            self.cache_hook.add_partial("generate_until", job["args"], text)
            return text
        if self.stats.server_dead is not None:
            self._count(task, "aborted")
            return None
        self._count(task, "failed")
        self.stats.errors.append(error)
        log.error("coldbias: %s: request failed: %s", task, error)
        return None

    # --- a dead server --------------------------------------------------------------------

    _failures_in_row = 0
    _probing = False

    def _declare_dead(self, cause: str) -> None:
        if self.stats.server_dead is None:
            self.stats.server_dead = cause
            log.error("coldbias: the model server stopped answering: %s", cause)

    async def _attempt_failed(self, session: Any, error: str, connection: bool) -> None:
        """Count one failed attempt; after :data:`_PROBE_AFTER` in a row ask ``/health`` and
        declare the server dead unless it answers 200 (a server without ``/health`` keeps the
        plain retries)."""
        self._failures_in_row += 1
        if self._failures_in_row < _PROBE_AFTER or self._probing:
            return
        self._probing = True
        try:
            health = await self._health(session)
        finally:
            self._probing = False
        if health is None:
            self._failures_in_row = 0  # alive: the failures were the requests' own
            return
        self._declare_dead(f"{self._failures_in_row} attempts in a row failed (last: {error}) "
                           f"and {health}")  # fmt: skip

    async def _health(self, session: Any) -> str | None:
        """None when ``GET /health`` answers 200 or does not exist (404/405); else what it
        said (e.g. 503: vLLM's dead engine) or why it could not be reached."""
        import aiohttp

        url = server_root(self.base_url) + "/health"
        try:
            async with session.get(url, timeout=aiohttp.ClientTimeout(total=10)) as response:
                if response.status in (200, 404, 405):
                    return None
                return f"GET /health answered HTTP {response.status}"
        except (aiohttp.ClientError, asyncio.TimeoutError) as err:
            return f"GET /health failed ({type(err).__name__}: {_first_line(err)})"

    def _answer(self, task: str, outputs: Mapping[str, Any]) -> str:
        """The answer text of one response; empty or null content is counted, never hidden."""
        usage = outputs.get("usage") or {}
        self._count(task, "prompt_tokens", int(usage.get("prompt_tokens") or 0))
        self._count(task, "completion_tokens", int(usage.get("completion_tokens") or 0))
        choice = outputs["choices"][0]  # checked by served_reply.check_reply
        if choice.get("finish_reason") == "length":
            self._count(task, "cut_at_max_tokens")
        message = choice.get("message")
        if isinstance(message, Mapping):
            content = message.get("content")
            if isinstance(content, str):
                content = postprocess_generated_text(
                    content, stop=None, think_end_token=getattr(self, "think_end_token", None)
                )
        else:
            content = choice.get("text")
        if not isinstance(content, str) or not content.strip():
            self._count(task, "empty_content")
            if isinstance(message, Mapping) and message.get("reasoning_content"):
                log.warning(
                    "coldbias: %s: empty content but a reasoning_content: the server's "
                    "reasoning parser kept the answer; raise max_gen_toks or serve without "
                    "--reasoning-parser",
                    task,
                )
            return ""
        return content

    def _count(self, task: str, name: str, n: int = 1) -> None:
        setattr(self.stats, name, getattr(self.stats, name) + n)
        per_task = self.stats.by_task.setdefault(task, {})
        per_task[name] = per_task.get(name, 0) + n


def _settings(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The generation settings a request carried (what the server was asked for)."""
    keys = ("temperature", "max_tokens", "max_completion_tokens", "stop", "top_p", "top_k",
            "min_p", "repetition_penalty")  # fmt: skip
    return {k: payload[k] for k in keys if k in payload}


def _text(context: Any) -> str:
    return context.prompt if isinstance(context, JsonChatStr) else str(context)


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [""])[0][:200]


@register_model(SERVED_BACKENDS["local-chat-completions"])
class ServedChat(_Served, LocalChatCompletion):
    """``local-chat-completions`` with per-request seeds, a context check and counts."""

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        self._preflight(base_url)
        super().__init__(base_url=base_url, **kwargs)


@register_model(SERVED_BACKENDS["local-completions"])
class ServedCompletions(_Served, LocalCompletionsAPI):
    """``local-completions`` with per-request seeds, a context check and counts (no
    left-truncation: a prompt that does not fit is refused before any request)."""

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        self._preflight(base_url)
        super().__init__(base_url=base_url, **kwargs)


@register_model(SERVED_BACKENDS["openai-chat-completions"])
class ServedOpenAIChat(_Served, OpenAIChatCompletion):
    """``openai-chat-completions`` with per-request seeds and counts (OpenAI does not report
    the context length: nothing to check before sending; it takes ``top_p`` but no ``top_k``)."""

    plain_sampling: Mapping[str, float] = {"top_p": 1.0}

    def __init__(self, **kwargs: Any) -> None:
        self.stats = ServingStats()
        super().__init__(**kwargs)
