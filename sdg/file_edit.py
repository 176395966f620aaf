"""file_edit tasks: a few config files, one value to set, everything else to keep."""

from __future__ import annotations

import random
from typing import Any

from resources_servers.file_edit.config import set_value, values_of
from sdg.rows import task_row

FILES = [
    "config/app.conf",
    "config/db.conf",
    "services/cache.conf",
    "services/queue.conf",
    "deploy/prod.conf",
    "deploy/staging.conf",
    "settings.conf",
]
KEYS = [
    "version",
    "timeout",
    "retries",
    "port",
    "workers",
    "log_level",
    "max_connections",
    "region",
    "replicas",
    "batch_size",
    "ttl",
    "mode",
]
WORDS = ["fast", "safe", "blue", "green", "eu-west", "us-east", "debug", "info", "strict", "lazy"]


def _value(rng: random.Random) -> str:
    return str(rng.randint(1, 9999)) if rng.random() < 0.6 else rng.choice(WORDS)


def _file(rng: random.Random, name: str) -> str:
    keys = rng.sample(KEYS, rng.randint(4, 7))
    lines = [f"# {name}"]
    for key in keys:
        lines.append(f"{key}{rng.choice([' = ', '=', ' =  '])}{_value(rng)}")
        if rng.random() < 0.2:
            lines.append("")
    return "\n".join(lines) + "\n"


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed. Each is checked: its goal changes exactly one
    line of one file."""
    rng = random.Random(seed)
    tasks = []
    for index in range(n):
        names = rng.sample(FILES, rng.randint(3, 5))
        files = {name: _file(rng, name) for name in names}
        path = rng.choice(names)
        key = rng.choice([k for k in KEYS if len(values_of(files[path], k)) == 1])
        old = values_of(files[path], key)[0]
        value = _value(rng)
        while value == old:
            value = _value(rng)
        edited = set_value(files[path], key, value)
        changed = [
            a for a, b in zip(edited.splitlines(), files[path].splitlines(), strict=True) if a != b
        ]
        assert len(changed) == 1, "a goal must change exactly one line"
        tasks.append(
            task_row(
                "file_edit",
                f"file_edit-{seed}-{index:04d}",
                split,
                f"In the file {path}, set {key} to {value}. "
                "Do not change anything else in the workspace.",
                {"files": files, "goal": {"path": path, "key": key, "value": value}},
            )
        )
    return tasks


def identity(row: dict[str, Any]) -> str:
    """The instance a row poses: the edit asked for (the files around it are scenery)."""
    goal = row["task_data"]["goal"]
    return f"{goal['path']}\0{goal['key']}\0{goal['value']}"
