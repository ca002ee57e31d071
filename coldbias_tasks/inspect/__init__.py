"""Inspect (UK AISI's ``inspect_ai``) adapters, beside :mod:`coldbias_tasks.lmeval`: the same
documents, prompts, answer records and result (docs/inspect.md). :mod:`.tasks` builds a task;
:mod:`.registry` registers every forward task for ``inspect eval coldbias/<task>``."""
