"""Every resources server endpoint, in-process."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import key_of, session_headers, workspaces

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import CLOSE_HEADER, CLOSED_HEADER
from resources_servers.base.app import create_app
from resources_servers.file_edit import Env as FileEdit

SID = "session-000000000001"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = ResourcesSettings(workdir=tmp_path, max_sessions=4, session_ttl_s=60)
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://r") as c,
    ):
        yield c


async def seed(client: httpx.AsyncClient, task: dict[str, Any], sid: str = SID) -> httpx.Response:
    body = {"session_id": sid, "task": task, "session_key": key_of(sid)}
    return await client.post("/file_edit/seed_session", json=body)


async def tool(client: httpx.AsyncClient, name: str, args: Any, sid: str = SID) -> httpx.Response:
    return await client.post(f"/file_edit/tools/{name}", json=args, headers=session_headers(sid))


async def close(client: httpx.AsyncClient, sid: str = SID) -> httpx.Response:
    headers = session_headers(sid)
    return await client.post("/file_edit/close_session", json={"session_id": sid}, headers=headers)


async def test_health_info_and_metrics(client: httpx.AsyncClient) -> None:
    health = (await client.get("/health")).json()
    assert health["status"] == "ok" and health["service"] == "resources"
    info = (await client.get("/file_edit/info")).json()
    assert info["version"] == FileEdit.version() and len(info["version"]) == 16
    assert {t["name"] for t in info["tools"]} == {
        "list_files",
        "read_file",
        "write_file",
        "delete_file",
    }
    write = next(t for t in info["tools"] if t["name"] == "write_file")
    assert write["parameters"]["required"] == ["path", "content"]
    assert (
        "relative to the workspace root" in write["parameters"]["properties"]["path"]["description"]
    )
    metrics = (await client.get("/metrics")).text
    assert "proofgym_requests_total" in metrics and "proofgym_open_sessions" in metrics


async def test_seed_is_idempotent_and_conflicts_on_another_task(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]]
) -> None:
    first = await seed(client, file_edit_tasks[0])
    assert first.status_code == 200, first.text
    await tool(client, "write_file", {"path": "new.txt", "content": "x"})
    again = await seed(client, file_edit_tasks[0])
    assert again.json() == first.json()
    listing = (await tool(client, "list_files", {})).json()["output"]
    assert "new.txt" in listing  # the re-seed changed nothing
    conflict = await seed(client, file_edit_tasks[1])
    assert conflict.status_code == 409
    assert conflict.json()["error"]["kind"] == "session_conflict"


async def test_close_is_idempotent_and_removes_files(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]], tmp_path: Path
) -> None:
    await seed(client, file_edit_tasks[0])
    assert len(workspaces(tmp_path / "file_edit")) == 1
    r1 = await close(client)
    r2 = await close(client)
    assert r1.json() == {"closed": True} and r2.json() == {"closed": False}
    assert workspaces(tmp_path / "file_edit") == []
    gone = await tool(client, "list_files", {})
    assert gone.status_code == 404 and gone.json()["error"]["kind"] == "unknown_session"


async def test_verify_closes_the_session_only_when_asked(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]], tmp_path: Path
) -> None:
    empty = {
        "id": "resp_1", "object": "response", "created_at": 0, "model": "m", "output": [],
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    }  # fmt: skip
    body = {"session_id": SID, "response": empty}
    await seed(client, file_edit_tasks[0])
    owner = session_headers(SID)
    kept = await client.post("/file_edit/verify", json=body, headers=owner)
    assert kept.status_code == 200 and "x-proofgym-closed" not in kept.headers
    assert len(workspaces(tmp_path / "file_edit")) == 1  # verified, still open
    closing = await client.post(
        "/file_edit/verify", json=body, headers={**owner, CLOSE_HEADER: "1"}
    )
    assert closing.status_code == 200 and closing.headers[CLOSED_HEADER] == "1"
    assert closing.json() == kept.json()  # the same verdict
    assert workspaces(tmp_path / "file_edit") == []
    # the owner's retry (its first answer lost) gets the verdict the session closed with
    again = await client.post("/file_edit/verify", json=body, headers={**owner, CLOSE_HEADER: "1"})
    assert again.status_code == 200 and again.json() == kept.json()
    assert again.headers[CLOSED_HEADER] == "1"
    stranger = await client.post("/file_edit/verify", json=body, headers={"X-Session-Id": SID})
    assert stranger.status_code == 404 and stranger.json()["error"]["kind"] == "unknown_session"
    other = {**body, "response": {**empty, "id": "resp_2"}}  # another question: the session is gone
    gone = await client.post("/file_edit/verify", json=other, headers=owner)
    assert gone.status_code == 404 and gone.json()["error"]["kind"] == "unknown_session"


async def test_capacity_answers_429_with_retry_after(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]]
) -> None:
    for i in range(4):
        assert (await seed(client, file_edit_tasks[0], f"cap-session-{i:08d}")).status_code == 200
    full = await seed(client, file_edit_tasks[0], "cap-session-overflow")
    assert full.status_code == 429 and int(full.headers["Retry-After"]) >= 1
    await close(client, "cap-session-00000000")
    assert (await seed(client, file_edit_tasks[0], "cap-session-overflow")).status_code == 200


async def test_ttl_reaper_removes_idle_workspaces(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    settings = ResourcesSettings(workdir=tmp_path, session_ttl_s=0.2, reap_interval_s=0.05)
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://r") as c,
    ):
        await seed(c, file_edit_tasks[0])
        await seed(c, file_edit_tasks[1], "kept-alive-session-1")
        assert len(workspaces(tmp_path / "file_edit")) == 2
        for _ in range(10):  # keep one session busy while the other idles
            await tool(c, "list_files", {}, "kept-alive-session-1")
            await asyncio.sleep(0.05)
        assert len(workspaces(tmp_path / "file_edit")) == 1
        assert (await tool(c, "list_files", {})).status_code == 404
        assert (await tool(c, "list_files", {}, "kept-alive-session-1")).status_code == 200


async def test_policy_visible_tool_errors_are_200(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]], tmp_path: Path
) -> None:
    await seed(client, file_edit_tasks[0])
    (tmp_path / "outside.txt").write_text("secret")
    cases = {
        "../../outside.txt": "path_outside_workspace",
        "/etc/passwd": "path_outside_workspace",
        "missing.conf": "not_found",
    }
    for path, kind in cases.items():
        r = await tool(client, "read_file", {"path": path})
        assert r.status_code == 200 and r.json()["error"]["kind"] == kind, r.text
        assert "secret" not in r.json()["output"]
    w = await tool(client, "write_file", {"path": "../escape.txt", "content": "x"})
    assert w.json()["error"]["kind"] == "path_outside_workspace"
    assert not (tmp_path / "file_edit" / "escape.txt").exists()
    # a symlink planted inside the workspace that points out is refused too
    ws = workspaces(tmp_path / "file_edit")[0] / "ws"
    (ws / "link").symlink_to(tmp_path)
    r = await tool(client, "read_file", {"path": "link/outside.txt"})
    assert r.json()["error"]["kind"] == "path_outside_workspace"
    bad = await tool(client, "write_file", {"path": "a.txt"})
    assert bad.status_code == 200 and bad.json()["error"]["kind"] == "invalid_arguments"
    assert "content" in bad.json()["error"]["message"]
    extra = await tool(client, "read_file", {"path": "a", "mode": "rb"})
    assert extra.json()["error"]["kind"] == "invalid_arguments"
    typed = await tool(client, "read_file", {"path": 3})
    assert typed.json()["error"]["kind"] == "invalid_arguments"


async def test_infrastructure_faults_are_4xx(
    client: httpx.AsyncClient, file_edit_tasks: list[dict[str, Any]]
) -> None:
    await seed(client, file_edit_tasks[0])
    unknown_tool = await tool(client, "rm_rf", {})
    assert unknown_tool.status_code == 404
    assert unknown_tool.json()["error"]["kind"] == "unknown_tool"
    unknown_env = await client.get("/nope/info")
    assert unknown_env.status_code == 404 and unknown_env.json()["error"]["kind"] == "unknown_env"
    malformed = await client.post(
        "/file_edit/tools/list_files", content=b"{not json", headers=session_headers(SID)
    )
    assert malformed.status_code == 422 and malformed.json()["error"]["kind"] == "malformed_json"
    no_header = await client.post("/file_edit/tools/list_files", json={})
    assert no_header.status_code == 422
    extra_field = await client.post(
        "/file_edit/seed_session", json={"session_id": SID, "task": file_edit_tasks[0], "bogus": 1}
    )
    assert extra_field.status_code == 422 and "bogus" in extra_field.json()["error"]["message"]
    short_id = await seed(client, file_edit_tasks[0], "short")
    assert short_id.status_code == 422
    not_json = await client.post("/file_edit/seed_session", content=b"]]")
    assert not_json.status_code == 422 and not_json.json()["error"]["kind"] == "invalid_request"
    bad_task = dict(file_edit_tasks[0], task_data={"files": {}})
    invalid = await seed(client, bad_task, "another-session-0001")
    assert invalid.status_code == 400 and invalid.json()["error"]["kind"] == "invalid_task"
    stale = dict(file_edit_tasks[0], env_version="0000000000000000")
    mismatch = await seed(client, stale, "another-session-0002")
    assert mismatch.status_code == 409
    assert mismatch.json()["error"]["kind"] == "env_version_mismatch"


async def test_bearer_token_is_required_except_for_health(tmp_path: Path) -> None:
    app = create_app(ResourcesSettings(workdir=tmp_path, token="s3cret"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://r") as c:
        assert (await c.get("/health")).status_code == 200
        denied = await c.get("/file_edit/info")
        assert denied.status_code == 401 and denied.json()["error"]["kind"] == "unauthorized"
        wrong = await c.get("/file_edit/info", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = await c.get("/file_edit/info", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200


async def test_256_parallel_sessions_see_only_their_own_state(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    app = create_app(ResourcesSettings(workdir=tmp_path))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://r") as c:

        async def one(i: int) -> tuple[str, str]:
            sid = f"isolation-session-{i:05d}"
            task = file_edit_tasks[i % len(file_edit_tasks)]
            assert (await seed(c, task, sid)).status_code == 200
            secret = f"secret-{i}"
            await tool(c, "write_file", {"path": "mine.txt", "content": secret}, sid)
            await asyncio.sleep(0)
            listing = (await tool(c, "list_files", {}, sid)).json()["output"]
            read = (await tool(c, "read_file", {"path": "mine.txt"}, sid)).json()["output"]
            assert set(listing.splitlines()) == set(task["task_data"]["files"]) | {"mine.txt"}
            return secret, read

        results = await asyncio.gather(*(one(i) for i in range(256)))
    assert all(secret == read for secret, read in results)


def test_folders_of_dead_processes_are_swept(tmp_path: Path) -> None:
    import subprocess

    from resources_servers.base.scratch import private_dir, sweep

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"proofgym-sessions-{dead.pid}-abc"
    (stale / "ws").mkdir(parents=True)
    alive = tmp_path / f"proofgym-sessions-{os.getpid()}-xyz"
    alive.mkdir()
    other_kind = tmp_path / f"proofgym-sandbox-{dead.pid}-abc"
    other_kind.mkdir()
    fresh = private_dir("sessions", str(tmp_path))
    assert not stale.exists() and alive.exists() and other_kind.exists()
    assert fresh.name.startswith(f"proofgym-sessions-{os.getpid()}-")
    assert sweep("sandbox", str(tmp_path)) == [other_kind]
