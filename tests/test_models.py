"""Model registry: pinned packages, missing-package detection, clear errors (no download)."""

from __future__ import annotations

import pytest

from coldbias_tasks.app import models
from coldbias_tasks.core.errors import ModelError


def test_every_model_is_pinned_with_a_checksum() -> None:
    for name, spec in models.MODELS.items():
        assert all("==" in req for req in models.pip_requirements(name))
        assert len(spec.sha256) == 64


def test_missing_packages_and_the_error_that_names_them(monkeypatch) -> None:
    ghost = models.ModelSpec("ghost", "coldbias-no-such-part", 2, "1.0", "0" * 64)
    monkeypatch.setitem(models.MODELS, "ghost", ghost)
    wanted = ["coldbias-no-such-part1==1.0", "coldbias-no-such-part2==1.0"]
    assert models.missing_packages("ghost") == wanted
    with pytest.raises(ModelError, match=r"pip install coldbias-no-such-part1==1\.0"):
        models._part_files(ghost)
    with pytest.raises(ModelError, match="unknown model"):
        models.missing_packages("nope")
