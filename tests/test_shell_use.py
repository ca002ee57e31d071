"""Plain shell use: ``coldbias templates | head`` stops quietly when the reader leaves (one
BrokenPipeError handler in the CLI entry), with no "unexpected error" and no log file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv", [["templates"], ["tasks-dir"], ["--help"]])
def test_a_reader_that_left_ends_the_command_quietly(tmp_path: Path, argv: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader (head) is gone before anything is written
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "coldbias_tasks", *argv],
            stdout=write, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, timeout=120,
        )  # fmt: skip
    finally:
        os.close(write)
    assert proc.stderr == "" and proc.returncode in (0, 141), proc.stderr
    assert not list(tmp_path.glob("coldbias-*.log"))


def test_head_of_templates_in_a_real_pipe(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    cmd = f"{sys.executable} -m coldbias_tasks templates | head -c 1 >/dev/null; sleep 0"
    proc = subprocess.run(
        ["bash", "-c", cmd], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert "unexpected error" not in proc.stderr and "Traceback" not in proc.stderr
