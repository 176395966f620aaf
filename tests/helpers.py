"""Small helpers shared by the tests that run real processes."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from hypothesis import HealthCheck, settings

#: how the fuzz tests run hypothesis: derandomized, so a failure reproduces
FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def patience(seconds: float) -> float:
    """How long a test waits for something that takes `seconds` on an idle machine: scaled by
    the machine's load per core (a wait tuned on an idle machine fails a loaded one, say
    beside another `make test`), and by TEST_PATIENCE when set. A bound on waiting, never an
    assertion about speed."""
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return seconds * max(1.0, load) * float(os.environ.get("TEST_PATIENCE", "1"))


def count_rows(db: Path, where: str = "1") -> int:
    """Rows of the rollout store matching `where` (0 while the file or table is not there)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(f"select count(*) from rollouts where {where}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def requests_served(url: str, route: str, token: str | None = None) -> int:
    """How many requests the service at `url` answered on `route` (its /metrics: the route's
    path template, e.g. "/run" or "/{env}/seed_session")."""
    import urllib.request

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"{url}/metrics", headers=headers)
    with urllib.request.urlopen(request, timeout=5) as answer:
        text = answer.read().decode()
    return int(requests_by_route(text).get(route, 0.0))


def requests_by_route(metrics: str) -> dict[str, float]:
    """The requests a service answered, by route, from its /metrics text (every status)."""
    routes: dict[str, float] = {}
    for line in metrics.splitlines():
        if line.startswith("proofgym_requests_total{"):
            route = line.split('route="', 1)[1].split('"', 1)[0]
            routes[route] = routes.get(route, 0.0) + float(line.rsplit(" ", 1)[1])
    return routes


async def tiny_model_rollout(model_dir: Path, task: dict[str, Any], max_steps: int) -> Any:
    """One rollout of `task` by the local backend over `model_dir`, greedy, through the real
    in-process loop; the httpx answer of /run."""
    from proofgym.serving.settings import AgentSettings, ModelSettings
    from proofgym_stack.testing import in_process_stack

    settings = ModelSettings(
        backend="local",
        model=str(model_dir),
        default_max_tokens=48,
        pinned_sampling={"temperature": 0.0},
    )
    agent = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", max_steps=max_steps
    )
    async with in_process_stack(model_settings=settings, agent_settings=agent) as stack:
        return await stack.run({"task": task, "model_params": {"model": "tiny"}})


@contextlib.contextmanager
def serve_in_thread(application: Any) -> Iterator[str]:
    """Serve an ASGI app on a free loopback port from a thread; yield its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(application, host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead too
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def key_of(session_id: str) -> str:
    """The key the tests seed session `session_id` with: each session owned, its own key."""
    return f"key-{session_id}"


def session_headers(session_id: str) -> dict[str, str]:
    """The headers that name session `session_id` and unlock it (its `key_of`)."""
    return {"X-Session-Id": session_id, "X-Session-Key": key_of(session_id)}


def workspaces(root: Path) -> list[Path]:
    """The session folders under `root` (a resources server names them, never the caller)."""
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


async def prove(env: Any, root: Path, tasks: list[Any] | None = None) -> Any:
    """`env` (an instance) validated for real on two of its example tasks (or `tasks`) and,
    as it must pass, certified in a ProofBook at `root`, which is returned."""
    from proofgym.rollouts.proofs import ProofBook
    from proofgym_stack.examples import example_tasks
    from proofgym_stack.validation import validate_env

    chosen = tasks if tasks is not None else example_tasks(env.name)[0]
    report = await validate_env(env, chosen, sample=2, parallel=16)
    assert report.passed, report.summary()
    book = ProofBook(root)
    book.certify(env.name, report.version, env.reward_inputs(), report.to_json(), sample=2)
    return book
