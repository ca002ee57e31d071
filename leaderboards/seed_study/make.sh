#!/usr/bin/env bash
# Rebuild leaderboards/seed_study/ from the seed study's released answers (docs/seed-study.md):
#   bash leaderboards/seed_study/make.sh PATH_TO_CLONE
# PATH_TO_CLONE: a git clone of https://github.com/GauthierRoy/biais_llm_rec (any branch; the
# latest commit is read as is, commit 625f9a2, the paper-era answers, from a local clone of it).
# Writes: the leaderboard of the 13 models at the clone's commit (leaderboard.{md,html},
# leaderboard_{long,wide}.csv), the 4 paper-era models (paper_era/), per-model report tables
# (reports/<model>/: the CSVs and summary of coldbias report; REPORT_HTML=1 adds its plots and
# HTML page, not committed: ≈ 13 MB per model; the tables are gzipped CSVs),
# the paper's Tables 1 and 2 replayed (paper_tables.*), the leaderboard's as-published raw IOU
# vs the study's own figures (as_published.*, also in paper_era/), the re-tested findings
# (findings.json) and the import summaries. Derived numbers
# only: the raw answers stay in the temporary WORK folder. No model runs; about 10 min on 2 cores.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1/data/raw_text_results" ]; then
  echo "usage: bash leaderboards/seed_study/make.sh PATH_TO_CLONE (a clone of GauthierRoy/biais_llm_rec)" >&2
  exit 2
fi
CLONE=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."
PY=${PYTHON:-python}
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
WORK=${WORK:-$(mktemp -d)}
echo "[seed_study] working in $WORK"
PAPER="$WORK/clone_625f9a2"
if [ ! -d "$PAPER" ]; then
  git clone -q "$CLONE" "$PAPER"
  git -C "$PAPER" checkout -q 625f9a2
fi
$PY -m coldbias_tasks import-seed-study "$CLONE" --output "$WORK/latest" | tee "$WORK/import_latest.txt"
$PY -m coldbias_tasks import-seed-study "$PAPER" --output "$WORK/paper" | tee "$WORK/import_paper.txt"
strip() { sed -e "s#$WORK/##g" -e "s#$CLONE#CLONE#g" -e "s#$PWD/##g"; }
strip < "$WORK/import_latest.txt" > "$HERE/import_latest.txt"
strip < "$WORK/import_paper.txt" > "$HERE/import_paper.txt"
strip < "$WORK/latest/provenance.json" > "$HERE/provenance_latest.json"
strip < "$WORK/paper/provenance.json" > "$HERE/provenance_paper.json"
# the leaderboards (coldbias leaderboard's own build, plus the paper's figure per domain), the
# replayed tables, the seed-level tests and the findings
$PY bench/studies/seed_study_findings.py --paper "$WORK/paper" --paper-clone "$PAPER" \
  --latest "$WORK/latest" --latest-clone "$CLONE" --out "$HERE" > "$WORK/findings.log"
grep -v '^[ {}"]' "$WORK/findings.log" | strip
find "$HERE/reports" -name summary.txt -exec sed -i -e "s#$WORK/##g" -e "s#$PWD/##g" {} +
if [ "${REPORT_HTML:-0}" = 1 ]; then  # the full reports with plots (≈ 13 MB per model)
  for model_dir in "$WORK"/latest/main/*/; do
    model=$(basename "$model_dir")
    $PY -m coldbias_tasks report "$model_dir" --output "$HERE/reports/$model" > /dev/null
    echo "[seed_study] report $model"
  done
fi
echo "[seed_study] done: $HERE (raw answers left in $WORK)"
