"""Prompt robustness: every template × language renders for every domain; runs that differ only
in template or language give the report's prompt-sensitivity tables, a plot and the
leaderboard's "prompt sensitivity" column (synthetic recommender through lm-eval)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.analysis import leaderboard
from coldbias_tasks.analysis.robustness import _tau
from coldbias_tasks.app import commands
from coldbias_tasks.core.errors import PersonaError
from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.prompting.prompt import builtin_templates, load_template
from coldbias_tasks.core.vocabulary import OPEN, PREF, VARIANTS
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domains
from coldbias_tasks.core.world.personas import load_personas
from tests.synthetic import SyntheticRecommender, run_synthetic

LANGUAGES = sorted(load_personas().languages)
TEMPLATES = [t for t in builtin_templates().values() if t.kind == "forward"]


def test_there_are_four_templates_and_six_languages() -> None:
    assert {"lines", "numbered", "json", "user_first"} <= {t.name for t in TEMPLATES}
    assert {"en", "fr", "es", "de", "zh", "ja"} <= set(LANGUAGES)
    assert set(builtin_templates()["lines"].languages) >= {"en", "fr", "es", "de", "zh", "ja"}
    assert load_template("lines").shares_prefix and load_template("json").shares_prefix
    assert not load_template("user_first").shares_prefix


@pytest.mark.parametrize("domain", list(domains()))
def test_every_template_and_language_renders_for_every_domain(domain: str) -> None:
    """Every (template, language) a template offers, every variant: the prompt shows every
    title, k, and the persona's own sentence in that language."""
    config = load_personas()
    gender = {p.id: p for p in config.groups["gender"].values}
    meta = {"coldbias_n_items": 12, "coldbias_k": 3, "coldbias_repeats": 1}
    titles = load_catalog(domain).titles
    for template in TEMPLATES:
        for language in template.languages:
            for variant in VARIANTS:
                if variant == OPEN:  # no catalog shown: test_open_templates_render_without_it
                    continue
                if variant == PREF:  # tests/test_costs.py; its preferences are English only
                    if language != "en":
                        with pytest.raises(PersonaError, match=r"has no .* phrase; add"):
                            build_docs(domain, "gender", variant, {
                                **meta, "coldbias_template": template.name,
                                "coldbias_language": language,
                            })  # fmt: skip
                    continue
                docs = build_docs(domain, "gender", variant, {
                    **meta, "coldbias_template": template.name, "coldbias_language": language,
                })  # fmt: skip
                where = (template.name, language, variant)
                for d in docs:
                    assert all(titles[i] in d.prompt for i in d.shown_ids), where
                    assert "3" in d.prompt, where
                    assert d.template == template.name and d.language == language
                    if d.persona_id in gender:
                        text = config.describe(gender[d.persona_id], variant, domain, language)
                        assert text in d.prompt, (*where, d.persona_id)
                assert len({d.prompt for d in docs}) == len({d.persona_id for d in docs}) - 3


@pytest.mark.parametrize("domain", list(domains()))
def test_open_templates_render_without_it(domain: str) -> None:
    """Every catalog template with an open form, in each of its languages: the open prompt
    shows no catalog title, asks k and states the persona's own sentence; its template is the
    open form (``open_<name>``)."""
    config = load_personas()
    gender = {p.id: p for p in config.groups["gender"].values}
    meta = {"coldbias_n_items": 12, "coldbias_k": 3, "coldbias_repeats": 1}
    titles = [t for t in load_catalog(domain).titles if len(t) >= 12]  # short ones are words
    opens = {t.name for t in builtin_templates().values() if t.kind == OPEN}
    checked = 0
    for template in (t for t in TEMPLATES if f"open_{t.name}" in opens):
        for language in template.languages:
            docs = build_docs(domain, "gender", OPEN, {
                **meta, "coldbias_template": template.name, "coldbias_language": language,
            })  # fmt: skip
            for d in docs:
                assert d.template == f"open_{template.name}" and not d.shown_ids
                assert not any(t in d.prompt for t in titles), (template.name, language)
                assert "3" in d.prompt
                if d.persona_id in gender:
                    text = config.describe(gender[d.persona_id], OPEN, domain, language)
                    assert text in d.prompt, (template.name, language, d.persona_id)
            checked += 1
    assert checked >= 3  # lines (every language), numbered, json


def test_languages_other_than_english_cover_every_phrase() -> None:
    from coldbias_tasks.core.world.personas import check_language

    config = load_personas()
    for code in LANGUAGES:
        assert check_language(config, code, list(domains())) == [], code


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('["Heat", "Alien"]', ["Heat", "Alien"]),
        ("1. Heat\n2. Alien", ["Heat", "Alien"]),
        ("<ol><li>Heat</li><li>Alien</li></ol>", ["Heat", "Alien"]),
        ("Voici mes recommandations :\n1. Heat\n2. Alien", ["Heat", "Alien"]),
        ("为您推荐以下电影：\n1.《Heat》\n2.《Alien》", ["Heat", "Alien"]),
        ("おすすめは次のとおりです。\n・Heat\n・Alien", ["Heat", "Alien"]),
        ("Empfehlungen:\n- Heat\n- Alien", ["Heat", "Alien"]),
    ],
)
def test_answers_in_every_format_and_language_parse(answer: str, expected: list[str]) -> None:
    titles = ("Heat", "Alien", "Up", "Jaws")
    parsed = parse_ranking(answer, list(titles), k=2)
    assert [titles[i] for i in parsed.items] == expected


def test_kendall_tau_golden() -> None:
    assert _tau({"a": 1, "b": 2, "c": 3}, {"a": 10, "b": 20, "c": 30}) == pytest.approx(1.0)
    assert _tau({"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1}) == pytest.approx(-1.0)
    assert _tau({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2}) == pytest.approx(1 / 3)
    assert math.isnan(_tau({"a": 1}, {"a": 2}))  # one shared value


TASKS = ["coldbias_movie_gender", "coldbias_movie_country"]
META = {"coldbias_n_items": 30, "coldbias_k": 5, "coldbias_repeats": 4, "coldbias_seed": 3}
PROMPTS = [("lines", "en"), ("numbered", "en"), ("json", "en"), ("lines", "fr")]


def _runs(root: Path, model_factory) -> list[Path]:
    out = []
    for template, language in PROMPTS:
        folder = root / f"{template}_{language}"
        meta = {**META, "coldbias_template": template, "coldbias_language": language}
        run_synthetic(model_factory(), TASKS, meta, output_path=folder)
        out.append(folder)
    return out


@pytest.fixture(scope="module")
def robust_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prompt-blind recommender with a clear effect for "a girl" in four prompts."""
    root = tmp_path_factory.mktemp("robust")
    effect = {"gender.female": lambda item: 1e-3 if item % 2 else 1.0}
    _runs(root, lambda: SyntheticRecommender(seed=1, effect=effect, skew=2.0, style="auto"))
    return root


def test_report_shows_prompt_sensitivity(robust_runs: Path, tmp_path: Path) -> None:
    result = commands.build_report(robust_runs, tmp_path / "rep")
    names = {p.name for p in result.files}
    assert {"robustness.csv", "prompt_sensitivity.csv"} <= names
    variants = pd.read_csv(tmp_path / "rep" / "robustness.csv")
    assert set(variants.prompt) == {"lines (en)", "numbered (en)", "json (en)", "lines (fr)"}
    assert len(variants) == len(PROMPTS) * len(TASKS)
    sens = pd.read_csv(tmp_path / "rep" / "prompt_sensitivity.csv")
    per_task = sens[sens.task != "(shared tasks)"].set_index("task")
    # the answers do not depend on the prompt: the same numbers under every prompt
    assert per_task.loc["coldbias_movie_gender", "excess_range"] == pytest.approx(0.0, abs=1e-12)
    assert per_task.loc["coldbias_movie_gender", "value_rank_tau"] == pytest.approx(1.0)
    (shared,) = sens[sens.task == "(shared tasks)"].itertuples()
    assert shared.n_prompts == 4 and shared.n_tasks == 2 and shared.excess_range == pytest.approx(0)
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "Prompt sensitivity" in html
    assert any(p.name.startswith("prompts_") for p in result.files)


def test_a_prompt_dependent_effect_shows_as_sensitivity(tmp_path: Path) -> None:
    """The effect exists only under the numbered template: the sensitivity is large, and the
    leaderboard column says so (and is absent for a model run under one prompt)."""
    effect = {"gender.female": lambda item: 1e-3 if item % 2 else 1.0,
              "gender.male": lambda item: 1e-3 if item % 3 else 1.0}  # fmt: skip
    _runs(tmp_path / "runs", lambda: SyntheticRecommender(
        seed=2, effect=effect, skew=2.0, style="auto",
        effect_when=lambda doc: doc["template"] == "numbered"))  # fmt: skip
    single = tmp_path / "single"
    run_synthetic(SyntheticRecommender(seed=4), TASKS, META, single,
                  model_name="org/other-model")  # fmt: skip
    lb = leaderboard.build_leaderboard([tmp_path / "runs", single], resamples=50)
    keys = {c.key for c in lb.columns}
    assert {"prompt_sensitivity", "prompt_rank_tau", "prompts"} <= keys
    rows = {r.label: r for r in lb.rows}
    numbered = next(r for label, r in rows.items() if "numbered" in label)
    assert numbered.cells["prompt_sensitivity"].value > 0.03  # a prompt-blind model: 0
    assert "prompt_sensitivity" not in rows["org/other-model"].cells
    paths = commands.write_leaderboard(lb, tmp_path / "lb")
    assert "prompt sensitivity ↓" in paths[2].read_text()
