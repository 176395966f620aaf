"""One caller cannot hurt another: caller errors are 4xx in the protocol's shape, sessions
belong to whoever seeded them, and a bug's 500 leaves the connection usable."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from pathlib import Path
from typing import Any

import httpx
from helpers import key_of, serve_in_thread, session_headers
from openai.types.responses import Response

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task, VerifyResult
from proofgym_stack.testing import InProcessStack
from resources_servers.base.app import create_app as resources_app
from resources_servers.math import Env as MathEnv

ROOT = Path(__file__).resolve().parent.parent


def first(env: str) -> dict[str, Any]:
    return dict(json.loads((ROOT / f"tasks/{env}/example.jsonl").read_text().splitlines()[0]))


MATH, FILE_EDIT = first("math"), first("file_edit")


def with_data(task: dict[str, Any], **data: Any) -> dict[str, Any]:
    return {**task, "task_data": {**task["task_data"], **data}}


async def post_raw(stack: InProcessStack, url: str, raw: str, **headers: str) -> httpx.Response:
    return await stack.client.post(
        url, content=raw, headers={"content-type": "application/json", **headers}
    )


def assert_error(r: httpx.Response, status: int, kind: str) -> None:
    assert r.status_code == status, r.text[:300]
    body = r.json()
    assert set(body) == {"error"} and body["error"]["kind"] == kind, body


async def test_caller_errors_are_4xx_in_the_protocol_shape(stack: InProcessStack) -> None:
    script = {"model": "scripted", "script": [[{"type": "message", "content": "a"}]]}
    files = dict(FILE_EDIT["task_data"]["files"])
    goal = FILE_EDIT["task_data"]["goal"]
    ref = {"control": "reference"}
    bad_file = with_data(FILE_EDIT, files={**files, "dir/": "x = 1\n"})
    long_name = with_data(FILE_EDIT, files={**files, "a" * 5000: "x = 1\n"})
    run, invalid = "agent/run", "invalid_request"
    cases: list[tuple[str, Any, int, str]] = [
        (run, {"task": MATH, "model_params": {**script, "tools": "x"}}, 422, invalid),
        (run, {"task": MATH, "model_params": {**script, "input": 5}}, 422, invalid),
        ("resources/math/controls", {"task": {**MATH, "task_data": {}}}, 400, "invalid_task"),
        # a seed that fails on the task is the caller's error, not a masked outage
        (run, {"task": with_data(MATH, answer=10**400), **ref}, 400, "invalid_task"),
        (run, {"task": MATH, "rollout_id": "a" * 20 + "\n", **ref}, 422, invalid),
        (run, {"task": {**MATH, "env": "math?x=1"}, **ref}, 422, invalid),
        (run, {"task": bad_file, **ref}, 400, "invalid_task"),
        (run, {"task": long_name, **ref}, 400, "invalid_task"),
    ]
    assert goal["path"] in files
    for url, body, status, kind in cases:
        assert_error(await post_raw(stack, f"http://{url}", json.dumps(body)), status, kind)
    # an integer past Python's 4,300 digits: FastAPI's own error, in our shape
    huge = json.dumps({"task": MATH, "max_steps": 1}).replace(
        '"max_steps": 1', '"max_steps": ' + "9" * 5000
    )
    assert_error(await post_raw(stack, "http://agent/run", huge), 400, "malformed_body")
    # a negative budget is refused, not run with no time and masked
    ok = json.dumps({"task": MATH, "control": "reference"})
    bad = await post_raw(stack, "http://agent/run", ok, **{"X-Proofgym-Budget-S": "-5"})
    assert_error(bad, 400, "malformed_body")


async def test_run_refuses_a_budget_with_no_time_in_it(stack: InProcessStack) -> None:
    ok = json.dumps({"task": MATH, "control": "reference"})
    for budget in ("0", "0.0", "-0", "-1", "x", "nan", "inf"):
        r = await post_raw(stack, "http://agent/run", ok, **{"X-Proofgym-Budget-S": budget})
        assert_error(r, 400, "malformed_body")  # was, for 0: a 200 with a masked row
        assert "X-Proofgym-Budget-S" in r.json()["error"]["message"]
    fine = await post_raw(stack, "http://agent/run", ok, **{"X-Proofgym-Budget-S": "30"})
    assert fine.status_code == 200 and fine.json()["reward"] == 1.0


async def seed(
    client: httpx.AsyncClient, sid: str, key: str | None = None, lease: float | None = None
) -> httpx.Response:
    body: dict[str, Any] = {"session_id": sid, "task": MATH}
    if key:
        body["session_key"] = key
    if lease:
        body["lease_s"] = lease
    return await client.post("http://resources/math/seed_session", json=body)


async def test_a_keyed_session_is_its_seeder_s_alone(stack: InProcessStack) -> None:
    c, sid, key = stack.client, "owned-session-000001", "k" * 32
    assert (await seed(c, sid, key)).status_code == 200
    assert (await seed(c, sid, key)).status_code == 200  # a retry with the key: the same session
    assert_error(await seed(c, sid, "x" * 32), 409, "session_exists")  # another key
    assert_error(await seed(c, sid), 409, "session_exists")  # no key: never joined
    tool = "http://resources/math/tools/calculator"
    stranger = await c.post(tool, json={"expression": "1+1"}, headers={"X-Session-Id": sid})
    assert_error(stranger, 404, "unknown_session")  # does not even say it exists
    owner = {"X-Session-Id": sid, "X-Session-Key": key}
    assert (await c.post(tool, json={"expression": "1+1"}, headers=owner)).json()["output"] == "2"
    close = "http://resources/math/close_session"
    assert (await c.post(close, json={"session_id": sid})).json() == {"closed": False}
    assert (await c.post(tool, json={"expression": "2+2"}, headers=owner)).status_code == 200
    assert (await c.post(close, json={"session_id": sid}, headers=owner)).json() == {"closed": True}


async def test_run_never_attaches_to_a_session_another_caller_seeded(
    stack: InProcessStack,
) -> None:
    sid = "someone-elses-session-01"
    seeded = await seed(stack.client, sid)  # no key of its own: the server minted one
    assert seeded.status_code == 200
    r = await stack.run({"task": MATH, "rollout_id": sid, "control": "reference"})
    assert_error(r, 409, "session_exists")
    tool = "http://resources/math/tools/calculator"  # the other caller's session is untouched
    owner = {"X-Session-Id": sid, "X-Session-Key": seeded.json()["session_key"]}
    still = await stack.client.post(tool, json={"expression": "1"}, headers=owner)
    assert still.status_code == 200


async def test_a_lease_never_outlives_the_ttl() -> None:
    app = resources_app(ResourcesSettings(session_ttl_s=10), envs={"math": MathEnv()})
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport) as client:
        assert (await seed(client, "leased-session-00001", lease=86400)).status_code == 200
    session = app.state.host.registry("math").sessions["leased-session-00001"]
    assert session.lease_s == 10


class BuggyVerifier(MathEnv):
    def verify(self, state: Any, task: Task, response: Response) -> VerifyResult:
        raise RuntimeError("a bug")


def http(
    sock: socket.socket,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> bytes:
    """One request on a kept-alive socket; the whole answer (by Content-Length)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    sock.sendall(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    header, rest = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":")[1])
        for line in header.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(rest) < length:
        rest += sock.recv(65536)
    return header + b"\r\n\r\n" + rest


def test_a_bug_answers_a_whole_500_and_the_connection_stays_usable() -> None:
    app = resources_app(ResourcesSettings(), envs={"math": BuggyVerifier()})
    sid = "buggy-session-000001"
    with (
        serve_in_thread(app) as url,
        socket.create_connection(url.removeprefix("http://").split(":"))
        if False
        else socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1]))) as sock,
    ):
        seed_body = json.dumps({"session_id": sid, "task": MATH, "session_key": key_of(sid)})
        seeded = http(sock, "POST", "/math/seed_session", seed_body.encode())
        assert b" 200 " in seeded.split(b"\r\n")[0]
        response = {"id": "r", "object": "response", "created_at": 0, "model": "m", "output": [],
                    "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip
        answer = http(
            sock,
            "POST",
            "/math/verify",
            json.dumps({"session_id": sid, "response": response}).encode(),
            {"X-Session-Key": key_of(sid)},
        )
        status, _, body = answer.partition(b"\r\n")[0], None, answer.split(b"\r\n\r\n", 1)[1]
        assert b" 500 " in status and json.loads(body)["error"]["kind"] == "internal"
        assert b"connection: close" not in answer.lower()
        # the same connection carries the next request (another caller's, behind a pool)
        again = http(sock, "GET", "/health")
        assert b" 200 " in again.split(b"\r\n")[0]


async def test_one_client_s_bad_tasks_cost_another_client_nothing(stack: InProcessStack) -> None:
    bad_tasks = [
        with_data(MATH, answer=10**400),
        {**MATH, "task_data": {}},
        with_data(FILE_EDIT, files={"dir/": "x"}),
    ]
    limit = asyncio.Semaphore(64)

    async def good(i: int) -> dict[str, Any]:
        async with limit:
            task = {**MATH, "task_id": f"good-{i}"}
            return dict((await stack.run({"task": task, "control": "reference"})).json())

    async def bad(i: int) -> int:
        async with limit:
            body = {"task": bad_tasks[i % len(bad_tasks)], "control": "reference"}
            return (await stack.run(body)).status_code

    results = await asyncio.gather(*(good(i) for i in range(800)), *(bad(i) for i in range(300)))
    goods = [r for r in results if isinstance(r, dict)]
    bads = [r for r in results if isinstance(r, int)]
    assert len(goods) == 800 and sum(r["mask_sample"] for r in goods) == 0
    assert all(r["reward"] == 1.0 for r in goods)
    assert len(bads) == 300 and all(400 <= s < 500 for s in bads)


async def test_the_server_still_reaps_a_keyed_session_past_its_lease() -> None:
    app = resources_app(ResourcesSettings(), envs={"math": MathEnv()})
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport) as client:
        assert (await seed(client, "keyed-and-leased-01", "k" * 32, lease=1)).status_code == 200
    registry = app.state.host.registry("math")
    import time

    assert await registry.reap(time.monotonic() + 5) == ["keyed-and-leased-01"]
    assert not registry.sessions


class ThreadNoting(MathEnv):
    seen: list[str] = []

    def verify(self, state: Any, task: Task, response: Response) -> VerifyResult:
        self.seen.append(threading.current_thread().name)
        return super().verify(state, task, response)


class ThreadNotingOffLoop(ThreadNoting):
    inline_verify = False


async def test_an_inline_verify_runs_on_the_loop_and_any_other_in_a_worker() -> None:
    envs = {"math": ThreadNoting(), "slow": ThreadNotingOffLoop()}
    app = resources_app(ResourcesSettings(), envs=envs)  # type: ignore[arg-type]
    response = {"id": "r", "object": "response", "created_at": 0, "model": "m", "output": [],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        for i, env in enumerate(envs):
            sid = f"noting-session-{i:06d}"
            body = {"session_id": sid, "task": MATH, "session_key": key_of(sid)}
            seeded = await client.post(f"/{env}/seed_session", json=body)
            assert seeded.status_code == 200, seeded.text
            verdict = await client.post(
                f"/{env}/verify",
                json={"session_id": sid, "response": response},
                headers=session_headers(sid),
            )
            assert verdict.status_code == 200 and verdict.json()["reward"] == 0.0, verdict.text
    loop_thread = threading.current_thread().name
    assert ThreadNoting.seen[0] == loop_thread
    assert ThreadNoting.seen[1] != loop_thread
