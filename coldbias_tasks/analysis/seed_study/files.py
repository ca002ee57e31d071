"""Reading the files of a clone of the seed study: JSON, the seeds INI file, Python sets read
with :mod:`ast` (never executed), the git commit. Every file goes through the bounded readers
of :mod:`coldbias_tasks.core.files.jsonl` (a FIFO or device is refused, not read); problems raise
:class:`~coldbias_tasks.core.errors.RunError` naming the file and the fix."""

from __future__ import annotations

import ast
import configparser
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.files.jsonl import SIZE_LIMIT, json_value, read_text

__all__ = ["SOURCE_REPO", "git_commit", "literal_set", "read_json", "read_seeds"]

SOURCE_REPO = "https://github.com/GauthierRoy/biais_llm_rec"


def git_commit(root: Path) -> str:
    command = ["git", "-C", str(root), "rev-parse", "HEAD"]
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return out.stdout.strip()


def read_json(path: Path) -> Any:
    if not os.path.lexists(path):
        raise RunError(
            f"{path}: missing; pass the root of a clone of {SOURCE_REPO} (it has data/ and "
            "config/)."
        )
    text = read_text(path, RunError, SIZE_LIMIT)  # a FIFO or device is refused, not read
    return json_value(text, RunError, str(path), "restore the file from git.")


def read_seeds(path: Path) -> tuple[int, ...]:
    """The study's seeds from ``config_inference`` (``[parameters] seeds = 0, 1, ...``;
    0–4 when the file or the key is absent); anything else raises RunError."""
    config = configparser.ConfigParser()
    if os.path.lexists(path):
        try:
            config.read_string(read_text(path, RunError, 1 << 20), source=str(path))
        except configparser.Error as err:
            raise RunError(
                f"{path}: not an INI file ({err.message}); restore it from git."
            ) from None
    text = config.get("parameters", "seeds", fallback="0, 1, 2, 3, 4")
    try:
        seeds = tuple(int(s) for s in re.split(r"[,\s]+", text.strip()) if s)
    except ValueError:
        seeds = ()
    if not seeds or not all(0 <= s < 1000 for s in seeds):
        raise RunError(
            f"{path}: seeds = {text[:80]!r}; expected whole numbers 0–999 separated by commas "
            "(e.g. seeds = 0, 1, 2, 3, 4); restore the file from git."
        )
    return seeds


def literal_set(path: Path, name: str) -> frozenset[str] | None:
    """The string set assigned to ``name`` in a Python file (``x = set([...])`` or ``{...}``),
    read with :mod:`ast` (never executed); None when absent."""
    try:
        tree = ast.parse(read_text(path, RunError, SIZE_LIMIT))
    except (RunError, SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            continue
        value = node.value
        if isinstance(value, ast.Call) and value.args:
            value = value.args[0]
        try:
            items = ast.literal_eval(value)
        except ValueError:
            return None
        return frozenset(str(x) for x in items)
    return None
