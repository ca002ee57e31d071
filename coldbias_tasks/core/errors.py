"""One exception hierarchy. Every message says what is wrong, where (file, row, key) and the fix.

Library functions raise these; only the command line (:mod:`coldbias_tasks.app.cli`) turns
them into exit codes. Each class also derives from the built-in type callers caught before
(``ValueError`` or ``KeyError``), so existing ``except`` clauses keep working.
"""

from __future__ import annotations

__all__ = [
    "CatalogError",
    "ColdbiasError",
    "ModelError",
    "OutputError",
    "PersonaError",
    "RecordError",
    "RunError",
    "SettingsError",
    "TemplateError",
]


class ColdbiasError(Exception):
    """Base class: a problem the user can fix; the message names it, where it is and the fix."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0]) if self.args else ""


class CatalogError(ColdbiasError, ValueError):
    """A catalog file that cannot be used (file, row, fix)."""


class PersonaError(ColdbiasError, KeyError):
    """A persona file, group or value that cannot be used (file, key, fix)."""


class SettingsError(ColdbiasError, ValueError):
    """A ``coldbias_*`` setting, task name or command-line value that cannot be used."""


class TemplateError(ColdbiasError, ValueError):
    """A prompt template that cannot be read, compiled or rendered (file, line, fix)."""


class RecordError(ColdbiasError, ValueError):
    """A document or parse payload that does not have the shape of :mod:`.records`."""


class RunError(ColdbiasError):
    """An lm-eval output folder or file that cannot be used (folder or file, fix)."""


class ModelError(ColdbiasError):
    """A bundled model that cannot be assembled or is unsuitable (what, fix)."""


class OutputError(ColdbiasError):
    """An output folder that cannot be written (path, fix)."""
