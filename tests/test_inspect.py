"""coldbias on Inspect (docs/inspect.md): the same documents and prompts, Inspect's mockllm model
offline, a synthetic solver, and the same synthetic answers through lm-eval's evaluator and
through Inspect giving identical numbers (computed by the one function,
core/result.task_result)."""

from __future__ import annotations

import math
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import Generate, Solver, TaskState, solver  # noqa: E402

from coldbias_tasks.core.errors import SettingsError  # noqa: E402
from coldbias_tasks.core.prompting.documents import build_docs  # noqa: E402
from coldbias_tasks.core.stats.estimate import VERDICTS  # noqa: E402
from coldbias_tasks.inspect.tasks import coldbias_task, sample_id, verdict_of  # noqa: E402
from tests.synthetic import SyntheticRecommender, run_synthetic  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMALL = {
    "coldbias_n_items": 40,
    "coldbias_k": 5,
    "coldbias_repeats": 2,
    "coldbias_replicates": 2,
    "coldbias_phrasings": 0,
}
TASK = "coldbias_movie_gender"


def _usage(text: str) -> ModelOutput:
    """A mockllm output with its usage set (mockllm counts tokens with tiktoken's o200k_base
    file otherwise, a download this offline machine cannot make)."""
    out = ModelOutput.from_content(model="mockllm", content=text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


@solver
def synthetic_solver(seed: int = 0, effect: Mapping[str, Any] | None = None) -> Solver:
    """Answers each sample as :class:`tests.synthetic.SyntheticRecommender` answers the same
    document through lm-eval (the sample's metadata is the document)."""
    model = SyntheticRecommender(seed=seed, effect=effect)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = _usage(model._answer(state.metadata))
        return state

    return solve


def _run(task: Any, tmp_path: Path, **model_args: Any) -> EvalLog:
    model = get_model("mockllm/model", **model_args)
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


def test_samples_are_the_documents_lm_eval_builds() -> None:
    task = coldbias_task("movie", "gender", **SMALL)
    docs = build_docs("movie", "gender", "plain", SMALL)
    samples = list(task.dataset)
    assert [s.id for s in samples] == [sample_id(d) for d in docs]
    assert len({s.id for s in samples}) == len(samples)
    assert [s.input for s in samples] == [d.prompt for d in docs]
    assert [s.metadata for s in samples] == [d.to_dict() for d in docs]
    assert task.config.temperature == 0.7 and task.config.max_tokens > 0


def test_bad_settings_are_one_clear_error() -> None:
    with pytest.raises(SettingsError, match="coldbias_repeat"):
        coldbias_task("movie", "gender", coldbias_repeat=2)


def test_mockllm_runs_offline_and_reports_the_disparity(tmp_path: Path) -> None:
    """mockllm with answers that are k shown titles: the log carries the headline with its
    interval, p and verdict code for every similarity, per answer the parsed record."""
    model = SyntheticRecommender(seed=1)
    docs = {sample_id(d): d.to_dict() for d in build_docs("movie", "gender", "plain", SMALL)}
    by_prompt = {d["prompt"]: d for d in docs.values()}

    def answer(messages: list, *_: Any) -> ModelOutput:
        return _usage(model._answer(by_prompt[messages[-1].text]))

    log = _run(coldbias_task("movie", "gender", **SMALL), tmp_path, custom_outputs=answer)
    metrics = _metrics(log)
    for sim in ("iou", "serp", "prag"):
        value = metrics[f"{sim}_disparity"]
        assert not math.isnan(value)
        low, high = metrics[f"{sim}_disparity_ci_low"], metrics[f"{sim}_disparity_ci_high"]
        assert low <= value <= high
        assert 0 <= metrics[f"{sim}_disparity_p"] <= 1
        assert verdict_of(metrics[f"{sim}_disparity_verdict"]) in VERDICTS
    assert log.samples and all(s.scores for s in log.samples)
    first = log.samples[0].scores["answer_scorer"]
    assert first.metadata["coldbias_answer"]["persona_id"] == log.samples[0].metadata["persona_id"]
    assert first.value == SMALL["coldbias_k"]


def test_default_mockllm_answer_is_degenerate_not_a_number(tmp_path: Path) -> None:
    """mockllm's default text names no title: every answer is empty, the task is degenerate
    and no verdict says "not detected"."""
    log = _run(
        coldbias_task("movie", "gender", **SMALL),
        tmp_path,
        custom_outputs=lambda *_: _usage("Default output from mockllm/model"),
    )
    metrics = _metrics(log)
    verdicts = {verdict_of(v) for k, v in metrics.items() if k.endswith("_verdict")}
    assert verdicts and "not detected" not in verdicts and "detected" not in verdicts


def _lm_numbers(results: Mapping[str, Any]) -> dict[str, float | str]:
    entry = results["results"][TASK]
    return {
        k.removesuffix(",ranked"): v
        for k, v in entry.items()
        if k.endswith(",ranked") and not k.startswith("coldbias_answer")
    }


@pytest.mark.parametrize(
    "effect", [None, {"gender.female": lambda item: 1.0 + 4.0 * (item % 3 == 0)}]
)
def test_same_answers_give_identical_numbers_in_lm_eval_and_inspect(
    tmp_path: Path, effect: Mapping[str, Any] | None
) -> None:
    """The synthetic recommender through lm-eval's evaluator and, as a solver, through Inspect:
    every lm-eval metric of the task has the same value in Inspect's log (verdicts by code,
    "N/A" left out)."""
    lm = _lm_numbers(run_synthetic(SyntheticRecommender(seed=3, effect=effect), [TASK], SMALL))
    task = coldbias_task("movie", "gender", solver=synthetic_solver(3, effect), **SMALL)
    ours = _metrics(_run(task, tmp_path))
    compared = 0
    for key, value in lm.items():
        if value == "N/A":
            assert key not in ours
        elif key.endswith("_verdict"):
            assert verdict_of(ours[key]) == value, key
        else:
            assert ours[key] == pytest.approx(value, nan_ok=True, rel=1e-12, abs=0), key
        compared += 1
    assert compared == len(lm) > 20 and "iou_disparity" in lm


def test_coldbias_report_reads_inspect_logs(tmp_path: Path) -> None:
    """``coldbias report LOG_DIR`` on a folder of Inspect logs: the logs are written as an
    lm-eval run, loaded with its checks, and the report's headline is Inspect's number."""
    import pandas as pd

    from coldbias_tasks.app.commands import INSPECT_RUNS, build_report

    logs = tmp_path / "logs"
    task = coldbias_task("movie", "gender", solver=synthetic_solver(5), **SMALL)
    ours = _metrics(_run(task, logs))
    (logs / "not_coldbias.txt").write_text("other files stay")
    result = build_report(logs, tmp_path / "report")
    assert (logs / INSPECT_RUNS).is_dir() and any("Inspect logs" in s for s in result.summary)
    assert (tmp_path / "report" / "report.html").is_file()
    groups = pd.read_csv(tmp_path / "report" / "groups.csv")
    row = groups[(groups["task"] == TASK) & (groups["metric"] == "iou")].iloc[0]
    assert row["disparity"] == pytest.approx(ours["iou_disparity"], rel=1e-6)  # CSV: 6 digits
    assert str(row["disparity_verdict"]).startswith(verdict_of(ours["iou_disparity_verdict"]))
    build_report(logs, tmp_path / "report")  # again: the converted folder is replaced


def test_registry_names_every_forward_task() -> None:
    from inspect_ai._util.registry import registry_lookup

    from coldbias_tasks.core.prompting.documents import forward_tasks
    from coldbias_tasks.inspect import registry

    assert len(registry.registered()) == len(forward_tasks())
    assert "movie_gender" in registry.registered() and "movie_open_age" in registry.registered()
    found = registry_lookup("task", "coldbias/movie_gender")
    assert found is not None
    task = found(**SMALL)
    assert len(task.dataset) == len(build_docs("movie", "gender", "plain", SMALL))


#: A byte-level stand-in for tiktoken's o200k_base (mockllm's token counts only), installed by
#: sitecustomize in the CLI's process: the real file is a download this machine cannot make.


@pytest.mark.slow
def test_inspect_cli_runs_the_registered_task(tmp_path: Path) -> None:
    """``inspect eval coldbias/movie_gender --model mockllm/model`` from the installed entry
    point: a throwaway venv sees the shared packages and an editable install of this tree."""
    import site
    import venv

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / "shared.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", ROOT], check=True)
    # no shim: offline, coldbias's registry gives mockllm a stand-in token counter
    # (registry.offline_token_counter)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TIKTOKEN_CACHE_DIR": str(tmp_path / "tk")}
    args = [f"-T {k}={v}" for k, v in SMALL.items()]
    out = subprocess.run(
        [python, "-m", "inspect_ai", "eval", "coldbias/movie_gender",
         "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs"), "--display", "plain",
         *" ".join(args).split()],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    from inspect_ai.log import list_eval_logs, read_eval_log

    (info,) = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.status == "success" and log.eval.task.endswith("movie_gender")
    assert "iou_disparity_verdict" in _metrics(log)


TINY = {
    "coldbias_n_items": 10,
    "coldbias_k": 3,
    "coldbias_repeats": 1,
    "coldbias_replicates": 0,
    "coldbias_phrasings": 2,
}


@pytest.mark.slow
@pytest.mark.engine
def test_bundled_model_through_inspects_hf_provider(tmp_path: Path, monkeypatch) -> None:
    """The bundled Qwen2.5-Coder-0.5B-Instruct through Inspect's own HF provider (offline,
    tiny settings): every answer is parsed into a record that fits its prompt, and the log's
    numbers are task_result's of the logged records."""
    from coldbias_tasks.app.models import DEFAULT_MODEL, hub_model, offline_env, prepare_model
    from coldbias_tasks.core.records import AnswerRecord
    from coldbias_tasks.core.result import task_result
    from coldbias_tasks.inspect.tasks import inspect_numbers

    prepare_model(DEFAULT_MODEL, log=False)
    for key, value in offline_env().items():
        monkeypatch.setenv(key, value)
    task = coldbias_task("movie", "gender", **TINY)
    (log,) = inspect_eval(
        task, model=f"hf/{hub_model(DEFAULT_MODEL)}", log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == len(task.dataset)
    records = [
        AnswerRecord.from_payload(s.scores["answer_scorer"].metadata["coldbias_answer"])
        for s in log.samples
    ]
    assert sum(len(r.items) for r in records) > 0  # the model named shown titles
    expected = inspect_numbers(task_result(records).lm_numbers())
    assert _metrics(log) == pytest.approx(expected, nan_ok=True)


def test_a_damaged_inspect_log_is_one_clear_error(tmp_path: Path) -> None:
    from coldbias_tasks.app.commands import build_report
    from coldbias_tasks.core.errors import RunError

    (tmp_path / "broken.eval").write_bytes(b"not a zip")
    with pytest.raises(RunError, match=r"broken\.eval: not a readable Inspect log"):
        build_report(tmp_path)
