"""`proofgym reverify`: stored rollouts judged again by the current verifier.

Each test plants the verifier a store was collected with (a bug since fixed, a judge that was
down, a tool since changed) and checks what re-verifying with today's environment reports
against an oracle that does not go through `reverify`: the same controls collected afresh.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from openai.types.responses import Response
from typer.testing import CliRunner

from proofgym.rollouts.store import RolloutStore
from proofgym.rollouts.viewer import create_viewer
from proofgym.wire.protocol import RunResult, Task, VerifyResult
from proofgym_stack.cli import app
from proofgym_stack.examples import example_tasks
from proofgym_stack.reverify import reverify, write
from proofgym_stack.testing import in_process_stack
from resources_servers.base import tool
from resources_servers.math.env import MathEnv, MathState
from resources_servers.verifiers.compose import all_or_nothing

CONTROLS = ("reference", "alternative", "violation_hedged_candidates", "noop_claim")


class HedgingPaid(MathEnv):
    """The verifier before its fix: any `Answer:` line that is right pays, so hedging over
    several candidates earns reward."""

    def verify(self, state: MathState, task: Task, response: Response) -> VerifyResult:
        from proofgym.wire.responses import final_message
        from resources_servers.math.env import MAX_ANSWER_CHARS
        from resources_servers.verifiers.answers import length_guard, numeric_answer_check

        truth, text = float(task.task_data["answer"]), final_message(response)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        checks = [numeric_answer_check(ln, truth) for ln in lines] or [
            numeric_answer_check("", truth)
        ]
        best = max(checks, key=lambda c: c.passed)
        return all_or_nothing([best, length_guard(text, MAX_ANSWER_CHARS)])


class JudgeDownForCalculator(MathEnv):
    """A verifier whose judge was unreachable for rollouts that used the calculator."""

    def verify(self, state: MathState, task: Task, response: Response) -> VerifyResult:
        if any(getattr(i, "type", "") == "function_call" for i in response.output):
            return VerifyResult(
                reward=0.0, mask_sample=True, failure_kind="verify_error",
                failure_reason="judge unreachable",
            )  # fmt: skip
        return super().verify(state, task, response)


class OldCalculator(MathEnv):
    """The calculator as it was: it answered with a trailing note the current one lacks."""

    @tool(observes=True, inline=True)
    def calculator(self, state: MathState, expression: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            expression: numbers with + - * / // % ** and parentheses.
        """
        return MathEnv.calculator(self, state, expression) + " (exact)"


def math_tasks(n: int = 3) -> list[Task]:
    return example_tasks("math")[0][:n]


async def collect_controls(env: Any, tasks: list[Task], store: RolloutStore) -> dict[str, float]:
    """Every control of every task run against `env`; (task, control) stored as a repeat.
    Returns rollout id -> reward (None for masked) keyed as `task/control`."""
    rewards: dict[str, Any] = {}
    async with in_process_stack(envs={"math": env}) as stack:
        for task in tasks:
            for repeat, control in enumerate(CONTROLS):
                body = {"task": task.model_dump(mode="json"), "control": control}
                answer = await stack.client.post("http://agent/run", json=body)
                assert answer.status_code == 200, answer.text
                result = RunResult.model_validate(answer.json())
                store.put(result, repeat)
                rewards[f"{task.task_id}/{control}"] = None if result.mask_sample else result.reward
    return rewards


def by_pair(store: RolloutStore) -> dict[str, Any]:
    out = {}
    for row in store.rows():
        control = CONTROLS[int(row["repeat"])]
        out[f"{row['task_id']}/{control}"] = None if row["mask_sample"] else row["reward"]
    return out


async def test_a_verifier_fix_changes_exactly_the_rewards_it_should(tmp_path: Path) -> None:
    tasks = math_tasks()
    store = RolloutStore(tmp_path / "runs.db")
    before = await collect_controls(HedgingPaid(), tasks, store)
    oracle = await collect_controls(MathEnv(), tasks, RolloutStore(tmp_path / "fresh.db"))
    expected_changed = {k for k in before if before[k] != oracle[k]}
    assert expected_changed == {f"{t.task_id}/violation_hedged_candidates" for t in tasks}

    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    summary = await reverify(rows, {t.task_id: t for t in tasks}, {"math": MathEnv()})
    ids = {row["rollout_id"]: f"{row['task_id']}/{CONTROLS[int(row['repeat'])]}"
           for row in store.rows()}  # fmt: skip
    assert {ids[v.rollout_id] for v in summary.changed} == expected_changed
    assert summary.by_env()["math"]["same"] == len(before) - len(expected_changed)
    assert summary.by_env()["math"]["down"] == len(expected_changed)

    assert write(store, summary).written == len(before)
    assert by_pair(store) == oracle  # every row now holds the fixed verifier's reward
    history = store.reverified()
    assert {ids[k] for k, h in history.items() if h["outcome"] == "changed"} == expected_changed
    hedged = next(h for k, h in history.items() if ids[k] in expected_changed)
    assert hedged["reward_before"] == 1.0 and hedged["reward"] == 0.0
    assert json.loads(hedged["record_before"])["reward"] == 1.0  # the old verdict is kept
    # verifying again changes nothing more
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    again = await reverify(rows, {t.task_id: t for t in tasks}, {"math": MathEnv()})
    assert not again.changed and again.by_env()["math"]["same"] == len(before)


async def test_failed_only_judges_the_masked_verdicts_and_nothing_else(tmp_path: Path) -> None:
    tasks = math_tasks(2)
    store = RolloutStore(tmp_path / "runs.db")
    before = await collect_controls(JudgeDownForCalculator(), tasks, store)
    masked = {k for k, v in before.items() if v is None}
    assert masked == {f"{t.task_id}/alternative" for t in tasks}
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    assert not any(r.trainable for r in rows if r.mask_sample)
    summary = await reverify(
        rows, {t.task_id: t for t in tasks}, {"math": MathEnv()}, failed_only=True
    )
    assert len(summary.verdicts) == len(masked) and len(summary.changed) == len(masked)
    assert summary.by_env()["math"]["masked->verdict"] == len(masked)
    write(store, summary)
    after = by_pair(store)
    assert all(after[k] == 1.0 for k in masked)  # the honest calculator answers now pay
    assert {k: v for k, v in after.items() if k not in masked} == {
        k: v for k, v in before.items() if k not in masked
    }
    assert store.done_pairs() == {(r["task_id"], int(r["repeat"])) for r in store.rows()}


async def test_a_tool_that_answers_differently_now_is_not_reproduced(tmp_path: Path) -> None:
    tasks = math_tasks(2)
    store = RolloutStore(tmp_path / "runs.db")
    await collect_controls(OldCalculator(), tasks, store)
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    summary = await reverify(rows, {t.task_id: t for t in tasks}, {"math": MathEnv()})
    counts = summary.by_env()["math"]
    # only the alternative calls the calculator: its world is not the one the policy saw
    assert counts["not_reproduced"] == len(tasks) and counts["same"] == 3 * len(tasks)
    assert all("calculator" in v.detail for v in summary.verdicts if v.outcome == "not_reproduced")
    stored = {r["rollout_id"]: r["record"] for r in store.rows()}
    write(store, summary)
    for v in summary.verdicts:
        if v.outcome == "not_reproduced":  # the stored verdict stays
            assert (
                next(r for r in store.rows() if r["rollout_id"] == v.rollout_id)["record"]
                == stored[v.rollout_id]
            )


async def test_unfinished_and_unknown_rollouts_are_reported_not_judged(tmp_path: Path) -> None:
    tasks = math_tasks(2)
    store = RolloutStore(tmp_path / "runs.db")
    await collect_controls(MathEnv(), tasks, store)
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    cut = rows[0].model_copy(update={"mask_sample": True, "failure_kind": "model_error"})
    summary = await reverify([cut, *rows[1:]], {tasks[0].task_id: tasks[0]}, {"math": MathEnv()})
    assert summary.skipped_unfinished == 1
    missing = [v for v in summary.verdicts if v.outcome == "no_task"]
    assert {v.task_id for v in missing} == {tasks[1].task_id}
    assert all("not in the task files" in v.detail for v in missing)


def test_the_command_writes_and_reports_the_changes(tmp_path: Path) -> None:
    import asyncio

    tasks = math_tasks(2)
    db = tmp_path / "runs.db"
    store = RolloutStore(db)
    asyncio.run(collect_controls(HedgingPaid(), tasks, store))
    store.close()
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("\n".join(t.model_dump_json() for t in tasks))
    runner = CliRunner()
    dry = runner.invoke(app, ["reverify", str(db), "--tasks", str(task_file), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "math" in dry.output and "nothing written" in dry.output
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from rollouts where reward = 1").fetchone()[0] == 6
    done = runner.invoke(app, ["reverify", str(db), "--tasks", str(task_file), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["by_env"]["math"]["changed"] == 2 and report["by_env"]["math"]["down"] == 2
    assert report["written"] == 8
    moved = [(c["check"], c["moved"], c["rollouts"]) for c in report["checks_moved"]]
    assert moved == [("answer_correct", "pass->fail", 2)]
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from rollouts where reward = 1").fetchone()[0] == 4
        assert conn.execute("select count(*) from reverified").fetchone()[0] == 8
    # each rewritten row is signed with the operator's key, as an agent signs it, so a row
    # re-verified onto a proven version is admitted like one collected there
    from proofgym.rollouts.proofs import ProofBook
    from proofgym.serving.settings import ProofSettings

    book = ProofBook.from_settings(ProofSettings.from_env())
    store = RolloutStore(db)
    rows = [RunResult.model_validate(r["record"]) for r in store.rows()]
    store.close()
    assert len(rows) == 8 and all(book.row_why_not(r, book.key()) is None for r in rows)
    # the profile and the viewer read the current verdicts and say the store was re-verified
    profiled = runner.invoke(app, ["profile", str(db), "--json"])
    assert profiled.exit_code == 0, profiled.output
    shown = json.loads(profiled.stdout)
    assert shown["reverified"] == {"rollouts": 8, "changed": 2}
    assert shown["envs"]["math"]["reward"]["mean"] == 0.5  # 4 of 8 pay after the fix
    with TestClient(create_viewer(db)) as viewer:
        hedged = next(r for r in report["rollouts"] if r["outcome"] == "changed")
        detail = viewer.get(f"/api/rollouts/{hedged['rollout_id']}").json()
        assert detail["record"]["reward"] == 0.0
        assert [(h["reward_before"], h["reward"]) for h in detail["reverified"]] == [(1.0, 0.0)]
    # a task file that lacks a rollout's task: reported, exit 1, nothing of it written
    task_file.write_text(tasks[0].model_dump_json())
    partial = runner.invoke(app, ["reverify", str(db), "--tasks", str(task_file)])
    assert partial.exit_code == 1 and "no_task" in partial.output
    missing = runner.invoke(app, ["reverify", str(tmp_path / "nope.db")])
    assert missing.exit_code == 2 and "no such store" in missing.output
