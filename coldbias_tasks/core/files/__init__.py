"""Bounded readers of the project's files (JSON lines, YAML)."""
