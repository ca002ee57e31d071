"""The coldbias tasks in Inspect's registry: the module the ``inspect_ai`` entry point names
(pyproject.toml), loaded by Inspect when a task name starts with ``coldbias/`` or
``coldbias_tasks/``.

Every forward task of the task YAMLs
(:func:`~coldbias_tasks.core.prompting.documents.forward_tasks`) is registered under its lm-eval
name without the ``coldbias_`` prefix: ``movie_gender``, ``movie_open_age``. Inspect prefixes a
task of an installed package with the package's import name, so Inspect's own name is
``coldbias_tasks/movie_gender``; the same task is also registered as ``coldbias/movie_gender``
(the distribution's name), so ``inspect eval coldbias/movie_gender`` works.
``coldbias_tasks/coldbias`` (and ``coldbias/coldbias``) takes ``domain``, ``group`` and
``variant`` as task arguments. Task arguments are lm-eval's ``coldbias_*`` metadata keys
(``-T coldbias_repeats=2``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from coldbias_tasks.core.prompting.documents import forward_tasks
from coldbias_tasks.core.vocabulary import TASK_PREFIX, task_name
from coldbias_tasks.inspect.tasks import coldbias_task

__all__ = ["ALIAS", "offline_token_counter", "registered", "short_name"]

#: The namespace the tasks are registered under besides Inspect's own (the package's name).
ALIAS = "coldbias"


def offline_token_counter() -> bool:
    """Let Inspect's ``mockllm`` run offline: it counts tokens with tiktoken's ``o200k_base``,
    a file tiktoken downloads on first use. When that file can be neither loaded nor fetched
    (offline, not cached), a byte-level stand-in is registered under that name, with a warning:
    ``mockllm``'s token counts are then bytes (they are usage figures, never a coldbias number).
    Whether the stand-in was registered."""
    try:
        import tiktoken
        import tiktoken.registry
    except ImportError:
        return False
    if "o200k_base" in tiktoken.registry.ENCODINGS:
        return False
    try:
        tiktoken.get_encoding("o200k_base")
        return False
    except Exception:  # any failure to fetch or read it: offline, uncached
        ranks = {bytes([i]): i for i in range(256)}
        tiktoken.registry.ENCODINGS["o200k_base"] = tiktoken.Encoding(
            "o200k_base", pat_str=r"[\s\S]", mergeable_ranks=ranks, special_tokens={}
        )
        warnings.warn(
            "tiktoken's o200k_base is not cached and cannot be fetched (offline): mockllm's "
            "token counts are bytes (set TIKTOKEN_CACHE_DIR to a cached copy for real counts)",
            stacklevel=2,
        )
        return True


offline_token_counter()


def short_name(domain: str, group: str, variant: str = "plain") -> str:
    """The Inspect name of a task without its namespace: lm-eval's name without the prefix."""
    return task_name(domain, group, variant).removeprefix(f"{TASK_PREFIX}_")


def _factory(domain: str, group: str, variant: str) -> Callable[..., Task]:
    def make(**settings: Any) -> Task:
        return coldbias_task(domain, group, variant, **settings)

    make.__name__ = make.__qualname__ = short_name(domain, group, variant)
    make.__doc__ = f"coldbias task {task_name(domain, group, variant)} (lm-eval's name)."
    return make


def _alias(registered_task: Callable[..., Task], name: str) -> None:
    """Register ``registered_task`` also as ``coldbias/<name>``. Inspect offers no public way
    to choose a task's namespace; this uses its registry's own ``registry_add`` (pinned
    inspect-ai version, pyproject.toml) and skips the alias if that changed."""
    try:
        from inspect_ai._util.registry import RegistryInfo, registry_add, registry_info
    except ImportError:  # a newer Inspect: the coldbias_tasks/ names still work
        return

    def alias(*args: Any, **kwargs: Any) -> Task:
        return registered_task(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = registered_task.__doc__
    info = registry_info(registered_task)
    registry_add(alias, RegistryInfo(type="task", name=f"{ALIAS}/{name}", metadata=info.metadata))


def coldbias(
    domain: str = "movie", group: str = "gender", variant: str = "plain", **settings: Any
) -> Task:
    """Any forward coldbias task by its parts (``-T domain=music -T group=age``)."""
    return coldbias_task(domain, group, variant, **settings)


def _register() -> list[str]:
    names = []
    for domain, group, variant in forward_tasks():
        name = short_name(domain, group, variant)
        _alias(task(name=name)(_factory(domain, group, variant)), name)
        names.append(name)
    _alias(task(name="coldbias")(coldbias), "coldbias")
    return names


_NAMES = _register()


def registered() -> list[str]:
    """The short names of the registered forward tasks, in task-file order."""
    return list(_NAMES)
