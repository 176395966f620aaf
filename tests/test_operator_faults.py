"""Every failure an operator can cause is one sentence, never a traceback: hostile certificate
files under `envs` and `export`, a read-only proofs folder under `validate` (the report still
shown), a store that cannot be written under `rollout`, and what reaches the command line's
last net (a full disk, a read-only folder)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from proofgym.rollouts.proofs import ProofBook
from proofgym.rollouts.store import RolloutStore
from proofgym.wire.protocol import RunResult
from proofgym.wire.responses import build_response
from proofgym_stack.cli import app, operator_fault
from resources_servers.math.env import MathEnv


def invoke(args: list[str], seconds: float = 120.0) -> Result:
    """The command run in a thread: a hang fails the test instead of stalling it."""
    out: dict[str, Result] = {}
    worker = threading.Thread(
        target=lambda: out.setdefault("r", CliRunner().invoke(app, args)), daemon=True
    )
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"proofgym {' '.join(args)} still running after {seconds}s"
    return out["r"]


def hostile_proofs(root: Path) -> None:
    """A FIFO, a 10,000-deep nesting and a 1 GB file where certificates are read."""
    folder = root / "math"
    folder.mkdir(parents=True)
    os.mkfifo(folder / f"{MathEnv.version()}.json")  # the very file `is_proven` opens
    (folder / "deep.json").write_text("[" * 10_000 + "]" * 10_000)
    with (folder / "huge.json").open("wb") as out:
        out.truncate(1024**3)


def one_rollout(db: Path, version: str | None = None) -> None:
    store = RolloutStore(db)
    store.put(
        RunResult(
            rollout_id="r" * 20, task_id="t1", env="math", env_version=version, reward=1.0,
            response=build_response([], model="m"), num_steps=1,
            termination_reason="final_message",
        ),
        0,
    )  # fmt: skip
    store.close()


def no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output


def test_envs_and_export_neither_hang_nor_crash_on_hostile_certificates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proofs = tmp_path / "proofs"
    hostile_proofs(proofs)
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(proofs))
    shown = invoke(["envs"])
    no_traceback(shown)
    assert shown.exit_code == 0, shown.output
    math_row = next(line for line in shown.output.splitlines() if line.startswith("│ math"))
    assert "yes" not in math_row  # a FIFO proves nothing
    db = tmp_path / "runs.db"
    one_rollout(db, MathEnv.version())
    exported = invoke(["export", str(db), "--out", str(tmp_path / "out")])
    no_traceback(exported)
    assert exported.exit_code == 1 and "never passed `proofgym validate`" in exported.output


def test_validate_with_a_read_only_proofs_folder_shows_the_report_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path / "proofs"))
    monkeypatch.chdir(tmp_path)  # the findings folder too

    def read_only(self: ProofBook, env: str, version: str, *args: Any, **kw: Any) -> Path:
        raise OSError(errno.EROFS, "Read-only file system", str(self.root / env / version))

    monkeypatch.setattr(ProofBook, "certify", read_only)
    # on the main thread: validate installs a SIGTERM handler
    args = ["validate", "math", "--sample", "1", "--budget", "0", "--parallel", "8"]
    done = CliRunner().invoke(app, args)
    no_traceback(done)
    assert done.exit_code == 1, done.output
    assert "control:reference" in done.output  # the report is shown all the same
    text = " ".join(done.output.split())
    assert f"its proof certificate could not be written into {tmp_path / 'proofs'}" in text
    assert "the folder is read-only" in text and "make the folder writable" in text
    assert "PROOFGYM_PROOFS_DIR" in text


def test_a_store_that_cannot_be_opened_is_a_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("a file where the store's folder should be")
    tasks = Path(__file__).parents[1] / "tasks" / "math" / "example.jsonl"
    db = blocker / "rollouts.db"
    done = invoke(["rollout", str(tasks), "--db", str(db), "--agent-url", "http://127.0.0.1:9"])
    no_traceback(done)
    assert done.exit_code == 1, done.output
    text = " ".join(done.output.split())
    assert f"cannot write the rollout store {db}" in text
    assert "a part of its path is a file, not a folder" in text


def test_the_last_net_turns_disk_faults_into_sentences_and_leaves_bugs_alone() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "runs/export/rl.jsonl")
    assert operator_fault(full) == (
        "cannot use runs/export/rl.jsonl: the disk is full; free space, make it writable or "
        "name another path, and run the command again"
    )
    read_only = OSError(errno.EROFS, "Read-only file system", "/ro/x")
    assert "read-only" in (operator_fault(read_only) or "")
    assert operator_fault(KeyError("a bug")) is None
    assert operator_fault(OSError(errno.EBADF, "bad fd")) is None


def test_the_console_script_prints_the_sentence_not_a_traceback(tmp_path: Path) -> None:
    """The real process: `export` into a folder that is a file (ENOTDIR), exit 1."""
    db = tmp_path / "runs.db"
    one_rollout(db)
    (tmp_path / "out").write_text("a file")
    done = subprocess.run(
        [sys.executable, "-m", "proofgym_stack.cli", "export", str(db), "--allow-unproven",
         "--out", str(tmp_path / "out" / "deeper")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PROOFGYM_PROOFS_DIR": str(tmp_path / "proofs")},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "error: cannot use" in done.stderr and "not a folder" in done.stderr
