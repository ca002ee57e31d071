"""The report and the leaderboard as a reader sees them: both pages of a synthetic run
(``tests/pages.py``: a fair, a biased, a degenerate and a hostile model, values in six
phrasings) rendered in headless Chromium at 1,366 × 768 (``tests/chromium.py``).

Skipped when Chromium is not installed (CI installs it: scripts/test.sh).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests import chromium
from tests.pages import HOSTILE, build_pages

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(
        chromium.executable() is None,
        reason="chromium is not installed (apt-get install -y chromium; CI installs it)",
    ),
]

#: a CSV column name: lower-case words joined by underscores
SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(report.html of the hostile model's run, leaderboard.html of the four models)."""
    return build_pages(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def board(pages: tuple[Path, Path]) -> dict[str, Any]:
    return chromium.probe(pages[1])


@pytest.fixture(scope="module")
def report(pages: tuple[Path, Path]) -> dict[str, Any]:
    return chromium.probe(pages[0])


def _headers(probe: dict[str, Any]) -> list[str]:
    return [h for t in probe["tables"] for h in t["headers"]]


def test_leaderboard_default_view_fits_the_window(board: dict[str, Any]) -> None:
    assert board["inner"] == chromium.WIDTH
    assert board["scroll"] <= chromium.WIDTH, board["scroll"]
    assert board["wide"] == [], board["wide"]
    (table,) = [t for t in board["tables"] if t["id"] == "leaderboard"]
    assert table["width"] <= chromium.WIDTH
    heads = table["headers"]
    assert heads[:4] == ["model", "IOU disparity (all domains) ↓", "rank", "tier"]
    assert {"disparity flags", "degenerate"} <= set(heads)
    assert [h for h in heads if h.endswith("IOU disparity ↓")] == [
        "movie IOU disparity ↓",
        "music IOU disparity ↓",
        "college IOU disparity ↓",
    ]
    assert not any("raw" in h or "excess" in h for h in heads)  # details: one click away
    assert board["images"] == ["data:image/png;base64,iVBORw0K"]  # the forest plot


def test_leaderboard_details_one_click_away(pages: tuple[Path, Path]) -> None:
    shown = chromium.probe(pages[1], "#details=all")
    (table,) = [t for t in shown["tables"] if t["id"] == "leaderboard"]
    heads = table["headers"]
    assert "movie raw IOU (value mean, as published) ↓" in heads
    assert "IOU excess over noise (all domains) ↓" in heads and "settings" in heads
    assert shown["scroll"] <= chromium.WIDTH  # the table scrolls inside its box, the page not
    assert heads[0] == "model"
    dom = shown["dom"]
    assert 'class="views"' in dom and 'data-view="v1"' in dom


def test_leaderboard_sorting_still_works(pages: tuple[Path, Path]) -> None:
    def order(fragment: str) -> list[str]:
        dom = chromium.probe(pages[1], fragment)["dom"]
        body = dom.split('id="leaderboard"')[1].split("</tbody>")[0]
        return re.findall(r'<tr[^>]*><td[^>]*data-sort="([^"]*)"', body)

    before = order("")
    assert before[0] in ("acme/fair-recommender-7b", "&lt;img src=x onerror=alert(1)&gt;")
    assert before[-1] == "org/copycat"  # degenerate last
    after = order("#sort=0")
    assert sorted(after) == sorted(before) and after != before
    assert after[-1] == "org/copycat"


def test_report_leads_with_the_headline(report: dict[str, Any]) -> None:
    first = report["tables"][0]
    assert first["headers"] == [
        "task",
        "IOU disparity [95 % interval]",
        "verdict",
        "smallest detectable effect",
        "values × phrasings",
        "fewer items shared",
        "fidelity",
    ]
    dom = report["dom"]
    # the answer first: the model's overall number, then the per-task table, then the rest
    answer = dom.index('class="answer"')
    assert answer < dom.index("<table") < dom.index("Headline figures")
    assert "Overall IOU disparity between values, controlled for phrasing" in dom[answer:]
    assert dom.index("Headline figures") < dom.index("<h3>Fidelity</h3>") < dom.index("Details")
    # the secondary columns live in the details
    assert {"IOU excess [95 % CI]", "raw IOU divergence", "control families"} <= set(
        _headers(report)
    )
    assert "values.csv" in dom and 'href="groups.csv"' in dom
    assert "The headline is the disparity between values" in dom
    assert report["scroll"] <= chromium.WIDTH, report["wide"]
    # the diversity CSV's ~40 columns are shown as two narrow tables (render/diversity_tables)
    assert {"intra-list diversity", "contrast [95 % interval]"} <= set(_headers(report))
    assert "entropy (widest: " in report["dom"]  # the joint entropy contrast leads the rows


@pytest.mark.parametrize("page", ["report", "board"])
def test_no_header_is_a_csv_column_name(page: str, request: pytest.FixtureRequest) -> None:
    probe = request.getfixturevalue(page)
    heads = _headers(probe)
    assert heads
    assert [h for h in heads if SNAKE.match(h) or "_" in h] == []


@pytest.mark.parametrize("page", ["report", "board"])
def test_no_live_markup_from_any_field(page: str, request: pytest.FixtureRequest) -> None:
    """The hostile model's name (and its user sentences) stay text: no image, handler or
    script from them, no alert."""
    probe = request.getfixturevalue(page)
    assert probe["alerts"] == []
    assert probe["handlers"] == []
    if page == "board":  # one file: the forest plot embedded
        assert all(src.startswith("data:image/png;base64,") for src in probe["images"])
    else:  # the report links its PNG files by name (stored once, beside the page)
        assert probe["images"]
        assert not [src for src in probe["images"]  # (the probe keeps 30 characters)
                    if src.startswith(("http", "data:", "//", "javascript"))]  # fmt: skip
    assert probe["scripts"] == (3 if page == "board" else 2)  # ours: page scripts + probe
    dom = probe["dom"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    assert HOSTILE not in dom
