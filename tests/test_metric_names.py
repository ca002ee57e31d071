"""A data/metrics.yaml entry cannot take the place of what lm-eval or another measure writes:
an entry named like an lm-eval key (``iou_disparity``) or the answer record
(``coldbias_answer``), a column another measure of its scope shows, a verdict rule or a value of
the wrong type are refused when the file loads, in one line naming file, entry, field and fix
(coldbias_tasks.analysis.presentation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coldbias_tasks.analysis.presentation import load_presentation
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.resources import data_dir

CASES = {
    "lm-eval key": ("{name: iou_disparity}", "measure 'iou_disparity'", "name: disparity"),
    "answer key": ("{name: coldbias_answer}", "measure 'coldbias_answer'", "remove the entry"),
    "unknown measure": ("{name: nonsense}", "measure 'nonsense'", "fix: name one of"),
    "verdict rule": ("{name: fill_rate, verdict: [holm]}", "verdict", "fix: remove"),
    "label of a list": ("{name: fill_rate, label: [a]}", "label must be text", "fix:"),
    "shared column": ("{name: snsr, column: disparity}", "column 'disparity'", "fix:"),
    "answer column": ("{name: fill_rate, column: coldbias_answer}", "column", "fix:"),
    "odd column": ("{name: fill_rate, column: 'a,b'}", "column 'a,b'", "fix:"),
}


@pytest.mark.parametrize(("entry", "field", "fix"), list(CASES.values()), ids=list(CASES))
def test_colliding_or_mistyped_entries_are_refused_at_load(
    tmp_path: Path, entry: str, field: str, fix: str
) -> None:
    path = tmp_path / "metrics.yaml"
    lines = (data_dir() / "metrics.yaml").read_text(encoding="utf-8").splitlines()
    name = entry.split(",")[0].removeprefix("{name: ").rstrip("}")
    kept = [line for line in lines if not line.startswith(f"- {{name: {name},")]
    path.write_text("\n".join([*kept, f"- {entry}", ""]), encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_presentation(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "entry" in message
    assert field in message and fix in message, message


def test_the_shipped_file_loads() -> None:
    assert "disparity" in load_presentation()
