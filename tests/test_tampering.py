"""Tampered or odd records are refused, not computed: answer records edited after the run no
longer carry the answer id lm-eval logged under every metric key; documents relabelled as an
older coldbias (which would skip the rebuild check) contradict the task version their results
record; open grounding keys that coldbias never writes (``x:evil``, ``c:abc``) or catalog rows
outside the catalog (``c:99999``) are refused; ``coldbias eee --include-samples`` refuses what
``coldbias report`` refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.core.parsing.sample_check import AnswerMisfit, answer_id, check_answer
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from tests.synthetic import SyntheticRecommender, run_synthetic

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), [TASK], SMALL, output_path=out)
    return out


def _edit(real_run: Path, dest: Path, edit_line=None, edit_results=None) -> Path:
    shutil.copytree(real_run, dest)
    (samples,) = dest.rglob(f"samples_{TASK}_*.jsonl")
    if edit_line is not None:
        lines = [json.loads(line) for line in samples.read_text().splitlines()]
        for line in lines:
            edit_line(line)
        samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if edit_results is not None:
        (results,) = dest.rglob("results_*.json")
        data = json.loads(results.read_text())
        edit_results(data)
        results.write_text(json.dumps(data))
    return samples


def _report_refuses(run: Path, tmp_path: Path, capsys, *needles: str) -> str:
    rep = tmp_path / "rep"
    assert cli.main(["report", str(run), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unexpected error" not in err, err
    for needle in needles:
        assert needle in err, err
    assert not rep.exists()
    return err


def _reverse_lists(line: dict) -> None:
    """The answer record of a value's sentence with its list reversed (ids left as logged)."""
    payload = line[ANSWER_KEY]
    if "#" in line["doc"]["persona_id"] and len(payload["items"]) > 1:
        payload["items"] = payload["items"][::-1]
        payload["positions"] = payload["positions"][::-1]
        payload["titles"] = payload["titles"][::-1]


def test_records_edited_after_the_run_are_refused(real_run: Path, tmp_path: Path, capsys):
    samples = _edit(real_run, tmp_path / "run", _reverse_lists)
    _report_refuses(
        tmp_path / "run", tmp_path, capsys, str(samples), "answer id logged under the metric keys",
        "restore the samples file",
    )  # fmt: skip


def test_records_of_an_unedited_run_match_their_ids(real_run: Path, tmp_path: Path, capsys):
    assert cli.main(["report", str(real_run), "--output", str(tmp_path / "rep")]) == 0
    capsys.readouterr()


def _claim(version: str):
    def edit(line: dict) -> None:
        line["doc"]["coldbias_version"] = version

    return edit


def _swap_girl_and_boy(line: dict) -> None:
    """Relabel as coldbias 0.4.0 and swap the two values' sentences."""
    _claim("0.4.0")(line)
    doc = line["doc"]
    swap = {"female": "male", "male": "female"}
    value = doc["persona_id"].split("#")[0].removeprefix("gender.")
    if value in swap:
        other = swap[value]
        for key in ("persona_id", "value"):
            doc[key] = doc[key].replace(f"gender.{value}", f"gender.{other}")
        line[ANSWER_KEY]["persona_id"] = doc["persona_id"]
        line[ANSWER_KEY]["value"] = doc["value"]
        for key in line["metrics"]:  # an attacker who knows the id rule writes new ids
            if key != ANSWER_KEY:
                line[key] = answer_id(line[ANSWER_KEY])


def test_documents_relabelled_as_an_older_coldbias_are_refused(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    _edit(real_run, tmp_path / "run", _swap_girl_and_boy)
    _report_refuses(
        tmp_path / "run", tmp_path, capsys, "claim coldbias 0.4.0", "task version 4.1",
        "first written by coldbias 0.5.0",
    )  # fmt: skip


def test_an_older_task_version_with_newer_keys_is_refused(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    def relabel_task(data: dict) -> None:
        data["configs"][TASK]["metadata"]["version"] = "4.0"

    _edit(real_run, tmp_path / "run", _claim("0.4.0"), relabel_task)
    _report_refuses(tmp_path / "run", tmp_path, capsys, "task version 4.0", "diversity_")


def test_mixed_version_claims_in_one_task_are_refused(real_run: Path, tmp_path: Path, capsys):
    first = {"done": False}

    def one(line: dict) -> None:
        if not first["done"]:
            _claim("0.5.1")(line)
            first["done"] = True

    _edit(real_run, tmp_path / "run", one)
    _report_refuses(tmp_path / "run", tmp_path, capsys, "claim coldbias versions")


@pytest.fixture(scope="module")
def open_answer() -> tuple[dict, dict]:
    """An open document and the payload of a real answer to it (catalog titles)."""
    doc = build_docs("movie", "gender", "open", {**SMALL, "coldbias_n_items": 5})[0].to_dict()
    record, _ = check_answer("1. The Matrix\n2. Titanic\n3. Alien", doc, False)
    return doc, record.to_payload()


@pytest.mark.parametrize(
    ("key", "item", "message"),
    [
        ("x:evil", -5, "grounding key 'x:evil' is none of c:<row>, r:<id>, t:<title>"),
        ("c:abc", 7, "grounding key 'c:abc' is none of"),
        ("c:", 7, "grounding key 'c:' is none of"),
        ("c:99999", 99999, "catalog key c:99999 is outside catalog 'movie'"),
    ],
)
def test_open_keys_coldbias_never_writes_are_refused(
    open_answer: tuple[dict, dict], key: str, item: int, message: str
) -> None:
    doc, payload = open_answer
    assert payload["keys"], payload
    edited = {**payload, "keys": [key, *payload["keys"][1:]],
              "items": [item, *payload["items"][1:]]}  # fmt: skip
    with pytest.raises(AnswerMisfit, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_answer(edited, doc, False)
    check_answer(payload, doc, False)  # the real answer still passes


def test_eee_include_samples_refuses_what_report_refuses(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    pytest.importorskip("every_eval_ever", reason="every-eval-ever is not installed")
    samples = _edit(real_run, tmp_path / "run", _reverse_lists)
    argv = ["eee", str(tmp_path / "run"), "--output", str(tmp_path / "eee"), "--include-samples"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert str(samples) in err and "answer id logged under the metric keys" in err, err
    assert err.count("\n") == 1 and not (tmp_path / "eee").exists()
