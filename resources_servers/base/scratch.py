"""Private folders (and files) that do not outlive their process for long.

A folder or file is named `proofgym-<kind>-<pid>-<random>`. Making a new one first removes
those of the same kind whose process is gone: a server killed with SIGKILL cannot clean up after
itself, and orphaned session folders are the commonest leak of this kind of service.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(kind: str, parent: str | None = None) -> list[Path]:
    """Remove the `kind` folders and files under `parent` whose process is gone; return them."""
    base = Path(parent or tempfile.gettempdir())
    pattern = re.compile(rf"^proofgym-{re.escape(kind)}-(\d+)-")
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def private_dir(kind: str, parent: str | None = None) -> Path:
    """A new 0700 folder for this process, after sweeping the stale ones of its kind."""
    sweep(kind, parent)
    return Path(tempfile.mkdtemp(prefix=f"proofgym-{kind}-{os.getpid()}-", dir=parent))
