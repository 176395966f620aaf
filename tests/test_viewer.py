"""The trajectory viewer: its API over a real store (filters, paging, a store still being
written, 100,000 rows), token provenance per turn, and the page in a real headless Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cdp import CHROMIUM, browser
from helpers import patience

from proofgym.clients.http import HttpxTransport, ServiceClient
from proofgym.rollouts.collect import collect, load_tasks
from proofgym.rollouts.store import COLUMNS, RolloutStore
from proofgym.rollouts.viewer import create_viewer, turns
from proofgym.serving.settings import AgentSettings, ClientSettings
from proofgym.wire.responses import build_response
from proofgym_stack.testing import in_process_stack
from proofgym_stack.up import free_port

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "runs" / "test-artifacts"  # screenshots a person can look at (git-ignored)


async def fill(
    db: Path, tasks: list[dict[str, Any]], tmp: Path, one_group_per_task: bool = False
) -> None:
    """Reference and no-op rollouts of `tasks` into `db` (real rollouts, real checks); each
    control's rollouts under a task id of their own unless `one_group_per_task`."""
    path = tmp / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in tasks))
    store = RolloutStore(db)
    async with in_process_stack() as stack:
        client = ServiceClient(ClientSettings(), HttpxTransport(stack.client))
        # one group per task: the store resumes, so the no-op fills the group's third repeat
        plan = (("reference", 2), ("noop_claim", 3 if one_group_per_task else 1))
        for control, repeats in plan:
            loaded = [
                t
                if one_group_per_task
                else t.model_copy(update={"task_id": f"{t.task_id}-{control}"})
                for t in load_tasks(path)
            ]
            await collect(
                loaded,
                agent_url="http://agent",
                store=store,
                client=client,
                repeats=repeats,
                concurrency=4,
                control=control,
            )
    store.close()


@contextlib.contextmanager
def serving_viewer(db: Path) -> Iterator[str]:
    """`proofgym view DB` in its own process, as a user starts it; its URL once healthy."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "proofgym_stack.cli", "view", str(db), "--port", str(port)],
        env={**os.environ},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + patience(60)
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "viewer did not start"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def client_of(db: Path) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_viewer(db)), base_url="http://viewer"
    )


async def test_the_list_filters_and_pages(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db = tmp_path / "runs.db"
    await fill(db, file_edit_tasks[:3], tmp_path)
    async with client_of(db) as c:
        everything = (await c.get("/api/rollouts")).json()
        assert everything["total"] == 9 and everything["envs"] == ["file_edit"]
        failing = (await c.get("/api/rollouts", params={"check": "claim_matches_state"})).json()
        assert failing["total"] == 3
        assert all("noop_claim" in r["task_id"] for r in failing["rows"])
        assert all("claim_matches_state" in r["failed"] for r in failing["rows"])
        good = (await c.get("/api/rollouts", params={"min_reward": 1})).json()
        assert good["total"] == 6
        one_task = (await c.get("/api/rollouts", params={"task": "0000-ref"})).json()
        assert one_task["total"] == 2
        page = (await c.get("/api/rollouts", params={"limit": 4, "offset": 8})).json()
        assert len(page["rows"]) == 1 and page["total"] == 9
        bad = await c.get("/api/rollouts", params={"limit": 0})
        assert bad.status_code == 422 and bad.json()["error"]["kind"] == "invalid_request"
        missing = await c.get("/api/rollouts/no-such-rollout-id")
        assert missing.status_code == 404 and "error" in missing.json()
        detail = (await c.get(f"/api/rollouts/{everything['rows'][0]['rollout_id']}")).json()
        assert detail["record"]["checks"] and detail["turns"]


async def test_a_store_being_written_shows_new_rows(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db = tmp_path / "live.db"
    await fill(db, file_edit_tasks[:1], tmp_path)
    async with client_of(db) as c:
        before = (await c.get("/api/rollouts")).json()["total"]
        await fill(db, file_edit_tasks[1:2], tmp_path)  # while the viewer is up
        after = (await c.get("/api/rollouts")).json()["total"]
    assert after == before + 3


def test_token_provenance_per_turn() -> None:
    output = [
        {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}",
         "prompt_token_ids": list(range(10)), "generation_token_ids": [1] * 5,
         "generation_log_probs": [-0.1] * 5},
        {"type": "function_call_output", "call_id": "c1", "output": "42"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}],
         "prompt_token_ids": list(range(21)), "generation_token_ids": [2] * 3,
         "generation_log_probs": [-0.2] * 3},
    ]  # fmt: skip
    got = turns({"response": {"output": output}})
    assert [len(t["items"]) for t in got] == [2, 1]
    assert (got[0]["prompt"], got[0]["generated"], got[0]["inserted"]) == (10, 5, None)
    assert (got[1]["prompt"], got[1]["generated"], got[1]["inserted"]) == (21, 3, 6)  # 21-15
    untokened = turns({"response": {"output": [{"type": "message", "content": []}]}})
    assert untokened[0]["generated"] is None


def test_a_hundred_thousand_rows(tmp_path: Path) -> None:
    db = tmp_path / "big.db"
    RolloutStore(db).close()  # the schema
    record = build_response([], model="m").model_dump(mode="json")
    rows = []
    for i in range(100_000):
        failed = i % 7 == 0
        rec = {
            "task_id": f"t{i % 500}", "env": "math" if i % 2 else "game", "num_steps": 1,
            "reward": 0.0 if failed else 1.0, "response": record,
            "checks": [{"name": "answer_correct", "passed": not failed, "detail": ""}],
        }  # fmt: skip
        rows.append(
            (f"rollout-{i:08d}-xxxxxx", f"t{i % 500}", i // 500, rec["env"], None,
             rec["reward"], None, 0, 0, float(i), json.dumps(rec))
        )  # fmt: skip
    with sqlite3.connect(db) as conn:
        conn.executemany(
            f"INSERT INTO rollouts ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            rows,
        )

    async def look() -> None:
        async with client_of(db) as c:
            first = (await c.get("/api/rollouts", params={"limit": 50})).json()
            assert first["total"] == 100_000 and len(first["rows"]) == 50
            assert first["rows"][0]["rollout_id"] == "rollout-00099999-xxxxxx"  # newest first
            math_failed = (
                await c.get("/api/rollouts", params={"env": "math", "check": "answer_correct"})
            ).json()
            assert math_failed["total"] == sum(1 for i in range(100_000) if i % 2 and i % 7 == 0)

    import asyncio

    asyncio.run(look())


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is installed by `make install`")
async def test_the_page_in_a_real_browser(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db = tmp_path / "runs.db"
    await fill(db, file_edit_tasks[:2], tmp_path)
    (tmp_path / "runs.html").write_text("<!doctype html><title>report</title><h1>the report</h1>")
    with serving_viewer(db) as url:
        async with browser(free_port()) as page:
            await page.goto(f"{url}/")
            await page.wait_for("document.querySelectorAll('#rows tr').length === 6")
            assert (
                await page.evaluate("document.getElementById('count').textContent") == "6 rollouts"
            )
            assert await page.evaluate("!document.getElementById('report').hidden")
            await page.screenshot(ARTIFACTS / "viewer-list.png")
            # filter: rollouts whose claim check failed (the no-op ones)
            await page.evaluate(
                "document.querySelector('input[name=check]').value = 'claim_matches_state';"
                "document.querySelector('#filters button').click()"
            )
            await page.wait_for("document.querySelectorAll('#rows tr').length === 2")
            await page.evaluate("document.querySelector('input[name=check]').value = '';"
                                "document.querySelector('#filters button').click()")  # fmt: skip
            await page.wait_for("document.querySelectorAll('#rows tr').length === 6")
            # one rollout: its tool calls with arguments and outputs, its checks
            await page.evaluate(
                "[...document.querySelectorAll('#rows tr')]"
                ".find(tr => tr.textContent.includes('reference')).click()"
            )
            await page.wait_for("document.querySelectorAll('#checks tr').length > 0")
            detail = (await page.evaluate("document.getElementById('detail').innerText")).lower()
            assert "write_file(" in detail and "function_call_output" in detail
            assert "goal_set" in detail and "pass" in detail and "read_file(" in detail
            assert "(model)" in detail and "(environment)" in detail
            await page.screenshot(ARTIFACTS / "viewer-rollout.png")
            await page.goto(f"{url}/report")
            assert await page.wait_for("document.querySelector('h1').textContent") == "the report"
    assert (ARTIFACTS / "viewer-rollout.png").stat().st_size > 10_000


async def test_the_agent_serves_the_viewer_under_ui(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db = tmp_path / "runs.db"
    await fill(db, file_edit_tasks[:1], tmp_path)
    settings = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", ui_store=db
    )
    async with in_process_stack(agent_settings=settings) as stack:
        page = await stack.client.get("http://agent/ui/")
        assert page.status_code == 200 and "proofgym rollouts" in page.text
        listed = (await stack.client.get("http://agent/ui/api/rollouts")).json()
        assert listed["total"] == 3


async def one_group(tmp: Path, task: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """A store holding one task's group (two passing rollouts, one failing) and what
    `/api/groups/<task>` answers for it."""
    db = tmp / "runs.db"
    await fill(db, [task], tmp, one_group_per_task=True)
    async with client_of(db) as c:
        return db, (await c.get(f"/api/groups/{task['task_id']}")).json()


async def test_a_group_names_its_best_and_its_worst(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db, group = await one_group(tmp_path, file_edit_tasks[0])
    async with client_of(db) as c:
        rewards = {r["rollout_id"]: r["reward"] for r in group["rows"]}
        assert len(rewards) == 3
        assert rewards[group["best"]] == max(rewards.values()) == 1.0
        assert rewards[group["worst"]] == min(rewards.values()) == 0.0
        missing = await c.get("/api/groups/no-such-task")
        assert missing.status_code == 404 and missing.json()["error"]["kind"] == "not_found"


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is installed by `make install`")
async def test_a_url_per_rollout_and_the_compare_view_in_a_real_browser(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    db, group = await one_group(tmp_path, file_edit_tasks[0])
    with serving_viewer(db) as url:
        async with browser(free_port()) as page:
            # a rollout's own URL opens it, no click needed
            await page.goto(f"{url}/#{group['worst']}")
            await page.wait_for("document.querySelectorAll('#checks tr').length > 0")
            detail = await page.evaluate("document.getElementById('detail').innerText")
            assert "FAIL" in detail and "claim_matches_state" in detail
            assert await page.evaluate(
                f"document.querySelector('tr.sel').dataset.id === {json.dumps(group['worst'])}"
            )
            # from it, the best and the worst of its task side by side, turn by turn
            await page.evaluate("document.getElementById('compare-group').click()")
            await page.wait_for("document.querySelectorAll('.compare-turn').length > 0")
            assert await page.evaluate("location.hash") == (
                f"#compare={group['best']},{group['worst']}"
            )
            sides = await page.evaluate(
                "[...document.querySelectorAll('#compare-head .side')].map(s => s.innerText)"
            )
            assert len(sides) == 2 and group["best"] in sides[0] and group["worst"] in sides[1]
            assert "FAIL" not in sides[0] and "FAIL" in sides[1]
            assert await page.evaluate(
                "document.querySelector('#compare-head .side.worse') === "
                "document.querySelectorAll('#compare-head .side')[1]"
            )
            turns_text = await page.evaluate(
                "[...document.querySelectorAll('.compare-turn')].map(r => r.innerText).join('|')"
            )
            assert "write_file(" in turns_text  # the reference's edit, beside the no-op's turn
            await page.screenshot(ARTIFACTS / "viewer-compare.png")
            # a bad compare URL says what is wrong instead of showing nothing
            await page.goto(f"{url}/#compare=nope-nope-nope-0001,{group['best']}")
            await page.wait_for("document.getElementById('problem') !== null")
            problem = await page.evaluate("document.getElementById('problem').textContent")
            assert "nope-nope-nope-0001" in problem
    assert (ARTIFACTS / "viewer-compare.png").stat().st_size > 10_000
