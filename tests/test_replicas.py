"""Scale-out: several resources replicas, each session sticky to one."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import count_rows, patience, requests_served

from agent_server.replicas import ReplicaSet, resolve_all, sticky
from proofgym_stack.up import free_port

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tasks" / "file_edit" / "example.jsonl"
CLI = [sys.executable, "-m", "proofgym_stack.cli"]


async def test_dns_names_expand_to_one_replica_per_address() -> None:
    answers = {"resources": ["10.0.0.3", "10.0.0.1", "fd00::2"]}
    calls = []

    async def fake(host: str, port: int) -> list[str]:
        calls.append(host)
        return answers[host]

    rs = ReplicaSet(["dns+http://resources:8001", "http://fixed:9000/"], resolver=fake, ttl_s=60)
    assert await rs.urls() == [
        "http://10.0.0.1:8001",
        "http://10.0.0.3:8001",
        "http://[fd00::2]:8001",
        "http://fixed:9000",
    ]
    picks = {await rs.pick(f"session-{i:012d}") for i in range(200)}
    assert len(picks) == 4  # spread over every replica
    first = await rs.pick("session-stable-0001")
    assert all([await rs.pick("session-stable-0001") == first for _ in range(5)])  # sticky
    assert calls == ["resources"]  # cached for ttl_s


async def test_a_dns_failure_keeps_the_last_known_replicas() -> None:
    state = {"fail": False}

    async def flaky(host: str, port: int) -> list[str]:
        if state["fail"]:
            raise OSError("no such host")
        return ["10.0.0.1"]

    rs = ReplicaSet(["dns+http://resources:8001"], resolver=flaky, ttl_s=0)
    assert await rs.urls() == ["http://10.0.0.1:8001"]
    state["fail"] = True
    assert await rs.urls() == ["http://10.0.0.1:8001"]


async def test_ray_actor_urls_expand_to_the_live_replicas_ray_reports() -> None:
    live = {"now": ["http://10.0.0.2:4100", "http://10.0.0.1:4200"], "fail": False}
    asked = []

    async def ray(url: str) -> list[str]:
        asked.append(url)
        if live["fail"]:
            raise ConnectionError("GCS unreachable")
        return live["now"]

    url = "ray-actors://10.0.0.1:6379/proofgym-ab12/resources"
    rs = ReplicaSet([url], ray=ray, ttl_s=0)
    assert await rs.urls() == ["http://10.0.0.1:4200", "http://10.0.0.2:4100"]
    live["now"] = ["http://10.0.0.3:4300", "http://10.0.0.1:4200"]  # one restarted elsewhere
    assert await rs.urls() == ["http://10.0.0.1:4200", "http://10.0.0.3:4300"]
    live["fail"] = True  # Ray unreachable for a moment: the last known replicas stay
    assert await rs.urls() == ["http://10.0.0.1:4200", "http://10.0.0.3:4300"]
    assert asked == [url] * 3
    # a replica that refused a connection is left out until the next lookup, never the last
    rs.ttl_s = 60
    assert rs.forget("http://10.0.0.3:4300") is True
    assert await rs.urls() == ["http://10.0.0.1:4200"]
    assert rs.forget("http://10.0.0.1:4200") is False


def test_a_malformed_ray_actor_url_fails_at_start() -> None:
    for bad in ("ray-actors://10.0.0.1:6379/resources", "ray-actors://host:1//resources"):
        with pytest.raises(ValueError, match="GCS_HOST:PORT/NAMESPACE/GROUP"):
            ReplicaSet([bad])


async def test_the_real_resolver_resolves_localhost() -> None:
    assert "127.0.0.1" in await resolve_all("localhost", 80)


def test_up_with_three_replicas_spreads_sessions_and_survives_a_kill(tmp_path: Path) -> None:
    agent_port = free_port()
    up = subprocess.Popen(
        [
            *CLI,
            "up",
            "--agent-port",
            str(agent_port),
            "--resources-port",
            str(free_port()),
            "--model-port",
            str(free_port()),
            "--resources-replicas",
            "3",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        replicas: list[tuple[str, int]] = []
        assert up.stdout is not None
        for line in up.stdout:
            m = re.match(r"\s*resources\s+(http://\S+)\s+pid (\d+)", line)
            if m:
                replicas.append((m.group(1), int(m.group(2))))
            if "ready" in line:
                break
        assert len(replicas) == 3
        agent = f"http://127.0.0.1:{agent_port}"
        db = tmp_path / "runs.db"
        args = [
            *CLI,
            "rollout",
            str(EXAMPLES),
            "--db",
            str(db),
            "--agent-url",
            agent,
            "--policy",
            "reference",
            "--repeats",
            "10",
            "--concurrency",
            "8",
        ]
        first = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stdout + first.stderr
        seeds = [requests_served(url, "/{env}/seed_session") for url, _ in replicas]
        assert all(s > 0 for s in seeds), seeds  # every replica got sessions
        assert sum(seeds) == 80

        args[args.index("--repeats") + 1] = "60"
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + patience(60)
        while count_rows(db) < 120 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(replicas[1][1], signal.SIGKILL)  # one replica dies mid-run
        run.communicate(timeout=300)
        urls = sorted(url for url, _ in replicas)
        with sqlite3.connect(db) as conn:
            masked = conn.execute(
                "select rollout_id, failure_kind from rollouts where mask_sample = 1"
            ).fetchall()
            assert (
                conn.execute("select count(*) from rollouts where mask_sample = 0").fetchone()[0]
                > 80
            )  # the other replicas went on
        # only the dead replica's sessions failed, and as resources_error
        assert all(sticky(urls, rid) == replicas[1][0] for rid, _ in masked), masked
        assert {kind for _, kind in masked} <= {"resources_error"}
        again = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stdout + again.stderr
        with sqlite3.connect(db) as conn:
            assert conn.execute("select count(*) from rollouts").fetchone()[0] == 480
            assert (
                conn.execute("select count(*) from rollouts where mask_sample = 1").fetchone()[0]
                == 0
            )
        assert up.poll() is None  # the stack survived
    finally:
        up.send_signal(signal.SIGTERM)
        up.wait(20)
    assert "died; restarted it" in (up.stdout.read() if up.stdout else "")
