"""Task generation: deterministic by seed, valid tasks, and the shipped files match it."""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofgym.wire.protocol import Task
from sdg.sets import build_set

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "tasks" / "manifest.json").read_text())


@pytest.mark.parametrize("path", sorted(MANIFEST))
def test_shipped_task_files_are_what_their_seed_generates(path: str) -> None:
    entry = MANIFEST[path]
    text = (ROOT / "tasks" / path).read_text()
    assert hashlib.sha256(text.encode()).hexdigest() == entry["sha256"]
    module = importlib.import_module(f"sdg.{entry['env']}")
    rows, _ = build_set(entry["env"], module, entry["count"], entry["seed"], entry["split"])
    again = "".join(json.dumps(r) + "\n" for r in rows)
    assert again == text  # deterministic by seed
    tasks = [Task.model_validate_json(line) for line in text.splitlines()]
    assert len({t.task_id for t in tasks}) == len(tasks) == entry["count"]
    assert {t.env for t in tasks} == {entry["env"]}


@pytest.mark.parametrize(
    "env", ["file_edit", "code", "math", "workflow", "game", "letters", "support"]
)
def test_different_seeds_give_different_tasks(env: str) -> None:
    generate = importlib.import_module(f"sdg.{env}").generate
    assert generate(3, seed=1) != generate(3, seed=2)


def test_the_sdg_command(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    cmd = [sys.executable, "-m", "proofgym_stack.cli", "sdg"]
    ok = subprocess.run(
        [*cmd, "math", "--n", "3", "--seed", "9", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert len(out.read_text().splitlines()) == 3
    manifest = json.loads((tmp_path / "manifest.json").read_text())  # beside the file
    assert manifest["t.jsonl"]["count"] == 3
    bad = subprocess.run([*cmd, "nonexistent"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown environment" in bad.stderr
