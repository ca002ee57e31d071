"""Outputs of a fixed synthetic run through lm-eval are byte-identical to ``tests/golden/``.

A refactoring must leave every number and every table unchanged; a change that alters them on
purpose regenerates the files with ``python -m tests.golden_run`` in the same commit.
"""

from __future__ import annotations

import pytest

from tests.golden_run import GOLDEN, produce


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return produce(tmp_path_factory.mktemp("golden"))


def test_golden_files_exist(produced: dict[str, str]) -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(produced)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_output_is_byte_identical(produced: dict[str, str], name: str) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert produced.get(name) == expected, f"{name} differs: rerun python -m tests.golden_run"
