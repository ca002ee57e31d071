"""A domain is data: ``domains/<name>.yaml`` is read and checked by ``core/world/domains.py``, and
a new domain ("books", ``tests/data/books/``) declared in a folder of ``COLDBIAS_DATA_PATH``
gets its task YAMLs from taskgen and runs through lm-eval's own evaluator with no Python code."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from coldbias_tasks.core.errors import PersonaError, SettingsError
from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.resources import DATA_PATH_ENV, data_folders
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import answer_keys, domain, domains, read_domain
from coldbias_tasks.core.world.personas import check_language, load_personas

BOOKS = Path(__file__).parent / "data" / "books"
#: lm-eval settings of the books run: 20 of the 32 books shown, 4 recommended, 2 repeats.
META = {"coldbias_n_items": 20, "coldbias_k": 4, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The books data files copied to a temporary folder that COLDBIAS_DATA_PATH lists."""
    folder = tmp_path_factory.mktemp("books_data")
    shutil.copytree(BOOKS, folder, dirs_exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_PATH_ENV, str(folder))
        yield folder


def test_the_built_in_domains_are_declared_by_their_files() -> None:
    declared = domains()
    assert list(declared) == ["movie", "music", "college"]  # display order
    assert {n: d.title_kind for n, d in declared.items()} == {
        "movie": "work",
        "music": "song",
        "college": "institution",
    }
    assert [d.year_rule for d in declared.values()] == ["match", "ignore", "ignore"]
    assert declared["music"].reference_file is None
    assert declared["movie"].nouns_in("de") == ("Filme", "Filmtitel")
    assert declared["college"].context["en"] == "a student who loves maths"
    assert "books" not in declared and "book" not in answer_keys()


def test_books_is_declared_by_data_files_alone(books: Path) -> None:
    assert data_folders()[1:] == (books.resolve(),)
    assert list(domains()) == ["movie", "music", "college", "books"]
    spec = domain("books")
    assert spec.catalog_file == (books / "books.jsonl").resolve()
    assert len(load_catalog("books")) == 32
    assert spec.nouns_in("fr") == ("livres", "titre de livre")
    with pytest.raises(SettingsError, match=r"no 'es' nouns for domain 'books'.*books\.yaml"):
        spec.nouns_in("es")
    config = load_personas()
    assert config.context["books"] == "a reader of crime novels"
    assert check_language(config, "fr", ["books"]) == []
    assert check_language(config, "es", ["books"]) == ["context books", "nouns books"]


def test_books_answers_parse_ground_and_have_categories(books: Path) -> None:
    from coldbias_tasks.core.measures.diversity import catalog_labels
    from coldbias_tasks.core.parsing.grounding import grounder

    catalog = load_catalog("books")
    answer = '{"recommendations": [{"book": "Dracula"}, {"novel": "Kokoro"}, {"x": "Dune"}]}'
    got = parse_ranking(answer, catalog.titles, 3, kind="work")  # the keys the file declares
    assert [catalog.titles[i] for i in got.items] == ["Dracula", "Kokoro"]
    found = grounder("books", catalog)
    assert found.ground("Middlemarch").key == "r:ref-book-001"  # the folder's reference list
    assert found.ground("- Dracula (1897)").key == f"c:{catalog.titles.index('Dracula')}"
    assert found.ground("The Hobbit (1999)").level == "catalog"  # year_rule: ignore
    assert set(catalog_labels("books")[1]) == {"genre", "country", "decade"}


def test_books_tasks_run_through_lm_eval(
    books: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """taskgen writes the books tasks from the data files; lm-eval runs one with the synthetic
    recommender; its results carry the disparity between values and the report reads them."""
    from coldbias_tasks.app.commands import build_report
    from coldbias_tasks.lmeval import taskgen
    from tests.synthetic import SyntheticRecommender, run_synthetic

    with pytest.raises(SystemExit):  # never into the package's own tasks/
        taskgen.main([])
    assert f"{DATA_PATH_ENV} adds data folders" in capsys.readouterr().err
    tasks = tmp_path / "tasks"
    assert taskgen.main(["--out", str(tasks)]) == 0
    assert f"{DATA_PATH_ENV}={books.resolve()}" in capsys.readouterr().out
    for rel in (
        "books/coldbias_books_gender.yaml",
        "books/coldbias_books_context_gender.yaml",
        "books/coldbias_books_open_gender.yaml",
        "groups/coldbias_books.yaml",
        "reverse/coldbias_reverse_books_gender.yaml",
        "movie/coldbias_movie_gender.yaml",
    ):
        assert (tasks / rel).is_file(), rel
    out = tmp_path / "run"
    model = SyntheticRecommender(seed=1, effect={"gender.female": lambda item: 4.0 ** (item % 2)})
    results = run_synthetic(model, ["coldbias_books_gender"], META, out, include_path=tasks)
    got = {k.split(",")[0]: v for k, v in results["results"]["coldbias_books_gender"].items()}
    for m in ("iou", "serp", "prag"):
        assert math.isfinite(got[f"{m}_disparity"]), m
        assert 0.0 <= got[f"{m}_disparity_p"] <= 1.0, m
        assert got[f"{m}_disparity_stderr"] > 0, m
    prompt = results["samples"]["coldbias_books_gender"][0]["doc"]["prompt"]
    assert "catalog of 20 books" in prompt and "book title" in prompt
    report = build_report(out, tmp_path / "report")
    assert [r.task.domain for r in report.reports] == ["books"]
    assert set(report.reports[0].exposure) == {"genre", "country"}


def test_books_context_variant_adds_the_files_phrase(books: Path) -> None:
    from coldbias_tasks.core.prompting.documents import build_docs

    docs = build_docs("books", "gender", "context", {**META, "coldbias_language": "fr"})
    assert docs[0].user == "Je suis fan de romans policiers."  # the neutral user: the phrase
    assert all(d.user.endswith("Je suis fan de romans policiers.") for d in docs)
    assert any(d.user == "Je suis une fille. Je suis fan de romans policiers." for d in docs)
    with pytest.raises(PersonaError, match=r"no context phrase for domain 'books' in .*'de'"):
        build_docs("books", "gender", "context", {**META, "coldbias_language": "de"})


def test_a_domain_outside_the_data_path_is_unknown(books: Path, monkeypatch) -> None:
    monkeypatch.delenv(DATA_PATH_ENV)
    with pytest.raises(SettingsError, match=rf"unknown domain 'books'.*{DATA_PATH_ENV}"):
        domain("books")


# --- checked on load: one-line errors naming the file, the key and the fix -------------------

GOOD = """order: 9
title_column: title
title_kind: work
schema: {id: str, title: str, year: int}
nouns: {en: {plural: poems, singular: poem}}
"""


def _write(folder: Path, name: str, text: str) -> Path:
    (folder / "domains").mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text('{"id": "p1", "title": "Ode", "year": 1819}\n')
    path = folder / "domains" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD + "genre: [x]\n", r"poem\.yaml: genre: unknown key; the keys are order, "),
        (GOOD.replace("order: 9\n", ""), r"poem\.yaml: order: missing; add it"),
        (GOOD.replace("work", "poem"), r"poem\.yaml: title_kind: title kind 'poem' is not one"),
        (GOOD + "category_fields: [metre]\n", r"category_fields: 'metre' is no column of the sch"),
        (GOOD + "category_fields: [decade]\n", None),  # derived from year
        (GOOD + "stratum: metre\n", r"stratum: 'metre' is no column"),
        (GOOD + "year_rule: sometimes\n", r"year_rule: 'sometimes'; use one of match, ignore"),
        (GOOD.replace(", year: int", "") + "year_rule: match\n", r"match needs an int column"),
        (GOOD.replace("year: int", "year: float"), r"schema: unknown type\(s\) \{'year'"),
        (GOOD.replace("title_column: title", "title_column: year"), r"no str column"),
        (GOOD + "answer_keys: [Poem Title]\n", r"answer_keys: 'Poem Title'; write keys in lower"),
        (GOOD + "catalog: gone.jsonl\n", r"catalog: .*gone\.jsonl does not exist"),
        (GOOD + "context: {fr: fan de poésie}\n", r"context: no English \(en\) entry"),
        (GOOD.replace("singular: poem", "single: poem"), r"nouns\.en: .*\{plural: \.\.\., sing"),
        (GOOD + "order: 3\n", r"line 6: key 'order' appears twice"),
        ("- a list\n", r"poem\.yaml: the file: not a mapping of keys"),
    ],
)
def test_a_bad_domain_file_names_file_key_and_fix(
    tmp_path: Path, text: str, message: str | None
) -> None:
    path = _write(tmp_path, "poem", text)
    if message is None:
        assert read_domain(path).category_fields == ("decade",)
        return
    with pytest.raises(SettingsError, match=message) as err:
        read_domain(path)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["reverse", "short_story", "Poem"])
def test_a_domain_name_that_breaks_task_names_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(SettingsError, match=r"the file name: .*lower-case letters and digits"):
        read_domain(_write(tmp_path, name, GOOD))


def test_a_domain_file_is_capped(tmp_path: Path) -> None:
    path = _write(tmp_path, "poem", GOOD + "#" * (70 << 10) + "\n")
    with pytest.raises(SettingsError, match=r"bytes, more than the 65,536"):
        read_domain(path)


def test_extra_folders_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_PATH_ENV, str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match=rf"{DATA_PATH_ENV}: .*missing' is not a folder"):
        domains()
    _write(tmp_path / "a", "movie", GOOD)  # a second movie
    monkeypatch.setenv(DATA_PATH_ENV, str(tmp_path / "a"))
    with pytest.raises(SettingsError, match=r"a/domains/movie\.yaml: the file name: domain 'mov"):
        domains()
    lang = tmp_path / "b" / "lang"
    lang.mkdir(parents=True)
    text = (Path(data_folders()[0]) / "lang" / "fr.yaml").read_text(encoding="utf-8")
    (lang / "fr.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv(DATA_PATH_ENV, str(tmp_path / "b"))
    with pytest.raises(PersonaError, match=r"b/lang/fr\.yaml: language 'fr' is also defined by"):
        load_personas()
    (lang / "fr.yaml").write_text(text + "nouns: {movie: {plural: a, singular: b}}\n")
    with pytest.raises(PersonaError, match=r"nouns: .*move each `nouns: \{<domain>: \.\.\.\}`"):
        load_personas()
