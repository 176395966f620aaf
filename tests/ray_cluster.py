"""A real multi-node Ray cluster on this machine, for the tests: one `ray start --head` and
`ray start --address` per further node, each raylet with its own resource name, all under one
temporary folder; a node is lost by killing its raylet and everything it started."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).parent / "ray")
NODE_ID = re.compile(r"--node_id=(\w+)")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def kill_tree(root: int) -> list[int]:
    """SIGKILL `root` and every process below it (a lost machine leaves nothing running)."""
    tree, order, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        order.append(pid)
        todo += tree.get(pid, [])
    for pid in order:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return order


@dataclass
class LocalCluster:
    """Ray nodes on 127.0.0.1; `address` is the head's GCS."""

    port: int
    temp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pgray-")))
    nodes: int = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """The environment of every process of this cluster and of its drivers: nothing read
        from the user's home (a `~/.ray/auth_token` another Ray run left makes worker joins
        fail unless head and workers agree on the auth mode), one auth mode for all, and no
        `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0` (Ray 2.60 panics on multi-node with it)."""
        home = self.temp / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
        return {
            **env,
            "HOME": str(home),
            "RAY_AUTH_MODE": "disabled",
            # a lost node is declared dead within seconds, not the default ~30
            "RAY_health_check_period_ms": "1000",
            "RAY_health_check_timeout_ms": "1000",
            "RAY_health_check_failure_threshold": "3",
            "RAY_USAGE_STATS_ENABLED": "0",
        }

    def add_node(self) -> None:
        """Start one more node (the head first), with a resource named after it."""
        common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats"]
        common += ["--object-store-memory", str(100 * 2**20)]  # the stack passes no objects
        common += ["--resources", json.dumps({f"node{self.nodes}": 1})]
        if self.nodes == 0:
            cmd = [RAY, "start", "--head", "--port", str(self.port), "--temp-dir", str(self.temp)]
            cmd += ["--include-dashboard", "false"]
        else:
            cmd = [RAY, "start", "--address", self.address]
        subprocess.run([*cmd, *common], check=True, capture_output=True, env=self.env())
        self.nodes += 1

    def raylets(self) -> dict[str, int]:
        """This cluster's raylets: node id -> process id."""
        found = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                line = _cmdline(int(entry.name))
                if "raylet/raylet" in line and str(self.temp) in line:
                    found.update({node: int(entry.name) for node in NODE_ID.findall(line)})
        return found

    def raylet(self, node_id: str) -> int:
        """The process id of the raylet of `node_id`."""
        try:
            return self.raylets()[node_id]
        except KeyError:
            raise LookupError(f"no raylet for node {node_id}") from None

    def lose_node(self, node_id: str) -> list[int]:
        """Kill the node's raylet and everything below it: workers, actors, services."""
        return kill_tree(self.raylet(node_id))

    def stop(self) -> None:
        """Kill every process of this cluster (found by its temporary folder) and below."""
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and str(self.temp) in _cmdline(int(entry.name)):
                kill_tree(int(entry.name))
        time.sleep(0.5)
