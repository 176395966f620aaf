"""The commands a user types, as real processes: up, rollout (killed mid-run), demo."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from helpers import alive, count_rows, patience

from proofgym_stack.up import free_port

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tasks" / "file_edit" / "example.jsonl"
CLI = [sys.executable, "-m", "proofgym_stack.cli"]


@pytest.fixture
def services() -> Iterator[tuple[str, dict[str, int], subprocess.Popen[str], dict[str, int]]]:
    ports = {"agent": free_port(), "resources": free_port(), "model": free_port()}
    up = subprocess.Popen(
        [
            *CLI,
            "up",
            "--agent-port",
            str(ports["agent"]),
            "--resources-port",
            str(ports["resources"]),
            "--model-port",
            str(ports["model"]),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    pids: dict[str, int] = {}
    assert up.stdout is not None
    deadline = time.monotonic() + patience(60)
    for line in up.stdout:
        m = re.match(r"\s*(\w+)\s+http://\S+\s+pid (\d+)", line)
        if m:
            pids[m.group(1)] = int(m.group(2))
        if "ready" in line or time.monotonic() > deadline:
            break
    assert set(pids) == {"agent", "resources", "model"}, pids
    try:
        yield f"http://127.0.0.1:{ports['agent']}", pids, up, ports
    finally:
        if up.poll() is None:
            up.send_signal(signal.SIGTERM)
            up.wait(20)


def rollout(db: Path, agent: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *CLI,
            "rollout",
            str(EXAMPLES),
            "--db",
            str(db),
            "--agent-url",
            agent,
            "--policy",
            "reference",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_up_rollout_kill_and_resume(
    tmp_path: Path, services: tuple[str, dict[str, int], subprocess.Popen[str], dict[str, int]]
) -> None:
    agent, pids, up, ports = services
    # the options checked, `up` became the lean supervisor (tests/test_up.py): the same pid
    command = Path(f"/proc/{up.pid}/cmdline").read_bytes().split(b"\0")
    assert command[1:3] == [b"-m", b"proofgym_stack.supervisor"], command
    db = tmp_path / "runs.db"
    done = rollout(db, agent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1.000" in done.stdout and count_rows(db) == 8

    big = tmp_path / "big.db"
    run = subprocess.Popen(
        [
            *CLI,
            "rollout",
            str(EXAMPLES),
            "--db",
            str(big),
            "--agent-url",
            agent,
            "--policy",
            "reference",
            "--repeats",
            "100",
            "--concurrency",
            "8",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + patience(60)
    while count_rows(big) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(pids["resources"], signal.SIGKILL)  # a resources server dies mid-run
    out, _ = run.communicate(timeout=300)
    assert run.returncode == 1, out
    assert "run the same command again" in out
    masked = count_rows(big, "mask_sample = 1")
    assert masked >= 1
    kinds = (
        sqlite3.connect(big)
        .execute("select distinct failure_kind from rollouts where mask_sample = 1")
        .fetchall()
    )
    assert {k for (k,) in kinds} == {"resources_error"}

    # `proofgym up` restarts the dead service; a rerun completes what failed
    resources = f"http://127.0.0.1:{ports['resources']}"
    with httpx.Client() as client:
        for _ in range(200):
            try:
                if client.get(f"{resources}/health").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
    again = rollout(big, agent, "--repeats", "100", "--concurrency", "8")
    assert again.returncode == 0, again.stdout + again.stderr
    assert count_rows(big) == 800 and count_rows(big, "mask_sample = 1") == 0
    pairs = (
        sqlite3.connect(big)
        .execute("select count(distinct task_id || '#' || repeat) from rollouts")
        .fetchone()[0]
    )
    assert pairs == 800

    # Ctrl-C / SIGTERM on `up` stops every service: no orphans
    children = [pid for name, pid in pids.items() if name != "resources"]
    up.send_signal(signal.SIGTERM)
    up.wait(20)
    for pid in children:
        for _ in range(100):
            if not alive(pid):
                break
            time.sleep(0.05)
        assert not alive(pid), f"service {pid} outlived proofgym up"


def test_the_readme_run_command_prints_both_summaries(tmp_path: Path) -> None:
    # the real model's part is tests/test_real_model.py's (an import and minutes of CPU)
    done = subprocess.run(
        [*CLI, "demo", "--no-real-model"], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rewards = re.findall(r"mean reward\s+│\s+([\d.]+)", done.stdout)
    assert rewards[:2] == ["1.000", "0.000"], done.stdout
    trainable = re.findall(r"trainable\s+│\s+(\d+)", done.stdout)
    assert trainable == ["0", "0", "8"], done.stdout  # scripted: no tokens; tiny model: all
    # the stores it names stay, for `proofgym view`
    stores = sorted(p.name for p in tmp_path.glob("runs/demo-*/*.db"))
    assert stores == ["demo-noop_claim.db", "demo-reference.db", "demo-tiny-model.db"]
