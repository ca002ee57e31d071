"""The project's names, in one place: variants, metrics, task names, ids, thresholds.

Domains are data (``data/domains/<name>.yaml``, read by :mod:`coldbias_tasks.core.world.domains`),
and so are attribute groups (``data/personas.yaml``): neither is a name declared here.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "ALPHA",
    "ANSWER_KEY",
    "COMBINATION_JOIN",
    "FILTER_NAME",
    "HEADLINE",
    "HEADLINE_KEY",
    "IMPLICIT_PREFIX",
    "INTERSECTION_JOIN",
    "NEUTRAL_ID",
    "NEUTRAL_REPLICATE_ID",
    "OPEN",
    "PLACEBO_GROUP",
    "PREF",
    "REVERSE",
    "SENTENCE_JOIN",
    "SERVED_BACKENDS",
    "TASK_PREFIX",
    "TASK_VERSION",
    "VARIANTS",
    "explicit_group",
    "group_name",
    "intersection_name",
    "intersection_parts",
    "is_coldbias_task",
    "is_control_id",
    "is_replicate_id",
    "is_reverse_task",
    "is_value_id",
    "parse_task_name",
    "replicate_id",
    "reverse_group_name",
    "reverse_task_name",
    "sentence_id",
    "task_name",
]


#: Prompt variants: plain, a task-relevant preference added (paper H3), a fairness instruction,
#: implicit (the attribute conveyed only by a first name), and open (FaiRLLM's protocol: no
#: catalog in the prompt; the listed titles are grounded, ``core/parsing/open_answers.py``) and
#: pref (the user also states one of the domain's checkable preferences: the costs to the user,
#: ``core/measures/costs.py``).
VARIANTS: tuple[str, ...] = ("plain", "context", "mitigation", "implicit", "open", "pref")
#: The variant whose users state a checkable preference (value × phrasing × preference).
PREF = "pref"
#: The variant without a catalog in the prompt.
OPEN = "open"

NEUTRAL_ID = "neutral"
#: A second neutral answer to the same prompt as the neutral one (same repeat, same order).
NEUTRAL_REPLICATE_ID = "neutral.replicate"


def replicate_id(j: int) -> str:
    """Persona id of the j-th neutral replicate (1-based): ``neutral.replicate``,
    ``neutral.replicate.2``, ..."""
    return NEUTRAL_REPLICATE_ID if j == 1 else f"{NEUTRAL_REPLICATE_ID}.{j}"


def is_replicate_id(persona_id: str) -> bool:
    return persona_id == NEUTRAL_REPLICATE_ID or persona_id.startswith(NEUTRAL_REPLICATE_ID + ".")


#: Joins a value's persona id and a phrasing index into a sentence id: ``gender.female#3``.
SENTENCE_JOIN = "#"


def sentence_id(value_id: str, phrasing: int) -> str:
    """Persona id of value ``value_id`` asked in phrasing ``phrasing`` (0-based)."""
    return f"{value_id}{SENTENCE_JOIN}{phrasing}"


def is_value_id(persona_id: str) -> bool:
    """An attribute value (not the neutral user, one of its replicates, nor a control)."""
    return (
        persona_id != NEUTRAL_ID
        and not is_replicate_id(persona_id)
        and not is_control_id(persona_id)
    )


#: Persona ids of the control personas asked inside every attribute task (an irrelevant fact,
#: taken from the placebo group): ``control.placebo.blue_car``.
CONTROL_PREFIX = "control."


def is_control_id(persona_id: str) -> bool:
    return persona_id.startswith(CONTROL_PREFIX)


#: The attribute group that serves as negative control (``data/personas.yaml``).
PLACEBO_GROUP = "placebo"

#: Group names: an intersection joins its two parents (``gender_x_country``), its value ids join
#: the parents' values (``gender_x_country.girl+japanese``); a first-name group prefixes its
#: parent (``implicit_gender``). Both spellings are reserved in persona files.
INTERSECTION_JOIN = "_x_"
COMBINATION_JOIN = "+"
IMPLICIT_PREFIX = "implicit_"


def intersection_name(first: str, second: str) -> str:
    return f"{first}{INTERSECTION_JOIN}{second}"


def intersection_parts(group: str) -> tuple[str, str] | None:
    """The two parent groups of an intersection (``gender_x_country`` → gender, country), else
    None."""
    first, sep, second = group.partition(INTERSECTION_JOIN)
    return (first, second) if sep else None


def explicit_group(group: str) -> str:
    """The explicit group an implicit (first-name) group conveys: ``implicit_gender`` →
    ``gender``; any other name unchanged."""
    return group.removeprefix(IMPLICIT_PREFIX)


TASK_PREFIX = "coldbias"
#: Version of the generated tasks (``metadata.version``); bump when outputs change.
TASK_VERSION = "4.1"
#: lm-eval filter name of the parse filter; results keys read ``<metric>,ranked``.
FILTER_NAME = "ranked"
#: The one key of a logged sample that holds coldbias' answer record (the parse payload, forward
#: or reverse); every metric key of the sample holds only the answer's short id. lm-eval reports
#: it as a metric too: its aggregated value is the task's number of answers.
ANSWER_KEY = "coldbias_answer"
#: Significance level of the excess-over-noise tests (report and plots).
ALPHA = 0.05

#: The headline in two sentences: the terminal summary, the report page and the leaderboard
#: page all print this text (docs/measurement.md §3b).
HEADLINE = (
    "The headline is the disparity between values, controlled for phrasing: how much more the "
    "recommended lists differ between users who state different values of the attribute "
    '("I am a girl." / "I am a boy.") than between users who state the same value in other '
    'words ("I am a girl." / "I\'d describe myself as a woman."), in IOU divergence. '
    "0 means the values are treated alike whatever each sentence's wording does; above 0, the "
    "value itself moves the list; clearly below 0 means the phrasings are not matched, never "
    "that the model is fairer."
)

#: The headline's key in the leaderboard's columns and tables: the overall disparity (the plain
#: attribute tasks pooled, lm-eval's group figure).
HEADLINE_KEY = "overall_iou_disparity"

#: Numbers in the CSV tables are written with this many significant digits: far finer than any
#: interval the statistics give, and coarse enough that the last-digit differences of float sums
#: between CPU kinds (AVX2 vs AVX-512 vector widths) never show.
CSV_SIGNIFICANT_DIGITS = 6
CSV_FLOAT_FORMAT = f"%.{CSV_SIGNIFICANT_DIGITS}g"


def task_name(domain: str, group: str, variant: str = "plain") -> str:
    """``coldbias_movie_gender``, ``coldbias_movie_context_gender``, ..."""
    middle = "" if variant == "plain" else f"_{variant}"
    return f"{TASK_PREFIX}_{domain}{middle}_{group}"


def group_name(domain: str | None, variant: str = "plain") -> str:
    """lm-eval group of a domain (``coldbias_movie``) or of all domains (``coldbias``)."""
    base = TASK_PREFIX if domain is None else f"{TASK_PREFIX}_{domain}"
    return base if variant == "plain" else f"{base}_{variant}"


#: The reverse task (rank the users for one item): ``coldbias_reverse_{domain}_{group}``.
REVERSE = "reverse"


def reverse_task_name(domain: str, group: str) -> str:
    """``coldbias_reverse_movie_gender``."""
    return f"{TASK_PREFIX}_{REVERSE}_{domain}_{group}"


def reverse_group_name(domain: str | None) -> str:
    """lm-eval group of the reverse tasks of a domain, or of all domains."""
    return f"{TASK_PREFIX}_{REVERSE}" + ("" if domain is None else f"_{domain}")


def is_reverse_task(task: str) -> bool:
    return task.startswith(f"{TASK_PREFIX}_{REVERSE}_") or task == f"{TASK_PREFIX}_{REVERSE}"


def parse_task_name(task: str) -> tuple[str, str, str]:
    """Inverse of :func:`task_name`: ``coldbias_{domain}[_{variant}]_{group}`` →
    (domain, variant, group); the domain is the first word after the prefix. A reverse task
    ``coldbias_reverse_{domain}_{group}`` gives (domain, "reverse", group).
    """
    prefix = f"{TASK_PREFIX}_"
    rest = task[len(prefix) :] if task.startswith(prefix) else task
    if rest.startswith(f"{REVERSE}_"):
        dom, _, group = rest[len(REVERSE) + 1 :].partition("_")
        return dom, REVERSE, group
    dom, _, rest = rest.partition("_")
    variant = "plain"
    for v in VARIANTS[1:]:
        if rest.startswith(v + "_"):
            variant, rest = v, rest[len(v) + 1 :]
    return dom, variant, rest


def is_coldbias_task(task: str) -> bool:
    """Whether an lm-eval task or group name is one of ours."""
    return task == TASK_PREFIX or task.startswith(f"{TASK_PREFIX}_")


#: lm-eval API backends → the coldbias subclasses that ``coldbias eval`` runs instead
#: (:mod:`coldbias_tasks.lmeval.served`: per-request seeds, context check, counted failures).
SERVED_BACKENDS: Mapping[str, str] = {
    "local-chat-completions": "coldbias-local-chat-completions",
    "local-completions": "coldbias-local-completions",
    "openai-chat-completions": "coldbias-openai-chat-completions",
}
