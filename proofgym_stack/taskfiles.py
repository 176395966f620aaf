"""Writing generated task files and the manifest beside them."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from proofgym.wire.protocol import Task


def write_task_file(
    rows: list[dict[str, Any]],
    *,
    env: str,
    env_version: str,
    split: str,
    seed: int,
    target: Path,
    root: Path,
    extra: dict[str, Any] | None = None,
) -> int:
    """Write `rows` to `target` atomically and record them in `root/manifest.json` (counts,
    seed, content hash, environment version, and `extra`); the number of tasks written.
    Every row must be a valid task (ValidationError otherwise, before anything is written)."""
    tasks = [Task.model_validate(r) for r in rows]
    target.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in rows)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, target)  # a crash never leaves half a file
    manifest_path = root / "manifest.json"  # beside the task files, never in the source tree
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest[str(target.relative_to(root))] = {
        "env": env,
        "split": split,
        "count": len(tasks),
        "seed": seed,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "env_version": env_version,
        **(extra or {}),
    }
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return len(tasks)
