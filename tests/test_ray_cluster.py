"""proofgym on a real multi-node Ray cluster (three raylets on this machine).

The services run as Ray actors (`proofgym up --ray`, and `RayStack` from a process already
connected to the cluster); the resources replicas land on three nodes; the agent learns them
from Ray; every rollout is scored. One node is lost in the middle of a second collection: only
that node's sessions are masked, its replica comes back on another node, and a rerun
completes every rollout.

CI collects 100 repeats of the 8 tasks (800 rollouts) a pass, the node lost once a fifth have
finished; `PROOFGYM_RAY_REPEATS=250` is the 2,000-rollout run of `bench/RAY_RUN.txt`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import requests_served
from ray_cluster import LocalCluster

from agent_server.replicas import TTL_S
from proofgym_stack.up import free_port

ROOT = Path(__file__).resolve().parents[1]
PROOFGYM = str(Path(sys.executable).parent / "proofgym")
TASKS = ROOT / "tasks" / "file_edit" / "example.jsonl"
#: every test here on one pytest-xdist worker, in this file's order (`make unit` runs with
#: `--dist loadgroup`): the first proves `up --ray auto` finds no cluster, and Ray's "auto" finds
#: any cluster running on the machine, so no other worker may have this module's cluster up
pytestmark = pytest.mark.xdist_group("ray_cluster")

#: repeats of each of the 8 tasks a collection makes
REPEATS = int(os.environ.get("PROOFGYM_RAY_REPEATS", "100"))
ROLLOUTS = 8 * REPEATS
#: rollouts finished before a node is lost: the collection is well under way, far from done
LOST_AFTER = ROLLOUTS // 5


def test_up_ray_without_a_cluster_is_a_clear_error_at_once(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    # "auto" finds a cluster running on this machine (Ray looks for its processes): this test
    # runs before the module's cluster starts
    env = {**os.environ, "RAY_TMPDIR": str(tmp_path)}
    env.pop("RAY_ADDRESS", None)
    for address, said in ((f"127.0.0.1:{port}", "no Ray cluster answers"), ("auto", "cannot join")):
        done = subprocess.run(
            # importing Ray alone takes tens of seconds on a loaded 2-core machine: the limit
            # is there to catch a hang, not to time the error
            [PROOFGYM, "up", "--ray", address],
            capture_output=True,
            text=True,
            timeout=180,
            env=env,
        )
        assert done.returncode == 1
        assert said in done.stdout + done.stderr, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    nodes = LocalCluster(port=free_port())
    try:
        for _ in range(3):
            nodes.add_node()
        yield nodes
    finally:
        nodes.stop()


PYTHON_API = """
import asyncio, json, sys
from pathlib import Path
import ray
from proofgym.rollouts.collect import collect, load_tasks
from proofgym.clients.http import ServiceClient
from proofgym.serving.settings import CollectorSettings
from proofgym.rollouts.store import RolloutStore
from proofgym_stack.ray_stack import RayStack

ray.init(address=sys.argv[1], log_to_driver=False)  # a trainer's process, already connected
with RayStack(replicas=3, agent_port=int(sys.argv[2])).running() as stack:
    where = stack.where()
    try:  # a second stack in the same namespace is refused, and leaves the first alone
        RayStack(replicas=1, namespace=stack.namespace, agent_port=int(sys.argv[5])).start(30)
        clash = "started"
    except RuntimeError as exc:
        clash = str(exc)
    tasks = load_tasks(Path(sys.argv[3]))
    client = ServiceClient(CollectorSettings(), token=stack.token)

    async def main():
        try:
            return await collect(tasks, agent_url=stack.agent_url, store=RolloutStore(sys.argv[4]),
                                 client=client, repeats=int(sys.argv[6]), concurrency=64,
                                 control="reference")
        finally:
            await client.aclose()

    summary = asyncio.run(main())
print(json.dumps({"where": where, "stored": summary.stored, "passed": summary.passed,
                  "masked": sum(summary.failures.values()), "still": ray.is_initialized(),
                  "clash": clash}))
"""


def test_python_api_from_a_process_already_on_the_cluster(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    db = tmp_path / "api.db"
    args = [cluster.address, str(free_port()), str(TASKS), str(db), str(free_port()), str(REPEATS)]
    done = subprocess.run(
        [sys.executable, "-c", PYTHON_API, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=cluster.env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    resources = {k: v for k, v in out["where"].items() if k.startswith("resources-")}
    assert len(resources) == 3
    # every service serves on the address its node was started with: loopback, never the
    # machine's network address (what Ray 2.60's get_node_ip_address answers in an actor)
    assert all(v["url"].startswith("http://127.0.0.1:") for v in out["where"].values()), out
    assert len({v["node"] for v in resources.values()}) == 3  # one replica per node
    assert out["where"]["agent"]["node"] in {v["node"] for v in resources.values()}
    assert out["stored"] == ROLLOUTS and out["passed"] == ROLLOUTS and out["masked"] == 0
    # the stack used the caller's connection and left it open for the caller
    assert out["still"] is True
    assert "did not start" in out["clash"] and "resources-0" in out["clash"], out["clash"]


class Up:
    """`proofgym up --ray` in the background, its printed lines collected."""

    def __init__(self, cluster: LocalCluster, port: int) -> None:
        self.lines: list[str] = []
        env = {k: v for k, v in cluster.env().items() if k != "PROOFGYM_TOKEN"}
        env["COLUMNS"] = "200"
        cmd = [PROOFGYM, "up", "--ray", cluster.address, "--resources-replicas", "3"]
        cmd += ["--agent-port", str(port)]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            for line in self.lines[seen:]:
                seen += 1
                if m := re.search(pattern, line):
                    return m
            if self.proc.poll() is not None and seen == len(self.lines):
                break
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern!r}:\n" + "\n".join(self.lines))

    def placement(self) -> dict[str, tuple[str, str]]:
        """The last printed URL and node of each service."""
        found = {}
        for line in self.lines:
            if m := re.match(r"\s*([\w-]+)\s+(http://\S+)\s+node (\w+)", line):
                found[m.group(1)] = (m.group(2), m.group(3))
        return found


def rollout(agent_url: str, token: str, db: Path) -> subprocess.Popen[str]:
    cmd = [PROOFGYM, "rollout", str(TASKS), "--db", str(db), "--agent-url", agent_url]
    cmd += ["--repeats", str(REPEATS), "--concurrency", "64", "--policy", "reference"]
    env = {**os.environ, "PROOFGYM_TOKEN": token, "COLUMNS": "200"}
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def test_up_ray_survives_the_loss_of_a_node(cluster: LocalCluster, tmp_path: Path) -> None:
    up = Up(cluster, free_port())
    try:
        token = up.wait_for(r"export PROOFGYM_TOKEN=(\w+)", 180).group(1)
        placed = up.placement()
        assert all(url.startswith("http://127.0.0.1:") for url, _ in placed.values()), placed
        agent_url, agent_node = placed["agent"]
        replicas = {k: v for k, v in placed.items() if k.startswith("resources-")}
        assert len({node for _, node in replicas.values()}) == 3, placed
        # lose a node that holds a replica and neither the agent nor the model interface
        victim, (lost_url, lost_node) = next(
            (k, v) for k, v in sorted(replicas.items()) if v[1] != agent_node
        )
        db = tmp_path / "ray.db"
        job = rollout(agent_url, token, db)
        while requests_served(agent_url, "/run", token) < LOST_AFTER and job.poll() is None:
            time.sleep(0.05)
        assert job.poll() is None, "the collection ended before the node was lost"
        # the printed id is a prefix of the node's
        lost_node_id = next(n for n in cluster.raylets() if n.startswith(lost_node))
        killed = cluster.lose_node(lost_node_id)
        lost_at = time.monotonic()
        assert len(killed) > 1
        first, _ = job.communicate(timeout=600)
        rows = _rows(db)
        masked = [r for r in rows if r["mask_sample"]]
        kept = [r for r in rows if not r["mask_sample"]]
        assert masked, "the node's loss masked nothing: the check proves nothing\n" + first
        # only that node's sessions: every masked rollout failed at the lost replica
        lost = lost_url.removeprefix("http://")
        for row in masked:
            assert row["failure_kind"] == "resources_error", row
            assert lost in row["failure_reason"], row
        assert all(r["reward"] == 1.0 for r in kept)
        assert len(kept) >= LOST_AFTER
        # the replica is started again on a surviving node, and new sessions use it
        m = up.wait_for(rf"{victim}\s+(http://\S+)\s+node (\w+).*restarted", 120)
        new_url, new_node = m.group(1), m.group(2)
        back_after = time.monotonic() - lost_at
        assert new_node != lost_node and new_url != lost_url
        # the agent trusts its replica list for TTL_S: past that, its next lookup lists the
        # restarted replica (a rerun started at once may still route around it)
        time.sleep(TTL_S + 1)
        again = rollout(agent_url, token, db)
        out, _ = again.communicate(timeout=600)
        assert again.returncode == 0, out
        rows = _rows(db)
        assert len(rows) == ROLLOUTS
        assert all(not r["mask_sample"] and r["reward"] == 1.0 for r in rows)
        sessions = requests_served(new_url, "/{env}/seed_session", token)
        assert sessions > 0, "the new replica got no session"
        print(  # what `pytest -s` shows: the numbers of bench/RAY_RUN.txt
            f"\n{ROLLOUTS:,} rollouts over 3 replicas on 3 nodes; node {lost_node} lost once "
            f"{LOST_AFTER} had "
            f"finished; the first pass stored {len(kept) + len(masked)}: {len(masked)} masked "
            f"(all resources_error at the lost replica {lost}), {len(kept)} scored 1.0; "
            f"{victim} back on node {new_node} {back_after:.1f}s after the loss; the rerun "
            f"stored {len(masked)}: all {ROLLOUTS:,} scored 1.0, {sessions} sessions on the "
            "restarted replica"
        )
        # SIGTERM to `up`: every service of the stack stops (their actors belong to it)
        up.proc.terminate()
        assert up.proc.wait(60) == 0
        urls = [agent_url, new_url, *(u for k, (u, _) in up.placement().items() if k != victim)]
        for url in urls:
            with pytest.raises(OSError):
                urllib.request.urlopen(f"{url}/health", timeout=5)
    finally:
        if up.proc.poll() is None:
            up.proc.terminate()
            up.proc.wait(60)


def _rows(db: Path) -> list[dict[str, object]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [
            {
                "mask_sample": r["mask_sample"],
                "reward": r["reward"],
                **{k: json.loads(r["record"]).get(k) for k in ("failure_kind", "failure_reason")},
            }
            for r in conn.execute("select * from rollouts")
        ]
    finally:
        conn.close()


def test_services_keep_to_loopback_only_when_every_node_is_this_machine() -> None:
    from proofgym_stack.ray_stack import loopback_if_one_machine

    one = [{"NodeID": n, "NodeManagerAddress": "192.0.2.2"} for n in ("a", "b", "c")]
    assert loopback_if_one_machine(one, "a") == "127.0.0.1"
    two = [*one, {"NodeID": "d", "NodeManagerAddress": "192.0.2.9"}]
    assert loopback_if_one_machine(two, "a") is None  # another machine: nodes' own addresses
