"""The rollout store and resumable collection."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from proofgym.clients.http import HttpxTransport, ServiceClient
from proofgym.rollouts.collect import TaskFileError, collect, load_tasks
from proofgym.rollouts.store import RolloutStore, StoreError
from proofgym.serving.settings import ClientSettings
from proofgym.wire.protocol import RunResult
from proofgym.wire.responses import build_response
from proofgym_stack.testing import in_process_stack


def result(task_id: str, masked: bool = False, rid: str = "r" * 20) -> RunResult:
    return RunResult(
        rollout_id=rid,
        task_id=task_id,
        env="file_edit",
        reward=0.0 if masked else 1.0,
        response=build_response([], model="m"),
        num_steps=1,
        termination_reason="error" if masked else "final_message",
        mask_sample=masked,
        failure_kind="resources_error" if masked else None,
    )


def test_store_replaces_a_pair_and_skips_only_usable_rows(tmp_path: Path) -> None:
    store = RolloutStore(tmp_path / "s.db")
    store.put(result("a", masked=True, rid="a" * 20), 0)
    store.put(result("b", rid="b" * 20), 0)
    assert store.done_pairs() == {("b", 0)}
    store.put(result("a", rid="c" * 20), 0)  # the rerun completes the masked pair
    assert store.done_pairs() == {("a", 0), ("b", 0)} and store.count() == 2
    rows = list(store.rows())
    assert {r["rollout_id"] for r in rows} == {"b" * 20, "c" * 20}
    assert RunResult.model_validate(rows[0]["record"]).task_id in {"a", "b"}
    store.close()
    # every row is committed as it is written: another connection sees it at once
    assert (
        sqlite3.connect(tmp_path / "s.db").execute("select count(*) from rollouts").fetchone()[0]
        == 2
    )


def test_task_files_fail_with_the_line(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(file_edit_tasks[0]) + "\n{broken\n")
    with pytest.raises(TaskFileError, match=r"t.jsonl:2"):
        load_tasks(path)
    path.write_text(json.dumps(file_edit_tasks[0]) + "\n" + json.dumps(file_edit_tasks[0]))
    with pytest.raises(TaskFileError, match="appears twice"):
        load_tasks(path)
    with pytest.raises(TaskFileError, match="no such file"):
        load_tasks(tmp_path / "missing.jsonl")


async def test_collection_resumes_and_never_duplicates(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in file_edit_tasks[:4]))
    tasks = load_tasks(path)
    store = RolloutStore(tmp_path / "runs.db")
    async with in_process_stack() as stack:
        client = ServiceClient(ClientSettings(), HttpxTransport(stack.client))
        first = await collect(
            tasks[:2],
            agent_url="http://agent",
            store=store,
            client=client,
            repeats=3,
            concurrency=4,
            control="reference",
        )
        assert first.stored == 6 and first.mean_reward == 1.0 and first.pass_rate == 1.0
        second = await collect(
            tasks,
            agent_url="http://agent",
            store=store,
            client=client,
            repeats=3,
            concurrency=4,
            control="reference",
        )
        assert second.skipped == 6 and second.stored == 6
    assert store.count() == 12
    pairs = [(r["task_id"], r["repeat"]) for r in store.rows()]
    assert len(pairs) == len(set(pairs)) == 12


async def test_an_unreachable_agent_is_not_stored(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(file_edit_tasks[0]))
    store = RolloutStore(tmp_path / "runs.db")
    client = ServiceClient(
        ClientSettings(max_retries=0),
        HttpxTransport(
            httpx.AsyncClient(
                transport=httpx.MockTransport(
                    lambda r: (_ for _ in ()).throw(httpx.ConnectError("down"))
                )
            )
        ),
    )
    summary = await collect(
        load_tasks(path), agent_url="http://agent", store=store, client=client, control="reference"
    )
    assert summary.not_collected == 1 and store.count() == 0 and "down" in summary.errors[0]


def test_a_failed_replacement_keeps_the_old_row(tmp_path: Path) -> None:
    store = RolloutStore(tmp_path / "s.db")
    store.put(result("a", masked=True, rid="a" * 20), 0)
    # the INSERT fails after the DELETE ran (a disk error, a kill: the same for SQLite)
    store.conn.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON rollouts WHEN NEW.rollout_id = "
        "'" + "b" * 20 + "' BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    with pytest.raises(StoreError, match="boom"):
        store.put(result("a", rid="b" * 20), 0)
    assert [r["rollout_id"] for r in store.rows()] == ["a" * 20]
