"""`proofgym reverify` cannot half-finish: a row a concurrent rerun replaced is skipped and
counted, writes commit per batch, a rerun after a kill adds no second history row, and a full
disk is a sentence.

The oracle is the store itself, read with plain SQL: which rows hold which verdict, and how
many history rows each rollout has.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proofgym.rollouts.store import RolloutStore, StoreError
from proofgym.wire.protocol import RunResult
from proofgym_stack import reverify as reverify_module
from proofgym_stack.cli import app
from proofgym_stack.reverify import ReverifySummary, reverify, write
from resources_servers.math.env import MathEnv
from tests.test_reverify import CONTROLS, JudgeDownForCalculator, collect_controls, math_tasks


def history_per_rollout(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT rollout_id, count(*) FROM reverified GROUP BY rollout_id")
        return {r[0]: int(r[1]) for r in rows}


def stored(db: Path) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT rollout_id, task_id, repeat, record FROM rollouts")
        return {r[0]: {"pair": (r[1], r[2]), "record": json.loads(r[3])} for r in rows}


async def judged(store: RolloutStore, tasks: Any, failed_only: bool = False) -> ReverifySummary:
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    return await reverify(
        rows, {t.task_id: t for t in tasks}, {"math": MathEnv()}, failed_only=failed_only
    )


def rerun_one(db: Path, old: dict[str, Any], repeat: int) -> str:
    """What a concurrent `proofgym rollout` rerun does to a masked pair: a new rollout, with a
    new id, stored in its place (through a connection of its own)."""
    fresh = RunResult.model_validate(old).model_copy(
        update={"rollout_id": "rerun-" + old["rollout_id"], "mask_sample": False, "reward": 1.0}
    )
    other = RolloutStore(db)
    other.put(fresh, repeat)
    other.close()
    return fresh.rollout_id


async def test_a_row_a_rerun_replaced_meanwhile_is_skipped_and_counted(tmp_path: Path) -> None:
    tasks = math_tasks(2)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    await collect_controls(JudgeDownForCalculator(), tasks, store)
    summary = await judged(store, tasks, failed_only=True)
    masked = [v.rollout_id for v in summary.verdicts]
    assert len(masked) == 2
    # between the judging and the writing, a rerun completes one of the masked pairs
    victim = stored(db)[masked[0]]
    new_id = rerun_one(db, victim["record"], CONTROLS.index("alternative"))
    counts = write(store, summary)  # raised KeyError, with nothing after it written
    assert counts.replaced == [masked[0]] and counts.written == 1
    rows = stored(db)
    assert masked[0] not in rows  # the rerun's row stands, untouched
    assert rows[new_id]["record"]["reward"] == 1.0 and rows[new_id]["pair"] == victim["pair"]
    assert rows[masked[1]]["record"]["mask_sample"] is False  # the other one was written
    assert history_per_rollout(db) == {masked[1]: 1}


async def test_a_row_changed_under_the_same_id_is_not_overwritten(tmp_path: Path) -> None:
    tasks = math_tasks(1)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    await collect_controls(JudgeDownForCalculator(), tasks, store)
    summary = await judged(store, tasks, failed_only=True)
    (v,) = summary.verdicts
    # another writer changed the row in place (same id, another verdict) after it was read
    with sqlite3.connect(db) as conn:
        record = json.loads(
            conn.execute(
                "SELECT record FROM rollouts WHERE rollout_id = ?", [v.rollout_id]
            ).fetchone()[0]
        )
        record["failure_reason"] = "judge unreachable again"
        conn.execute(
            "UPDATE rollouts SET record = ? WHERE rollout_id = ?",
            [json.dumps(record), v.rollout_id],
        )
    counts = write(store, summary)
    assert counts.replaced == [v.rollout_id] and counts.written == 0
    assert stored(db)[v.rollout_id]["record"]["failure_reason"] == "judge unreachable again"


async def test_a_rerun_after_a_kill_mid_write_adds_no_second_history_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = math_tasks(2)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    await collect_controls(JudgeDownForCalculator(), tasks, store)
    summary = await judged(store, tasks)
    to_write = [v for v in summary.verdicts if v.outcome in ("same", "changed")]
    assert len(to_write) == 8
    real = RolloutStore.replace_verdicts
    calls = 0

    def killed_after_two_batches(self: RolloutStore, writes: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt  # the kill: this batch never commits
        return real(self, writes)

    monkeypatch.setattr(RolloutStore, "replace_verdicts", killed_after_two_batches)
    with pytest.raises(KeyboardInterrupt):
        write(store, summary, batch=3)
    monkeypatch.setattr(RolloutStore, "replace_verdicts", real)
    assert sum(history_per_rollout(db).values()) == 6  # two whole batches, nothing of the third
    # the operator runs it again, from what the store holds now
    again = await judged(store, tasks)
    counts = write(store, again, batch=3)
    assert counts.replaced == [] and counts.written == 8 and counts.already_recorded == 6
    history = history_per_rollout(db)
    assert set(history) == {v.rollout_id for v in to_write}
    assert set(history.values()) == {1}  # one history row each, none twice
    # the kept "before" of a masked row is still the masked verdict, not the rewritten one
    with sqlite3.connect(db) as conn:
        befores = [json.loads(r[0]) for r in conn.execute("SELECT record_before FROM reverified")]
    assert sum(1 for b in befores if b.get("mask_sample")) == 2


def test_the_command_says_how_many_rows_a_rerun_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = math_tasks(2)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    asyncio.run(collect_controls(JudgeDownForCalculator(), tasks, store))
    store.close()
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("\n".join(t.model_dump_json() for t in tasks))
    real = reverify_module.reverify

    async def raced(*args: Any, **kwargs: Any) -> ReverifySummary:
        summary = await real(*args, **kwargs)
        for v in summary.verdicts[:3]:  # three pairs rerun while this one judged
            repeat = next(r["pair"][1] for k, r in stored(db).items() if k == v.rollout_id)
            rerun_one(db, v.before.model_dump(mode="json"), repeat)
        return summary

    monkeypatch.setattr(reverify_module, "reverify", raced)
    done = CliRunner().invoke(app, ["reverify", str(db), "--tasks", str(task_file)])
    assert done.exit_code == 1, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert "3 rows were replaced by a rerun while re-verifying" in done.output
    assert "run it again" in done.output and "Traceback" not in done.output
    assert "5 verdicts written" in done.output


class FullDisk:
    """A store connection on a full disk: reads work, every write fails as SQLite fails."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "ALTER", "CREATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


async def test_a_full_disk_is_a_sentence_and_loses_nothing(tmp_path: Path) -> None:
    tasks = math_tasks(1)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    await collect_controls(MathEnv(), tasks, store)
    before = stored(db)
    summary = await judged(store, tasks)
    extra = next(iter(summary.verdicts)).before.model_copy(update={"rollout_id": "extra"})
    store.conn = FullDisk(store.conn)  # type: ignore[assignment]
    with pytest.raises(StoreError) as put_failed:
        store.put(extra, 99)
    with pytest.raises(StoreError) as write_failed:
        write(store, summary)
    for exc in (put_failed.value, write_failed.value):
        message = str(exc)
        assert "disk is full" in message and str(db) in message and "free space" in message
        assert "\n" not in message
    assert stored(db) == before  # nothing committed, nothing lost
    assert not store.conn.in_transaction


def test_the_command_on_a_full_disk_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = math_tasks(1)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    asyncio.run(collect_controls(JudgeDownForCalculator(), tasks, store))
    store.close()
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("\n".join(t.model_dump_json() for t in tasks))
    from proofgym.rollouts import store as store_module

    real_connect = store_module.connect
    monkeypatch.setattr(store_module, "connect", lambda path: FullDisk(real_connect(path)))
    done = CliRunner().invoke(app, ["reverify", str(db), "--tasks", str(task_file)])
    assert done.exit_code == 1, done.output
    assert isinstance(done.exception, SystemExit), done.exception
    assert f"cannot write the rollout store {db}: the disk is full" in done.output
    assert "Traceback" not in done.output
