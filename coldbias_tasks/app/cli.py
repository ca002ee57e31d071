"""The ``coldbias`` console script (also ``python -m coldbias_tasks``): dispatch only.

- ``coldbias eval ARGS...``: lm_eval with the coldbias tasks and defaults (:mod:`.launch`);
- ``coldbias demo``: the offline end-to-end demo on a real small model (:mod:`.demo`);
- ``coldbias doctor``: this machine's CPU, dtype, backends and the demo's time (:mod:`.doctor`);
- ``coldbias plan --tasks T``: a run's prompts, tokens, time and MDE, no model loaded
  (:mod:`.plan`);
- ``coldbias serve MODEL``: ``vllm serve`` with the flags coldbias needs (:mod:`.serve`);
- ``coldbias tasks-dir``: print the folder to pass to ``lm_eval --include_path``;
- ``coldbias tasks {install,uninstall,status,dir}``: the tasks inside lm-eval's own task folder
  so plain ``lm_eval --tasks coldbias_movie`` finds them (:mod:`.commands`);
- ``coldbias eee RUN_DIR --output DIR``: Every Eval Ever records of a run (:mod:`.eee_export`);
- ``coldbias report OUT_DIR`` / ``coldbias leaderboard DIR...`` / ``coldbias import-seed-study
  PATH --output DIR``: :mod:`.commands`.

Library code raises :class:`~coldbias_tasks.core.errors.ColdbiasError`; here it becomes one
line on stderr and exit code 1. Any other error is a bug or an unforeseen input: one line says
so and names a log file holding the traceback (exit code 3); no traceback reaches the terminal.
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence

from coldbias_tasks.core.errors import ColdbiasError
from coldbias_tasks.core.resources import tasks_dir

__all__ = ["main"]

USAGE = """usage: coldbias {eval,demo,doctor,serve,tasks,tasks-dir,templates,report,leaderboard,
                eee,import-seed-study,plan} ...

  eval ARGS...        lm_eval ARGS... with coldbias tasks and defaults (see README)
  demo [--backend B]  offline end-to-end demo on a real small model (vllm if installed, else hf)
  doctor              what this machine can run (CPU flags, dtype, backends) and the demo's time
  plan --tasks T      what a run costs before it starts (prompts, tokens, time here and on GPUs,
                      the MDE), no model loaded; --calibrate measures this machine once
  serve MODEL         vllm serve MODEL with the flags coldbias needs (docs/serving.md)
  tasks install       copy the tasks into lm-eval's task folder: plain `lm_eval --tasks
                      coldbias_movie` then works from any folder (idempotent)
  tasks uninstall     remove that copy (only a folder coldbias wrote)
  tasks status        whether plain lm_eval finds the tasks, and whether the copy is stale
  tasks-dir           print the folder for lm_eval --include_path (also: tasks dir)
  templates [--json]  the built-in prompt templates: answer format, languages, prefix sharing
  report OUT_DIR      tables, plots and HTML from one lm-eval output folder
  leaderboard DIR...  one row per model from many output folders
  eee RUN_DIR --output DIR
                      Every Eval Ever records of a run, validated by EEE (docs/eee.md)
  import-seed-study PATH --output DIR
                      the seed study's released answers as run folders (docs/seed-study.md)
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command, rest = (args[0], args[1:]) if args else ("--help", [])
    try:
        if command in ("-h", "--help"):
            print(USAGE)
            code = 0
        else:
            code = _dispatch(command, rest)
        sys.stdout.flush()  # inside the try: a reader that left shows here, not at exit
        return code
    except ColdbiasError as err:
        print(f"coldbias {command}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"coldbias {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `coldbias templates | head`: the reader is gone; stop quietly
        _silence_stdout()
        return 141  # 128 + SIGPIPE, as a shell tool killed by it
    except Exception as err:  # a bug or an unforeseen input: one line and a log file
        log = _log_traceback(command)
        where = f"the traceback is in {log}" if log else "no log file could be written"
        print(
            f"coldbias {command}: unexpected error ({type(err).__name__}: "
            f"{_one_line(err)}); {where}; please report it with that file.",
            file=sys.stderr,
        )
        return 3


def _eval_help() -> str:
    """What ``coldbias eval`` adds to ``lm_eval`` (the launcher's docstring, so it cannot drift
    from it, without its markup), printed before lm-eval's own options."""
    import re
    import textwrap

    from coldbias_tasks.app import launch

    text = (launch.__doc__ or "").split("\n\n", 1)[-1]
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    after = (
        "After the run it removes from the results files the keys lm-eval writes for the "
        "standard error of a standard error, p-value, bound or verdict, and adds to each group "
        "its headline's interval and verdict (coldbias_tasks/app/tidy.py)."
    )
    return (
        "\n\n".join(
            textwrap.fill(" ".join(t.split()), 79)
            for t in ("usage: coldbias eval ARGS...", text, after)
        )
        + "\n\nlm_eval's own options:\n"
    )


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _one_line(err: BaseException, limit: int = 200) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _log_traceback(command: str) -> str | None:
    """Write the current exception's traceback to a new file in the temporary folder; its
    path, or None when nothing can be written (a full disk)."""
    try:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        fd, path = tempfile.mkstemp(prefix=f"coldbias-{command}-{stamp}-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as log:
            log.write(f"coldbias {command} {' '.join(sys.argv[1:])}\n\n")
            log.write(traceback.format_exc())
        return path
    except Exception:  # the report must never raise
        return None


#: command → (module, function) of the commands that take their own arguments (imported on
#: use, so ``coldbias report`` never imports lm-eval or torch)
_COMMANDS = {
    "doctor": ("coldbias_tasks.app.doctor", "main"),
    "plan": ("coldbias_tasks.app.plan", "main"),
    "serve": ("coldbias_tasks.app.serve", "main"),
    "demo": ("coldbias_tasks.app.demo", "main"),
    "report": ("coldbias_tasks.app.commands", "report_command"),
    "templates": ("coldbias_tasks.app.commands", "templates_command"),
    "tasks": ("coldbias_tasks.app.commands", "tasks_command"),
    "eee": ("coldbias_tasks.app.eee_export", "eee_command"),
    "leaderboard": ("coldbias_tasks.app.commands", "leaderboard_command"),
    "import-seed-study": ("coldbias_tasks.app.commands", "import_seed_study_command"),
}


def _dispatch(command: str, rest: list[str]) -> int:
    if command == "tasks-dir":
        print(tasks_dir())
        return 0
    if command == "eval":
        from coldbias_tasks.app.launch import prepare, run_lm_eval
        from coldbias_tasks.app.tidy import tidy_results

        if "-h" in rest or "--help" in rest:
            print(_eval_help())
        launch = prepare(rest)
        for note in launch.notes:
            print(f"coldbias eval: {note}", file=sys.stderr)
        started = time.time()
        run_lm_eval(launch.argv, launch.include_paths)
        output = launch.argv[launch.argv.index("--output_path") + 1] if (
            "--output_path" in launch.argv) else None  # fmt: skip
        for message in tidy_results(output, started) if output else ():
            print(f"coldbias eval: {message}", file=sys.stderr)
        return 0
    if command in _COMMANDS:
        module, function = _COMMANDS[command]
        return int(getattr(importlib.import_module(module), function)(rest))
    print(f"coldbias: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2
