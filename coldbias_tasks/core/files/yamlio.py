"""Strict YAML reading: syntax errors, duplicate keys, nesting deeper than
:data:`~coldbias_tasks.core.files.jsonl.DEPTH_LIMIT` and aliases that expand to more than
:data:`EXPANDED_LIMIT` nodes or :data:`EXPANDED_CHARS` characters of text (a "billion laughs"
bomb, or many aliases of one long string) are errors naming the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from coldbias_tasks.core.errors import ColdbiasError
from coldbias_tasks.core.files.jsonl import DEPTH_LIMIT, read_text

__all__ = ["EXPANDED_CHARS", "EXPANDED_LIMIT", "YAML_LIMIT", "load_yaml"]

#: Most nodes a YAML document may hold once its aliases are expanded.
EXPANDED_LIMIT = 1_000_000
#: Most characters of text (keys and values) a YAML document may hold once its aliases are
#: expanded: 8 times the largest file read, so only aliases can reach it.
EXPANDED_CHARS = 32 << 20
#: Largest YAML file read (bytes): persona, language, template and metric files are a few kB;
#: PyYAML reads about 1 MB per second, so a bigger file would stall.
YAML_LIMIT = 4 << 20


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping (YAML keeps the last one),
    nesting deeper than :data:`DEPTH_LIMIT` and alias bombs."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        """Count the nesting while composing (a RecursionError would come far later)."""
        self._depth += 1
        if self._depth > DEPTH_LIMIT:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"nested more than {DEPTH_LIMIT} levels deep",
                self.peek_event().start_mark,
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> yaml.Node | None:
        """The document's node, refused when its aliases expand to too many nodes."""
        node = super().get_single_node()
        if node is None:
            return node
        nodes, chars = _expanded_size(node)
        if nodes > EXPANDED_LIMIT or chars > EXPANDED_CHARS:
            what = (
                f"{EXPANDED_LIMIT:,} values"
                if nodes > EXPANDED_LIMIT
                else f"{EXPANDED_CHARS:,} characters"
            )
            raise yaml.composer.ComposerError(
                None,
                None,
                f"its aliases (*name) expand to more than {what} (an alias bomb); write the "
                "values out",
                node.start_mark,
            )
        return node


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """(nodes, characters of scalar text) of ``root`` with every alias expanded, counted once
    per distinct node (memoized, without recursion), each stopping past its limit."""
    sizes: dict[int, tuple[int, int]] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if done:
            own = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
            nodes = 1 + sum(sizes[id(c)][0] for c in children)
            chars = own + sum(sizes[id(c)][1] for c in children)
            sizes[id(node)] = (min(nodes, EXPANDED_LIMIT + 1), min(chars, EXPANDED_CHARS + 1))
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


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


def load_yaml(path: Path, error: type[ColdbiasError], limit: int = YAML_LIMIT) -> Any:
    """Parse ``path`` (at most ``limit`` bytes, default :data:`YAML_LIMIT`; a regular file); a
    syntax error, a duplicate key, deep nesting or an alias bomb raises ``error`` with file and
    line."""
    text = read_text(path, error, limit)
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"{path}, line {mark.line + 1}" if mark else str(path)
        problem = err.problem or err.context or "invalid YAML"
        raise error(f"{where}: {problem}; fix the file.") from err
    except yaml.YAMLError as err:
        raise error(f"{path}: invalid YAML ({err}); fix the file.") from err
    except RecursionError:
        raise error(f"{path}: nested too deeply; fix the file.") from None
