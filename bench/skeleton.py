"""The tail's floor: a stack with the same processes and hops as a rollout, and no work.

    python bench/skeleton.py ROLE PORT UPSTREAMS_JSON      (ROLE: agent, resources or model)

Three processes served as `proofgym serve` serves ours (`proofgym.serving.server.serve`: uvicorn,
uvloop, httptools, the same protocol and limits) that call each other with the client our
services use (`proofgym.clients.lean_http.LeanClient`), hop for hop as a rollout of
bench/hot_path.py:
the agent's `/run` calls the resources' seed, the model twice (each relayed to the same fake
model the stack uses), a tool and verify. Nothing is validated, stored or scored; the bodies
are passed on as they came.

So whatever latency spread the skeleton shows at a concurrency is what the machine, the
processes and the hops cost there with no code of ours in them: bench/hot_path.py runs it at
each level in the same run and reports the stack's p99/p50 beside the skeleton's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ROLES = ("resources", "model", "agent")  # the order they start in: upstreams first

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def make_app(role: str, upstreams: dict[str, str]) -> Any:
    """The ASGI app of one skeleton process: every POST is answered after the calls `role`
    makes in a rollout (the agent: seed, model, tool, model, verify; the model: a chat call
    to the fake; the resources: none, its body echoed)."""
    from raw_echo import JSON_ANSWER, lifespan, read_body  # bench/, this script's folder

    from proofgym.clients.lean_http import LeanClient

    client = LeanClient()
    headers = {"content-type": "application/json"}

    async def call(url: str, data: bytes) -> bytes:
        answer = await client.request("POST", url, data, headers, 60.0)
        if answer.status != 200:
            raise RuntimeError(f"{url} answered {answer.status}")
        return answer.body

    async def work(body: bytes) -> bytes:
        if role == "agent":
            resources, model = upstreams["resources"], upstreams["model"]
            await call(f"{resources}/seed", body)
            await call(f"{model}/v1/responses", body)
            await call(f"{resources}/step", body)
            await call(f"{model}/v1/responses", body)
            return await call(f"{resources}/verify", body)
        if role == "model":
            chat = {"model": "fake", "messages": [{"role": "user", "content": body.decode()}]}
            return await call(f"{upstreams['fake']}/v1/chat/completions", json.dumps(chat).encode())
        return body

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send, client.aclose)
        if scope["type"] != "http":
            return
        answer = await work(await read_body(receive))
        await send(JSON_ANSWER)
        await send({"type": "http.response.body", "body": answer})

    return app


def start(
    ports: dict[str, int],
    fake_url: str,
    wait_listening: Callable[[int, subprocess.Popen[bytes], str], None],
) -> list[subprocess.Popen[bytes]]:
    """The three skeleton processes on `ports` (by role), the model's relaying to
    `fake_url`, each listening when this returns (`wait_listening(port, process, what)`:
    bench/echo_server.py's)."""
    upstreams = {role: f"http://127.0.0.1:{port}" for role, port in ports.items()}
    upstreams["fake"] = fake_url
    started: list[subprocess.Popen[bytes]] = []
    try:
        for role in ROLES:
            proc = subprocess.Popen(
                [sys.executable, __file__, role, str(ports[role]), json.dumps(upstreams)],
                cwd=ROOT,
            )
            started.append(proc)
            wait_listening(ports[role], proc, f"the skeleton's {role}")
    except BaseException:
        for proc in started:
            proc.kill()
        raise
    return started


def main() -> None:
    role, port, upstreams = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    if role not in ROLES:
        raise SystemExit(f"ROLE must be one of {ROLES}, not {role!r}")
    sys.path.insert(0, str(ROOT))  # this checkout's plumbing, whichever code the stack runs
    from proofgym.serving.server import serve
    from proofgym.serving.settings import CommonSettings

    serve(make_app(role, upstreams), CommonSettings(log_level="error"), port)


if __name__ == "__main__":
    main()
