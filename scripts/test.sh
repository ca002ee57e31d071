#!/usr/bin/env bash
# The tests on a fresh machine: install (once), Chromium for the HTML tests, the bundled model
# assembled once, then pytest in two passes: every test that loads no model engine in two
# processes (pytest-xdist, one file per process at a time), then the tests marked `engine` (a
# real model through vLLM, HF, a served model) alone, one at a time: a vLLM engine binds its
# threads to both cores, and a second process beside it slows both by far more than it gains.
# Arguments go to pytest. With a selection (-m, -k, -n, --lf or a test path) it runs one plain
# pass, e.g. `bash scripts/test.sh -m "not slow"` for the fast tests only, in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "[test] installing Debian's chromium for the HTML page tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
PY=.venv/bin/python
for arg in "$@"; do
  case $arg in
    -m|-m*|-k|-k*|-n|-n*|--lf|--last-failed|tests|tests/*|*.py|*::*) exec "$PY" -m pytest "$@" ;;
  esac
done
# the tests that read the bundled model's tokenizer find it assembled, whichever process runs them
"$PY" -c "from coldbias_tasks.app.models import hub_model; hub_model()"
rc=0
echo "[test] pass 1 of 2: the tests without a model engine, two processes"
"$PY" -m pytest -m "not engine" -n 2 --dist loadfile "$@" || rc=$?
echo "[test] pass 2 of 2: the tests with a real model engine, one at a time"
"$PY" -m pytest -m engine "$@" || rc=$((rc > 0 ? rc : $?))
exit "$rc"
