"""Parser accuracy on the hand-written answer set, a fuzzy-cutoff sweep, and parser speed.

    python bench/studies/parser_eval.py

Prints: cases fully correct, false matches (items returned that the case does not expect) and
missed items, for the shipped cutoff and a sweep of cutoffs (over the cases of
tests/data/parse_cases/, ``CASES`` and ``EXTRA_CASES`` of the tests); the Wikidata false-match
sweep, bare and formatted (with year, with director); then answers per second for realistic
20-line answers against the 500-item movie catalog on one core (CPU time of this process), and
the same for the music and college catalogs (songs as '"Title" by Artist' with wrong artists,
colleges with abbreviations and native names).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core.errors import ColdbiasError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.parsing import parse, title_match
from coldbias_tasks.core.parsing.catalog_index import clear_caches, normalized_key
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import TitleKind
from tests.parse_cases import KINDS

#: The hand-written cases (the data files tests/parse_cases.py loads for the tests).
CASE_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "parse_cases"
CATALOGS: dict[str, list[str]] = load_yaml(CASE_DATA / "catalogs.yaml", ColdbiasError)
CASES: list[dict] = [
    case
    for stem in ("cases", "extra_cases")
    for case in load_yaml(CASE_DATA / f"{stem}.yaml", ColdbiasError)
]


def _catalog(name: str) -> tuple[str, ...]:
    return tuple(CATALOGS[name]) if name in CATALOGS else load_catalog(name).titles


def score(cutoff: float) -> tuple[int, int, int]:
    """(cases fully correct, false matches, missed expected items) at ``cutoff``."""
    title_match.FUZZY_CUTOFF = cutoff
    clear_caches()
    correct = false = missed = 0
    for case in CASES:
        catalog = _catalog(case["catalog"])
        got = parse.parse_ranking(case["answer"], catalog, case["k"], kind=KINDS[case["catalog"]])
        titles = [catalog[i] for i in got.items]
        false += sum(1 for t in titles if t not in case["expected"])
        missed += sum(1 for t in case["expected"] if t not in titles)
        correct += (
            titles == case["expected"]
            and len(got.out_of_catalog) == case["n_out_of_catalog"]
            and len(got.duplicates) == case["n_duplicates"]
        )
    return correct, false, missed


#: Answer lines for the formatted Wikidata sweeps: a bold title with its year, a title with its
#: director, a quoted title "by" its director.
WIKIDATA_FORMATS = (
    "1. **{title}** ({year})",
    "- {title} - {director}",
    '1. "{title}" by {director}',
)


def wikidata_false_matches(fmt: str = "{title}") -> tuple[int, list[tuple[str, str]]] | None:
    """Every Wikidata film title (bokeh-sampledata, 1940–2014) that is NOT in the movie catalog,
    parsed as a one-line answer (``fmt`` of its title, year and first director) against the
    500-item catalog: each match is a false match unless it is the same film under another
    title. None without bokeh-sampledata.
    """
    try:
        import sqlite3

        from bokeh_sampledata.movies_data import movie_path
    except ImportError:
        return None
    titles = load_catalog("movie").titles
    keys = {normalized_key(t) for t in titles}
    with sqlite3.connect(movie_path) as con:
        rows = con.execute("SELECT Title, Year, Director FROM omdb").fetchall()
    films: dict[str, tuple[str, str]] = {}
    for title, year, director in rows:
        if title and normalized_key(title) not in keys:
            first = (director or "").split(",")[0].strip() or "Unknown"
            films.setdefault(title, (str(year or ""), first))
    hits = []
    for other in sorted(films):
        year, director = films[other]
        got = parse.parse_ranking(fmt.format(title=other, year=year, director=director), titles, 1)
        if got.items:
            hits.append((other, titles[got.items[0]]))
    return len(films), hits


def _time(answers: list[str], titles: tuple[str, ...], kind: TitleKind = "work") -> float:
    clear_caches()
    parse.parse_ranking("warm up", titles, 20, kind=kind)
    start = time.process_time()  # CPU time: other processes on the machine do not count
    for answer in answers:
        parse.parse_ranking(answer, titles, 20, kind=kind)
    return len(answers) / (time.process_time() - start)


def speed(n_answers: int = 2000) -> float:
    """Answers per second: 20-line answers, mixed exact, typo'd and invented titles."""
    titles = load_catalog("movie").titles
    rng = random.Random(0)
    answers = []
    for _ in range(n_answers):
        lines = []
        for rank in range(1, 21):
            title = rng.choice(titles)
            roll = rng.random()
            if roll < 0.1:
                title = title[:-1] + "x"  # typo → fuzzy stage
            elif roll < 0.2:
                title = f"Invented Film {rng.randint(0, 10**6)}"  # hallucination → fuzzy miss
            lines.append(f"{rank}. **{title}** ({rng.randint(1950, 2020)})")
        answers.append("\n".join(lines))
    return _time(answers, titles)


def speed_songs_colleges(n_answers: int = 1000) -> dict[str, float]:
    """Answers per second for the music catalog ('"Title" by Artist', 10 % with another
    catalog artist, 10 % invented) and the college catalog (10 % with an abbreviation in
    parentheses, 10 % with a native-script name, 10 % invented)."""
    rng = random.Random(1)
    out = {}
    songs = load_catalog("music").titles
    artists = [t.rpartition(" by ")[2] for t in songs]
    answers = []
    for _ in range(n_answers):
        lines = []
        for rank in range(1, 21):
            title, _, artist = rng.choice(songs).rpartition(" by ")
            roll = rng.random()
            if roll < 0.1:
                artist = rng.choice(artists)  # usually another artist → conflict
            elif roll < 0.2:
                title = f"Invented Song {rng.randint(0, 10**6)}"
            lines.append(f'{rank}. "{title}" by {artist}')
        answers.append("\n".join(lines))
    out["music"] = _time(answers, songs, "song")
    colleges = load_catalog("college").titles
    answers = []
    for _ in range(n_answers):
        lines = []
        for rank in range(1, 21):
            name = rng.choice(colleges)
            roll = rng.random()
            if roll < 0.1:
                name = f"{name} ({rng.choice(['TU', 'UX', 'NUS', 'Top 10'])})"
            elif roll < 0.2:
                name = f"大学{rng.randint(0, 99)} ({name})"
            elif roll < 0.3:
                name = f"University of Invented Place {rng.randint(0, 10**6)}"
            lines.append(f"{rank}. {name}")
        answers.append("\n".join(lines))
    out["college"] = _time(answers, colleges, "institution")
    return out


if __name__ == "__main__":
    shipped = title_match.FUZZY_CUTOFF
    print(f"{len(CASES)} hand-written answers")
    print("cutoff  fully-correct  false-matches  missed-items  wikidata-matches")
    for cutoff in (70.0, 75.0, 80.0, 85.0, shipped, 90.0, 95.0, 100.0):
        correct, false, missed = score(cutoff)
        wiki = wikidata_false_matches()
        wiki_hits = "n/a" if wiki is None else str(len(wiki[1]))
        mark = "  <- shipped" if cutoff == shipped else ""
        print(f"{cutoff:6.1f}  {correct:13d}  {false:13d}  {missed:12d}  {wiki_hits:>16}{mark}")
    title_match.FUZZY_CUTOFF = shipped
    clear_caches()
    wikidata = wikidata_false_matches()
    if wikidata is not None:
        n_titles, hits = wikidata
        print(f"{n_titles} Wikidata film titles not in the catalog → {len(hits)} matched:")
        for answer, matched in hits:
            print(f"    {answer!r} → {matched!r}")
    for fmt in WIKIDATA_FORMATS:
        formatted = wikidata_false_matches(fmt)
        if formatted is not None:
            print(f"formatted as {fmt!r} → {len(formatted[1])} matched:")
            for answer, matched in formatted[1]:
                print(f"    {answer!r} → {matched!r}")
    print(f"speed: {speed():.0f} answers/s (20 lines each, 500-item catalog, one core)")
    for domain, rate in speed_songs_colleges().items():
        print(f"speed ({domain}): {rate:.0f} answers/s (20 lines each, 500-item catalog)")
