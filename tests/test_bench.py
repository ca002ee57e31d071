"""Fast checks of the benchmark helpers (no model is loaded)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _load(name: str) -> ModuleType:
    """The script ``bench/<speed|studies|model_runs>/<name>.py`` as a module."""
    (path,) = BENCH.glob(f"*/{name}.py")
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run_bench = _load("run_bench")
analysis_bench = _load("analysis_bench")


def _trie_nodes(prompts: list[list[int]]) -> int:
    return len({tuple(p[:i]) for p in prompts for i in range(1, len(p) + 1)})


def test_unique_prefix_tokens_counts_trie_nodes() -> None:
    cases = [
        [],
        [[1, 2, 3]],
        [[1, 2, 3], [1, 2, 3]],
        [[1, 2, 3, 4], [1, 2, 5], [1, 2, 3, 9], [7]],
        [[5, 5], [5], [5, 5, 5]],
    ]
    for prompts in cases:
        assert run_bench.unique_prefix_tokens(prompts) == _trie_nodes(prompts)


def test_block_ideal_prefill_rounds_to_blocks_and_keeps_last_token() -> None:
    shared = list(range(10))
    prompts = [[*shared, 100, 101], [*shared, 200], [*shared, 100, 101]]
    # block 4: the 2nd prompt reuses 8 of its 10 shared tokens; the duplicate reuses 8, not 12
    # (whole blocks only), and never all of itself (its last token is always computed).
    assert run_bench.block_ideal_prefill(prompts, 4) == 12 + (11 - 8) + (12 - 8)
    assert run_bench.block_ideal_prefill(prompts, 1) == 12 + 1 + 1
    assert run_bench.block_ideal_prefill(prompts, 1) >= run_bench.unique_prefix_tokens(prompts)


def test_expected_requests_match_the_docs() -> None:
    personas = {d.persona_id for t in ("gender", "religion") for d in _docs(t)}
    docs = {t: _docs(t) for t in ("gender", "religion")}
    assert run_bench.expected_requests(3) == sum(len(d) for d in docs.values())
    for found in docs.values():  # one request per (sentence, repeat)
        assert len({(d.persona_id, d.repeat) for d in found}) == len(found)
        assert not any(d.persona_id.startswith("control.") for d in found)
    assert "neutral" in personas


def _docs(group: str) -> list:
    return analysis_bench.build_docs("movie", group, "plain", {"coldbias_repeats": 3})


def test_summary_scales_subset_runs_per_request() -> None:
    def run(requests: int, seconds: float) -> dict:
        return {"requests": requests, "eval": {"wall_s": seconds}, "generate": {"wall_s": seconds}}

    summary = run_bench.summarize({"vllm-prefix": run(27, 10.0), "hf": run(9, 100.0)}, 27)
    assert summary["times"]["hf"]["estimated"]
    assert summary["speedups"]["vllm-prefix_vs_hf"]["eval"] == 30.0


def test_synthetic_answers_are_seeded_and_parse() -> None:
    meta = {"coldbias_n_items": 60, "coldbias_k": 20, "coldbias_repeats": 2}
    docs = {
        "coldbias_college_religion": [
            d.to_dict() for d in analysis_bench.build_docs("college", "religion", "plain", meta)
        ]
    }
    first = analysis_bench.make_answers(docs)
    assert first == analysis_bench.make_answers(docs)
    answers = first["coldbias_college_religion"]
    assert all(len(a.splitlines()) in (20, 21) for a in answers)
    parsed = analysis_bench.run_parse(docs, first)
    assert sum(len(p["items"]) for p in parsed["coldbias_college_religion"]) > 15 * len(answers)


def test_validity_sim_null_is_exchangeable_and_boost_raises_excess() -> None:
    """bench/studies/validity_sim.py: the simulated task has the design's shape; the boost the
    calibration picks for a larger effect is larger; Wilson intervals bracket the rate."""
    sim = _load("validity_sim")
    records = sim.simulate(1, repeats=5, replicates=3)
    assert len(records) == 5 * (1 + 3 + sim.VALUES)
    null = sim._excess_of_v0(records)
    alt = [x for s in range(6) for x in sim._excess_of_v0(sim.simulate(s, 5, 3, boost=30.0))]
    assert len(null) == 5 and sum(alt) / len(alt) > 0.05
    small, large = (sim.calibrate(e, sigma=0.12, pilot=2) for e in (0.5, 2.0))
    assert 1.0 < small < large
    low, high = sim.wilson(5, 100)
    assert low < 0.05 < high


def test_bench_is_split_and_studies_do_not_import_the_app() -> None:
    """``bench/`` holds speed benchmarks, studies and model runs in their own folders; a study
    (simulations and accuracy evaluations the docs cite) reads the library, never ``app/``."""
    import ast

    assert not list(BENCH.glob("*.py")), "a bench script outside speed/, studies/, model_runs/"
    studies = sorted((BENCH / "studies").glob("*.py"))
    assert {p.stem for p in studies} >= {"disparity_sim", "validity_sim", "seed_study_findings"}
    for path in studies:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            bad = [n for n in names if n.startswith("coldbias_tasks.app")]
            assert not bad, f"{path.name}:{node.lineno} imports {bad[0]}"


def test_every_bench_import_of_bench_names_a_file() -> None:
    """A script's ``from bench.<folder>.<name> import ...`` names a file that exists (a study
    moved between folders left an import of its old place behind once)."""
    import ast

    for path in sorted(BENCH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench."):
                target = BENCH.parent.joinpath(*node.module.split("."))
                assert target.with_suffix(".py").is_file() or target.is_dir(), (
                    f"{path.relative_to(BENCH.parent)}:{node.lineno} imports {node.module}"
                )
