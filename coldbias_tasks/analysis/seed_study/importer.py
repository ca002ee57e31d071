"""Read the seed study's released answers (a clone of ``GauthierRoy/biais_llm_rec``) and turn
them into lm-eval run folders that ``coldbias report`` and ``coldbias leaderboard`` read like
any other run (docs/seed-study.md).

The study's layout, read from its code and history (nothing of it is copied here):

- ``data/raw_text_results/{model}_{domain}_{context}_{seed}.json``: one file per model, domain,
  context string and seed; inside, ``neutral`` and ``{group: {value phrase: answer}}``, each
  answer ``{"recommended_list", "response", "nb_items"}`` (the list is the study's own fuzzy
  parse of ``response`` against its catalog, cut at k = 20).
- ``data/datasets/{domain}.json``: the catalog (one fixed order, k = 20 of 500);
  ``config/``: groups and value phrases, hub ids, seeds. Every request of a seed's run is sent
  with request seed = seed (temperature 0.7): see :data:`DESIGN`.

The irregular file names are mapped explicitly by :data:`CONTEXT_TAGS` and
:data:`PLAIN_PREFERENCE`; seed-set irregularities by :func:`choose_seeds`. Each run folder
holds one seed of one model (``model_args`` ``pretrained=<hub id>,seed=<seed>``), so the
loader pools the seeds of a model as its repeats (repeat r = seed r's neutral and values).

Problems are counted and reported (:class:`ImportSummary`); a missing seed file raises
:class:`~coldbias_tasks.core.errors.RunError` unless ``allow_missing``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coldbias_tasks.analysis.seed_study.files import (
    SOURCE_REPO,
    git_commit,
    literal_set,
    read_json,
    read_seeds,
)
from coldbias_tasks.core.errors import CatalogError, OutputError, RunError
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.core.vocabulary import ANSWER_KEY, FILTER_NAME, NEUTRAL_ID, task_name
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import Domain, domains

__all__ = [
    "CONTEXT_TAGS",
    "DESIGN",
    "HUB_IDS",
    "PLAIN_PREFERENCE",
    "STUDY_TASK_VERSION",
    "ImportSummary",
    "SeedStudy",
    "choose_seeds",
    "import_seed_study",
    "read_study",
    "study_domains",
    "value_id",
]


def study_domains() -> dict[str, Domain]:
    """The declared domains the study holds (a ``seed_study`` entry in their domain file: the
    study's file names use the same domain names), by name in alphabetical order (the study's
    own: college, movie, music)."""
    known = domains()
    return {name: known[name] for name in sorted(known) if known[name].seed_context}


#: study model key → hub id, checked against the study's ``config/model_config.json``.
HUB_IDS: dict[str, str] = {
    "gemma3_1b": "google/gemma-3-1b-it",
    "gemma3_4b": "google/gemma-3-4b-it",
    "gemma3_12b": "google/gemma-3-12b-it",
    "llama3.2_1b": "meta-llama/Llama-3.2-1B-Instruct",
    "llama3.2_3b": "meta-llama/Llama-3.2-3B-Instruct",
    "minicpm3_4b": "openbmb/MiniCPM3-4B",
    "smollm3_3b": "HuggingFaceTB/SmolLM3-3B",
    "qwen3_0.6b": "Qwen/Qwen3-0.6B",
    "qwen3_1.7b": "Qwen/Qwen3-1.7B",
    "qwen3_4b": "Qwen/Qwen3-4B",
    "qwen3_8b": "Qwen/Qwen3-8B",
    "qwen3_14b": "Qwen/Qwen3-14B",
    "qwen3_32b": "Qwen/Qwen3-32B",
}


@dataclass(frozen=True)
class ContextTag:
    """What a file name's context string means. ``variant``: our prompt variant ("plain" or
    "context"); ``role``: "main" (imported into the main rows) or "alt" (a row of its own);
    ``phrase``: what the study's prompt appended after the user ("" for none)."""

    variant: str
    role: str
    phrase: str
    meaning: str


#: context string in the file name (spaces → "_", as the study's ``get_correct_file_name``) →
#: meaning. Read from ``inference.py`` (``f"{model}_{domain}_{persona}_{seed}.json"``) and the
#: history of ``config/config_inference``.
CONTEXT_TAGS: dict[str, ContextTag] = {
    "": ContextTag("plain", "main", "", "plain prompt (no context); the April 2025 pipeline "
                   "wrote every plain run, the January 2026 one the plain college and music "
                   "runs"),
    ",": ContextTag("plain", "main", ",", "plain prompt with a stray ' ,' after the user: the "
                    "config line 'user_personas = , ,' split on ', ' gives ['', ','], so zipped "
                    "with (college, movie, music) college got '' and movie got ',' and music "
                    "none (added in commit 4198032 'data with persona', January 2026)"),
    "student": ContextTag("context", "main", "student", "college context 'student'"),
    "movie_fan": ContextTag("context", "main", "movie fan", "movie context 'movie fan'"),
    "music_fan": ContextTag("context", "main", "music fan", "music context 'music fan'"),
    "mathy": ContextTag("context", "alt", "mathy", "college context 'mathy' (paper era)"),
    "action_movie_fan": ContextTag("context", "alt", "action movie fan",
                                   "movie context 'action movie fan' (paper era)"),
    "rock_fan": ContextTag("context", "alt", "rock fan", "music context 'rock fan' (paper era)"),
    "high_school_student": ContextTag("context", "alt", "high school student",
                                      "college context 'high school student' (Qwen3 runs)"),
}  # fmt: skip
#: Which plain file set is imported when a model has both: the January 2026 re-run with the
#: stray comma (the pipeline of the 9 later models) before the April 2025 run.
PLAIN_PREFERENCE: tuple[str, ...] = (",", "")

#: The study's design, recorded in every run's provenance.
#: the task version of every imported task (how the leaderboard recognises an import)
STUDY_TASK_VERSION = "seed-study-1"
DESIGN: dict[str, Any] = {
    "catalog_order": "fixed (the catalog file's order, no shuffle)",
    "n_shown": 500,
    "k": 20,
    "temperature": 0.7,
    "max_tokens": 1024,
    "backend": "vllm offline batch",
    "request_seed": "sampling_params.seed = run seed, shared by every request of a seed's run "
    "(neutral and values)",
    "neutral_replicates_per_seed": 0,
    "parse": "the study's own recommended_list (fuzzy match, WRatio >= 88, first 20 matches)",
}


def _file_pattern(names: Sequence[str]) -> re.Pattern[str]:
    """A raw file name ``{model}_{domain}_{context}_{seed}.json`` of one of the ``names``."""
    alternatives = "|".join(map(re.escape, names))
    return re.compile(
        rf"^(?P<model>.+?)_(?P<domain>{alternatives})_(?P<tag>.*)_(?P<seed>\d+)\.json$"
    )


_ARTICLES = ("a child of a ", "an ", "a ")


def value_id(phrase: str) -> str:
    """Our id of a study value phrase: "a girl" → "girl", "a child of a doctor" → "doctor"."""
    text = phrase.strip()
    for article in _ARTICLES:
        if text.lower().startswith(article):
            text = text[len(article) :]
            break
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True)
class SeedStudy:
    """What a clone holds: catalogs (domain → titles in the order shown), groups (group →
    value phrases), seeds (config), hub ids found, files ((model, domain, tag) → seed → path),
    the commit, and the study's genre sets (action, Western) when its scripts define them."""

    root: Path
    commit: str
    catalogs: dict[str, tuple[str, ...]]
    groups: dict[str, tuple[str, ...]]
    seeds: tuple[int, ...]
    hub_ids: dict[str, str]
    files: dict[tuple[str, str, str], dict[int, Path]]
    unrecognised: tuple[str, ...]
    genre_sets: dict[str, frozenset[str]] = field(default_factory=dict)


#: genre → (script names tried under the root and analysis/, variable name)
_GENRE_SOURCES = {"action": ("analysis_action_movie.py", "action_movies_set"),
                  "western": ("analysis_western_movie.py", "western_content_set")}  # fmt: skip


def read_study(root: str | Path) -> SeedStudy:
    """Index a clone (any commit). Raises RunError when it is not the study's layout."""
    base = Path(root).expanduser()
    raw_dir = base / "data" / "raw_text_results"
    if not raw_dir.is_dir():
        raise RunError(
            f"{base}: no data/raw_text_results/; pass the root of a clone of {SOURCE_REPO} "
            "(git clone it, or git worktree add a commit such as 625f9a2)."
        )
    catalogs = {}
    for d in study_domains():
        titles = read_json(base / "data" / "datasets" / f"{d}.json")
        if not isinstance(titles, list) or not all(isinstance(t, str) for t in titles):
            raise RunError(f"{base}/data/datasets/{d}.json: expected a JSON list of titles.")
        catalogs[d] = tuple(titles)
    groups_path = base / "config" / "sensitive_attributes.json"
    raw_groups = read_json(groups_path)
    if not isinstance(raw_groups, Mapping) or not all(
        isinstance(vs, list) for vs in raw_groups.values()
    ):
        raise RunError(
            f"{groups_path}: expected a JSON object of group → list of values; restore the "
            "file from git."
        )
    groups = {str(g): tuple(str(v) for v in vs) for g, vs in raw_groups.items()}
    seeds = read_seeds(base / "config" / "config_inference")
    hub_ids: dict[str, str] = {}
    model_config = base / "config" / "model_config.json"
    if model_config.exists():
        raw_models = read_json(model_config)
        for key, backends in raw_models.items() if isinstance(raw_models, Mapping) else ():
            if isinstance(backends, Mapping) and "vllm" in backends:
                hub_ids[str(key)] = str(backends["vllm"])
    files: dict[tuple[str, str, str], dict[int, Path]] = defaultdict(dict)
    unrecognised = []
    pattern = _file_pattern(list(study_domains()))
    for path in sorted(raw_dir.glob("*.json")):
        m = pattern.match(path.name)
        if m is None or m["tag"] not in CONTEXT_TAGS:
            unrecognised.append(path.name)
            continue
        files[(m["model"], m["domain"], m["tag"])][int(m["seed"])] = path
    genre_sets = {}
    for genre, (script, name) in _GENRE_SOURCES.items():
        for where in (base / script, base / "analysis" / script):
            found = literal_set(where, name) if where.exists() else None
            if found:
                genre_sets[genre] = found
                break
    return SeedStudy(
        root=base,
        commit=git_commit(base),
        catalogs=catalogs,
        groups=groups,
        seeds=seeds,
        hub_ids=hub_ids,
        files=dict(files),
        unrecognised=tuple(unrecognised),
        genre_sets=genre_sets,
    )


def choose_seeds(found: Sequence[int], expected: Sequence[int]) -> tuple[list[int], str]:
    """(seeds to import, note) for one file set. All expected seeds present: those (extra
    files are reported, not imported: at the latest commit Llama 3.2 3B's 'mathy', 'action
    movie fan' and 'rock fan' sets keep a seed-5 file of the April 2025 run, whose seeds were
    0, 2, 3, 4, 5, next to the January 2026 re-run of seeds 0–4). As many files as expected
    but other seeds: those (the paper-era Llama 3.2 3B context runs). Fewer: the ones found,
    with a note naming the missing seeds (the caller refuses unless allowed)."""
    have, want = sorted(set(found)), list(expected)
    if set(want) <= set(have):
        extra = [s for s in have if s not in want]
        note = f"extra seed file(s) {extra} not imported (stale, see provenance)" if extra else ""
        return want, note
    if len(have) >= len(want):
        return have[: len(want)], f"seeds {have[: len(want)]} instead of {want}"
    missing = [s for s in want if s not in have]
    return have, f"missing seed file(s) {missing}"


@dataclass
class ImportSummary:
    """What one import did, all reported (:meth:`lines`). ``counts``: ``runs`` (folders
    written), ``answers`` (written), ``empty`` (no catalog item parsed), ``errors`` (entries
    that are no answer object), ``duplicates`` (answers listing an item twice), ``missing``
    (value entries absent from a file)."""

    commit: str = ""
    counts: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    sets: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The provenance record: the commit, every count (0 when none), notes, file sets."""
        names = ("runs", "answers", "empty", "errors", "duplicates", "missing")
        counts = {k: self.counts[k] for k in names}
        return {"commit": self.commit, **counts, "notes": self.notes, "sets": self.sets}

    def lines(self) -> list[str]:
        n = self.counts
        head = (
            f"seed study at commit {self.commit}: {n['runs']} run folders, {n['answers']} "
            f"answers; {n['empty']} empty (no catalog item parsed), {n['errors']} error "
            f"entries, {n['missing']} missing entries, {n['duplicates']} answers with a "
            "repeated item (counted once)"
        )
        return [head, *(f"  {n}" for n in self.notes)]


def _answer(
    entry: Any, titles_index: Mapping[str, int], persona: str, k: int
) -> tuple[AnswerRecord, str, str]:
    """(record, raw response, problem) for one study answer entry. The items are the study's
    own parse (``recommended_list``) mapped to catalog ids; a title outside the catalog counts
    as out of catalog, a repeated one as a duplicate; ``titles`` keeps the study's list as is
    (duplicates included: its genre shares divide by that length).
    problem: "" / "empty" / "error"."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("recommended_list"), list):
        text = entry.get("response", "") if isinstance(entry, Mapping) else ""
        record = AnswerRecord(persona, 0, (), k, n_shown=len(titles_index))
        return record, str(text or ""), "error"
    items: list[int] = []
    outside: list[str] = []
    dups: list[str] = []
    for title in entry["recommended_list"]:
        index = titles_index.get(str(title))
        if index is None:
            outside.append(str(title))
        elif index in items:
            dups.append(str(title))
        else:
            items.append(index)
    items = items[:k]
    record = AnswerRecord(
        persona_id=persona,
        repeat=0,
        items=tuple(items),
        k=k,
        positions=tuple(items),
        n_shown=len(titles_index),
        n_entries=len(entry["recommended_list"]),
        n_out_of_catalog=len(outside),
        n_duplicates=len(dups),
        titles=tuple(str(t) for t in entry["recommended_list"]),
        out_of_catalog=tuple(outside[:5]),
        duplicates=tuple(dups[:5]),
    )
    response = entry.get("response")
    return record, response if isinstance(response, str) else "", "" if items else "empty"


def _sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def _write_catalogs(study: SeedStudy, out: Path) -> dict[str, tuple[str, str]]:
    """domain → (catalog path, sha256): the study's catalog in its order as a JSONL with a
    ``title`` column (and a flag per genre set its domain file names, ``seed_study.genre_sets``:
    movie's ``action`` / ``western`` from the study's genre sets), built
    from the clone at import time (never committed)."""
    folder = out / "catalogs"
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    sets_of = {d: spec.seed_genre_sets for d, spec in study_domains().items()}
    for d, titles in study.catalogs.items():
        path = folder / f"{d}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for title in titles:
                row: dict[str, Any] = {"title": title}
                for genre in sorted(set(study.genre_sets) & set(sets_of[d])):
                    row[genre] = title in study.genre_sets[genre]
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        try:
            sha = load_catalog(path).sha256
        except CatalogError:  # a catalog our loader refuses: hash the file instead
            sha = _sha256_file(path)
        written[d] = (str(path.resolve()), sha)
    return written


def _write_personas(study: SeedStudy, out: Path) -> Path:
    """A persona file (our layout) with the study's groups and value phrases."""
    lines = ["# Built by coldbias import-seed-study from the study's sensitive_attributes.json",
             "version: 2", "groups:"]  # fmt: skip
    for group, phrases in study.groups.items():
        lines += [f"  {group}:", f"    label: {json.dumps(group)}", "    values:"]
        lines += [
            f"      - {{id: {value_id(p)}, phrase: {json.dumps(p, ensure_ascii=False)}}}"
            for p in phrases
        ]
    lines += ["context:", *(f"  {d}: {json.dumps(CONTEXT_TAGS[t].phrase)}"
                            for d, t in main_context().items())]  # fmt: skip
    path = out / "personas.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main_context() -> dict[str, str]:
    """domain → the context string imported as the main rows' ``context`` variant (the domain
    file's ``seed_study.context``)."""
    return {d: spec.seed_context or "" for d, spec in study_domains().items()}


def _plan(
    study: SeedStudy, summary: ImportSummary, allow_missing: bool
) -> dict[tuple[str, str], dict[int, list[tuple[str, str, Path]]]]:
    """(model, run set) → seed → [(domain, tag, file)]; run set "main" or "context_<tag>".
    Superseded and extra files are noted; missing seeds raise unless ``allow_missing``."""
    plan: dict[tuple[str, str], dict[int, list[tuple[str, str, Path]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    models = sorted({m for m, _, _ in study.files})
    for model in models:
        if model not in HUB_IDS:
            summary.notes.append(f"{model}: no hub id known; not imported")
            continue
        for d in study_domains():
            tags = [t for (m, dd, t) in study.files if m == model and dd == d]
            plain = [t for t in PLAIN_PREFERENCE if t in tags]
            chosen = []
            if plain:
                chosen.append(("main", plain[0]))
                for other in plain[1:]:
                    summary.notes.append(
                        f"{model} {d}: plain file set {other!r} not imported (superseded by "
                        f"{plain[0]!r}; see context_tags in provenance.json)"
                    )
            else:
                summary.notes.append(f"{model} {d}: no plain run in the study (shown as missing)")
            for tag in tags:
                info = CONTEXT_TAGS[tag]
                if info.variant != "context":
                    continue
                where = "main" if main_context().get(d) == tag else f"context_{tag}"
                chosen.append((where, tag))
            for where, tag in chosen:
                found = study.files[(model, d, tag)]
                seeds, note = choose_seeds(list(found), study.seeds)
                stem = f"{model}_{d}_{tag}"
                entry = {"model": model, "domain": d, "tag": tag, "run_set": where,
                         "seeds": seeds, "files_found": sorted(found), "note": note}  # fmt: skip
                summary.sets.append(entry)
                if note:
                    summary.notes.append(f"{stem}_*.json: {note}")
                if note.startswith("missing") and not allow_missing:
                    raise RunError(
                        f"{study.root}/data/raw_text_results/{stem}_*.json: {note} (found "
                        f"seeds {sorted(found)}). Restore the file(s) from the study's git "
                        "history, or pass --allow-missing to import the seeds found (reported "
                        "in provenance)."
                    )
                for s in seeds:
                    plan[(model, where)][s].append((d, tag, found[s]))
    return plan


def _task_records(
    study: SeedStudy, data: Mapping[str, Any], domain: str, tag: str, path: Path,
    summary: ImportSummary,
) -> dict[str, list[tuple[AnswerRecord, str, str]]]:  # fmt: skip
    """group → [(record, raw text, user phrase)], the neutral answer first in every group."""
    index = {t: i for i, t in enumerate(study.catalogs[domain])}
    k = DESIGN["k"]

    def take(entry: Any, persona: str, where: str) -> tuple[AnswerRecord, str]:
        record, text, problem = _answer(entry, index, persona, k)
        summary.counts.update(answers=1, duplicates=int(record.n_duplicates > 0))
        if problem:  # "empty" or "error"
            summary.counts["errors" if problem == "error" else problem] += 1
        if problem == "error":
            summary.notes.append(f"{path.name}: {where}: error entry (no recommended_list)")
        return record, text

    neutral = take(data.get("neutral"), NEUTRAL_ID, "neutral")
    out: dict[str, list[tuple[AnswerRecord, str, str]]] = {}
    for group, phrases in study.groups.items():
        block = data.get(group)
        rows = [(*neutral, "")]
        for phrase in phrases:
            entry = block.get(phrase) if isinstance(block, Mapping) else None
            if entry is None:
                summary.counts["missing"] += 1
                summary.notes.append(f"{path.name}: {group} / {phrase!r}: no answer in the file")
                continue
            rows.append((*take(entry, f"{group}.{value_id(phrase)}", phrase), phrase))
        out[group] = rows
    return out


def import_seed_study(
    root: str | Path, output: str | Path, allow_missing: bool = False
) -> ImportSummary:
    """Write one lm-eval run folder per (model, run set, seed) under ``output``:
    ``output/main/<model>/seed<s>/`` (plain and the student / movie fan / music fan contexts)
    and ``output/context_<tag>/<model>/seed<s>/`` (the other contexts, a row each), plus
    ``catalogs/``, ``personas.yaml`` and ``provenance.json``. Returns the counts."""
    study = read_study(root)
    out = Path(output).expanduser()
    if out.exists() and not out.is_dir():
        raise OutputError(f"--output {out}: a file, not a folder; pass a folder for the runs.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"--output {out}: cannot be made ({err.strerror}).") from None
    summary = ImportSummary(commit=study.commit)
    if study.unrecognised:
        summary.notes.append(
            f"{len(study.unrecognised)} raw file(s) with an unknown name pattern not imported: "
            + ", ".join(study.unrecognised[:5])
        )
    for key, hub in HUB_IDS.items():
        theirs = study.hub_ids.get(key)
        if theirs is not None and theirs != hub:
            summary.notes.append(f"{key}: the study's config says {theirs}, we map {hub}")
    plan = _plan(study, summary, allow_missing)
    catalogs = _write_catalogs(study, out)
    personas = _write_personas(study, out)
    template_sha = _sha256_file(study.root / "users.py")
    provenance = {
        "source_repo": SOURCE_REPO,
        "commit": study.commit,
        "design": DESIGN,
        "context_tags": {t: vars(c) for t, c in CONTEXT_TAGS.items()},
        "plain_preference": list(PLAIN_PREFERENCE),
        "main_context": main_context(),
        "hub_ids": HUB_IDS,
        "genre_sets": {g: len(s) for g, s in study.genre_sets.items()},
    }
    for (model, where), by_seed in sorted(plan.items()):
        for seed, sets in sorted(by_seed.items()):
            folder = out / where / model / f"seed{seed}"
            _write_run(study, folder, model, where, seed, sets, catalogs, personas,
                       template_sha, provenance, summary)  # fmt: skip
            summary.counts["runs"] += 1
    record = {**provenance, "summary": summary.to_dict()}
    (out / "provenance.json").write_text(
        json.dumps(record, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    return summary


def _write_run(
    study: SeedStudy, folder: Path, model: str, where: str, seed: int,
    sets: Sequence[tuple[str, str, Path]], catalogs: Mapping[str, tuple[str, str]],
    personas: Path, template_sha: str, provenance: Mapping[str, Any], summary: ImportSummary,
) -> None:  # fmt: skip
    """One results_<ts>.json and its samples_<task>_<ts>.jsonl files, as lm-eval writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = f"2025-01-01T00-00-{seed:02d}.000000"
    hub = HUB_IDS[model]
    args = f"pretrained={hub},seed={seed}"
    if where != "main":
        args += f",context={CONTEXT_TAGS[where.removeprefix('context_')].phrase}"
    results: dict[str, Any] = {
        "results": {}, "configs": {}, "versions": {}, "n-samples": {},
        "config": {"model": "vllm", "model_args": args, "random_seed": seed},
        "model_name": hub, "date": 1.0e9 + seed,
        "lm_eval_version": "not run here (imported by coldbias import-seed-study)",
        "transformers_version": "unknown (the study's vLLM run)",
        "coldbias_seed_study": {**provenance, "study_model": model, "seed": seed,
                                "files": [str(p.relative_to(study.root)) for _, _, p in sets]},
    }  # fmt: skip
    for domain, tag, path in sets:
        info = CONTEXT_TAGS[tag]
        data = read_json(path)
        if not isinstance(data, Mapping):
            raise RunError(f"{path}: not a study answer file (expected a JSON object).")
        catalog, catalog_sha = catalogs[domain]
        n_shown = len(study.catalogs[domain])
        for group, rows in _task_records(study, data, domain, tag, path, summary).items():
            task = task_name(domain, group, info.variant)
            lines = []
            for i, (record, text, phrase) in enumerate(rows):
                doc = TaskDoc(
                    persona_id=record.persona_id, attribute_group=group, user=phrase or "neutral",
                    domain=domain, variant=info.variant, repeat=0, k=DESIGN["k"],
                    order="fixed", seed=0, catalog=catalog, catalog_sha256=catalog_sha,
                    template_sha256=template_sha, coldbias_version="seed-study",
                    shown_ids=tuple(range(n_shown)),
                    prompt=f"[seed study {path.name}] user {phrase or 'neutral'!r}, context "
                    f"{info.phrase!r}",
                    template="seed-study",
                )  # fmt: skip
                lines.append({
                    "doc_id": i, "doc": doc.to_dict(), "target": "", "resps": [[text]],
                    "filtered_resps": [text], "filter": FILTER_NAME,
                    ANSWER_KEY: record.to_payload(),
                })  # fmt: skip
            body = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
            (folder / f"samples_{task}_{stamp}.jsonl").write_text(body, encoding="utf-8")
            results["results"][task] = {"alias": task}
            results["versions"][task] = STUDY_TASK_VERSION
            results["n-samples"][task] = {"original": len(lines), "effective": len(lines)}
            results["configs"][task] = {
                "task": task,
                "generation_kwargs": {"temperature": DESIGN["temperature"], "do_sample": True,
                                      "max_gen_toks": DESIGN["max_tokens"]},
                "metadata": {"version": STUDY_TASK_VERSION, "coldbias_k": DESIGN["k"],
                             "coldbias_n_items": n_shown, "coldbias_repeats": 1,
                             "coldbias_replicates": 0, "coldbias_order": "fixed",
                             "coldbias_seed": 0, "coldbias_personas": str(personas.resolve())},
            }  # fmt: skip
    (folder / f"results_{stamp}.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
