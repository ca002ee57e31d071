#!/usr/bin/env bash
# Screenshots of the report and the leaderboard as a reader first sees them (1,366 x 768, the
# first screen), into docs/report.png and docs/leaderboard.png.
#
#   bash scripts/screenshots.sh REPORT.html LEADERBOARD.html   # real pages, e.g.
#        runs/<x>/coldbias_report/report.html leaderboards/leaderboard.html
#   bash scripts/screenshots.sh                                # synthetic pages (tests/pages.py)
#
# Needs headless Chromium (apt-get install -y chromium) and the project's Python.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ "$#" -eq 2 ]; then
  report="$1"; board="$2"
else
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  mapfile -t built < <("$PY" -m tests.pages "$tmp")
  report="${built[0]}"; board="${built[1]}"
fi
"$PY" -m tests.chromium shot "$report" docs/report.png
"$PY" -m tests.chromium shot "$board" docs/leaderboard.png
