"""Strict YAML reading: syntax errors and duplicate keys are errors naming the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from coldbias_tasks.core.errors import ColdbiasError
from coldbias_tasks.core.jsonl import DATA_LIMIT, read_text

__all__ = ["load_yaml"]


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping (YAML keeps the last one)."""


def _no_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"key {key!r} appears twice (lines {seen[key]} and {line}); keep one, since "
                "YAML would silently drop the first",
                key_node.start_mark,
            )
        seen[key] = line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def load_yaml(path: Path, error: type[ColdbiasError]) -> Any:
    """Parse ``path`` (at most :data:`~coldbias_tasks.core.jsonl.DATA_LIMIT` bytes, a regular
    file); a syntax error or a duplicate key raises ``error`` with file and line."""
    text = read_text(path, error, DATA_LIMIT)
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"{path}, line {mark.line + 1}" if mark else str(path)
        problem = err.problem or err.context or "invalid YAML"
        raise error(f"{where}: {problem}; fix the file.") from err
    except yaml.YAMLError as err:
        raise error(f"{path}: invalid YAML ({err}); fix the file.") from err
