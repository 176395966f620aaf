"""Every door proofgym opens, held to one standard: no caller's id becomes a path, and no
caller acts in, renews or closes a session it did not seed.

The doors: the resources server (`/<env>/...`), `serve nemo-gym` (NeMo Gym's contract: an id
in the body, the `X-Session-Id` header or the session cookie) and `serve openenv` (MCP
sessions and WebSockets). Each test plays a hostile caller that knows the layout of the
server's folders, beside an honest one whose session must come through untouched.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from helpers import key_of, session_headers, workspaces

from interop.nemo_rows import nemo_row
from interop.nemo_server import COOKIE, KEY_COOKIE
from interop.nemo_server import create_app as nemo_app
from interop.openenv_server import create_app as openenv_app
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task
from resources_servers.base.app import create_app as resources_app
from resources_servers.file_edit import Env as FileEdit
from sdg.file_edit import generate

TASKS = generate(2, seed=33)
ROW = nemo_row(Task.from_row(TASKS[0]), FileEdit())


EMPTY_RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 0, "model": "m", "output": [],
    "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
}  # fmt: skip


def jar(cookies: dict[str, str]) -> dict[str, str]:
    """A Cookie header holding `cookies` (sent per request: the client keeps no jar here)."""
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}


def snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` and its content (what an attack must leave as it was)."""
    return {
        str(p.relative_to(root)): p.read_text(errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A folder beside the server's workspaces that no caller may touch."""
    folder = tmp_path / "victim"
    (folder / "sub").mkdir(parents=True)
    (folder / "precious.txt").write_text("keep me")
    (folder / "sub" / "also.txt").write_text("and me")
    return folder


def hostile_ids(work: Path, victim: Path) -> list[str]:
    """Ids naming paths: the server's own folders, the victim, the root, nothing at all."""
    live = [p.name for p in workspaces(work / "file_edit")]
    return [
        "",
        ".",
        "..",
        "../victim",
        "../../victim",
        str(victim),
        "/",
        "file_edit",
        "a/../../victim",
        "%2e%2e",
        "x" * 5000,
        *live,
        *(f"../{name}" for name in live),
    ]


def nemo_client(work: Path) -> tuple[FastAPI, httpx.AsyncClient]:
    app = nemo_app(FileEdit(), ResourcesSettings(workdir=work), close_after_verify_s=0)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://nemo")
    return app, client


@pytest.fixture
async def nemo(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app, client = nemo_client(tmp_path / "work")
    async with app.router.lifespan_context(app), client:
        yield client


async def honest_nemo_session(client: httpx.AsyncClient) -> dict[str, str]:
    """An honest caller's legacy session, with a file it wrote; its cookies."""
    seeded = await client.post("/seed_session", json=ROW)
    assert seeded.status_code == 200, seeded.text
    cookies = dict(seeded.cookies)
    wrote = await client.post(
        "/write_file", json={"path": "mine.txt", "content": "honest"}, headers=jar(cookies)
    )
    assert wrote.json()["error"] is None, wrote.text
    client.cookies.clear()
    return cookies


async def honest_files(client: httpx.AsyncClient, cookies: dict[str, str]) -> str:
    listing = await client.post("/list_files", json={}, headers=jar(cookies))
    assert listing.status_code == 200, listing.text
    return str(listing.json()["output"])


async def test_no_id_sent_to_serve_nemo_gym_becomes_a_path(
    nemo: httpx.AsyncClient, tmp_path: Path, victim: Path
) -> None:
    work = tmp_path / "work"
    cookies = await honest_nemo_session(nemo)
    before_victim, before_work = snapshot(victim), snapshot(work)
    answers = []
    for sid in hostile_ids(work, victim):
        new_shape = {"resources_session_id": sid, "task_data": ROW["task_data"]}
        closing = {"resources_session_id": sid}
        as_header = {"X-Session-Id": sid} if sid and sid.isascii() else {}
        answers += [
            await nemo.post("/seed_session", json=new_shape),
            await nemo.post("/close_session", json=closing),
            await nemo.post("/seed_session", json=ROW, headers=as_header),
            await nemo.post("/close_session", json={}, headers=as_header),
            await nemo.post("/list_files", json={}, headers=as_header),
            await nemo.post("/verify", json={**ROW, "response": EMPTY_RESPONSE}, headers=as_header),
        ]
        nemo.cookies.clear()
        for route in ("/close_session", "/list_files", "/seed_session"):
            answers.append(await nemo.post(route, json=ROW, headers=jar({COOKIE: sid})))
        nemo.cookies.clear()
    assert all(r.status_code < 500 for r in answers), [
        r.text for r in answers if r.status_code >= 500
    ]
    assert snapshot(victim) == before_victim  # nothing outside the server's workspaces changed
    after = snapshot(work)
    assert {k: v for k, v in after.items() if k in before_work} == before_work  # nor inside
    assert not (tmp_path / "work" / "file_edit" / "..").resolve().joinpath("victim2").exists()
    assert "mine.txt" in await honest_files(nemo, cookies)  # the honest session lives on


async def test_serve_nemo_gym_refuses_ids_that_are_not_ids(nemo: httpx.AsyncClient) -> None:
    for sid in ("1", "", "../x", "x" * 5000, 7, None):
        r = await nemo.post(
            "/seed_session", json={"resources_session_id": sid, "task_data": ROW["task_data"]}
        )
        assert r.status_code == 400, (sid, r.text)
        assert r.json()["error"]["kind"] == "invalid_session_id"
    fine = "0123456789abcdef-nemo"
    r = await nemo.post(
        "/seed_session", json={"resources_session_id": fine, "task_data": ROW["task_data"]}
    )
    assert r.status_code == 200 and r.json() == {"resources_session_id": fine}


async def test_serve_nemo_gym_sessions_belong_to_who_seeded_them(nemo: httpx.AsyncClient) -> None:
    cookies = await honest_nemo_session(nemo)
    sid = cookies[COOKIE]
    stranger = {COOKIE: sid}  # knows the id (it travels in every trajectory), not the key
    for route in ("/list_files", "/write_file"):
        r = await nemo.post(route, json={"path": "x", "content": "pwned"}, headers=jar(stranger))
        assert r.status_code == 404 and r.json()["error"]["kind"] == "unknown_session"
        nemo.cookies.clear()
    wrong_key = {**stranger, KEY_COOKIE: "k" * 32}
    r = await nemo.post("/verify", json={**ROW, "response": EMPTY_RESPONSE}, headers=jar(wrong_key))
    assert r.status_code == 404
    nemo.cookies.clear()
    by_cookie = await nemo.post("/close_session", json={}, headers=jar(stranger))
    by_body = await nemo.post("/close_session", json={"resources_session_id": sid})
    assert by_cookie.status_code == by_body.status_code == 200
    non_ascii = await nemo.post(
        "/list_files",
        json={},
        headers=[(b"X-Session-Id", sid.encode()), (b"X-Session-Key", "ключ".encode())],
    )
    assert non_ascii.status_code == 404
    assert "mine.txt" in await honest_files(nemo, cookies)  # not closed, not written
    # a seed never joins another's session: the legacy seed names a new one
    again = await nemo.post("/seed_session", json=ROW, headers=jar(stranger))
    assert again.status_code == 200 and again.cookies[COOKIE] != sid


async def test_serve_nemo_gym_new_shape_is_owned_and_a_closed_id_stays_closed(
    nemo: httpx.AsyncClient,
) -> None:
    sid = "nemo-environment-server-0001"
    body = {"resources_session_id": sid, "task_data": ROW["task_data"]}
    first = await nemo.post("/seed_session", json=body)
    key = first.cookies[KEY_COOKIE]
    nemo.cookies.clear()
    hijack = await nemo.post("/seed_session", json=body)  # the same id, without the key
    assert hijack.status_code == 409 and hijack.json()["error"]["kind"] == "session_exists"
    repeat = await nemo.post("/seed_session", json=body, headers=jar({KEY_COOKIE: key}))
    assert repeat.status_code == 200 and repeat.json() == {"resources_session_id": sid}
    nemo.cookies.clear()
    await nemo.post("/close_session", json={"resources_session_id": sid})  # not the owner
    owned = {"X-Session-Id": sid, "X-Session-Key": key}
    assert (await nemo.post("/list_files", json={}, headers=owned)).status_code == 200
    closed = await nemo.post("/close_session", json={"resources_session_id": sid}, headers=owned)
    assert closed.json() == {"resources_session_id": sid}
    late = await nemo.post("/seed_session", json=body, headers=owned)
    assert late.status_code == 409  # NeMo Gym's contract: a closed id is never seeded again
    never = {"resources_session_id": "never-seeded-0000001"}
    assert (await nemo.post("/close_session", json=never)).status_code == 200
    racing = await nemo.post("/seed_session", json={**never, "task_data": ROW["task_data"]})
    assert racing.status_code == 409


async def test_aggregate_metrics_refuses_rewards_that_are_not_numbers(
    nemo: httpx.AsyncClient,
) -> None:
    for bad in ("high", None, [1], True):
        r = await nemo.post("/aggregate_metrics", json={"verify_responses": [{"reward": bad}]})
        assert r.status_code == 422 and "reward" in r.json()["error"]["message"], r.text
    nan = await nemo.post("/aggregate_metrics", content=b'{"verify_responses": [{"reward": NaN}]}')
    assert nan.status_code < 500 and "error" in nan.json()
    fine = await nemo.post(
        "/aggregate_metrics", json={"verify_responses": [{"reward": 1}, {"reward": 0.5}]}
    )
    assert fine.json()["mean/reward"] == 0.75


async def test_aggregate_metrics_refuses_rewards_whose_sum_overflows(
    nemo: httpx.AsyncClient,
) -> None:
    for big in ([1e308, 1e308], [-1e308, -1e308], [10**400], [1e13, 0.0]):
        body = json.dumps({"verify_responses": [{"reward": r} for r in big]})
        r = await nemo.post("/aggregate_metrics", content=body.encode())
        assert r.status_code == 422, r.text  # was a 500 (OverflowError in the mean)
        assert "reward is not a finite number within" in r.json()["error"]["message"]
    edge = await nemo.post(
        "/aggregate_metrics", json={"verify_responses": [{"reward": 1e12}, {"reward": -1e12}]}
    )
    assert edge.status_code == 200 and edge.json()["mean/reward"] == 0.0
    assert edge.json()["std/reward"] == 1e12


@pytest.fixture
async def resources(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = resources_app(ResourcesSettings(workdir=tmp_path / "work"))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://r") as client,
    ):
        yield client


async def test_no_id_sent_to_the_resources_server_becomes_a_path(
    resources: httpx.AsyncClient, tmp_path: Path, victim: Path
) -> None:
    work = tmp_path / "work"
    honest = "honest-session-00001"
    seeded = await resources.post(
        "/file_edit/seed_session",
        json={"session_id": honest, "task": TASKS[0], "session_key": key_of(honest)},
    )
    assert seeded.status_code == 200, seeded.text
    before_victim, before_work = snapshot(victim), snapshot(work)
    answers = []
    for sid in [*hostile_ids(work, victim), honest]:
        as_header = {"X-Session-Id": sid} if sid.isascii() else {}
        answers += [
            await resources.post(
                "/file_edit/seed_session", json={"session_id": sid, "task": TASKS[1]}
            ),
            await resources.post("/file_edit/close_session", json={"session_id": sid}),
            await resources.post("/file_edit/tools/list_files", json={}, headers=as_header),
            await resources.post(
                "/file_edit/renew_sessions",
                json={"sessions": [{"session_id": sid, "session_key": "k" * 20}]},
            ),
        ]
    assert all(r.status_code < 500 for r in answers)
    assert snapshot(victim) == before_victim
    after = snapshot(work)  # ids that are ids made sessions of their own; nothing else changed
    assert {k: v for k, v in after.items() if k in before_work} == before_work
    listing = await resources.post(
        "/file_edit/tools/list_files", json={}, headers=session_headers(honest)
    )
    assert listing.status_code == 200


async def test_a_resources_session_seeded_without_a_key_gets_one_and_needs_it(
    resources: httpx.AsyncClient,
) -> None:
    sid = "keyless-seed-0000001"
    seeded = await resources.post(
        "/file_edit/seed_session", json={"session_id": sid, "task": TASKS[0]}
    )
    key = seeded.json()["session_key"]
    assert len(key) >= 16
    for headers in ({"X-Session-Id": sid}, {"X-Session-Id": sid, "X-Session-Key": "no" * 10}):
        r = await resources.post("/file_edit/tools/list_files", json={}, headers=headers)
        assert r.status_code == 404 and r.json()["error"]["kind"] == "unknown_session"
        closed = await resources.post(
            "/file_edit/close_session", json={"session_id": sid}, headers=headers
        )
        assert closed.json() == {"closed": False}
    stranger_seed = await resources.post(
        "/file_edit/seed_session", json={"session_id": sid, "task": TASKS[0]}
    )
    assert stranger_seed.status_code == 409  # never joined
    renew = await resources.post(
        "/file_edit/renew_sessions",
        json={"sessions": [{"session_id": sid, "session_key": "x" * 16}]},
    )
    assert renew.json() == {"renewed": 0, "unknown": [sid]}  # tells nothing a stranger can use
    non_ascii = await resources.post(
        "/file_edit/tools/list_files",
        json={},
        headers=[(b"X-Session-Id", sid.encode()), (b"X-Session-Key", "ключ-ключ-ключ".encode())],
    )
    assert non_ascii.status_code == 404
    owner = {"X-Session-Id": sid, "X-Session-Key": key}
    assert (
        await resources.post("/file_edit/tools/list_files", json={}, headers=owner)
    ).status_code == 200
    renew = await resources.post(
        "/file_edit/renew_sessions", json={"sessions": [{"session_id": sid, "session_key": key}]}
    )
    assert renew.json() == {"renewed": 1, "unknown": []}
    closed = await resources.post(
        "/file_edit/close_session", json={"session_id": sid}, headers=owner
    )
    assert closed.json() == {"closed": True}


# --- serve openenv -----------------------------------------------------------------------------


@pytest.fixture
def openenv(tmp_path: Path) -> Iterator[TestClient]:
    settings = ResourcesSettings(workdir=tmp_path / "work", token="door-token-123456")
    app = openenv_app(FileEdit(), settings, [Task.from_row(t) for t in TASKS])
    with TestClient(app, headers={"authorization": "bearer door-token-123456"}) as client:
        yield client


def rpc(client: TestClient, method: str, **params: Any) -> dict[str, Any]:
    r = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_no_id_sent_to_serve_openenv_becomes_a_path(
    openenv: TestClient, tmp_path: Path, victim: Path
) -> None:
    work = tmp_path / "work"
    made = rpc(openenv, "openenv/session/create")["result"]
    mine, key = made["session_id"], made["session_key"]
    with openenv.websocket_connect(f"/ws?session_id={mine}&session_key={key}") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert json.loads(ws.receive_text())["type"] == "observation"
    before_victim, before_work = snapshot(victim), snapshot(work)
    for sid in hostile_ids(work, victim):
        for method in ("tools/call", "openenv/session/close"):
            answer = rpc(openenv, method, session_id=sid, name="list_files", arguments={})
            assert "error" in answer or answer["result"] == {"closed": False}
        if sid and sid.isascii() and sid.isprintable():  # an empty one attaches to nothing
            with openenv.websocket_connect(f"/ws?session_id={sid}") as ws:
                assert json.loads(ws.receive_text())["data"]["code"] == "SESSION_ERROR"
    assert snapshot(victim) == before_victim and snapshot(work) == before_work
    listed = rpc(
        openenv, "tools/call", session_id=mine, session_key=key, name="list_files", arguments={}
    )
    assert "result" in listed  # the honest session lives on


def test_an_mcp_session_of_serve_openenv_is_its_creator_s_alone(openenv: TestClient) -> None:
    made = rpc(openenv, "openenv/session/create")["result"]
    sid, key = made["session_id"], made["session_key"]
    with openenv.websocket_connect(f"/ws?session_id={sid}&session_key={key}") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert json.loads(ws.receive_text())["type"] == "observation"
    call = {"name": "list_files", "arguments": {}}
    # a stranger who learned the id (a log line, a URL): no key, a wrong one, another session's
    other = rpc(openenv, "openenv/session/create")["result"]["session_key"]
    for stolen in ({}, {"session_key": "k" * 32}, {"session_key": other}, {"session_key": 7}):
        answer = rpc(openenv, "tools/call", session_id=sid, **stolen, **call)
        assert "result" not in answer and "session_key" in answer["error"]["message"]
        closed = rpc(openenv, "openenv/session/close", session_id=sid, **stolen)
        assert closed["result"] == {"closed": False}
        for query in ("", "&session_key=" + "k" * 32, "&session_key=" + other):
            with openenv.websocket_connect(f"/ws?session_id={sid}{query}") as ws:
                refused = json.loads(ws.receive_text())["data"]
                assert refused["code"] == "SESSION_ERROR" and "unknown" in refused["message"]
    # the owner's key works as a param and as the header; the session outlived the attempts
    assert "result" in rpc(openenv, "tools/call", session_id=sid, session_key=key, **call)
    keyless = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"session_id": sid}}
    keyless["params"].update(call)  # type: ignore[attr-defined]
    by_header = openenv.post("/mcp", json=keyless, headers={"X-Session-Key": key})
    assert "result" in by_header.json()
    assert rpc(openenv, "openenv/session/close", session_id=sid, session_key=key)["result"] == {
        "closed": True
    }


def test_serve_openenv_is_behind_the_guard_and_the_token(openenv: TestClient) -> None:
    assert openenv.get("/health").json() == {"status": "healthy"}
    for headers in ({"authorization": "Bearer nope"}, {"authorization": ""}):
        denied = openenv.post("/mcp", json={}, headers=headers)
        assert denied.status_code == 401 and denied.json()["error"]["kind"] == "unauthorized"
    assert openenv.get("/schema").status_code == 200  # lower-case `bearer` is a bearer
    huge = openenv.post("/mcp", content=b"x", headers={"content-length": str(200 * 2**20)})
    assert huge.status_code == 413 and huge.json()["error"]["kind"] == "body_too_large"
    nested = openenv.post("/mcp", content=b"[" * 5000 + b"]" * 5000)
    assert nested.status_code == 400 and nested.json()["error"]["kind"] == "malformed_body"
    unknown = openenv.get("/nope")
    assert unknown.status_code == 404 and unknown.json()["error"]["kind"] == "not_found"


def test_serve_openenv_reaps_idle_mcp_sessions(tmp_path: Path) -> None:
    settings = ResourcesSettings(
        workdir=tmp_path / "w", max_sessions=2, session_ttl_s=0.3, reap_interval_s=0.05
    )
    app = openenv_app(FileEdit(), settings, [Task.from_row(t) for t in TASKS])
    with TestClient(app) as client:
        for _ in range(2):
            assert "result" in rpc(client, "openenv/session/create")
        assert rpc(client, "openenv/session/create")["error"]["message"] == "at capacity"
        import time

        time.sleep(0.6)  # abandoned, never closed: reaped after the idle TTL
        assert "result" in rpc(client, "openenv/session/create")
