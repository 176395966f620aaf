"""compose.yaml started for real on a Docker engine (`make test-engine`, opt-in; not in CI).

    .venv/bin/python tests/engine/run.py

What it does, printing one line per check and a closing `N passed, N failed` (exit 1 when any
check failed):

1. the engine: Debian's `docker.io` installed when `docker` is missing (root, apt), `dockerd`
   started when none answers;
2. a base image built locally when there is none (no registry is needed): `debootstrap
   bookworm` with Python 3.11, pip and bubblewrap, `docker import`ed as proofgym-base:bookworm;
3. `docker compose build` on it (the host's CA bundle passed as the build's `ca` secret when
   the host has one, for a TLS-intercepting proxy) and `docker compose up --wait` with a token;
4. every example environment collected through the agent with the reference control (`code`
   included: its bubblewrap sandbox inside the container): every rollout passes; and `code`
   with the no-op control: every rollout scores 0 (collections run with `--no-deps`, so
   `compose run` leaves the services as they are, scaled ones included);
5. resources scaled to 3: sessions spread over the replicas; one replica killed during a
   collection: only its sessions are masked (`resources_error`), the rerun completes them all;
6. `docker compose down -v`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from helpers import requests_served  # noqa: E402

COMPOSE = str(ROOT / ".venv" / "bin" / "docker-compose")
BASE = "proofgym-base:bookworm"
RESULTS: list[tuple[str, bool, str]] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check(name: str, ok: bool, detail: str = "") -> None:
    RESULTS.append((name, ok, detail))
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}"[:400], flush=True)


def run(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 900) -> str:
    """Run `cmd`; its output (stdout and stderr); RuntimeError naming it when it fails."""
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    out = done.stdout + done.stderr
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} exited {done.returncode}: {out[-2000:]}")
    return out


def engine() -> None:
    if shutil.which("docker") is None or shutil.which("dockerd") is None:
        if os.geteuid() != 0:
            raise RuntimeError("no Docker engine, and installing docker.io needs root")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "docker.io", "debootstrap"])
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        log = open("/tmp/proofgym-dockerd.log", "ab")  # noqa: SIM115 - the daemon keeps it
        subprocess.Popen(["dockerd"], stdout=log, stderr=log, start_new_session=True)
        for _ in range(60):
            if subprocess.run(["docker", "info"], capture_output=True).returncode == 0:
                break
            time.sleep(1)
    info = run(["docker", "info", "--format", "{{.ServerVersion}}"])
    check("engine", True, f"dockerd {info.strip()}")


def base_image() -> None:
    if subprocess.run(["docker", "image", "inspect", BASE], capture_output=True).returncode == 0:
        check("base image", True, f"{BASE} (already built)")
        return
    if shutil.which("debootstrap") is None:
        run(["apt-get", "install", "-y", "-qq", "debootstrap"])
    with tempfile.TemporaryDirectory(prefix="proofgym-rootfs-") as tmp:
        rootfs = Path(tmp) / "bookworm"
        packages = "python3,python3-pip,python-is-python3,bubblewrap,ca-certificates"
        run(["debootstrap", "--variant=minbase", f"--include={packages}", "bookworm",
             str(rootfs), "http://deb.debian.org/debian"], timeout=1800)  # fmt: skip
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for path in (rootfs / junk).glob("*"):
                if path.is_file():
                    path.unlink()
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        # Debian's pip refuses the system interpreter by default (PEP 668); the image is ours
        subprocess.run(
            ["docker", "import", "--change", "ENV PIP_BREAK_SYSTEM_PACKAGES=1",
             "--change", 'CMD ["/bin/bash"]', "-", BASE],
            stdin=tar.stdout, check=True, capture_output=True,
        )  # fmt: skip
        tar.wait()
    check("base image", True, f"{BASE} from debootstrap bookworm")


def rollout(compose: list[str], tasks: str, db: str, *args: str) -> list[str]:
    """`proofgym rollout` in a one-off container of the compose file's `rollout` service,
    leaving the running services as they are (`--no-deps`: scaled ones stay scaled)."""
    return [*compose, "--profile", "collect", "run", "--rm", "--no-deps", "rollout", "rollout",
            tasks, "--db", db, "--agent-url", "http://agent:8000", *args]  # fmt: skip


def finished_runs(env: dict[str, str]) -> int:
    """How many `/run` requests the agent has answered (its /metrics, on the published port)."""
    return requests_served(f"http://127.0.0.1:{env['AGENT_PORT']}", "/run", env["PROOFGYM_TOKEN"])


def dockerd_nofile() -> int:
    """The open-files limit a container may get: what dockerd itself has, up to 65536."""
    pid = run(["pgrep", "-o", "-x", "dockerd"]).split()[0]
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return min(65536, int(line.split()[4]))
    return 65536


def stores(out: str) -> dict[str, str]:
    """The summary table's rows as {label: value}."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"[│|]\s*([a-z ()]+?)\s*[│|]\s*(.+?)\s*[│|]", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def main() -> int:
    engine()
    base_image()
    env = {
        **os.environ,
        "PROOFGYM_TOKEN": secrets.token_hex(16),
        "BASE_IMAGE": BASE,
        "NOFILE": str(dockerd_nofile()),
        "COMPOSE_PROJECT_NAME": "proofgym-engine-test",
        "AGENT_PORT": str(free_port()),
    }
    bundle = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if bundle and Path(bundle).is_file():
        env["CA_BUNDLE"] = bundle
    compose = [COMPOSE]
    down = [COMPOSE, "--profile", "collect", "down", "-v", "--remove-orphans"]
    subprocess.run(down, env=env, capture_output=True, cwd=ROOT)  # a stopped run's leftovers
    start = time.monotonic()
    out = run([*compose, "build"], env, timeout=1800)
    check("compose build", "Built" in out or "FINISHED" in out, f"{time.monotonic() - start:.0f}s")
    try:
        start = time.monotonic()
        out = run([*compose, "up", "--wait"], env)
        check("compose up --wait", "Healthy" in out, f"{time.monotonic() - start:.0f}s")
        examples = sorted(p.parent.name for p in (ROOT / "tasks").glob("*/example.jsonl"))
        for name in examples:
            tasks = f"/tasks/{name}/example.jsonl"
            out = run(rollout(compose, tasks, f"/runs/{name}.db", "--policy", "reference"), env)
            rows = stores(out)
            # every rollout passes (a game's reward is its score, not 1)
            ok = rows.get("pass rate") == "100.0%" and rows.get("masked failures") == "none"
            check(f"collect {name} (reference)", ok, json.dumps(rows))
        code = "/tasks/code/example.jsonl"
        out = run(rollout(compose, code, "/runs/code-noop.db", "--policy", "noop_claim"), env)
        rows = stores(out)
        check("collect code (noop_claim scores 0)", rows.get("mean reward") == "0.000", str(rows))
        scale(compose, env)
    finally:
        subprocess.run(down, env=env, capture_output=True, cwd=ROOT)
    failed = sum(1 for _, ok, _ in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def scale(compose: list[str], env: dict[str, str]) -> None:
    run([*compose, "up", "--wait", "--scale", "resources=3"], env)
    replicas = [
        line.split()[0]
        for line in run(["docker", "ps", "--format", "{{.Names}} {{.Status}}"]).splitlines()
        if "resources" in line and "healthy" in line
    ]
    check("scale resources to 3", len(replicas) == 3, " ".join(replicas))
    tasks = "/tasks/file_edit/example.jsonl"
    many = ("--repeats", "80", "--concurrency", "16", "--policy", "reference")
    collect = rollout(compose, tasks, "/runs/scaled.db", *many)
    job = subprocess.Popen(collect, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                           stderr=subprocess.STDOUT)  # fmt: skip
    # kill a replica once the collection is under way (a tenth of it done), not on a timer
    started = finished_runs(env)
    while finished_runs(env) - started < 64 and job.poll() is None:
        time.sleep(0.1)
    run(["docker", "kill", replicas[1]])
    first, _ = job.communicate(timeout=900)
    rows = stores(first)
    masked = rows.get("masked failures", "")
    stored = int(rows.get("stored now", "0") or 0)
    kinds = set(re.findall(r"(\w+):", masked))
    check("a replica killed mid-run: what is masked is resources_error only",
          kinds == {"resources_error"} and stored > 0,
          f"stored {stored}, masked: {masked}")  # fmt: skip
    # bring the service back to 3 replicas, as an operator would
    run([*compose, "up", "--wait", "--scale", "resources=3"], env)
    again = stores(run(collect, env))
    count = run([*compose, "--profile", "collect", "run", "--rm", "--no-deps",
                 "--entrypoint", "python", "rollout",
                 "-c", "import sqlite3; c = sqlite3.connect('/runs/scaled.db'); "
                 "print(c.execute('select count(*), sum(mask_sample), min(reward) "
                 "from rollouts').fetchone())"], env)  # fmt: skip
    total, masked_rows, worst = json.loads(count.strip().splitlines()[-1].replace("(", "[")
                                           .replace(")", "]"))  # fmt: skip
    ok = again.get("masked failures") == "none" and total == 8 * 80 and masked_rows == 0
    check("the rerun completes every rollout", ok and worst == 1.0,  # file_edit: 1 is a pass
          f"{total} rollouts stored, {masked_rows} masked, lowest reward {worst}; "
          f"rerun stored {again.get('stored now')}")  # fmt: skip
    with contextlib.suppress(RuntimeError):
        spread = run(["docker", "exec", replicas[0], "python", "-c",
                      "import urllib.request; print(urllib.request.urlopen("
                      "'http://127.0.0.1:8001/health').read().decode())"])  # fmt: skip
        check("replica answers after the run", "ok" in spread, spread.strip()[:100])


if __name__ == "__main__":
    sys.exit(main())
