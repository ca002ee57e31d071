"""Atomic, clean output folders for the report and the leaderboard.

Everything is written to a temporary folder beside the destination and moved into place only
when all files are written: a failure leaves the previous good output untouched. The folder
then holds exactly the current files: a manifest (``coldbias_manifest.json``) lists them; files
an earlier coldbias output listed and the new one does not (stale plots) are removed; files
coldbias did not write are left alone, with a message. Problems with the path are one
:class:`~coldbias_tasks.core.errors.OutputError` line.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType

from coldbias_tasks.core.errors import OutputError

__all__ = ["MANIFEST", "OutputFolder"]

MANIFEST = "coldbias_manifest.json"


class OutputFolder:
    """``with OutputFolder(dest, "coldbias report") as tmp:`` write files into ``tmp``; on a
    clean exit they replace ``dest``'s previous coldbias files. ``messages`` collects notes
    (foreign files kept); ``files`` the final paths."""

    def __init__(self, dest: str | Path, generator: str) -> None:
        self.dest = Path(dest)
        self.generator = generator
        self.messages: list[str] = []
        self.files: list[Path] = []
        self._tmp: Path | None = None

    def __enter__(self) -> Path:
        if self.dest.exists() and not self.dest.is_dir():
            raise OutputError(f"{self.dest} is a file, not a folder; pass another --output.")
        parent = self.dest.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.dest.name}.", dir=parent))
        except OSError as err:
            raise OutputError(
                f"cannot write to {self.dest} ({err.strerror}); pass --output to a writable folder."
            ) from None
        return self._tmp

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        assert self._tmp is not None
        try:
            if kind is None:
                self._commit(self._tmp)
        except OSError as err:
            raise OutputError(
                f"cannot write to {self.dest} ({err.strerror}); pass --output to a writable folder."
            ) from None
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def _commit(self, tmp: Path) -> None:
        new = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
        (tmp / MANIFEST).write_text(
            json.dumps({"generated_by": self.generator, "files": new}, indent=1), encoding="utf-8"
        )
        if not self.dest.exists():
            tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it 0700, mkdir would not
            os.replace(tmp, self.dest)
        else:
            old = self._old_manifest()
            for rel in sorted(set(old) - set(new)):
                (self.dest / rel).unlink(missing_ok=True)
            for rel in [*new, MANIFEST]:
                target = self.dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(tmp / rel, target)
            keep = set(new) | set(old) | {MANIFEST}
            nested = [m.parent for m in self.dest.rglob(MANIFEST) if m.parent != self.dest]
            foreign = sorted(
                p.relative_to(self.dest).as_posix()
                for p in self.dest.rglob("*")
                if p.is_file()
                and p.relative_to(self.dest).as_posix() not in keep
                and not any(n in p.parents for n in nested)  # another coldbias output
            )
            if foreign:
                shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
                self.messages.append(
                    f"{self.dest} also holds {len(foreign)} file(s) coldbias did not write "
                    f"({shown}); left alone"
                )
        self.files = [self.dest / rel for rel in new]

    def _old_manifest(self) -> list[str]:
        path = self.dest / MANIFEST
        try:
            return list(json.loads(path.read_text(encoding="utf-8")).get("files", []))
        except (OSError, ValueError, AttributeError):
            return []


def _umask() -> int:
    """The process's umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
