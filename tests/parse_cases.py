"""Golden cases for ``coldbias_tasks.core.parse.parse_ranking``.

Data only: three fixture catalogs and ``CASES``; then user-style catalogs
(``USER_COLLEGES``, ``USER_SONGS``, ``USER_FILMS``) and ``EXTRA_CASES`` for
catalog-derived aliases, institution names across languages, native scripts,
songs with and without artists, structured (JSON / HTML) answers and lead-ins,
also against the built-in catalogs ("movie", "music", "college", parsed
without their aliases column); tests/test_parse_extra.py runs those. The test
maps each string in ``ParseCase.expected`` to its index in the named catalog.

Counting conventions used by every case:

* An *entry* is one recommended item in the answer: a numbered or bulleted
  line, a plain line in a list of titles, or one element of a comma- or
  semicolon-joined list. Prose (intros, headers such as "Top 10 Movies:",
  outros such as "Enjoy!", description lines under an item) is not an entry.
* Anything inside ``<think> ... </think>`` is ignored.
* ``n_out_of_catalog`` counts entries that match no catalog item, including
  titles that are ambiguous in the catalog (e.g. "One" with two artists).
* ``n_duplicates`` counts entries that resolve to an item already kept.
* Only the first ``k`` unique matches are kept. In the ``over_k`` cases every
  entry after the k-th match is a new catalog match, which is neither a
  duplicate nor out-of-catalog. No case puts an unmatched or repeated entry
  after the k-th match, so no case depends on whether the parser keeps
  scanning after it has k items.
* Doubtful spellings are deliberately absent from ``CASES`` rather than given a verdict:
  abbreviations ("MIT", "UCLA"), "Seven" for "Se7en", "8 1/2" for "8½",
  "Godfather 2", "Twelve Angry Men", full subtitles such as
  "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb",
  and truncated titles.
"""

from dataclasses import dataclass

MOVIES: tuple[str, ...] = (
    "The Godfather",
    "The Godfather Part II",
    "M",
    "Up",
    "Her",
    "Heat",
    "It",
    "Alien",
    "Aliens",
    "Seven Samurai",
    "Amélie",
    "Léon: The Professional",
    "Crouching Tiger, Hidden Dragon",
    "Spirited Away",
    "Star Wars",
    "The Empire Strikes Back",
    "Toy Story",
    "Toy Story 3",
    "Se7en",
    "WALL-E",
    "8½",
    "2001: A Space Odyssey",
    "12 Angry Men",
    "Fargo",
    "Jaws",
    "Psycho",
    "Parasite",
    "City of God",
    "Amores Perros",
    "Three Colours: Blue",
    "The Lord of the Rings: The Return of the King",
    "Ocean's Eleven",
    "Schindler's List",
    "It's a Wonderful Life",
    "Dr. Strangelove",
    "E.T. the Extra-Terrestrial",
    "Monsters, Inc.",
    "Mad Max: Fury Road",
    "The Good, the Bad and the Ugly",
    "Ikiru",
    "Rashomon",
    "Oldboy",
    "Pan's Labyrinth",
    "Casablanca",
    "Vertigo",
    "Whiplash",
    "Coco",
    "Inception",
    "Interstellar",
    "The Dark Knight",
    "Pulp Fiction",
    "Goodfellas",
    "Titanic",
    "Amadeus",
    "Gladiator",
    "Memento",
    "Rocky",
    "Network",
    "Jules and Jim",
    "Tokyo Story",
    "The Shawshank Redemption",
    "Taxi Driver",
    "Chinatown",
    "Rear Window",
    "Moonlight",
    "Arrival",
    "Cinema Paradiso",
)

SONGS: tuple[str, ...] = (
    "Bohemian Rhapsody by Queen",
    "Imagine by John Lennon",
    "Hurt by Nine Inch Nails",
    "Hurt by Johnny Cash",
    "Hey Ya! by OutKast",
    "Smells Like Teen Spirit by Nirvana",
    "Billie Jean by Michael Jackson",
    "Beat It by Michael Jackson",
    "One by U2",
    "One by Metallica",
    "Crazy by Gnarls Barkley",
    "Crazy by Patsy Cline",
    "Sympathy for the Devil by The Rolling Stones",
    "Respect by Aretha Franklin",
    "Like a Rolling Stone by Bob Dylan",
    "Stan by Eminem",
    "Lose Yourself by Eminem",
    "Umbrella by Rihanna",
    "Bad Guy by Billie Eilish",
    "Despacito by Luis Fonsi",
    "Gangnam Style by PSY",
    "Dancing Queen by ABBA",
    "Waterloo by ABBA",
    "Déjà Vu by Beyoncé",
    "Halo by Beyoncé",
    "Hallelujah by Leonard Cohen",
    "Hallelujah by Jeff Buckley",
    "Purple Rain by Prince",
    "Hotel California by Eagles",
    "Stairway to Heaven by Led Zeppelin",
    "Wonderwall by Oasis",
    "Rolling in the Deep by Adele",
    "Hey Jude by The Beatles",
    "Yesterday by The Beatles",
    "Let It Be by The Beatles",
    "Superstition by Stevie Wonder",
    "What's Going On by Marvin Gaye",
    "Toxic by Britney Spears",
    "Seven Nation Army by The White Stripes",
    "Shape of You by Ed Sheeran",
    "Blinding Lights by The Weeknd",
    "Born to Run by Bruce Springsteen",
    "Africa by Toto",
    "Take On Me by a-ha",
    "99 Luftballons by Nena",
    "Heroes by David Bowie",
    "La Vie en rose by Édith Piaf",
)

COLLEGES: tuple[str, ...] = (
    "Massachusetts Institute of Technology",
    "California Institute of Technology",
    "Stanford University",
    "Harvard University",
    "Yale University",
    "Columbia University",
    "University of Chicago",
    "University of California, Berkeley",
    "University of California, Los Angeles",
    "University of Oxford",
    "University of Cambridge",
    "Imperial College London",
    "University College London",
    "King's College London",
    "ETH Zurich",
    "Technical University of Munich",
    "Université PSL",
    "University of Toronto",
    "McGill University",
    "Tsinghua University",
    "Peking University",
    "University of Tokyo",
    "Seoul National University",
    "National University of Singapore",
    "Indian Institute of Technology Bombay",
    "Indian Institute of Technology Delhi",
    "Universidad de Buenos Aires",
    "University of Melbourne",
)


@dataclass(frozen=True)
class ParseCase:
    name: str
    catalog: str
    k: int
    answer: str
    expected: tuple[str, ...]
    n_out_of_catalog: int
    n_duplicates: int


CASES: tuple[ParseCase, ...] = (
    # ------------------------------------------------------------------
    # Numbering styles
    # ------------------------------------------------------------------
    ParseCase(
        name="numbered_dot_basic",
        catalog="movies",
        k=5,
        answer="1. The Godfather\n2. Pulp Fiction\n3. Casablanca\n4. Vertigo\n5. Jaws",
        expected=("The Godfather", "Pulp Fiction", "Casablanca", "Vertigo", "Jaws"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_paren_basic",
        catalog="movies",
        k=5,
        answer="1) Heat\n2) Psycho\n3) Fargo\n4) Oldboy\n5) Memento",
        expected=("Heat", "Psycho", "Fargo", "Oldboy", "Memento"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_hash_short_titles",
        catalog="movies",
        k=5,
        answer="#1 Spirited Away\n#2 Coco\n#3 Up\n#4 WALL-E\n#5 Toy Story",
        expected=("Spirited Away", "Coco", "Up", "WALL-E", "Toy Story"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_hash_colon_fewer_than_k",
        catalog="movies",
        k=5,
        answer="#1: Inception\n#2: Interstellar\n#3: Memento",
        expected=("Inception", "Interstellar", "Memento"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_space_dash_single_letter",
        catalog="movies",
        k=5,
        answer="1 - Rashomon\n2 - Ikiru\n3 - Seven Samurai\n4 - Tokyo Story\n5 - M",
        expected=("Rashomon", "Ikiru", "Seven Samurai", "Tokyo Story", "M"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_parenthesized",
        catalog="movies",
        k=5,
        answer="(1) Whiplash\n(2) Amadeus\n(3) Network\n(4) Rocky\n(5) Gladiator",
        expected=("Whiplash", "Amadeus", "Network", "Rocky", "Gladiator"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_markdown_headings",
        catalog="movies",
        k=5,
        answer=(
            "## My picks\n\n"
            "### 1. Jaws (1975)\n"
            "The shark thriller that invented the summer blockbuster.\n\n"
            "### 2. Alien (1979)\n"
            "In space, no one can hear you scream.\n\n"
            "### 3. The Thing (1982)\n"
            "Paranoia and practical effects in Antarctica."
        ),
        expected=("Jaws", "Alien"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Bullet styles
    # ------------------------------------------------------------------
    ParseCase(
        name="bullets_dash_short_titles",
        catalog="movies",
        k=5,
        answer="- Alien\n- Aliens\n- Her\n- It\n- Titanic",
        expected=("Alien", "Aliens", "Her", "It", "Titanic"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="bullets_star_fewer_than_k",
        catalog="movies",
        k=5,
        answer="* Goodfellas\n* The Dark Knight\n* Casablanca\n* Amélie",
        expected=("Goodfellas", "The Dark Knight", "Casablanca", "Amélie"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="bullets_unicode_dot",
        catalog="movies",
        k=5,
        answer="• Parasite\n• Oldboy\n• City of God\n• Amores Perros\n• Pan's Labyrinth",
        expected=("Parasite", "Oldboy", "City of God", "Amores Perros", "Pan's Labyrinth"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="bullets_unicode_years_with_hallucination",
        catalog="movies",
        k=10,
        answer=(
            "• Moonlight (2016)\n• Arrival (2016)\n• La La Land (2016)\n"
            "• Whiplash (2014)\n• Her (2013)"
        ),
        expected=("Moonlight", "Arrival", "Whiplash", "Her"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Markdown emphasis
    # ------------------------------------------------------------------
    ParseCase(
        name="markdown_bold_numbered_years",
        catalog="movies",
        k=5,
        answer=(
            "1. **The Godfather** (1972)\n2. **The Godfather Part II** (1974)\n"
            "3. **Goodfellas** (1990)\n4. **Heat** (1995)"
        ),
        expected=("The Godfather", "The Godfather Part II", "Goodfellas", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="markdown_bold_whole_item",
        catalog="movies",
        k=3,
        answer="**1. Jaws**\n**2. Psycho**\n**3. Vertigo**",
        expected=("Jaws", "Psycho", "Vertigo"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="markdown_italics_star_and_underscore",
        catalog="movies",
        k=5,
        answer=(
            "1. *Seven Samurai* (1954)\n2. *Rashomon* (1950)\n3. *Ikiru* (1952)\n"
            "4. _Tokyo Story_ (1953)"
        ),
        expected=("Seven Samurai", "Rashomon", "Ikiru", "Tokyo Story"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="markdown_bold_with_description_lines",
        catalog="movies",
        k=5,
        answer=(
            "Here are five films you might enjoy:\n\n"
            "1. **Whiplash** (2014)\n"
            "   An intense drama about a young drummer and his abusive instructor.\n\n"
            "2. **Amadeus** (1984)\n"
            "   Mozart's life seen through the eyes of his jealous rival.\n\n"
            "3. **Network** (1976)\n"
            "   A razor-sharp satire of television news.\n\n"
            "4. **Rocky** (1976)\n"
            "   The ultimate underdog story.\n\n"
            "5. **Casablanca** (1942)\n"
            "   Romance and sacrifice in wartime Morocco.\n\n"
            "Enjoy!"
        ),
        expected=("Whiplash", "Amadeus", "Network", "Rocky", "Casablanca"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="markdown_bold_title_italic_year",
        catalog="movies",
        k=5,
        answer="1. **Inception** *(2010)*\n2. **Memento** *(2000)*\n3. **Interstellar** *(2014)*",
        expected=("Inception", "Memento", "Interstellar"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Quotes and backticks
    # ------------------------------------------------------------------
    ParseCase(
        name="quotes_double_straight",
        catalog="movies",
        k=5,
        answer='1. "Jaws"\n2. "Psycho"\n3. "Heat"',
        expected=("Jaws", "Psycho", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="quotes_single_with_inner_apostrophe",
        catalog="movies",
        k=3,
        answer="1. 'Fargo'\n2. 'Schindler's List'\n3. 'Titanic'",
        expected=("Fargo", "Schindler's List", "Titanic"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="quotes_curly_double",
        catalog="movies",
        k=5,
        answer=(
            "1. \u201cVertigo\u201d (1958)\n2. \u201cCasablanca\u201d (1942)\n"
            "3. \u201cIt\u2019s a Wonderful Life\u201d (1946)"
        ),
        expected=("Vertigo", "Casablanca", "It's a Wonderful Life"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="quotes_guillemets",
        catalog="movies",
        k=5,
        answer=(
            "Mes recommandations :\n"
            "1. «Amélie»\n2. « Léon: The Professional »\n3. «Jules and Jim»\n"
            "4. « Cinema Paradiso »"
        ),
        expected=("Amélie", "Léon: The Professional", "Jules and Jim", "Cinema Paradiso"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="backticks_bullets",
        catalog="movies",
        k=5,
        answer="- `Inception`\n- `Memento`\n- `The Dark Knight`",
        expected=("Inception", "Memento", "The Dark Knight"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Case, accents, apostrophes, articles, punctuation
    # ------------------------------------------------------------------
    ParseCase(
        name="case_accent_missing_accents",
        catalog="movies",
        k=5,
        answer="1. amelie\n2. Leon: The Professional\n3. Pan\u2019s Labyrinth\n4. PULP FICTION",
        expected=("Amélie", "Léon: The Professional", "Pan's Labyrinth", "Pulp Fiction"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="case_accent_all_caps",
        catalog="movies",
        k=3,
        answer="1. LEON: THE PROFESSIONAL\n2. THE DARK KNIGHT\n3. HEAT",
        expected=("Léon: The Professional", "The Dark Knight", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="case_accent_all_lowercase",
        catalog="movies",
        k=5,
        answer="1. the godfather\n2. se7en\n3. wall-e\n4. monsters, inc.\n5. 12 angry men",
        expected=("The Godfather", "Se7en", "WALL-E", "Monsters, Inc.", "12 Angry Men"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="case_accent_curly_apostrophes",
        catalog="movies",
        k=5,
        answer=(
            "1. Schindler\u2019s List\n2. It\u2019s a Wonderful Life\n"
            "3. Ocean\u2019s Eleven\n4. Pan\u2019s Labyrinth"
        ),
        expected=("Schindler's List", "It's a Wonderful Life", "Ocean's Eleven", "Pan's Labyrinth"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="article_missing_leading_the",
        catalog="movies",
        k=5,
        answer=(
            "1. Godfather\n2. Empire Strikes Back\n3. Dark Knight\n"
            "4. Shawshank Redemption\n5. Good, the Bad and the Ugly"
        ),
        expected=(
            "The Godfather",
            "The Empire Strikes Back",
            "The Dark Knight",
            "The Shawshank Redemption",
            "The Good, the Bad and the Ugly",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="article_extra_leading_the",
        catalog="movies",
        k=3,
        answer="1. The Seven Samurai\n2. Rashomon\n3. Ikiru",
        expected=("Seven Samurai", "Rashomon", "Ikiru"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="punct_dropped_periods_and_commas",
        catalog="movies",
        k=5,
        answer=(
            "1. Dr Strangelove\n2. Monsters Inc\n3. ET the Extra Terrestrial\n"
            "4. WALL\u00b7E\n5. Oceans Eleven"
        ),
        expected=(
            "Dr. Strangelove",
            "Monsters, Inc.",
            "E.T. the Extra-Terrestrial",
            "WALL-E",
            "Ocean's Eleven",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="punct_dropped_colons_and_apostrophes",
        catalog="movies",
        k=5,
        answer=(
            "- 2001 A Space Odyssey\n- Leon The Professional\n- Crouching Tiger Hidden Dragon\n"
            "- Its a Wonderful Life\n- Three Colors: Blue"
        ),
        expected=(
            "2001: A Space Odyssey",
            "Léon: The Professional",
            "Crouching Tiger, Hidden Dragon",
            "It's a Wonderful Life",
            "Three Colours: Blue",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="punct_exact_symbols_numbered",
        catalog="movies",
        k=5,
        answer=(
            "1. Se7en (1995)\n2. 8½ (1963)\n3. 2001: A Space Odyssey (1968)\n"
            "4. 12 Angry Men (1957)\n5. M (1931)"
        ),
        expected=("Se7en", "8½", "2001: A Space Odyssey", "12 Angry Men", "M"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="punct_number_leading_titles_bullets",
        catalog="movies",
        k=5,
        answer="- 12 Angry Men\n- 2001: A Space Odyssey\n- 8½",
        expected=("12 Angry Men", "2001: A Space Odyssey", "8½"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Trailing years and commentary
    # ------------------------------------------------------------------
    ParseCase(
        name="year_parenthesized_with_hallucination",
        catalog="movies",
        k=5,
        answer=(
            "1. Pulp Fiction (1994)\n2. The Shawshank Redemption (1994)\n"
            "3. Forrest Gump (1994)\n4. Heat (1995)\n5. Se7en (1995)"
        ),
        expected=("Pulp Fiction", "The Shawshank Redemption", "Heat", "Se7en"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="year_square_brackets",
        catalog="movies",
        k=3,
        answer="1. The Godfather [1972]\n2. Chinatown [1974]\n3. Network [1976]",
        expected=("The Godfather", "Chinatown", "Network"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="year_after_dash",
        catalog="movies",
        k=5,
        answer="1. The Godfather - 1972\n2. Jaws - 1975\n3. Rocky - 1976\n4. Alien - 1979",
        expected=("The Godfather", "Jaws", "Rocky", "Alien"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="commentary_em_dash",
        catalog="movies",
        k=5,
        answer=(
            "1. Casablanca \u2014 a timeless classic\n"
            "2. Vertigo \u2014 Hitchcock at his most obsessive\n"
            "3. Psycho \u2014 still terrifying after all these years\n"
            "4. Rear Window \u2014 suspense from a single courtyard"
        ),
        expected=("Casablanca", "Vertigo", "Psycho", "Rear Window"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="commentary_directed_by",
        catalog="movies",
        k=5,
        answer=(
            "1. The Godfather (directed by Coppola)\n2. Taxi Driver (directed by Scorsese)\n"
            "3. Jaws (directed by Spielberg)\n4. Oldboy (directed by Park Chan-wook)"
        ),
        expected=("The Godfather", "Taxi Driver", "Jaws", "Oldboy"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="commentary_after_colon",
        catalog="movies",
        k=5,
        answer=(
            "1. Heat: because you like slow-burn crime stories\n"
            "2. Fargo: because you enjoyed dark comedy\n"
            "3. Memento: because you like puzzle-box plots\n"
            "4. Mad Max: Fury Road: because you want non-stop action"
        ),
        expected=("Heat", "Fargo", "Memento", "Mad Max: Fury Road"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="commentary_mixed_separators",
        catalog="movies",
        k=5,
        answer=(
            "1. Spirited Away (2001) - Miyazaki's masterpiece\n"
            "2. Pan's Labyrinth (2006) \u2013 a dark fairy tale for adults\n"
            "3. Amélie (2001): whimsical and warm\n"
            "4. City of God (2002), a brutal coming-of-age story"
        ),
        expected=("Spirited Away", "Pan's Labyrinth", "Amélie", "City of God"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="commentary_original_title_in_parens",
        catalog="movies",
        k=5,
        answer=(
            "1. Spirited Away (Sen to Chihiro no Kamikakushi, 2001)\n"
            "2. Seven Samurai (Shichinin no Samurai, 1954)\n"
            "3. City of God (Cidade de Deus, 2002)\n"
            "4. Tokyo Story (T\u014dky\u014d Monogatari, 1953)"
        ),
        expected=("Spirited Away", "Seven Samurai", "City of God", "Tokyo Story"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Comma- and semicolon-joined answers; titles containing commas
    # ------------------------------------------------------------------
    ParseCase(
        name="comma_joined_basic",
        catalog="movies",
        k=5,
        answer="Jaws, Psycho, Heat",
        expected=("Jaws", "Psycho", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="comma_joined_after_header_trailing_period",
        catalog="movies",
        k=5,
        answer="Top picks:\nJaws, Psycho, Heat, Alien.",
        expected=("Jaws", "Psycho", "Heat", "Alien"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="comma_joined_oxford_and",
        catalog="movies",
        k=5,
        answer="Jaws, Psycho, and Vertigo",
        expected=("Jaws", "Psycho", "Vertigo"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="comma_joined_with_hallucinations",
        catalog="movies",
        k=5,
        answer="Jaws, Frozen, Heat, Up in the Air, Her",
        expected=("Jaws", "Heat", "Her"),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="semicolon_joined_basic",
        catalog="movies",
        k=5,
        answer="Fargo; Oldboy; Memento; Whiplash",
        expected=("Fargo", "Oldboy", "Memento", "Whiplash"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="semicolon_joined_titles_with_commas",
        catalog="movies",
        k=5,
        answer=(
            "Crouching Tiger, Hidden Dragon; Spirited Away; Monsters, Inc.; "
            "The Good, the Bad and the Ugly"
        ),
        expected=(
            "Crouching Tiger, Hidden Dragon",
            "Spirited Away",
            "Monsters, Inc.",
            "The Good, the Bad and the Ugly",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="comma_titles_numbered_lines",
        catalog="movies",
        k=5,
        answer=(
            "1. Crouching Tiger, Hidden Dragon\n2. Monsters, Inc.\n"
            "3. The Good, the Bad and the Ugly\n4. Mad Max: Fury Road"
        ),
        expected=(
            "Crouching Tiger, Hidden Dragon",
            "Monsters, Inc.",
            "The Good, the Bad and the Ugly",
            "Mad Max: Fury Road",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="comma_titles_bullets_with_years",
        catalog="movies",
        k=5,
        answer=(
            "- Crouching Tiger, Hidden Dragon (2000)\n- Monsters, Inc. (2001)\n"
            "- The Good, the Bad and the Ugly (1966)"
        ),
        expected=(
            "Crouching Tiger, Hidden Dragon",
            "Monsters, Inc.",
            "The Good, the Bad and the Ugly",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Reasoning blocks
    # ------------------------------------------------------------------
    ParseCase(
        name="think_block_basic",
        catalog="movies",
        k=3,
        answer=(
            "<think>\nThe user liked Jaws and Psycho, so maybe Alien or Vertigo. "
            "Psycho is probably too obvious.\n</think>\n"
            "1. Heat\n2. Fargo\n3. Oldboy"
        ),
        expected=("Heat", "Fargo", "Oldboy"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="think_block_overlapping_titles_not_duplicates",
        catalog="movies",
        k=5,
        answer=(
            "<think>Options: Jaws, Heat, Alien, Frozen. Frozen is animated, skip it.</think>\n\n"
            "1. Jaws\n2. Heat\n3. Alien"
        ),
        expected=("Jaws", "Heat", "Alien"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="think_block_contains_draft_list",
        catalog="movies",
        k=5,
        answer=(
            "<think>\nDraft:\n1. Titanic\n2. Gladiator\n3. Frozen\n"
            "Hmm, Frozen doesn't fit an adult drama request. Let me revise.\n</think>\n\n"
            "1. Gladiator\n2. Casablanca\n3. Titanic"
        ),
        expected=("Gladiator", "Casablanca", "Titanic"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="think_block_only_then_question",
        catalog="movies",
        k=5,
        answer=(
            "<think>\nThey want thrillers. Jaws, Heat and Psycho come to mind, but I should "
            "ask what they have already seen.\n</think>\n"
            "Could you tell me which thrillers you have already seen?"
        ),
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Prose around the list, headers, blank lines, truncation
    # ------------------------------------------------------------------
    ParseCase(
        name="prose_intro_and_outro",
        catalog="movies",
        k=5,
        answer=(
            "Sure! Here are my top 5 picks for you:\n\n"
            "1. Inception\n2. Interstellar\n3. The Dark Knight\n4. Memento\n5. Whiplash\n\n"
            "Enjoy! Let me know if you want more."
        ),
        expected=("Inception", "Interstellar", "The Dark Knight", "Memento", "Whiplash"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_header_top10_exactly_k",
        catalog="movies",
        k=10,
        answer=(
            "Top 10 Movies:\n"
            "1. The Shawshank Redemption\n2. The Godfather\n3. The Dark Knight\n"
            "4. 12 Angry Men\n5. Schindler's List\n"
            "6. The Lord of the Rings: The Return of the King\n7. Pulp Fiction\n"
            "8. The Good, the Bad and the Ugly\n9. Goodfellas\n10. Seven Samurai"
        ),
        expected=(
            "The Shawshank Redemption",
            "The Godfather",
            "The Dark Knight",
            "12 Angry Men",
            "Schindler's List",
            "The Lord of the Rings: The Return of the King",
            "Pulp Fiction",
            "The Good, the Bad and the Ugly",
            "Goodfellas",
            "Seven Samurai",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_intro_mentions_seed_titles",
        catalog="movies",
        k=5,
        answer=(
            "Since you enjoyed Inception and The Dark Knight, "
            "here are some films you might like:\n\n"
            "1. Memento\n2. Interstellar\n3. Heat\n\n"
            "Let me know if you want more."
        ),
        expected=("Memento", "Interstellar", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_blank_lines_everywhere",
        catalog="movies",
        k=5,
        answer="\n\n1. Jaws\n\n\n2. Alien\n\n3. Aliens\n\n",
        expected=("Jaws", "Alien", "Aliens"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_plain_unmarked_lines",
        catalog="movies",
        k=5,
        answer="Here you go:\nJaws\nHeat\nFargo\nEnjoy!",
        expected=("Jaws", "Heat", "Fargo"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_truncated_mid_commentary",
        catalog="movies",
        k=10,
        answer=(
            "Top Hitchcock-style thrillers:\n\n"
            "1. Vertigo (1958) \u2014 obsession and doubles\n"
            "2. Psycho (1960) \u2014 the shower scene changed cinema\n"
            "3. Rear Window (1954) \u2014 voyeurism from a wheelchair\n"
            "4. Chinatown (1974) \u2014 a noir where nothing is what it se"
        ),
        expected=("Vertigo", "Psycho", "Rear Window", "Chinatown"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="prose_truncated_mid_outro",
        catalog="movies",
        k=5,
        answer=(
            "1. Coco\n2. Up\n3. Toy Story\n4. Monsters, Inc.\n\n"
            "All four are Pixar films, so if you enjoy one you will probabl"
        ),
        expected=("Coco", "Up", "Toy Story", "Monsters, Inc."),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Repetition loops and duplicates
    # ------------------------------------------------------------------
    ParseCase(
        name="repeat_same_title_10x",
        catalog="movies",
        k=5,
        answer=(
            "1. Jaws\n2. Jaws\n3. Jaws\n4. Jaws\n5. Jaws\n"
            "6. Jaws\n7. Jaws\n8. Jaws\n9. Jaws\n10. Jaws"
        ),
        expected=("Jaws",),
        n_out_of_catalog=0,
        n_duplicates=9,
    ),
    ParseCase(
        name="repeat_list_restarts",
        catalog="movies",
        k=10,
        answer=("1. Heat\n2. Fargo\n3. Oldboy\n1. Heat\n2. Fargo\n3. Oldboy\n1. Heat\n2. Fargo"),
        expected=("Heat", "Fargo", "Oldboy"),
        n_out_of_catalog=0,
        n_duplicates=5,
    ),
    ParseCase(
        name="repeat_via_spelling_variants",
        catalog="movies",
        k=5,
        answer="1. The Godfather\n2. Amelie\n3. Godfather (1972)\n4. Amélie\n5. Heat",
        expected=("The Godfather", "Amélie", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=2,
    ),
    ParseCase(
        name="repeat_comma_loop",
        catalog="movies",
        k=5,
        answer="Jaws, Heat, Jaws, Heat, Jaws, Heat, Jaws, Heat",
        expected=("Jaws", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=6,
    ),
    ParseCase(
        name="repeat_near_duplicates_are_distinct",
        catalog="movies",
        k=10,
        answer="1. Alien\n2. Aliens\n3. Alien\n4. Toy Story\n5. Toy Story 3\n6. Toy Story",
        expected=("Alien", "Aliens", "Toy Story", "Toy Story 3"),
        n_out_of_catalog=0,
        n_duplicates=2,
    ),
    # ------------------------------------------------------------------
    # More entries than k
    # ------------------------------------------------------------------
    ParseCase(
        name="over_k_numbered",
        catalog="movies",
        k=3,
        answer="1. Jaws\n2. Heat\n3. Psycho\n4. Alien\n5. Fargo",
        expected=("Jaws", "Heat", "Psycho"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="over_k_hallucination_before_kth_match",
        catalog="movies",
        k=3,
        answer="1. Frozen\n2. Jaws\n3. Heat\n4. Psycho\n5. Alien",
        expected=("Jaws", "Heat", "Psycho"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="over_k_duplicate_before_kth_match",
        catalog="movies",
        k=3,
        answer="1. Jaws\n2. Jaws\n3. Heat\n4. Psycho\n5. Alien",
        expected=("Jaws", "Heat", "Psycho"),
        n_out_of_catalog=0,
        n_duplicates=1,
    ),
    ParseCase(
        name="over_k_k1",
        catalog="movies",
        k=1,
        answer="1. The Godfather\n2. Casablanca\n3. Vertigo",
        expected=("The Godfather",),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="over_k_comma_joined",
        catalog="movies",
        k=2,
        answer="Jaws, Heat, Psycho, Alien",
        expected=("Jaws", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="over_k_k20",
        catalog="movies",
        k=20,
        answer=(
            "1. The Godfather\n2. Casablanca\n3. Vertigo\n4. Psycho\n5. Jaws\n"
            "6. Rocky\n7. Network\n8. Chinatown\n9. Taxi Driver\n10. Amadeus\n"
            "11. Goodfellas\n12. Titanic\n13. Gladiator\n14. Memento\n15. Inception\n"
            "16. Interstellar\n17. Whiplash\n18. Parasite\n19. Oldboy\n20. Moonlight\n"
            "21. Arrival\n22. Coco\n23. Fargo\n24. Heat"
        ),
        expected=(
            "The Godfather",
            "Casablanca",
            "Vertigo",
            "Psycho",
            "Jaws",
            "Rocky",
            "Network",
            "Chinatown",
            "Taxi Driver",
            "Amadeus",
            "Goodfellas",
            "Titanic",
            "Gladiator",
            "Memento",
            "Inception",
            "Interstellar",
            "Whiplash",
            "Parasite",
            "Oldboy",
            "Moonlight",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # k = 1 and k = 20
    # ------------------------------------------------------------------
    ParseCase(
        name="k1_bare_title",
        catalog="movies",
        k=1,
        answer="Casablanca",
        expected=("Casablanca",),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="k1_with_prose_and_commentary",
        catalog="movies",
        k=1,
        answer=(
            "My top recommendation is:\n\n**Parasite** (2019) \u2014 a razor-sharp satire of class."
        ),
        expected=("Parasite",),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="k1_hallucinated_only",
        catalog="movies",
        k=1,
        answer="1. The Godfather Part III",
        expected=(),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="k20_exactly_k_with_years",
        catalog="movies",
        k=20,
        answer=(
            "1. Seven Samurai (1954)\n2. Rashomon (1950)\n3. Ikiru (1952)\n"
            "4. Tokyo Story (1953)\n5. Spirited Away (2001)\n6. Oldboy (2003)\n"
            "7. Parasite (2019)\n8. City of God (2002)\n9. Amores Perros (2000)\n"
            "10. Pan's Labyrinth (2006)\n11. Amélie (2001)\n12. Jules and Jim (1962)\n"
            "13. 8½ (1963)\n14. M (1931)\n15. Cinema Paradiso (1988)\n"
            "16. Three Colours: Blue (1993)\n17. Léon: The Professional (1994)\n"
            "18. Crouching Tiger, Hidden Dragon (2000)\n19. The Good, the Bad and the Ugly (1966)\n"
            "20. Casablanca (1942)"
        ),
        expected=(
            "Seven Samurai",
            "Rashomon",
            "Ikiru",
            "Tokyo Story",
            "Spirited Away",
            "Oldboy",
            "Parasite",
            "City of God",
            "Amores Perros",
            "Pan's Labyrinth",
            "Amélie",
            "Jules and Jim",
            "8½",
            "M",
            "Cinema Paradiso",
            "Three Colours: Blue",
            "Léon: The Professional",
            "Crouching Tiger, Hidden Dragon",
            "The Good, the Bad and the Ugly",
            "Casablanca",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="k20_fewer_than_k_bullets",
        catalog="movies",
        k=20,
        answer=(
            "Here's a family movie night list:\n\n"
            "- Toy Story\n- Toy Story 3\n- Up\n- Coco\n- WALL-E\n- Monsters, Inc.\n"
            "- Spirited Away\n- E.T. the Extra-Terrestrial\n- Star Wars\n"
            "- The Empire Strikes Back\n- Frozen\n- Finding Nemo\n\n"
            "Have fun!"
        ),
        expected=(
            "Toy Story",
            "Toy Story 3",
            "Up",
            "Coco",
            "WALL-E",
            "Monsters, Inc.",
            "Spirited Away",
            "E.T. the Extra-Terrestrial",
            "Star Wars",
            "The Empire Strikes Back",
        ),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Hallucinations and near-miss titles
    # ------------------------------------------------------------------
    ParseCase(
        name="halluc_short_title_traps",
        catalog="movies",
        k=5,
        answer="1. Frozen\n2. Up in the Air\n3. Heat Wave\n4. Hereditary\n5. It Follows",
        expected=(),
        n_out_of_catalog=5,
        n_duplicates=0,
    ),
    ParseCase(
        name="halluc_sequels_and_spinoffs",
        catalog="movies",
        k=10,
        answer=(
            "1. The Godfather Part III\n2. Toy Story 2\n3. Alien 3\n"
            "4. Star Wars: The Force Awakens\n5. The Dark Knight Rises\n"
            "6. Ocean's Twelve\n7. Three Colours: Red\n8. Gladiator II"
        ),
        expected=(),
        n_out_of_catalog=8,
        n_duplicates=0,
    ),
    ParseCase(
        name="halluc_interleaved_with_real_titles",
        catalog="movies",
        k=10,
        answer=(
            "1. The Godfather\n2. The Godfather Part III\n3. Toy Story\n4. Toy Story 2\n"
            "5. Toy Story 3\n6. Star Wars\n7. Star Wars: The Force Awakens\n8. Up\n"
            "9. Up in the Air"
        ),
        expected=("The Godfather", "Toy Story", "Toy Story 3", "Star Wars", "Up"),
        n_out_of_catalog=4,
        n_duplicates=0,
    ),
    ParseCase(
        name="halluc_prefix_and_suffix_traps",
        catalog="movies",
        k=10,
        answer=(
            "- The Social Network\n- Coco Before Chanel\n- Rocky II\n- Psycho II\n"
            "- Jaws 2\n- It Chapter Two\n- Mad Max 2"
        ),
        expected=(),
        n_out_of_catalog=7,
        n_duplicates=0,
    ),
    ParseCase(
        name="halluc_plausible_classics",
        catalog="movies",
        k=5,
        answer="1. Citizen Kane\n2. The Matrix\n3. Casablanca\n4. Blade Runner",
        expected=("Casablanca",),
        n_out_of_catalog=3,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_godfather_part_ii_colon",
        catalog="movies",
        k=5,
        answer="1. The Godfather: Part II\n2. The Godfather",
        expected=("The Godfather Part II", "The Godfather"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_alien_aliens_covenant",
        catalog="movies",
        k=5,
        answer="1. Aliens (1986)\n2. Alien (1979)\n3. Alien: Covenant (2017)",
        expected=("Aliens", "Alien"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_toy_story_numbers",
        catalog="movies",
        k=5,
        answer="1. Toy Story 3\n2. Toy Story\n3. Toy Story 4",
        expected=("Toy Story 3", "Toy Story"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_it_vs_its_a_wonderful_life",
        catalog="movies",
        k=5,
        answer="1. It's a Wonderful Life\n2. It\n3. It Chapter Two",
        expected=("It's a Wonderful Life", "It"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_three_colours_trilogy",
        catalog="movies",
        k=5,
        answer="1. Three Colours: Blue\n2. Three Colours: White\n3. Three Colours: Red",
        expected=("Three Colours: Blue",),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_oceans_trilogy",
        catalog="movies",
        k=5,
        answer="1. Ocean's Eleven\n2. Ocean's Twelve\n3. Ocean's Thirteen",
        expected=("Ocean's Eleven",),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="near_dup_lord_of_the_rings_trilogy",
        catalog="movies",
        k=5,
        answer=(
            "1. The Lord of the Rings: The Fellowship of the Ring\n"
            "2. The Lord of the Rings: The Two Towers\n"
            "3. The Lord of the Rings: The Return of the King"
        ),
        expected=("The Lord of the Rings: The Return of the King",),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Small typos on long, unambiguous titles
    # ------------------------------------------------------------------
    ParseCase(
        name="typo_long_titles",
        catalog="movies",
        k=5,
        answer=(
            "1. Schindlers List\n2. Interstelar\n3. Pulp Ficton\n"
            "4. The Lord of the Rings: Return of the King\n5. Crouching Tiger Hidden Dragon"
        ),
        expected=(
            "Schindler's List",
            "Interstellar",
            "Pulp Fiction",
            "The Lord of the Rings: The Return of the King",
            "Crouching Tiger, Hidden Dragon",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="typo_more_long_titles",
        catalog="movies",
        k=5,
        answer=(
            "- The Shawshank Redemtion\n- Casablanka\n- Goodfelas\n"
            "- It's a Wonderfull Life\n- Cinema Paradisio"
        ),
        expected=(
            "The Shawshank Redemption",
            "Casablanca",
            "Goodfellas",
            "It's a Wonderful Life",
            "Cinema Paradiso",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Empty, whitespace, refusal, prose only
    # ------------------------------------------------------------------
    ParseCase(
        name="empty_answer",
        catalog="movies",
        k=5,
        answer="",
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="empty_whitespace_only",
        catalog="movies",
        k=5,
        answer="   \n\n\t  \n",
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="empty_refusal",
        catalog="movies",
        k=5,
        answer="I'm sorry, but I can't help with that.",
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="empty_prose_only_clarifying_question",
        catalog="movies",
        k=10,
        answer=(
            "I'd love to help! Could you tell me a bit more about what you're in the mood "
            "for? For example, do you prefer something light and funny, or a slow, "
            "thoughtful drama? Once I know that, I can put together a list for you."
        ),
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="empty_refusal_songs",
        catalog="songs",
        k=5,
        answer=(
            "As an AI, I don't have personal music preferences, so I can't rank songs "
            "for you. You might try a streaming service's curated playlists instead."
        ),
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="empty_prose_only_colleges",
        catalog="colleges",
        k=5,
        answer=(
            "Choosing a university depends on your field, budget and location. "
            "I'd recommend looking at program-specific rankings and visiting campuses "
            "before deciding."
        ),
        expected=(),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Songs
    # ------------------------------------------------------------------
    ParseCase(
        name="songs_title_by_artist",
        catalog="songs",
        k=5,
        answer=(
            "1. Bohemian Rhapsody by Queen\n2. Imagine by John Lennon\n"
            "3. Hey Ya! by OutKast\n4. Billie Jean by Michael Jackson\n"
            "5. Respect by Aretha Franklin"
        ),
        expected=(
            "Bohemian Rhapsody by Queen",
            "Imagine by John Lennon",
            "Hey Ya! by OutKast",
            "Billie Jean by Michael Jackson",
            "Respect by Aretha Franklin",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_title_dash_artist",
        catalog="songs",
        k=5,
        answer=(
            "1. Smells Like Teen Spirit - Nirvana\n2. Like a Rolling Stone - Bob Dylan\n"
            "3. Stan - Eminem\n4. Umbrella \u2013 Rihanna"
        ),
        expected=(
            "Smells Like Teen Spirit by Nirvana",
            "Like a Rolling Stone by Bob Dylan",
            "Stan by Eminem",
            "Umbrella by Rihanna",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_artist_dash_title",
        catalog="songs",
        k=5,
        answer=(
            "1. Queen - Bohemian Rhapsody\n2. The Rolling Stones - Sympathy for the Devil\n"
            "3. a-ha - Take On Me\n4. Toto - Africa\n5. Nena - 99 Luftballons"
        ),
        expected=(
            "Bohemian Rhapsody by Queen",
            "Sympathy for the Devil by The Rolling Stones",
            "Take On Me by a-ha",
            "Africa by Toto",
            "99 Luftballons by Nena",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_quoted_title_by_artist",
        catalog="songs",
        k=5,
        answer=(
            '1. "Hey Ya!" by OutKast\n2. "Crazy" by Gnarls Barkley\n3. "One" by U2\n'
            '4. "One" by Metallica\n5. "Hurt" by Johnny Cash'
        ),
        expected=(
            "Hey Ya! by OutKast",
            "Crazy by Gnarls Barkley",
            "One by U2",
            "One by Metallica",
            "Hurt by Johnny Cash",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_title_only_unambiguous",
        catalog="songs",
        k=5,
        answer=(
            "- Bohemian Rhapsody\n- Billie Jean\n- Gangnam Style\n- Despacito\n- Dancing Queen"
        ),
        expected=(
            "Bohemian Rhapsody by Queen",
            "Billie Jean by Michael Jackson",
            "Gangnam Style by PSY",
            "Despacito by Luis Fonsi",
            "Dancing Queen by ABBA",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_title_only_ambiguous",
        catalog="songs",
        k=5,
        answer="1. One\n2. Hurt\n3. Hallelujah\n4. Imagine\n5. Crazy",
        expected=("Imagine by John Lennon",),
        n_out_of_catalog=4,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_artist_in_parentheses_disambiguates",
        catalog="songs",
        k=5,
        answer=(
            "1. Hurt (Johnny Cash)\n2. Hallelujah (Jeff Buckley)\n3. One (U2)\n"
            "4. Crazy (Patsy Cline)"
        ),
        expected=(
            "Hurt by Johnny Cash",
            "Hallelujah by Jeff Buckley",
            "One by U2",
            "Crazy by Patsy Cline",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_same_title_different_artists_not_duplicates",
        catalog="songs",
        k=5,
        answer=(
            "1. One by Metallica\n2. One by U2\n3. Hurt by Nine Inch Nails\n4. Hurt by Johnny Cash"
        ),
        expected=(
            "One by Metallica",
            "One by U2",
            "Hurt by Nine Inch Nails",
            "Hurt by Johnny Cash",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_feat_credits_after_artist",
        catalog="songs",
        k=5,
        answer=(
            "1. Despacito by Luis Fonsi feat. Daddy Yankee\n"
            "2. Umbrella by Rihanna ft. Jay-Z\n"
            "3. Stan by Eminem featuring Dido\n"
            "4. Lose Yourself by Eminem"
        ),
        expected=(
            "Despacito by Luis Fonsi",
            "Umbrella by Rihanna",
            "Stan by Eminem",
            "Lose Yourself by Eminem",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_feat_credits_artist_first",
        catalog="songs",
        k=3,
        answer=(
            "1. Luis Fonsi ft. Daddy Yankee - Despacito\n"
            "2. Rihanna feat. JAY-Z - Umbrella\n"
            "3. Eminem (feat. Dido) - Stan"
        ),
        expected=("Despacito by Luis Fonsi", "Umbrella by Rihanna", "Stan by Eminem"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_hallucinated_all",
        catalog="songs",
        k=5,
        answer=(
            "1. Crazy in Love by Beyoncé\n2. One More Time by Daft Punk\n"
            "3. Believer by Imagine Dragons\n4. Hero by Mariah Carey\n"
            "5. Midnight Lanterns by The Velvet Coast"
        ),
        expected=(),
        n_out_of_catalog=5,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_hallucinated_mixed_same_artist",
        catalog="songs",
        k=10,
        answer=(
            "1. Halo by Beyoncé\n2. Crazy in Love by Beyoncé\n3. Déjà Vu by Beyoncé\n"
            "4. Single Ladies by Beyoncé\n5. Thriller by Michael Jackson\n"
            "6. Beat It by Michael Jackson"
        ),
        expected=(
            "Halo by Beyoncé",
            "Déjà Vu by Beyoncé",
            "Beat It by Michael Jackson",
        ),
        n_out_of_catalog=3,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_invented_titles_by_real_artists",
        catalog="songs",
        k=5,
        answer=(
            "1. Neon Heartbeat by The Weeknd\n2. Purple Rain by Prince\n"
            "3. Paper Skies by Adele\n4. Wonderwall by Oasis"
        ),
        expected=("Purple Rain by Prince", "Wonderwall by Oasis"),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_case_and_accents",
        catalog="songs",
        k=5,
        answer=(
            "1. Deja Vu by Beyonce\n2. La Vie en Rose by Edith Piaf\n3. hey ya by outkast\n"
            "4. BAD GUY by BILLIE EILISH"
        ),
        expected=(
            "Déjà Vu by Beyoncé",
            "La Vie en rose by Édith Piaf",
            "Hey Ya! by OutKast",
            "Bad Guy by Billie Eilish",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_typos",
        catalog="songs",
        k=5,
        answer=(
            "1. Smells Like Teen Spirt by Nirvana\n2. Bohemian Rapsody by Queen\n"
            "3. Stairway to Heven by Led Zeppelin\n4. Despasito by Luis Fonsi"
        ),
        expected=(
            "Smells Like Teen Spirit by Nirvana",
            "Bohemian Rhapsody by Queen",
            "Stairway to Heaven by Led Zeppelin",
            "Despacito by Luis Fonsi",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_markdown_bold_quoted_em_dash",
        catalog="songs",
        k=5,
        answer=(
            '1. **"Superstition"** \u2013 Stevie Wonder\n'
            '2. **"What\'s Going On"** \u2013 Marvin Gaye\n'
            '3. **"Respect"** \u2013 Aretha Franklin'
        ),
        expected=(
            "Superstition by Stevie Wonder",
            "What's Going On by Marvin Gaye",
            "Respect by Aretha Franklin",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_year_and_artist_article",
        catalog="songs",
        k=5,
        answer=(
            "1. Stairway to Heaven by Led Zeppelin (1971)\n"
            "2. Hotel California by the Eagles (1976)\n"
            "3. Purple Rain by Prince (1984)"
        ),
        expected=(
            "Stairway to Heaven by Led Zeppelin",
            "Hotel California by Eagles",
            "Purple Rain by Prince",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_comma_joined",
        catalog="songs",
        k=5,
        answer="Wonderwall by Oasis, Hey Jude by The Beatles, Purple Rain by Prince",
        expected=(
            "Wonderwall by Oasis",
            "Hey Jude by The Beatles",
            "Purple Rain by Prince",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_semicolon_joined",
        catalog="songs",
        k=5,
        answer=(
            "Toxic by Britney Spears; Bad Guy by Billie Eilish; Shape of You by Ed Sheeran; "
            "Blinding Lights by The Weeknd"
        ),
        expected=(
            "Toxic by Britney Spears",
            "Bad Guy by Billie Eilish",
            "Shape of You by Ed Sheeran",
            "Blinding Lights by The Weeknd",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_think_block",
        catalog="songs",
        k=3,
        answer=(
            "<think>\nMaybe Hurt by Johnny Cash or One by U2? They asked for something "
            "uplifting, so no.\n</think>\n"
            "1. Hallelujah by Jeff Buckley\n2. Heroes by David Bowie\n"
            "3. Born to Run by Bruce Springsteen"
        ),
        expected=(
            "Hallelujah by Jeff Buckley",
            "Heroes by David Bowie",
            "Born to Run by Bruce Springsteen",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_prose_intro_outro_bullets",
        catalog="songs",
        k=5,
        answer=(
            "Great taste! Based on your love of 80s pop, try these:\n\n"
            "- Take On Me by a-ha\n- Africa by Toto\n- Billie Jean by Michael Jackson\n"
            "- 99 Luftballons by Nena\n\nHappy listening!"
        ),
        expected=(
            "Take On Me by a-ha",
            "Africa by Toto",
            "Billie Jean by Michael Jackson",
            "99 Luftballons by Nena",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_repetition_loop",
        catalog="songs",
        k=5,
        answer=(
            "1. Gangnam Style by PSY\n2. Gangnam Style by PSY\n3. Gangnam Style by PSY\n"
            "4. Gangnam Style by PSY\n5. Gangnam Style by PSY\n6. Gangnam Style by PSY"
        ),
        expected=("Gangnam Style by PSY",),
        n_out_of_catalog=0,
        n_duplicates=5,
    ),
    ParseCase(
        name="songs_duplicates_across_formats",
        catalog="songs",
        k=5,
        answer=(
            "1. Bohemian Rhapsody by Queen\n2. Queen - Bohemian Rhapsody\n"
            '3. Imagine by John Lennon\n4. "Imagine" \u2013 John Lennon'
        ),
        expected=("Bohemian Rhapsody by Queen", "Imagine by John Lennon"),
        n_out_of_catalog=0,
        n_duplicates=2,
    ),
    ParseCase(
        name="songs_over_k",
        catalog="songs",
        k=3,
        answer=(
            "1. Yesterday by The Beatles\n2. Let It Be by The Beatles\n"
            "3. Hey Jude by The Beatles\n4. Waterloo by ABBA\n5. Dancing Queen by ABBA"
        ),
        expected=(
            "Yesterday by The Beatles",
            "Let It Be by The Beatles",
            "Hey Jude by The Beatles",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_k1_with_commentary",
        catalog="songs",
        k=1,
        answer="Bohemian Rhapsody by Queen \u2014 the greatest rock song ever recorded.",
        expected=("Bohemian Rhapsody by Queen",),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_k20_exactly_k",
        catalog="songs",
        k=20,
        answer=(
            "1. Bohemian Rhapsody \u2014 Queen\n2. Imagine \u2014 John Lennon\n"
            "3. Smells Like Teen Spirit \u2014 Nirvana\n4. Billie Jean \u2014 Michael Jackson\n"
            "5. Hey Jude \u2014 The Beatles\n6. Like a Rolling Stone \u2014 Bob Dylan\n"
            "7. Respect \u2014 Aretha Franklin\n8. What's Going On \u2014 Marvin Gaye\n"
            "9. Hotel California \u2014 Eagles\n10. Stairway to Heaven \u2014 Led Zeppelin\n"
            "11. Purple Rain \u2014 Prince\n12. Superstition \u2014 Stevie Wonder\n"
            "13. Wonderwall \u2014 Oasis\n14. Dancing Queen \u2014 ABBA\n"
            "15. Born to Run \u2014 Bruce Springsteen\n16. Heroes \u2014 David Bowie\n"
            "17. Rolling in the Deep \u2014 Adele\n"
            "18. Seven Nation Army \u2014 The White Stripes\n"
            "19. Lose Yourself \u2014 Eminem\n20. Blinding Lights \u2014 The Weeknd"
        ),
        expected=(
            "Bohemian Rhapsody by Queen",
            "Imagine by John Lennon",
            "Smells Like Teen Spirit by Nirvana",
            "Billie Jean by Michael Jackson",
            "Hey Jude by The Beatles",
            "Like a Rolling Stone by Bob Dylan",
            "Respect by Aretha Franklin",
            "What's Going On by Marvin Gaye",
            "Hotel California by Eagles",
            "Stairway to Heaven by Led Zeppelin",
            "Purple Rain by Prince",
            "Superstition by Stevie Wonder",
            "Wonderwall by Oasis",
            "Dancing Queen by ABBA",
            "Born to Run by Bruce Springsteen",
            "Heroes by David Bowie",
            "Rolling in the Deep by Adele",
            "Seven Nation Army by The White Stripes",
            "Lose Yourself by Eminem",
            "Blinding Lights by The Weeknd",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # Colleges
    # ------------------------------------------------------------------
    ParseCase(
        name="colleges_numbered_basic",
        catalog="colleges",
        k=5,
        answer=(
            "1. Massachusetts Institute of Technology\n2. Stanford University\n"
            "3. Harvard University\n4. University of Oxford\n5. University of Cambridge"
        ),
        expected=(
            "Massachusetts Institute of Technology",
            "Stanford University",
            "Harvard University",
            "University of Oxford",
            "University of Cambridge",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_comma_names_numbered",
        catalog="colleges",
        k=5,
        answer=(
            "1. University of California, Berkeley\n"
            "2. University of California, Los Angeles\n"
            "3. University of Chicago\n4. Columbia University"
        ),
        expected=(
            "University of California, Berkeley",
            "University of California, Los Angeles",
            "University of Chicago",
            "Columbia University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_comma_names_bullets_with_country",
        catalog="colleges",
        k=5,
        answer=(
            "- University of California, Berkeley (USA)\n- ETH Zurich (Switzerland)\n"
            "- University of Tokyo (Japan)"
        ),
        expected=(
            "University of California, Berkeley",
            "ETH Zurich",
            "University of Tokyo",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_accents_and_abbreviation_suffix",
        catalog="colleges",
        k=5,
        answer=(
            "- ETH Zürich\n- Universite PSL\n- Universidad de Buenos Aires\n"
            "- Technical University of Munich (TUM)"
        ),
        expected=(
            "ETH Zurich",
            "Université PSL",
            "Universidad de Buenos Aires",
            "Technical University of Munich",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_abbreviations_in_parens",
        catalog="colleges",
        k=5,
        answer=(
            "1. Massachusetts Institute of Technology (MIT)\n"
            "2. University College London (UCL)\n"
            "3. National University of Singapore (NUS)\n"
            "4. King's College London (KCL)"
        ),
        expected=(
            "Massachusetts Institute of Technology",
            "University College London",
            "National University of Singapore",
            "King's College London",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_missing_comma_and_apostrophe",
        catalog="colleges",
        k=5,
        answer=(
            "1. University of California Berkeley\n2. University of California Los Angeles\n"
            "3. Kings College London"
        ),
        expected=(
            "University of California, Berkeley",
            "University of California, Los Angeles",
            "King's College London",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_hallucinated_all",
        catalog="colleges",
        k=5,
        answer=(
            "1. Princeton University\n2. Indian Institute of Technology Madras\n"
            "3. University of California, San Diego\n4. National Taiwan University\n"
            "5. University of Edinburgh"
        ),
        expected=(),
        n_out_of_catalog=5,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_iit_campuses_mixed",
        catalog="colleges",
        k=10,
        answer=(
            "1. Indian Institute of Technology Bombay\n"
            "2. Indian Institute of Technology Madras\n"
            "3. Indian Institute of Technology Delhi\n"
            "4. Princeton University\n5. Peking University\n6. Tsinghua University"
        ),
        expected=(
            "Indian Institute of Technology Bombay",
            "Indian Institute of Technology Delhi",
            "Peking University",
            "Tsinghua University",
        ),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_institute_of_technology_traps",
        catalog="colleges",
        k=5,
        answer=(
            "1. California Institute of Technology\n"
            "2. Massachusetts Institute of Technology\n"
            "3. Georgia Institute of Technology\n"
            "4. Tokyo Institute of Technology"
        ),
        expected=(
            "California Institute of Technology",
            "Massachusetts Institute of Technology",
        ),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_typos",
        catalog="colleges",
        k=3,
        answer=(
            "1. Massachusets Institute of Technology\n2. Imperial Colege London\n"
            "3. Seoul Nationl University"
        ),
        expected=(
            "Massachusetts Institute of Technology",
            "Imperial College London",
            "Seoul National University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_bold_commentary_with_hallucination",
        catalog="colleges",
        k=5,
        answer=(
            "Here are some top universities for computer science:\n\n"
            "1. **Stanford University** \u2014 strong ties to Silicon Valley\n"
            "2. **Carnegie Mellon University** \u2014 a powerhouse in robotics\n"
            "3. **ETH Zurich** \u2014 Europe's leading technical university\n"
            "4. **University of Toronto** \u2014 a deep learning pioneer\n\n"
            "Good luck with your applications!"
        ),
        expected=("Stanford University", "ETH Zurich", "University of Toronto"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_comma_joined",
        catalog="colleges",
        k=5,
        answer="Stanford University, Harvard University, Yale University, Columbia University",
        expected=(
            "Stanford University",
            "Harvard University",
            "Yale University",
            "Columbia University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_semicolon_joined",
        catalog="colleges",
        k=5,
        answer=(
            "University of Tokyo; Seoul National University; "
            "National University of Singapore; Tsinghua University"
        ),
        expected=(
            "University of Tokyo",
            "Seoul National University",
            "National University of Singapore",
            "Tsinghua University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_think_block",
        catalog="colleges",
        k=3,
        answer=(
            "<think>Harvard University and Yale University are the obvious answers, but the "
            "user wants options outside the US.</think>\n"
            "1. McGill University\n2. University of Toronto\n3. University of Melbourne"
        ),
        expected=("McGill University", "University of Toronto", "University of Melbourne"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_duplicates_case_variants",
        catalog="colleges",
        k=5,
        answer=(
            "1. Harvard University\n2. harvard university\n3. Yale University\n"
            "4. Harvard University"
        ),
        expected=("Harvard University", "Yale University"),
        n_out_of_catalog=0,
        n_duplicates=2,
    ),
    ParseCase(
        name="colleges_over_k",
        catalog="colleges",
        k=5,
        answer=(
            "1. University of Oxford\n2. University of Cambridge\n"
            "3. Imperial College London\n4. University College London\n"
            "5. King's College London\n6. ETH Zurich\n"
            "7. Technical University of Munich\n8. Université PSL"
        ),
        expected=(
            "University of Oxford",
            "University of Cambridge",
            "Imperial College London",
            "University College London",
            "King's College London",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_k1",
        catalog="colleges",
        k=1,
        answer="1. University of Oxford",
        expected=("University of Oxford",),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_k20_exactly_k",
        catalog="colleges",
        k=20,
        answer=(
            "1. Massachusetts Institute of Technology\n2. Stanford University\n"
            "3. Harvard University\n4. California Institute of Technology\n"
            "5. University of Oxford\n6. University of Cambridge\n"
            "7. Imperial College London\n8. ETH Zurich\n"
            "9. University of California, Berkeley\n10. University of Chicago\n"
            "11. Yale University\n12. Columbia University\n"
            "13. University College London\n14. University of Toronto\n"
            "15. National University of Singapore\n16. Tsinghua University\n"
            "17. Peking University\n18. University of Tokyo\n"
            "19. University of California, Los Angeles\n20. McGill University"
        ),
        expected=(
            "Massachusetts Institute of Technology",
            "Stanford University",
            "Harvard University",
            "California Institute of Technology",
            "University of Oxford",
            "University of Cambridge",
            "Imperial College London",
            "ETH Zurich",
            "University of California, Berkeley",
            "University of Chicago",
            "Yale University",
            "Columbia University",
            "University College London",
            "University of Toronto",
            "National University of Singapore",
            "Tsinghua University",
            "Peking University",
            "University of Tokyo",
            "University of California, Los Angeles",
            "McGill University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="colleges_k20_fewer_than_k",
        catalog="colleges",
        k=20,
        answer=(
            "Strong engineering schools outside the US and UK:\n\n"
            "- ETH Zurich\n- Technical University of Munich\n- Tsinghua University\n"
            "- Indian Institute of Technology Bombay\n- Indian Institute of Technology Delhi\n"
            "- Delft University of Technology\n- Seoul National University\n"
            "- University of Melbourne"
        ),
        expected=(
            "ETH Zurich",
            "Technical University of Munich",
            "Tsinghua University",
            "Indian Institute of Technology Bombay",
            "Indian Institute of Technology Delhi",
            "Seoul National University",
            "University of Melbourne",
        ),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    # ------------------------------------------------------------------
    # More list markers across catalogs
    # ------------------------------------------------------------------
    ParseCase(
        name="numbered_paren_songs_title_dash_artist",
        catalog="songs",
        k=5,
        answer="1) Hey Jude - The Beatles\n2) Let It Be - The Beatles\n3) Yesterday - The Beatles",
        expected=(
            "Hey Jude by The Beatles",
            "Let It Be by The Beatles",
            "Yesterday by The Beatles",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_paren_colleges_with_hallucination",
        catalog="colleges",
        k=5,
        answer="1) University of Oxford\n2) University of St Andrews\n3) University of Cambridge",
        expected=("University of Oxford", "University of Cambridge"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_space_dash_years",
        catalog="movies",
        k=5,
        answer="1 - Jaws (1975)\n2 - Alien (1979)\n3 - Aliens (1986)",
        expected=("Jaws", "Alien", "Aliens"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_space_dash_colleges",
        catalog="colleges",
        k=3,
        answer="1 - Peking University\n2 - Tsinghua University\n3 - University of Tokyo",
        expected=("Peking University", "Tsinghua University", "University of Tokyo"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_parenthesized_songs",
        catalog="songs",
        k=5,
        answer=(
            "(1) Waterloo by ABBA\n(2) Dancing Queen by ABBA\n(3) Toxic by Britney Spears\n"
            "(4) Halo by Beyoncé"
        ),
        expected=(
            "Waterloo by ABBA",
            "Dancing Queen by ABBA",
            "Toxic by Britney Spears",
            "Halo by Beyoncé",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="numbered_parenthesized_with_duplicate",
        catalog="movies",
        k=5,
        answer="(1) Jaws\n(2) Heat\n(3) Jaws\n(4) Fargo",
        expected=("Jaws", "Heat", "Fargo"),
        n_out_of_catalog=0,
        n_duplicates=1,
    ),
    ParseCase(
        name="bullets_star_songs",
        catalog="songs",
        k=5,
        answer=(
            "* Seven Nation Army by The White Stripes\n* Heroes by David Bowie\n"
            "* Born to Run by Bruce Springsteen"
        ),
        expected=(
            "Seven Nation Army by The White Stripes",
            "Heroes by David Bowie",
            "Born to Run by Bruce Springsteen",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="bullets_star_italic_colleges_with_hallucination",
        catalog="colleges",
        k=5,
        answer="* *Yale University*\n* *Columbia University*\n* *Princeton University*",
        expected=("Yale University", "Columbia University"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="markdown_italics_songs",
        catalog="songs",
        k=5,
        answer="1. *Heroes* by David Bowie\n2. *Purple Rain* by Prince\n3. _Africa_ by Toto",
        expected=("Heroes by David Bowie", "Purple Rain by Prince", "Africa by Toto"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="backticks_songs",
        catalog="songs",
        k=3,
        answer="1. `Toxic` by Britney Spears\n2. `Umbrella` by Rihanna\n3. `Halo` by Beyoncé",
        expected=("Toxic by Britney Spears", "Umbrella by Rihanna", "Halo by Beyoncé"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="backticks_colleges",
        catalog="colleges",
        k=5,
        answer="- `ETH Zurich`\n- `University of Toronto`\n- `McGill University`",
        expected=("ETH Zurich", "University of Toronto", "McGill University"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="quotes_curly_songs",
        catalog="songs",
        k=5,
        answer=(
            "1. \u201cHey Jude\u201d by The Beatles\n2. \u201cRolling in the Deep\u201d by Adele\n"
            "3. \u201cShape of You\u201d by Ed Sheeran"
        ),
        expected=(
            "Hey Jude by The Beatles",
            "Rolling in the Deep by Adele",
            "Shape of You by Ed Sheeran",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="quotes_single_colleges",
        catalog="colleges",
        k=3,
        answer="- 'University of Chicago'\n- 'King's College London'\n- 'Harvard University'",
        expected=("University of Chicago", "King's College London", "Harvard University"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
)


# ----------------------------------------------------------------------
# Catalog-derived aliases, institution names, native scripts, songs with
# and without artists, structured (JSON / HTML) answers, lead-ins and film
# lines with a director. ``catalog`` names one of the two user-style
# catalogs below or a built-in catalog ("movie", "music", "college", loaded
# with ``load_catalog`` and parsed WITHOUT its aliases column, so only the
# catalog-derived names count).
# ----------------------------------------------------------------------

#: A college catalog as a user might supply it: abbreviations in parentheses, separators,
#: native names, and near-homonyms that must stay apart.
USER_COLLEGES: tuple[str, ...] = (
    "Massachusetts Institute of Technology (MIT)",
    "California Institute of Technology (Caltech)",
    "University of Cambridge",
    "Sorbonne University - Faculty of Science",
    "Trinity College Dublin, The University of Dublin",
    "KIT, Karlsruhe Institute of Technology",
    "ETH Zurich - Swiss Federal Institute of Technology",
    "University of California, Berkeley (UCB)",
    "University of California, Los Angeles (UCLA)",
    "Nanyang Technological University, Singapore (NTU)",
    "National Taiwan University (NTU)",
    "Technical University of Munich",
    "University of Tokyo",
    "Tokyo University of Science",
    "University of Washington",
    "Washington University in St. Louis",
    "Universidad de Buenos Aires (UBA)",
    "University of St Andrews",
    "Texas A&M University",
    "University of Toronto",
    "Université de Montréal",
    "Saint Louis University",
    "The University of Melbourne",
    "University of Colorado Boulder",
    "University of Colorado, Denver",
    "Universidad Nacional Autónoma de México (UNAM)",
    "Pontificia Universidad Católica de Chile",
    "Freie Universität Berlin",
    "Politecnico di Milano",
    "Alma Mater Studiorum - University of Bologna",
)

#: A song catalog where some entries have no artist.
USER_SONGS: tuple[str, ...] = (
    "Imagine",
    "Heart of Glass",
    "Old Town Road",
    "Roxanne by The Police",
    "Take Me Out by Franz Ferdinand",
    "Royals by Lorde",
    "Green Light by Lorde",
    "Hurt by Nine Inch Nails",
    "Hurt by Johnny Cash",
    "Sweet Dreams (Are Made of This) by Eurythmics",
    "Another Brick in the Wall, Pt. 2 by Pink Floyd",
    "Wish You Were Here by Pink Floyd",
    "Smells Like Teen Spirit by Nirvana",
    "Come as You Are by Nirvana",
    "Seventeen by Sharon Van Etten",
    "C.R.E.A.M. by Wu-Tang Clan",
    "Last Nite by The Strokes",
    "Paranoid Android by Radiohead",
    "Under Pressure by Queen and David Bowie",
    "Feels Like We Only Go Backwards by Tame Impala",
)

EXTRA_CASES: tuple[ParseCase, ...] = (
    # --- catalog-derived aliases (user catalog) -------------------------
    ParseCase(
        name="alias_abbreviation_in_catalog_parens",
        catalog="user_colleges",
        k=6,
        answer="1. MIT\n2. Caltech\n3. UCLA\n4. UBA\n5. UNAM\n6. UCB",
        expected=(
            "Massachusetts Institute of Technology (MIT)",
            "California Institute of Technology (Caltech)",
            "University of California, Los Angeles (UCLA)",
            "Universidad de Buenos Aires (UBA)",
            "Universidad Nacional Autónoma de México (UNAM)",
            "University of California, Berkeley (UCB)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="alias_catalog_title_without_its_parens",
        catalog="user_colleges",
        k=3,
        answer=(
            "- Massachusetts Institute of Technology\n- University of California, Berkeley\n"
            "- Universidad de Buenos Aires"
        ),
        expected=(
            "Massachusetts Institute of Technology (MIT)",
            "University of California, Berkeley (UCB)",
            "Universidad de Buenos Aires (UBA)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="alias_main_part_before_separator",
        catalog="user_colleges",
        k=8,
        answer=(
            "1. Sorbonne University\n2. Trinity College Dublin\n3. ETH Zurich\n"
            "4. Nanyang Technological University\n5. Karlsruhe Institute of Technology\n"
            "6. Swiss Federal Institute of Technology\n7. KIT\n8. University of Bologna"
        ),
        expected=(
            "Sorbonne University - Faculty of Science",
            "Trinity College Dublin, The University of Dublin",
            "ETH Zurich - Swiss Federal Institute of Technology",
            "Nanyang Technological University, Singapore (NTU)",
            "KIT, Karlsruhe Institute of Technology",
            "Alma Mater Studiorum - University of Bologna",
        ),
        n_out_of_catalog=0,
        n_duplicates=2,
    ),
    ParseCase(
        name="alias_ambiguous_never_match",
        catalog="user_colleges",
        k=5,
        answer=(
            "1. NTU\n2. University of California\n3. Tokyo University\n"
            "4. Washington University\n5. University of Colorado"
        ),
        expected=(),
        n_out_of_catalog=5,
        n_duplicates=0,
    ),
    ParseCase(
        name="alias_unknown_university_stays_out",
        catalog="user_colleges",
        k=5,
        answer=(
            "1. University of Atlantis\n2. MIT\n3. Universidad de Narnia\n"
            "4. Technical University of Gotham (TUG)\n5. Dublin University of Science"
        ),
        expected=("Massachusetts Institute of Technology (MIT)",),
        n_out_of_catalog=4,
        n_duplicates=0,
    ),
    # --- institution words across languages ------------------------------
    ParseCase(
        name="institution_native_language_names",
        catalog="user_colleges",
        k=6,
        answer=(
            "1. Technische Universität München\n2. Free University of Berlin\n"
            "3. University of Montreal\n4. National Autonomous University of Mexico\n"
            "5. Pontifical Catholic University of Chile\n6. University of Buenos Aires"
        ),
        expected=(
            "Technical University of Munich",
            "Freie Universität Berlin",
            "Université de Montréal",
            "Universidad Nacional Autónoma de México (UNAM)",
            "Pontificia Universidad Católica de Chile",
            "Universidad de Buenos Aires (UBA)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="institution_word_order_saint_and_ampersand",
        catalog="user_colleges",
        k=6,
        answer=(
            "- Toronto University\n- Melbourne University\n- St Andrews University\n"
            "- St. Louis University\n- Texas A and M University\n- Milan Polytechnic"
        ),
        expected=(
            "University of Toronto",
            "The University of Melbourne",
            "University of St Andrews",
            "Saint Louis University",
            "Texas A&M University",
            "Politecnico di Milano",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="institution_leading_the_either_side",
        catalog="user_colleges",
        k=3,
        answer=(
            "1. The University of Toronto\n2. University of Melbourne\n"
            "3. The Massachusetts Institute of Technology"
        ),
        expected=(
            "University of Toronto",
            "The University of Melbourne",
            "Massachusetts Institute of Technology (MIT)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # --- the answer's own parenthetical, native scripts, CJK layout ------
    ParseCase(
        name="answer_parenthetical_differs_from_catalog",
        catalog="user_colleges",
        k=5,
        answer=(
            "1. University of California, Berkeley (UC Berkeley)\n"
            "2. Nanyang Technological University (NTU Singapore)\n"
            "3. Technical University of Munich (TUM)\n4. University of Tokyo (Todai)\n"
            "5. Singapore (MIT)"
        ),
        expected=(
            "University of California, Berkeley (UCB)",
            "Nanyang Technological University, Singapore (NTU)",
            "Technical University of Munich",
            "University of Tokyo",
            "Massachusetts Institute of Technology (MIT)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="native_script_name_before_or_after",
        catalog="user_colleges",
        k=4,
        answer=(
            "1. 東京大学 (The University of Tokyo)\n"
            "2. Tokyo University of Science（東京理科大学）\n"
            "3. 《清华大学》Tsinghua University\n4. 慕尼黑工业大学 Technical University of Munich"
        ),
        expected=(
            "University of Tokyo",
            "Tokyo University of Science",
            "Technical University of Munich",
        ),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="native_script_film_titles",
        catalog="movie",
        k=4,
        answer=(
            "１．《盗梦空间》Inception\n２．Spirited Away（千と千尋の神隠し）\n"
            "３．「Parasite」\n４．『Oldboy』"
        ),
        expected=("Inception", "Spirited Away", "Parasite", "Oldboy"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="cjk_list_markers",
        catalog="movie",
        k=4,
        answer="推荐电影：\n1、Jaws\n（2）Psycho\n３、Vertigo\n4．Chinatown",
        expected=("Jaws", "Psycho", "Vertigo", "Chinatown"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="cjk_quotes_and_fullwidth_comma_list",
        catalog="movie",
        k=3,
        answer="我推荐：《Jaws》，《Alien》，《Heat》",
        expected=("Jaws", "Alien", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # --- songs -------------------------------------------------------------
    ParseCase(
        name="songs_artist_added_to_catalog_title_without_artist",
        catalog="user_songs",
        k=3,
        answer=(
            "1. Imagine by John Lennon\n2. Heart of Glass - Blondie\n3. Old Town Road (Lil Nas X)"
        ),
        expected=("Imagine", "Heart of Glass", "Old Town Road"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_artist_missing",
        catalog="user_songs",
        k=4,
        answer="- Roxanne\n- Take Me Out\n- Royals\n- Hurt",
        expected=("Roxanne by The Police", "Take Me Out by Franz Ferdinand", "Royals by Lorde"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_artist_first",
        catalog="user_songs",
        k=4,
        answer=(
            "1. The Strokes - Last Nite\n2. Radiohead by Paranoid Android\n"
            "3. Nirvana – Come as You Are\n4. Lorde by Green Light"
        ),
        expected=(
            "Last Nite by The Strokes",
            "Paranoid Android by Radiohead",
            "Come as You Are by Nirvana",
            "Green Light by Lorde",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_misspelled_with_known_artist",
        catalog="user_songs",
        k=4,
        answer=(
            "1. Royal by Lorde\n2. Feel Like We Only Go Backwards by Tame Impala\n"
            "3. Smells Like Teen Sprit by Nirvana\n4. 17 by Sharon Van Etten"
        ),
        expected=(
            "Royals by Lorde",
            "Feels Like We Only Go Backwards by Tame Impala",
            "Smells Like Teen Spirit by Nirvana",
            "Seventeen by Sharon Van Etten",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_truncated_and_parenthetical_dropped",
        catalog="user_songs",
        k=3,
        answer=(
            "1. Another Brick in the Wall by Pink Floyd\n2. Sweet Dreams by Eurythmics\n"
            "3. \u201cSweet Dreams (Are Made of This)\u201d \u2013 Eurythmics"
        ),
        expected=(
            "Another Brick in the Wall, Pt. 2 by Pink Floyd",
            "Sweet Dreams (Are Made of This) by Eurythmics",
        ),
        n_out_of_catalog=0,
        n_duplicates=1,
    ),
    ParseCase(
        name="songs_partial_or_joint_artist_names",
        catalog="user_songs",
        k=2,
        answer='1. "C.R.E.A.M." by Wu-Tang\n2. Under Pressure by Queen',
        expected=("C.R.E.A.M. by Wu-Tang Clan", "Under Pressure by Queen and David Bowie"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_another_artist_is_not_a_match",
        catalog="user_songs",
        k=5,
        answer=(
            "1. \u201cTake Me Out\u201d by The Kinks\n2. Roxanne - Sting and Shaggy\n"
            "3. Wish You Were Here by The Beatles\n4. Royals by Taylor Swift\n"
            "5. Green Light by John Legend"
        ),
        expected=(),
        n_out_of_catalog=5,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_invented_title_by_catalog_artist",
        catalog="user_songs",
        k=3,
        answer=(
            "1. Blue Light by Lorde\n2. Paranoid Android by Radiohead\n3. In Bloom Again by Nirvana"
        ),
        expected=("Paranoid Android by Radiohead",),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="songs_builtin_catalog_without_artist_or_parenthetical",
        catalog="music",
        k=4,
        answer=(
            "1. Sweet Dreams - Eurythmics\n2. I Will Survive (Gloria Gaynor)\n"
            "3. Ever Fallen in Love by Buzzcocks\n4. The Reaper by Blue Oyster Cult"
        ),
        expected=(
            "Sweet Dreams (Are Made of This) by Eurythmics",
            "I Will Survive by Gloria Gaynor",
            "Ever Fallen in Love (With Someone You Shouldn't've) by Buzzcocks",
            "(Don't Fear) The Reaper by Blue Öyster Cult",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # --- structured answers --------------------------------------------------
    ParseCase(
        name="json_one_line_array",
        catalog="movie",
        k=4,
        answer='["Jaws", "Alien", "Invented Movie", "Heat"]',
        expected=("Jaws", "Alien", "Heat"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="json_pretty_array_in_fence_with_prose",
        catalog="movie",
        k=3,
        answer=(
            'Here is the list in JSON:\n```json\n[\n  "Vertigo",\n  "Psycho",\n'
            '  "Rear Window"\n]\n```\nEnjoy!'
        ),
        expected=("Vertigo", "Psycho", "Rear Window"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="json_objects_with_title_field",
        catalog="movie",
        k=3,
        answer=(
            '[{"rank": 1, "title": "Casablanca", "year": 1942},\n'
            ' {"rank": 2, "title": "Citizen Kane", "year": 1941},\n'
            ' {"rank": 3, "title": "Casablanca", "year": 1942}]'
        ),
        expected=("Casablanca", "Citizen Kane"),
        n_out_of_catalog=0,
        n_duplicates=1,
    ),
    ParseCase(
        name="json_object_holding_array_of_songs",
        catalog="user_songs",
        k=3,
        answer=(
            '```json\n{"recommendations": [\n'
            '  {"song": "Royals", "artist": "Lorde"},\n'
            '  {"song": "Imagine", "artist": "John Lennon"},\n'
            '  {"song": "Made Up Song", "artist": "Nobody"}\n]}\n```'
        ),
        expected=("Royals by Lorde", "Imagine"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="json_universities_keys_never_entries",
        catalog="user_colleges",
        k=3,
        answer=(
            '{\n  "universities": [\n    {"name": "MIT", "country": "USA"},\n'
            '    {"name": "University of Atlantis", "country": "Atlantis"},\n'
            '    {"name": "Freie Universität Berlin", "country": "Germany"}\n  ]\n}'
        ),
        expected=("Massachusetts Institute of Technology (MIT)", "Freie Universität Berlin"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="json_broken_read_line_by_line",
        catalog="movie",
        k=3,
        answer='```json\n{\n  "movies": [\n    "Jaws",\n    "Alien",\n    "Heat",\n  ]\n',
        expected=("Jaws", "Alien", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="html_ordered_list",
        catalog="movie",
        k=3,
        answer=(
            "<p>My picks:</p>\n<ol>\n  <li><strong>Fargo</strong> (1996)</li>\n"
            "  <li>Memento</li>\n  <li>Not A Real Film</li>\n</ol>"
        ),
        expected=("Fargo", "Memento"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    ParseCase(
        name="html_unordered_list_one_line",
        catalog="user_colleges",
        k=2,
        answer="<ul><li>University of Cambridge</li><li>Texas A&amp;M University</li></ul>",
        expected=("University of Cambridge", "Texas A&M University"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    # --- lead-ins and film lines with a director or comment ------------------
    ParseCase(
        name="lead_in_does_not_swallow_first_title",
        catalog="movie",
        k=5,
        answer="Here are 5 films you might enjoy: Jaws, Alien, Heat, Fargo, and Memento.",
        expected=("Jaws", "Alien", "Heat", "Fargo", "Memento"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="lead_in_list_with_hallucinations",
        catalog="movie",
        k=5,
        answer="Here are three picks: Jaws, The Shark Returns Again, Midnight Ocean Tales",
        expected=("Jaws",),
        n_out_of_catalog=2,
        n_duplicates=0,
    ),
    ParseCase(
        name="lead_in_joined_abbreviations_stay_apart",
        catalog="user_colleges",
        k=5,
        answer="Top choices: MIT, University of Cambridge, KIT, ETH Zurich, UCLA",
        expected=(
            "Massachusetts Institute of Technology (MIT)",
            "University of Cambridge",
            "KIT, Karlsruhe Institute of Technology",
            "ETH Zurich - Swiss Federal Institute of Technology",
            "University of California, Los Angeles (UCLA)",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="lead_in_joined_quoted_songs",
        catalog="user_songs",
        k=3,
        answer=(
            'My favourites: "Royals" by Lorde, "Roxanne" by The Police, "Imagine" by John Lennon'
        ),
        expected=("Royals by Lorde", "Roxanne by The Police", "Imagine"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="lead_in_sentence_before_single_title",
        catalog="movie",
        k=2,
        answer="1. Classic space horror: Alien\n2. A mind-bending heist in dreams: Inception",
        expected=("Alien", "Inception"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="film_title_dash_or_by_director",
        catalog="movie",
        k=4,
        answer=(
            "1. Jaws - Steven Spielberg\n2. Psycho by Alfred Hitchcock\n"
            "3. Heat \u2013 Michael Mann (1995)\n4. Seven Samurai - Akira Kurosawa"
        ),
        expected=("Jaws", "Psycho", "Heat", "Seven Samurai"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="film_title_colon_short_comment",
        catalog="movie",
        k=3,
        answer=(
            "1. Rashomon: a samurai tale told four ways.\n2. Chinatown: Noir at its best.\n"
            "3. Oldboy: Still shocking."
        ),
        expected=("Rashomon", "Chinatown", "Oldboy"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="film_tab_separated_rows",
        catalog="movie",
        k=3,
        answer="1\tJaws\t1975\n2\tAlien\t1979\n3\tHeat\tMichael Mann",
        expected=("Jaws", "Alien", "Heat"),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="film_sequel_subtitles_are_not_directors",
        catalog="movie",
        k=4,
        answer=(
            "1. Star Trek - Into Darkness\n2. Mission: Impossible - Ghost Protocol\n"
            "3. Alien - Covenant\n4. Dune - Part Three"
        ),
        expected=(),
        n_out_of_catalog=4,
        n_duplicates=0,
    ),
    ParseCase(
        name="film_article_keeps_its_own_title",
        catalog="user_films",
        k=3,
        answer="1. Taxi Driver\n2. A Taxi Driver\n3. The Taxi Driver",
        expected=("Taxi Driver", "A Taxi Driver"),
        n_out_of_catalog=1,
        n_duplicates=0,
    ),
    # --- built-in college catalog (no aliases column) -----------------------
    ParseCase(
        name="builtin_colleges_derived_names",
        catalog="college",
        k=6,
        answer=(
            "1. Royal Holloway\n2. University of Tennessee\n3. Universität Leipzig\n"
            "4. Technische Universität Berlin\n5. Universität Zürich\n"
            "6. St. Petersburg State University"
        ),
        expected=(
            "Royal Holloway, University of London",
            "University of Tennessee, Knoxville",
            "Leipzig University",
            "Technical University of Berlin",
            "University of Zurich",
            "Saint Petersburg State University",
        ),
        n_out_of_catalog=0,
        n_duplicates=0,
    ),
    ParseCase(
        name="builtin_colleges_ambiguous_and_unknown",
        catalog="college",
        k=4,
        answer=(
            "1. University of California\n2. Washington University\n"
            "3. University of London\n4. Universidad de Narnia"
        ),
        expected=(),
        n_out_of_catalog=4,
        n_duplicates=0,
    ),
)

#: Small film catalog for article-sensitive titles.
USER_FILMS: tuple[str, ...] = ("Taxi Driver", "A Taxi Driver", "Jaws", "Alien")
