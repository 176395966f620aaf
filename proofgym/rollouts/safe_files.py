"""Files proofgym reads back from its own folders, read as if hostile: certificates and the
temp files an interrupted write left.

Anyone who can write into a proofs folder can put there a FIFO (a plain `read_text` waits for
a writer forever), a device, a file of gigabytes, or JSON nested 10,000 deep (RecursionError,
not ValueError). `read_json_file` reads only a regular file, at most `max_bytes`, parsed with
the project's JSON limits, and refuses anything else with one `UnreadableFile` whose message
says which file and why. `sweep_stale_temps` removes the temp files of writes that were killed
before their rename (each certificate is written to `.proof-*.json`, then renamed): they are
never read, and without a sweep they stay forever.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path
from typing import Any

from proofgym.wire.jsonlimits import JSONTooDeep, JSONTooLarge, loads_limited

#: a certificate is a few hundred KB at most; a file past this is not one
MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
}


class UnreadableFile(ValueError):
    """A file that was refused: not a regular file, too large, too deep, not JSON, or not
    readable; the message is one sentence naming the file and why."""


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def read_bytes(path: Path | str, max_bytes: int = MAX_BYTES, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at `path` (a link to one is followed unless
    `follow_links` is False: a key must be the file itself), at most `max_bytes`;
    UnreadableFile for anything else. Never blocks on a FIFO or device."""
    where = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer
        fd = os.open(where, flags)
    except OSError as exc:
        raise UnreadableFile(f"{where}: cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{where}: {_kind(info.st_mode)}, not a regular file: refused")
        if info.st_size > max_bytes:
            raise UnreadableFile(
                f"{where}: {info.st_size} bytes, over the limit of {max_bytes}: refused"
            )
        chunks, total = [], 0
        while total <= max_bytes:  # the size can grow after fstat: count what is read
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise UnreadableFile(f"{where}: over the limit of {max_bytes} bytes: refused")
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(f"{where}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


def read_json_file(path: Path | str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in the regular file at `path`, at most `max_bytes` long and `max_depth`
    deep; UnreadableFile (a ValueError) with the reason for anything else."""
    raw = read_bytes(path, max_bytes)
    try:
        return loads_limited(raw, max_depth=max_depth, max_bytes=max_bytes)
    except JSONTooDeep:
        raise UnreadableFile(
            f"{path}: JSON nested deeper than {max_depth} levels: refused"
        ) from None
    except JSONTooLarge:
        raise UnreadableFile(f"{path}: over the limit of {max_bytes} bytes: refused") from None
    except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise UnreadableFile(f"{path}: not JSON ({str(exc)[:120]}): refused") from None


def sweep_stale_temps(
    directory: Path | str, prefix: str, older_than_s: float, *, levels: int = 0
) -> list[Path]:
    """Remove the regular files named `prefix*` in `directory` (and in its folders, `levels`
    deep) last written more than `older_than_s` ago: temp files of writes that were killed.
    Younger ones may be a write in progress and stay. What cannot be removed (a read-only
    folder) stays too: a sweep never fails its caller. Returns what was removed."""
    removed: list[Path] = []
    now = time.time()
    folders, seen = [Path(directory)], 0
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if seen < 10_000 and _depth(Path(entry.path), Path(directory)) <= levels:
                        folders.append(Path(entry.path))
                        seen += 1
                    continue
                if not entry.name.startswith(prefix) or not entry.is_file(follow_symlinks=False):
                    continue
                if now - entry.stat(follow_symlinks=False).st_mtime <= older_than_s:
                    continue
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                continue
    return removed


def _depth(path: Path, root: Path) -> int:
    return len(path.relative_to(root).parts)


def why_not_written(exc: OSError) -> str:
    """Why a write into a folder failed, as the end of a sentence an operator acts on."""
    code = exc.errno
    if code == errno.EROFS:
        return "the folder is read-only (a read-only mount)"
    if code in (errno.EACCES, errno.EPERM):
        return "the folder is read-only for this user (permission denied)"
    if code in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if code in (errno.ENOTDIR, errno.EEXIST):
        return "a part of its path is a file, not a folder"
    return exc.strerror or str(exc)
