#!/usr/bin/env bash
# The tests on a fresh machine: install (once), Chromium for the HTML tests, then pytest.
# Arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"` for the fast tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "[test] installing Debian's chromium for the HTML page tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
