"""No traceback: an unexpected error is one line with a log file, a missing home folder or a full
disk is one line, and every subcommand given hostile input prints no traceback (issue 31)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import ColdbiasError
from tests import seed_fixture as fx
from tests.run_fixtures import (
    DEEP,
    SHALLOW,
    run_cli,
)

# --- 5. no traceback -------------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_with_a_log_file(monkeypatch, capsys) -> None:
    from coldbias_tasks.app import commands

    def broken(argv: list[str]) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(commands, "templates_command", broken)
    assert cli.main(["templates"]) == 3
    err = capsys.readouterr().err
    assert "unexpected error (ZeroDivisionError: a bug)" in err and "Traceback" not in err
    log = Path(err.split("the traceback is in ")[1].split(";")[0])
    assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
    log.unlink()


def test_doctor_without_a_home_folder_is_one_line(monkeypatch, capsys) -> None:
    from coldbias_tasks.app import models

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("COLDBIAS_CACHE", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    with pytest.raises(ColdbiasError, match="set HOME, or COLDBIAS_CACHE"):
        models.cache_dir()
    assert cli.main(["doctor", "--no-probe"]) == 1
    err = capsys.readouterr().err
    assert "set HOME" in err and "Traceback" not in err, err


def test_a_full_disk_during_the_report_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    from coldbias_tasks.app.outputs import OutputFolder

    with (
        pytest.raises(ColdbiasError, match="No space left"),
        OutputFolder(tmp_path / "out", "coldbias report"),
    ):
        raise OSError(28, "No space left on device")
    assert [p.name for p in tmp_path.iterdir()] == []


# --- 5. every subcommand with hostile input: no traceback ------------------------------------


def _hostile_inputs(tmp: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """subcommand → (argv, environment) with hostile input."""
    deep_run = tmp / "deep" / "m"
    deep_run.mkdir(parents=True)
    (deep_run / "results_2025-01-01T00-00-00.000000.json").write_text('{"results": ' + DEEP + "}")
    bad_run = tmp / "bad" / "m"
    bad_run.mkdir(parents=True)
    (bad_run / "results_2025-01-01T00-00-00.000000.json").write_text(
        json.dumps({"results": {"coldbias_movie_gender": {}}, "config": []})
    )
    clone = fx.write_fixture(tmp / "clone")
    (clone / "config" / "sensitive_attributes.json").unlink()
    os.mkfifo(clone / "config" / "sensitive_attributes.json")
    (tmp / "file").write_text("x")
    return {
        "eval": (["--tasks", "coldbias_movie_gender", "--metadata", '{"a": ' + SHALLOW + "}"], {}),
        "demo": (["--backend", "hf"], {"COLDBIAS_CACHE": str(tmp / "file" / "cache")}),
        "doctor": (["--no-probe"], {"COLDBIAS_CACHE": "", "HOME": str(tmp / "gone")}),
        "tasks-dir": (["--what"], {}),
        "templates": (["--json", "--nonsense"], {}),
        "report": ([str(tmp / "deep"), "--output", str(tmp / "rep")], {}),
        "leaderboard": ([str(tmp / "bad"), "--output", str(tmp / "file")], {}),
        "import-seed-study": ([str(clone), "--output", str(tmp / "seed")], {}),
        "no-such-command": ([], {}),
    }


@pytest.mark.parametrize(
    "command",
    ["eval", "demo", "doctor", "tasks-dir", "templates", "report", "leaderboard",
     "import-seed-study", "no-such-command"],
)  # fmt: skip
def test_every_subcommand_with_hostile_input_prints_no_traceback(tmp_path: Path, command: str):
    argv, env = _hostile_inputs(tmp_path)[command]
    proc = run_cli(command, *argv, timeout=180, env=env)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    if command not in ("tasks-dir", "doctor"):
        assert proc.returncode != 0, proc.stdout[-500:]
