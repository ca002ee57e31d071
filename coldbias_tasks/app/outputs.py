"""Safe, all-or-nothing output folders for the report and the leaderboard.

Everything is written to a temporary folder beside the destination first. The folder then holds
exactly the current files: a manifest (``coldbias_manifest.json``) lists them; files an earlier
manifest listed and the new one does not (stale plots) are removed. Only files coldbias wrote
*inside* the folder are ever replaced or removed:

- manifest entries are plain relative paths whose folder resolves inside the destination (an
  absolute path, ``..`` or a symlinked folder leading out is ignored, with a message); a listed
  entry that is now a symlink or not a regular file is left alone;
- the root folder, the home folder (or a folder above it) are refused; so is a folder holding
  another command's output (a report folder as leaderboard output and vice versa) or an
  unreadable manifest;
- a file of the same name as a new one that no manifest lists (a user's own ``report.html``) is
  refused before anything is written, with the fix;
- the final step swaps whole folders when the destination holds only coldbias's files: the old
  folder is renamed aside and the new, complete one renamed into its place (two renames, so a
  kill leaves the old complete folder aside, never a mix, and the next start puts it back);
  a destination that also holds files coldbias did not write is swapped file by file instead,
  the previous files moved into a backup folder and the new ones in; any failure moves every
  old file back (the previous output stays as it was);
- every temporary folder holds a marker (``coldbias_scratch.json``: process, destination, role
  ``new``, ``old`` or ``backup``; the backup's also lists the files of the swap and whether it
  finished). On the next start, a marked folder of this destination whose process is gone is
  recovered: an old folder put aside goes back when the destination is missing, a backup of
  an unfinished swap moves every old file back, then the folder is removed; a marker left
  inside the destination itself is removed. A folder without the marker is never removed,
  whatever its name or age.

Files coldbias did not write are left alone, with a message. Problems with the path are one
:class:`~coldbias_tasks.core.errors.OutputError` line.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from types import TracebackType

from coldbias_tasks.core.errors import OutputError
from coldbias_tasks.core.files.jsonl import json_value

__all__ = ["MANIFEST", "SCRATCH_MARKER", "OutputFolder"]

MANIFEST = "coldbias_manifest.json"
#: The file inside every temporary folder coldbias makes beside a destination (what it is for).
SCRATCH_MARKER = "coldbias_scratch.json"
#: Largest manifest read (bytes); a bigger one is not coldbias's.
MANIFEST_LIMIT = 4_000_000
#: Entries walked when listing files coldbias did not write (a big folder is not walked whole).
WALK_LIMIT = 20_000


class OutputFolder:
    """``with OutputFolder(dest, "coldbias report") as tmp:`` write files into ``tmp``; on a
    clean exit they replace ``dest``'s previous coldbias files. ``messages`` collects notes
    (foreign files kept, manifest entries ignored); ``files`` the final paths."""

    def __init__(self, dest: str | Path, generator: str) -> None:
        self.dest = Path(dest).expanduser()
        self.generator = generator
        self.messages: list[str] = []
        self.files: list[Path] = []
        self._tmp: Path | None = None
        self._root = self.dest

    def __enter__(self) -> Path:
        self._root = self._checked_root()
        parent = self._root.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            _recover(parent, self._root)
            self._tmp = _scratch(self._root, "new")
        except OSError as err:
            raise self._unwritable(err) from None
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
            raise self._unwritable(err) from None
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)
        if isinstance(error, OSError):  # writing a file failed (a full disk): nothing replaced
            raise self._unwritable(error) from None

    def _unwritable(self, err: OSError) -> OutputError:
        return OutputError(
            f"cannot write to {self.dest} ({err.strerror}); nothing was changed there; pass "
            "--output to a writable folder."
        )

    def _checked_root(self) -> Path:
        """The resolved destination, refused when it is /, home or above, a file, or holds
        another command's output."""
        root = self.dest.resolve()
        try:
            home = Path.home().resolve()
        except (RuntimeError, KeyError):  # no home folder known: only the root is refused
            home = Path(root.anchor)
        if root == Path(root.anchor) or root == home or root in home.parents:
            raise OutputError(
                f"refusing to write coldbias output into {self.dest} (the root or home "
                "folder); pass --output to a folder of its own, e.g. "
                f"--output {self.dest / 'coldbias_out'}."
            )
        if root.exists() and not root.is_dir():
            raise OutputError(f"{self.dest} is a file, not a folder; pass another --output.")
        generator = self._manifest(root)[0]
        if generator is not None and generator != self.generator:
            raise OutputError(
                f"{self.dest} holds the output of {generator!r} (its {MANIFEST}), not of "
                f"{self.generator!r}; writing here would replace it. Pass another --output "
                "(one folder per command)."
            )
        return root

    def _manifest(self, root: Path) -> tuple[str | None, list[object]]:
        """``(generated_by, files)`` of ``root``'s manifest; ``(None, [])`` when there is none;
        an unreadable or foreign-looking manifest raises OutputError."""
        path = root / MANIFEST
        if not os.path.lexists(path):
            return None, []
        refuse = OutputError(
            f"{self.dest / MANIFEST} is not a manifest coldbias wrote (unreadable, not a "
            "regular file, or without generated_by and files); if the folder is yours "
            "delete that file, or pass another --output."
        )
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MANIFEST_LIMIT:
            raise refuse
        try:
            raw = json_value(path.read_text(encoding="utf-8"), OutputError, str(path), "")
        except (OSError, ValueError, OutputError):
            raise refuse from None
        if not (
            isinstance(raw, dict)
            and isinstance(raw.get("generated_by"), str)
            and isinstance(raw.get("files"), list)
        ):
            raise refuse
        return raw["generated_by"], raw["files"]

    def _owned(self, root: Path, entries: list[object]) -> set[str]:
        """The manifest entries that name a regular file inside ``root`` (others: a message)."""
        owned, ignored = set(), []
        for rel in entries:
            if isinstance(rel, str) and _inside(root, rel):
                path = root / rel
                if not os.path.lexists(path) or (path.is_file() and not path.is_symlink()):
                    owned.add(PurePosixPath(rel).as_posix())
                    continue
            ignored.append(repr(rel))
        if ignored:
            shown = ", ".join(ignored[:3]) + (", ..." if len(ignored) > 3 else "")
            self.messages.append(
                f"{self.dest / MANIFEST}: ignored {len(ignored)} entr(ies) that are not "
                f"regular files inside the folder ({shown}); nothing outside was touched"
            )
        return owned

    def _commit(self, tmp: Path) -> None:
        root = self._root
        files = (p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
        new = sorted(rel for rel in files if rel != SCRATCH_MARKER)
        (tmp / MANIFEST).write_text(
            json.dumps({"generated_by": self.generator, "files": new}, indent=1), encoding="utf-8"
        )
        if not root.exists():
            tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it 0700, mkdir would not
            (tmp / SCRATCH_MARKER).unlink()
            os.replace(tmp, root)
        else:
            old = self._owned(root, self._manifest(root)[1])
            self._refuse_collisions(root, new, old)
            if not self._foreign(root, old | {MANIFEST}):
                tmp.chmod(root.stat().st_mode & 0o7777)
                _swap_folders(tmp, root)
            else:
                stale = sorted(old - set(new) - {MANIFEST, SCRATCH_MARKER})
                _swap(tmp, root, [*new, MANIFEST], stale)
            self._note_foreign(root, set(new) | old | {MANIFEST})
        self.files = [self.dest / rel for rel in new]

    def _refuse_collisions(self, root: Path, new: list[str], old: set[str]) -> None:
        """Nothing is written when a new file would replace one no manifest lists, or would
        land outside ``root`` through a symlinked folder."""
        outside = [rel for rel in new if not _inside(root, rel)]
        if outside:
            raise OutputError(
                f"{self.dest}: {outside[0]} would be written outside the folder (a symlinked "
                "folder); remove the link or pass another --output. Nothing was written."
            )
        clash = [rel for rel in new if os.path.lexists(root / rel) and rel not in old]
        if clash:
            shown = ", ".join(clash[:5]) + (", ..." if len(clash) > 5 else "")
            raise OutputError(
                f"{self.dest} already holds {len(clash)} file(s) of the names coldbias writes "
                f"that it did not write ({shown}); move them away or pass another --output. "
                "Nothing was written."
            )

    def _note_foreign(self, root: Path, keep: set[str]) -> None:
        foreign = [rel for rel in self._foreign(root, keep) if not rel.endswith("/")]
        if foreign:
            shown = ", ".join(sorted(foreign)[:5]) + (", ..." if len(foreign) > 5 else "")
            self.messages.append(
                f"{self.dest} also holds {len(foreign)} file(s) coldbias did not write "
                f"({shown}); left alone"
            )

    def _foreign(self, root: Path, keep: set[str]) -> list[str]:
        """Files and folders under ``root`` that are not in ``keep`` (coldbias's), walked up
        to :data:`WALK_LIMIT` entries ("..." when there are more)."""
        foreign, seen = [], 0
        parents = {p.as_posix() for rel in keep for p in PurePosixPath(rel).parents}
        for folder, dirs, names in os.walk(root):  # does not follow symlinked folders
            here = Path(folder)
            if here != root and (here / MANIFEST).exists():
                dirs[:] = []  # another coldbias output
                continue
            for name in names:
                rel = (here / name).relative_to(root).as_posix()
                if rel not in keep:
                    foreign.append(rel)
            rels = [(here / d).relative_to(root).as_posix() for d in dirs]
            foreign += [rel + "/" for rel in rels if rel not in parents]
            seen += len(names) + len(dirs)
            if seen > WALK_LIMIT:
                foreign.append("...")
                break
        return foreign


def _inside(root: Path, rel: str) -> bool:
    """Whether ``rel`` is a plain relative path whose folder resolves inside ``root``."""
    pure = PurePosixPath(rel)
    if not rel or "\x00" in rel or pure.is_absolute() or ".." in pure.parts:
        return False
    folder = (root / pure).parent.resolve()
    return folder == root or root in folder.parents


def _place(src: Path, dst: Path) -> None:
    """Move one file into place (a separate function so a failure can be tested)."""
    os.replace(src, dst)


def _swap(tmp: Path, root: Path, new: list[str], stale: list[str]) -> None:
    """Move the old files of ``new`` and the ``stale`` ones into a backup folder beside ``root``
    and the new ones in; on any error restore every old file and re-raise. The backup's marker
    journals the swap, so that a killed swap is rolled back by the next start."""
    old = [rel for rel in [*new, *stale] if os.path.lexists(root / rel)]
    backup = _scratch(root, "backup", {"new": new, "stale": stale, "old": old, "done": False})
    done: list[tuple[Path, Path | None, bool]] = []  # (target, saved copy, new file placed)
    try:
        for rel, fresh in [*((r, True) for r in new), *((r, False) for r in stale)]:
            target, saved = root / rel, None
            if os.path.lexists(target):
                saved = backup / rel
                saved.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, saved)
            done.append((target, saved, False))
            if fresh:
                target.parent.mkdir(parents=True, exist_ok=True)
                _place(tmp / rel, target)
                done[-1] = (target, saved, True)
    except OSError:
        for target, saved, placed in reversed(done):
            if placed:
                target.unlink(missing_ok=True)
            if saved is not None:
                os.replace(saved, target)
        shutil.rmtree(backup, ignore_errors=True)
        raise
    _write_marker(backup, root, "backup", {"new": new, "stale": stale, "old": old, "done": True})
    shutil.rmtree(backup, ignore_errors=True)


def _step(name: str) -> None:
    """A point of the folder swap (a separate function so a kill there can be tested)."""


def _swap_folders(tmp: Path, root: Path) -> None:
    """Replace ``root`` by the complete folder ``tmp`` with two renames: ``root`` (marked
    ``old``) is renamed aside, ``tmp`` into its place; then the markers and the old folder go.
    A kill at any point leaves the old or the new complete folder, and :func:`_recover` puts
    the old one back when the destination is missing."""
    aside = Path(tempfile.mktemp(prefix=_prefix(root) + "old-", dir=root.parent))
    _write_marker(root, root, "old", {})
    _step("marked")
    try:
        os.rename(root, aside)
    except OSError:
        (root / SCRATCH_MARKER).unlink(missing_ok=True)
        raise
    _step("aside")
    try:
        _place(tmp, root)
    except OSError:
        os.rename(aside, root)
        (root / SCRATCH_MARKER).unlink(missing_ok=True)
        raise
    _step("placed")
    (root / SCRATCH_MARKER).unlink()
    _step("unmarked")
    _remove_marked(aside)


def _remove_marked(folder: Path) -> None:
    """Remove a marked scratch folder, its marker last (a kill midway leaves it marked)."""
    for entry in folder.iterdir():
        if entry.name == SCRATCH_MARKER:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    (folder / SCRATCH_MARKER).unlink(missing_ok=True)
    folder.rmdir()


def _prefix(root: Path) -> str:
    return f".{root.name}.{os.getpid()}."


def _write_marker(folder: Path, root: Path, role: str, journal: dict[str, object]) -> None:
    """Write ``folder``'s marker atomically (a kill leaves the old marker or the new one)."""
    text = json.dumps({"pid": os.getpid(), "dest": str(root), "role": role, **journal})
    part = folder / (SCRATCH_MARKER + ".part")
    with part.open("w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, folder / SCRATCH_MARKER)


def _scratch(root: Path, role: str, journal: dict[str, object] | None = None) -> Path:
    """A new temporary folder beside ``root`` holding coldbias' marker."""
    folder = Path(tempfile.mkdtemp(prefix=_prefix(root), dir=root.parent))
    _write_marker(folder, root, role, journal or {})
    return folder


def _marker(folder: Path, root: Path) -> dict | None:
    """The marker of a temporary folder coldbias made for ``root``, or None (not ours)."""
    path = folder / SCRATCH_MARKER
    try:
        if folder.is_symlink() or not folder.is_dir() or path.is_symlink() or not path.is_file():
            return None
        if path.stat().st_size > MANIFEST_LIMIT:
            return None
        raw = json_value(path.read_text(encoding="utf-8"), OutputError, str(path), "")
    except (OSError, ValueError, OutputError):
        return None
    if not isinstance(raw, dict) or raw.get("dest") != str(root):
        return None
    if not isinstance(raw.get("pid"), int) or raw.get("role") not in ("new", "old", "backup"):
        return None
    return raw


def _recover(parent: Path, root: Path) -> None:
    """Recover and remove the temporary folders of ``root`` (``.NAME.PID.*`` in ``parent``
    with coldbias' marker) whose process is gone: a backup of an unfinished swap first moves
    every old file back; an old folder put aside by a folder swap goes back when ``root`` is
    missing; a marker left inside ``root`` goes. Folders without the marker are never touched."""
    found = []
    for entry in sorted(parent.glob(f".{root.name}.*")):
        marker = _marker(entry, root)
        if marker is None or marker["pid"] == os.getpid() or _alive(marker["pid"]):
            continue
        found.append((entry, marker))
    for entry, marker in sorted(found, key=lambda f: f[1]["role"] != "old"):
        if marker["role"] == "old" and not os.path.lexists(root):
            os.rename(entry, root)
            continue
        if marker["role"] == "backup" and not marker.get("done"):
            _roll_back(entry, root, marker)
        shutil.rmtree(entry, ignore_errors=True)
    own = _marker(root, root)
    if own is not None and own["pid"] != os.getpid() and not _alive(own["pid"]):
        (root / SCRATCH_MARKER).unlink()


def _roll_back(backup: Path, root: Path, journal: dict) -> None:
    """Undo a killed swap: every old file of the journal moved back into ``root`` and every
    new file placed without an old one removed (only plain names inside ``root``)."""
    new, old = set(_names(journal.get("new"))), set(_names(journal.get("old")))
    for rel in sorted(new | old):
        if not _inside(root, rel):
            continue
        target, saved = root / rel, backup / rel
        if rel in old and os.path.lexists(saved):
            if os.path.lexists(target) and not target.is_dir():
                target.unlink()
            os.replace(saved, target)
        elif rel in new and rel not in old and target.is_file() and not target.is_symlink():
            target.unlink()


def _names(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _umask() -> int:
    """The process's umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
