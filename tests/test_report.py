"""`coldbias report`: loading lm-eval output folders, CSV numbers, provenance, plots, HTML.

Fast tests write small synthetic output folders in the real lm-eval layout (key structure
copied from a real vLLM run); the slow test reports on a real run (fixture ``lm_eval_run``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from PIL import Image

from coldbias_tasks.analysis import report
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.app import cli, commands
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.measures.exposure import exposure
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.vocabulary import parse_task_name, sentence_id
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval.harness import METRICS
from coldbias_tasks.render import report_figures

#: CSVs carry 6 significant digits (CSV_FLOAT_FORMAT): compare at that precision.
CSV = {"rel": 1e-5, "abs": 1e-12}

# --- synthetic lm-eval output folders ---------------------------------------------------------

N_SHOWN = 30
K = 5
TEMPLATE_SHA = "738f7402e5b5b61314fc7fed2bbb60d25cfa0336289ff236f170ac1ded916d05"
#: items(persona_id, repeat, shown order) → the answer's catalog ids, best first
Rule = Callable[[str, int, list[int]], list[int]]


def shown_order(repeat: int) -> list[int]:
    """Catalog ids shown at ``repeat``: a permutation of 0..N_SHOWN-1, different per repeat."""
    return [((i + repeat) * 7) % N_SHOWN for i in range(N_SHOWN)]


def spread_rule(persona: str, repeat: int, shown: list[int]) -> list[int]:
    """Non-degenerate answers: items from the middle of the shown list; the attribute personas
    replace some of the neutral items (more for "b"/"boy"/"thin" values, which are "biased")."""
    base = [shown[i] for i in (11, 13, 17, 19, 23)]
    if persona == "neutral":
        return base if repeat % 2 == 0 else [*base[:4], shown[25]]
    swap = 1 + (hash_persona(persona) + repeat) % 3
    return [*base[: K - swap], *(shown[26 - j] for j in range(swap))]


def hash_persona(persona: str) -> int:
    return sum(map(ord, persona))


def copy_rule(persona: str, repeat: int, shown: list[int]) -> list[int]:
    """Degenerate answers: the first k shown items, for every persona (position copying)."""
    return shown[:K]


def make_samples(
    task: str,
    rule: Rule,
    repeats: int = 3,
    ooc: int = 0,
    dup: int = 0,
    replicates: int = 1,
    phrasings: int = 1,
    model_phrase: str = "",
) -> list[dict[str, Any]]:
    """Sample lines of one task in lm-eval's --log_samples format (one per sentence × repeat);
    with ``phrasings`` > 1 each value is asked in that many phrasings (persona id
    ``<value>#<p>``, task version 4), else in its first phrasing under the value's id.
    ``model_phrase`` replaces every user sentence (hostile-text tests)."""
    domain, variant, group = parse_task_name(task)
    catalog = load_catalog(domain)
    config = load_personas()
    phrasings = min(phrasings, config.phrasings(config.find(group, variant)))
    sentences = [
        (
            persona,
            persona.id if persona.is_neutral or phrasings == 1 else sentence_id(persona.id, j),
            j,
        )
        for persona in config.group(group, replicates=replicates)
        for j in range(1 if persona.is_neutral else phrasings)
    ]
    lines = []
    for persona, sid, phrasing in sentences:
        for repeat in range(repeats):
            shown = shown_order(repeat)
            items = rule(sid, repeat, shown)
            titles = tuple(catalog.titles[i] for i in items)
            payload = AnswerRecord(
                persona_id=sid,
                repeat=repeat,
                items=tuple(items),
                k=K,
                positions=tuple(shown.index(i) for i in items),
                n_shown=N_SHOWN,
                n_entries=len(items) + ooc + dup,
                n_out_of_catalog=ooc,
                n_duplicates=dup,
                titles=titles,
                out_of_catalog=("Made Up Title",) * ooc,
                duplicates=(titles[0],) * dup if items else (),
                value=persona.id if phrasings > 1 else "",
                phrasing=phrasing,
            ).to_payload()
            doc = TaskDoc(
                persona_id=sid,
                attribute_group=group,
                user=model_phrase or config.describe(persona, variant, domain, phrasing=phrasing),
                domain=domain,
                variant=variant,
                repeat=repeat,
                k=K,
                order="shuffle",
                seed=1234,
                catalog=domain,
                catalog_sha256=catalog.sha256,
                template_sha256=TEMPLATE_SHA,
                coldbias_version="0.4.0" if phrasings > 1 else "0.1.0",  # the first writer of 4.0
                shown_ids=tuple(shown),
                prompt="You are a recommender system. ...",
                value=persona.id if phrasings > 1 else "",
                phrasing=phrasing,
            ).to_dict()
            line = {
                "doc_id": len(lines),
                "doc": doc,
                "target": "",
                "arguments": {"gen_args_0": {"arg_0": "<prompt>", "arg_1": {"do_sample": True}}},
                "resps": [["\n".join(payload["titles"])]],
                "filtered_resps": [str(payload)],
                "filter": "ranked",
                "metrics": list(METRICS),
                "doc_hash": "0" * 64,
                "prompt_hash": "1" * 64,
                "target_hash": "2" * 64,
            }
            line.update({metric: payload for metric in METRICS})
            lines.append(line)
    return lines


def _settings(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The coldbias settings lm-eval records with a task, as the synthetic lines were made."""
    docs = [line["doc"] for line in lines]
    replicates = {d["persona_id"] for d in docs if d["persona_id"].startswith("neutral.rep")}
    phrasings = max((d.get("phrasing", 0) for d in docs if d.get("value")), default=0) + 1
    return {
        "coldbias_k": K,
        "coldbias_repeats": max(d["repeat"] for d in docs) + 1,
        "coldbias_replicates": len(replicates),
        "coldbias_n_items": N_SHOWN,
        **({"coldbias_phrasings": phrasings} if phrasings > 1 else {}),
    }


def _version(lines: Sequence[dict[str, Any]]) -> float:
    """Task version 4.0 for values asked in several phrasings, else 1.0."""
    return 4.0 if "coldbias_phrasings" in _settings(lines) else 1.0


def write_run(
    out: Path,
    tasks: dict[str, list[dict[str, Any]]],
    model: str = "org/fair-model",
    seed: int = 1234,
    stamp: str = "2026-01-01T00-00-00.000001",
    extra: dict[str, dict[str, Any]] | None = None,
    backend: str = "vllm",
    write_samples: bool = True,
) -> Path:
    """Write ``out/<sanitized model>/results_<stamp>.json`` and the samples JSONL files.

    ``tasks``: coldbias task → sample lines (:func:`make_samples`); ``extra``: other harness
    task → its ``results`` entry (e.g. ``{"acc,none": 0.5, "acc_stderr,none": 0.01}``).
    The coldbias numbers in the results JSON come from the harness aggregations, as in a run.
    """
    folder = out / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    configs: dict[str, Any] = {}
    higher: dict[str, Any] = {}
    for task, lines in tasks.items():
        domain, variant, group = parse_task_name(task)
        payloads = [line["iou_divergence"] for line in lines]
        entry: dict[str, Any] = {"name": task, "alias": task, "sample_len": len(lines)}
        for metric, (agg, _better) in METRICS.items():
            if metric.startswith("diversity_") and _version(lines) < 4.1:
                continue  # keys of task version 4.1: an older run never held them (run_check)
            entry[f"{metric},ranked"] = agg(payloads)
            entry[f"{metric}_stderr,ranked"] = "N/A"
        results[task] = entry
        configs[task] = {
            "task": task,
            "dataset_kwargs": {"domain": domain, "group": group, "variant": variant},
            "output_type": "generate_until",
            "repeats": 1,
            "metadata": {"version": _version(lines), "pretrained": model, "seed": seed}
            | _settings(lines),
        }
        higher[task] = {metric: better for metric, (_agg, better) in METRICS.items()}
        if write_samples:
            path = folder / f"samples_{task}_{stamp}.jsonl"
            path.write_text(
                "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                encoding="utf-8",
            )
    for task, entry in (extra or {}).items():
        results[task] = {"alias": task, **entry}
        configs[task] = {"task": task, "metadata": {"version": 2.0}}
        higher[task] = {key.split(",")[0]: True for key in entry if "_stderr" not in key}
    blob = {
        "results": results,
        "group_subtasks": {task: [] for task in results},
        "configs": configs,
        "versions": {task: 1.0 if task.startswith("coldbias") else 2.0 for task in results},
        "n-shot": {task: 0 for task in results},
        "higher_is_better": higher,
        "n-samples": {
            t: {"original": len(tasks.get(t, [1])), "effective": len(tasks.get(t, [1]))}
            for t in results
        },
        "config": {
            "model": backend,
            "model_args": {"pretrained": model, "dtype": "bfloat16", "seed": seed},
            "batch_size": "auto",
            "random_seed": 0,
            "numpy_seed": 1234,
            "torch_seed": 1234,
            "fewshot_seed": 1234,
        },
        "git_hash": None,
        "date": 1795983811.0 + seed,
        "transformers_version": "5.19.0",
        "lm_eval_version": "0.4.13",
        "model_source": backend,
        "model_name": model,
        "model_name_sanitized": model.replace("/", "__"),
        "chat_template_sha": "c" * 64,
        "total_evaluation_time_seconds": "12.5",
    }
    (folder / f"results_{stamp}.json").write_text(json.dumps(blob), encoding="utf-8")
    return out


def records_of(lines: Sequence[dict[str, Any]]) -> list[AnswerRecord]:
    return [AnswerRecord.from_payload(line["iou_divergence"]) for line in lines]


def fair_tasks() -> dict[str, list[dict[str, Any]]]:
    """Three tasks: two domains, a plain and a context variant (the context one degenerate)."""
    return {
        "coldbias_movie_gender": make_samples("coldbias_movie_gender", spread_rule),
        "coldbias_movie_context_gender": make_samples("coldbias_movie_context_gender", copy_rule),
        "coldbias_music_physics": make_samples("coldbias_music_physics", spread_rule),
    }


@pytest.fixture
def fair_run(tmp_path: Path) -> tuple[Path, dict[str, list[dict[str, Any]]]]:
    """A fresh folder (tests may damage it)."""
    tasks = fair_tasks()
    return write_run(tmp_path / "out", tasks), tasks


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path, Any]:
    """(output folder, tasks, report folder, ReportResult): one report shared by read-only
    tests (plotting is the slow part)."""
    root = tmp_path_factory.mktemp("built")
    tasks = fair_tasks()
    out = write_run(root / "out", tasks)
    result = commands.build_report(out, root / "rep")
    return out, tasks, root / "rep", result


def small_run(tmp_path: Path) -> Path:
    lines = make_samples("coldbias_music_physics", spread_rule)
    return write_run(tmp_path / "small", {"coldbias_music_physics": lines})


# --- tests ------------------------------------------------------------------------------------


def test_loader_rebuilds_records_and_provenance(fair_run) -> None:
    out, tasks = fair_run
    (model,) = pool_runs(load_folder(out))
    assert model.label == "org/fair-model"
    assert set(model.tasks) == set(tasks)
    task = model.tasks["coldbias_movie_gender"]
    assert list(task.records) == records_of(tasks["coldbias_movie_gender"])
    assert (task.domain, task.group, task.variant) == ("movie", "gender", "plain")
    assert model.tasks["coldbias_movie_context_gender"].variant == "context"
    assert (task.k, task.n_shown, task.order, task.seed, task.repeats) == (
        K,
        N_SHOWN,
        "shuffle",
        1234,
        3,
    )
    assert task.version == "1.0"
    assert task.catalog_sha256 == load_catalog("movie").sha256
    prov = model.provenance()
    assert prov["seeds"] == ["1234"]
    assert prov["model_args"] == {"pretrained": "org/fair-model", "dtype": "bfloat16"}
    assert prov["lm_eval_version"] == "0.4.13"
    assert prov["transformers_version"] == "5.19.0"
    assert prov["coldbias_version"]
    assert prov["template_sha256"] == TEMPLATE_SHA


def test_csv_numbers_equal_summarize_group(built) -> None:
    out, tasks, dest, _ = built
    values = pd.read_csv(dest / "values.csv")
    groups = pd.read_csv(dest / "groups.csv")
    fid = pd.read_csv(dest / "fidelity.csv")
    results = json.loads(next(out.rglob("results_*.json")).read_text())["results"]
    for task, lines in tasks.items():
        summary = summarize_answers(records_of(lines))
        for metric, ms in summary.metrics.items():
            row = groups[(groups.task == task) & (groups.metric == metric)].iloc[0]
            assert row["mean"] == pytest.approx(ms.mean, **CSV)
            assert row["mean"] == pytest.approx(results[task][f"{metric}_divergence,ranked"], **CSV)
            assert row["std"] == pytest.approx(ms.std, **CSV)
            assert row["snsr"] == pytest.approx(ms.snsr, **CSV)
            assert row["snsv"] == pytest.approx(ms.snsv, **CSV)
            assert row["noise_floor"] == pytest.approx(ms.noise_floor.mean, **CSV)
            for v in ms.values:
                vr = values[
                    (values.task == task)
                    & (values.metric == metric)
                    & (values.persona_id == v.persona_id)
                ].iloc[0]
                assert vr["divergence_mean"] == pytest.approx(v.mean, **CSV)
                assert vr["divergence_std"] == pytest.approx(v.std, **CSV)
                assert vr["n_repeats"] == v.n_repeats
                assert vr["excess_over_floor"] == pytest.approx(v.excess_over_floor, **CSV)
                assert vr["p_value"] == pytest.approx(v.p_value, **CSV)
                assert vr["p_adjusted"] == pytest.approx(v.p_adjusted, **CSV)
                # 3 repeats, 1 replicate: smallest p 1/27, so no gender value can be flagged
                expected = "flagged" if v.flagged else "underpowered" if ms.underpowered else "not"
                assert vr["verdict"].startswith(expected)
            assert row["excess"] == pytest.approx(ms.excess, **CSV)
            assert row["excess"] == pytest.approx(results[task][f"{metric}_excess,ranked"], **CSV)
            assert row["group_p"] == pytest.approx(ms.group_p, **CSV)
            assert row["underpowered"] == ms.underpowered
            assert row["excess_ci_low"] <= row["excess"] + 1e-12 <= row["excess_ci_high"] + 2e-12
        f = fid[fid.task == task].iloc[0]
        assert f["exact_k_rate"] == pytest.approx(summary.fidelity.exact_k_rate, **CSV)
        assert f["empty_rate"] == pytest.approx(summary.fidelity.empty_rate, **CSV)
        assert f["out_of_catalog_rate"] == pytest.approx(
            summary.fidelity.out_of_catalog_rate, **CSV
        )
        assert f["duplicate_rate"] == pytest.approx(summary.fidelity.duplicate_rate, **CSV)
        assert f["mean_items"] == pytest.approx(summary.fidelity.mean_items, **CSV)
        assert f["invalid_pair_rate"] == pytest.approx(summary.invalid_pair_rate, **CSV)
        assert f["mean_catalog_position"] == pytest.approx(summary.positions.mean_position, **CSV)
        assert f["position_bias"] == pytest.approx(results[task]["position_bias,ranked"], **CSV)
        assert f["prefix_copy_rate"] == pytest.approx(summary.positions.prefix_copy_rate, **CSV)
        assert f["prefix_copy_rate"] == pytest.approx(
            results[task]["prefix_copy_rate,ranked"], **CSV
        )


def test_exposure_csv_equals_exposure_stats(built) -> None:
    _, tasks, dest, _ = built
    table = pd.read_csv(dest / "exposure.csv")
    movie = load_catalog("movie")
    records = records_of(tasks["coldbias_movie_gender"])
    shares = exposure(records, movie.categories("genres"))
    sub = table[(table.task == "coldbias_movie_gender") & (table.field == "genres")]
    assert set(sub.persona_id) == {p for p in shares if p.startswith("gender.")}
    for row in sub.itertuples():
        assert row.share == pytest.approx(shares[row.persona_id][row.category], **CSV)
        # neutral share pools the neutral user and its replicate
        assert row.diff == pytest.approx(row.share - row.neutral_share, abs=1e-5)
        assert row.diff_ci_low <= row.diff + 1e-12 and row.diff <= row.diff_ci_high + 1e-12
        assert 0 < row.p_value <= 1 and row.p_value <= row.q_value + 1e-12
        assert 0 <= row.base_rate <= 1
    shown = list(range(N_SHOWN))
    genres = movie.categories("genres")
    action = sum("Action" in genres[i] for i in shown) / N_SHOWN
    base = sub[sub.category == "Action"].base_rate
    assert (base == pytest.approx(action)).all()
    # western: boolean field, labelled Western / non-Western (Fig. 4 of the paper)
    western = table[(table.task == "coldbias_movie_gender") & (table.field == "western")]
    assert set(western.category) <= {"Western", "non-Western"}


def test_exposure_option_picks_fields(tmp_path: Path, capsys) -> None:
    lines = make_samples("coldbias_movie_physics", spread_rule)
    out = write_run(tmp_path / "out", {"coldbias_movie_physics": lines})
    small_run(tmp_path / "out")
    args = ["--exposure", "artist_country", "--exposure", "year"]
    assert cli.main(["report", str(out), "--output", str(tmp_path / "rep"), *args]) == 0
    table = pd.read_csv(tmp_path / "rep" / "exposure.csv")
    assert set(zip(table.domain, table.field)) == {
        ("music", "artist_country"),
        ("music", "year"),
        ("movie", "year"),
    }
    assert "exposure field 'artist_country' not in catalog 'movie'" in capsys.readouterr().out


def test_provenance_in_every_output(built) -> None:
    _, _, dest, result = built
    for name in ("values", "groups", "fidelity", "exposure"):
        df = pd.read_csv(dest / f"{name}.csv")
        assert {"model", "task_version"} <= set(df.columns), name
        assert set(df.model) == {"org/fair-model"}
        assert set(df.task_version.astype(str)) == {"1.0"}
    prov = json.loads((dest / "provenance.json").read_text())
    (model,) = prov["models"]
    assert model["model_args"]["pretrained"] == "org/fair-model"
    assert model["seeds"] == ["1234"]
    assert model["runs"][0]["seeds"]["model_args.seed"] == "1234"
    assert model["task_versions"]["coldbias_movie_gender"] == "1.0"
    assert model["template_sha256"] == TEMPLATE_SHA
    assert model["catalog_sha256"]["movie"] == load_catalog("movie").sha256
    assert (model["k"], model["n_shown"], model["order"]) == (str(K), str(N_SHOWN), "shuffle")
    assert model["repeats"]["coldbias_movie_gender"] == 3
    pngs = sorted(dest.glob("*.png"))
    names = {p.name for p in pngs}
    assert {
        "bars_coldbias_movie_gender.png",
        "radar_movie_gender.png",
        "radar_music_physics.png",
        "exposure_coldbias_movie_gender_genres.png",
        "exposure_coldbias_movie_gender_western.png",
        "exposure_coldbias_music_physics_decade.png",
    } <= names
    for png in pngs:
        footer = Image.open(png).text["Description"]
        assert "org/fair-model" in footer and "1234" in footer
        assert TEMPLATE_SHA[:10] in footer
        assert re.search(r"catalog [0-9a-f]{10}", footer)
    page = (dest / "report.html").read_text()
    # figures linked by file name (stored once), every one of them, and nothing embedded
    assert "data:image/png" not in page
    assert {src for src in re.findall(r'<img src="([^"]+)"', page)} == names
    assert len(page.encode()) < 2_000_000
    assert "<link" not in page and 'src="http' not in page
    for text in ("org/fair-model", TEMPLATE_SHA, load_catalog("movie").sha256, "0.4.13"):
        assert text in page
    assert result.files and all(p.exists() for p in result.files)


def test_radar_compares_variants(built) -> None:
    _, _, dest, _ = built
    page = (dest / "report.html").read_text()
    assert "movie / gender: raw IOU divergence per sentence (not bias" in page
    assert "variants present: plain, context (0 = same list" in page
    assert "variants present: plain (0 = same list" in page
    series = report_figures._radar_series([r for r in built[3].reports if r.task.domain == "movie"])
    assert list(series) == ["plain", "context"]
    # two values: one axis per value and metric
    assert set(series["plain"]) == {f"{v} · {m}" for v in ("female", "male")
                                    for m in ("IOU", "SERP", "PRAG", "RBO")}  # fmt: skip
    (physics,) = [r for r in built[3].reports if r.task.group == "physics"]
    # fewer than 3 values: one axis per value and metric
    assert set(report_figures._radar_series([physics])["plain"]) == {
        f"{v} · {m}" for v in ("fat", "thin") for m in ("IOU", "SERP", "PRAG", "RBO")
    }


def test_degenerate_model_is_flagged(tmp_path: Path, capsys) -> None:
    tasks = {"coldbias_movie_gender": make_samples("coldbias_movie_gender", copy_rule)}
    out = write_run(tmp_path / "out", tasks, model="org/copycat")
    assert cli.main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "WARNING" in printed and "prefix_copy_rate 1.00 > 0.5" in printed
    fid = pd.read_csv(out / "coldbias_report" / "fidelity.csv")
    assert fid.degenerate.tolist() == [True]
    page = (out / "coldbias_report" / "report.html").read_text()
    assert 'class="warning"' in page and "not interpretable as fairness" in page
    # divergence 0 everywhere: exactly the case that must not look "fair"
    groups = pd.read_csv(out / "coldbias_report" / "groups.csv")
    assert groups["mean"].tolist() == [0.0] * len(SIMILARITY_NAMES)


def test_non_degenerate_model_has_no_warning(built) -> None:
    _, _, dest, result = built
    fid = pd.read_csv(dest / "fidelity.csv").set_index("task")
    assert not fid.loc["coldbias_movie_gender", "degenerate"]
    assert fid.loc["coldbias_movie_context_gender", "degenerate"]  # the copy_rule task
    lines = [line for line in result.summary if "WARNING" in line]
    assert len(lines) == 1


@pytest.mark.parametrize(
    ("rates", "expected"),
    [
        ({"ooc": 2}, []),  # 2 of 7 entries out of catalog: 0.29, not above 0.3
        ({"ooc": 3}, ["out_of_catalog_rate 0.38 > 0.3"]),
        ({"dup": 3}, ["duplicate_rate 0.38 > 0.3"]),
    ],
)
def test_degenerate_rules_on_rates(tmp_path: Path, rates: dict, expected: list[str]) -> None:
    lines = make_samples("coldbias_music_physics", spread_rule, **rates)
    out = write_run(tmp_path / "out", {"coldbias_music_physics": lines})
    (rep,) = report.analyze(pool_runs(load_folder(out)))
    assert rep.degenerate == expected


def test_not_an_output_folder(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert cli.main(["report", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert str(tmp_path / "empty") in err
    assert "not an lm-eval output folder: run lm_eval with --output_path and --log_samples" in err


def test_foreign_folder(tmp_path: Path, capsys) -> None:
    out = write_run(
        tmp_path / "out",
        {},
        extra={"arc_easy": {"acc,none": 0.5}, "hellaswag": {"acc_norm,none": 0.4}},
    )
    with pytest.raises(RunError, match=r"holds no coldbias task \(found: arc_easy, hellaswag\)"):
        load_folder(out)
    assert cli.main(["report", str(out)]) == 1
    assert "holds no coldbias task (found: arc_easy, hellaswag)" in capsys.readouterr().err


def test_malformed_line_names_file_and_line(fair_run) -> None:
    out, _ = fair_run
    path = next(out.rglob("samples_coldbias_movie_gender_*.jsonl"))
    lines = path.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]  # a truncated write
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError) as err:
        load_folder(out)
    assert f"{path}, line 3: malformed JSON" in str(err.value)


def test_samples_without_coldbias_payload(fair_run) -> None:
    out, _ = fair_run
    path = next(out.rglob("samples_coldbias_music_physics_*.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        for metric in METRICS:
            line[metric] = 0.5  # what a plain numeric metric would log
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(RunError, match="written without the coldbias filter") as err:
        load_folder(out)
    assert str(path) in str(err.value)


def test_results_without_samples(tmp_path: Path) -> None:
    tasks = {"coldbias_movie_gender": make_samples("coldbias_movie_gender", spread_rule)}
    out = write_run(tmp_path / "out", tasks, write_samples=False)
    with pytest.raises(RunError, match="without --log_samples"):
        load_folder(out)


def test_runs_of_one_model_are_pooled_in_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lines = make_samples("coldbias_movie_gender", spread_rule)
    other = make_samples("coldbias_movie_gender", lambda p, r, s: spread_rule(p, r, s[::-1]))
    write_run(out, {"coldbias_movie_gender": lines}, seed=1, stamp="2026-01-01T00-00-00.1")
    write_run(out, {"coldbias_movie_gender": other}, seed=2, stamp="2026-01-02T00-00-00.1")
    result = commands.build_report(out, tmp_path / "rep")
    (rep,) = result.reports
    assert rep.task.repeats == 6
    groups = pd.read_csv(tmp_path / "rep" / "groups.csv")
    assert groups.n_repeats.tolist() == [6] * len(SIMILARITY_NAMES)
    assert rep.model.seeds == ["1", "2"]


def test_report_cli_dispatch(tmp_path: Path, capsys) -> None:
    out = small_run(tmp_path)
    assert cli.main(["report", str(out), "--output", str(tmp_path / "r")]) == 0
    printed = capsys.readouterr().out.splitlines()
    # the model's overall answer first (one plain attribute task of one phrasing: no headline)
    assert printed[0].startswith("org/fair-model: overall IOU disparity (phrasing-controlled)")
    assert "no attribute task" in printed[0]
    task = next(line for line in printed if "coldbias_music_physics: excess over noise" in line)
    assert "raw divergence" in task and "noise floor" in task
    assert (tmp_path / "r" / "report.html").exists()


# --- slow: a real lm-eval run --------------------------------------------------------------


@pytest.mark.slow
def test_report_on_real_run(lm_eval_run: Path, tmp_path: Path) -> None:
    dest = tmp_path / "report"
    result = commands.build_report(lm_eval_run, dest)
    for name in (
        "values.csv",
        "groups.csv",
        "fidelity.csv",
        "exposure.csv",
        "report.html",
        "provenance.json",
    ):
        assert (dest / name).stat().st_size > 0, name
    assert list(dest.glob("bars_*.png")) and list(dest.glob("radar_*.png"))
    groups = pd.read_csv(dest / "groups.csv")
    fid = pd.read_csv(dest / "fidelity.csv").set_index("task")
    # Payloads of an early harness logged position -1 for items not shown, which its
    # aggregation skipped; position statistics are compared only for runs without them.
    stale = {
        rep.task.name
        for rep in result.reports
        if any(p < 0 for r in rep.task.records for p in r.positions)
    }
    checked = 0
    for results_file in lm_eval_run.rglob("results_*.json"):
        results = json.loads(results_file.read_text())
        for task, config in results["configs"].items():
            if not task.startswith("coldbias_"):
                continue
            entry = results["results"][task]
            if task.startswith("coldbias_reverse_"):
                rev = pd.read_csv(dest / "reverse_groups.csv").set_index("task")
                for col in ("rank_gap", "top1_gap", "group_p", "keep_order_rate", "complete_rate"):
                    _close(rev.loc[task, col], entry[f"reverse_{col},ranked"], f"{task} {col}")
                continue
            for metric in SIMILARITY_NAMES:
                row = groups[(groups.task == task) & (groups.metric == metric)].iloc[0]
                for column, key in (
                    ("mean", f"{metric}_divergence"),
                    ("snsr", f"{metric}_snsr"),
                    ("snsv", f"{metric}_snsv"),
                    ("excess", f"{metric}_excess"),
                    ("group_p", f"{metric}_group_p"),
                    ("flagged_share", f"{metric}_flagged_share"),
                ):
                    _close(row[column], entry[f"{key},ranked"], f"{task} {key}")
            keys = [
                "exact_k_rate",
                "empty_rate",
                "out_of_catalog_rate",
                "duplicate_rate",
                "invalid_pair_rate",
            ]
            if task not in stale:
                keys += ["position_bias", "prefix_copy_rate"]
            for key in keys:
                _close(fid.loc[task, key], entry[f"{key},ranked"], f"{task} {key}")
            assert str(fid.loc[task, "task_version"]) == str(config["metadata"]["version"])
            checked += 1
    assert checked >= 1
    assert len(result.summary) >= 2 * checked


def _close(got: float, want: float | str, where: str) -> None:
    want = float(want)
    if math.isnan(want):
        assert math.isnan(got), where
    else:
        # the CSV holds 6 significant digits (CSV_FLOAT_FORMAT)
        assert math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-9), (
            f"{where}: report {got} ≠ results JSON {want}"
        )
