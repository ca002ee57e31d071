"""``coldbias eval``: the lm_eval command line with the coldbias tasks and defaults.

``coldbias eval ARGS...`` = ``lm_eval ARGS...`` with the package's tasks dir as
``--include_path`` and, unless given: ``--apply_chat_template``, ``--log_samples``,
``--output_path runs/``, and for ``--model hf`` a ``max_length`` that fits a 500-item catalog.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from coldbias_tasks.app.vllm_shim import install_vllm_cpu_alias
from coldbias_tasks.core.errors import ModelError, SettingsError
from coldbias_tasks.core.resources import tasks_dir

__all__ = ["HF_MAX_LENGTH", "check_chat_template", "eval_argv", "run_lm_eval"]

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


def eval_argv(argv: Sequence[str]) -> list[str]:
    """The lm_eval argument list for ``coldbias eval argv``."""
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
    if _value(args, "--model") == "hf":
        model_args = _value(args, "--model_args")
        if model_args is None:
            args += ["--model_args", f"max_length={HF_MAX_LENGTH}"]
        elif "max_length" not in model_args:
            _set_value(args, "--model_args", f"{model_args},max_length={HF_MAX_LENGTH}")
    return args


def run_lm_eval(argv: Sequence[str]) -> None:
    """Run lm-eval's CLI in this process with ``argv`` (already expanded)."""
    install_vllm_cpu_alias()
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *argv]
    cli_evaluate()
