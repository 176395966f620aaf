"""`proofgym export`: SFT chats of passing rollouts, preference pairs of one task, RL rows with
the trainer's token view; masked rollouts never; JSONL and Parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from helpers import prove
from typer.testing import CliRunner

from proofgym.clients.agent_client import AgentClient
from proofgym.clients.http import HttpxTransport
from proofgym.rollouts.export import chat_messages, preference_pairs, rl_rows, sft_rows
from proofgym.rollouts.proofs import ProofBook
from proofgym.rollouts.signing import sign_row
from proofgym.rollouts.store import RolloutStore
from proofgym.serving.settings import AgentSettings
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.responses import assistant_message, function_call, function_call_output
from proofgym_stack.cli import app
from proofgym_stack.testing import InProcessStack, in_process_stack
from resources_servers.file_edit.env import FileEditEnv


async def runs(stack: InProcessStack, rows: list[dict[str, Any]]) -> list[RunResult]:
    client = AgentClient("http://agent", transport=HttpxTransport(stack.client))
    tasks = [Task.model_validate(r) for r in rows]
    good = await client.run_many(tasks, repeats=2, control="reference")
    bad = await client.run_many(tasks, control="noop_claim")
    masked = good[0].model_copy(
        update={"mask_sample": True, "failure_kind": "model_error", "rollout_id": "m" * 16}
    )
    return [*good, *bad, masked]


def passed(r: RunResult) -> bool:
    return not r.mask_sample and r.reward >= 1.0


def test_chat_messages_group_calls_and_tool_answers() -> None:
    items = [
        function_call("read_file", '{"path": "a"}', "c1"),
        function_call("list_files", "{}", "c2"),
        function_call_output("c1", "A"),
        function_call_output("c2", "a\nb"),
        assistant_message("done"),
    ]
    messages = chat_messages(items)
    assert [m["role"] for m in messages] == ["assistant", "tool", "tool", "assistant"]
    assert [c["function"]["name"] for c in messages[0]["tool_calls"]] == ["read_file", "list_files"]
    assert messages[1] == {"role": "tool", "tool_call_id": "c1", "content": "A"}
    assert messages[3]["content"] == "done"


async def test_the_three_kinds_from_real_rollouts(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    results = await runs(stack, file_edit_tasks[:2])
    sft = sft_rows(results, passed)
    assert len(sft) == 4 and all(r["reward"] == 1.0 for r in sft)
    first = sft[0]["messages"]
    assert first[0]["role"] == "system" and first[1]["role"] == "user"  # instructions, prompt
    assert any("tool_calls" in m for m in first) and first[-1]["role"] == "assistant"
    assert sft[0]["tools"] and sft[0]["tools"][0]["type"] == "function"
    pairs = preference_pairs(results, passed)
    assert len(pairs) == 4
    for p in pairs:
        assert p["reward_chosen"] == 1.0 and p["reward_rejected"] == 0.0
        assert p["chosen"] != p["rejected"] and p["prompt"][1]["role"] == "user"
    rl = rl_rows(results)
    assert len(rl) == 6 and sorted(r["reward"] for r in rl) == [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert all(r["rollout_id"] != "m" * 16 for r in sft + rl)  # masked: never exported
    assert all("completion_ids" not in r for r in rl)  # the scripted model has no tokens


def test_rl_rows_carry_the_token_view_when_it_exists() -> None:
    tokens = {
        "prompt_token_ids": [1, 2],
        "generation_token_ids": [3],
        "generation_log_probs": [-1.0],
    }
    from proofgym.wire.responses import build_response

    result = RunResult(
        rollout_id="tokens-rollout-0001",
        task_id="t",
        env="e",
        reward=1.0,
        response=build_response([assistant_message("x", **tokens)], model="m"),
        num_steps=1,
        termination_reason="final_message",
        trainable=True,
        responses_create_params={"input": [{"role": "user", "content": "hi"}]},
    )
    (row,) = rl_rows([result])
    assert row["prompt"] == [{"role": "user", "content": "hi"}]
    assert (row["prompt_ids"], row["completion_ids"], row["completion_mask"]) == ([1, 2], [3], [1])


async def test_the_command_writes_jsonl_and_parquet(
    file_edit_tasks: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an agent that signs its rows with the key of the proofs folder the export reads
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=1,
        proofs_dir=tmp_path / "proofs",
    )
    async with in_process_stack(agent_settings=agent) as stack:
        results = await runs(stack, file_edit_tasks[:2])
    key = ProofBook(tmp_path / "proofs").key()
    assert key is not None
    results[-1] = sign_row(key, results[-1])  # the masked row `runs` makes up, signed as an agent
    assert {r.env_version for r in results} == {FileEditEnv.version()}  # as the server named it
    store = RolloutStore(tmp_path / "runs.db")
    for n, r in enumerate(results):
        store.put(r, repeat=n)  # one store row per rollout
    store.close()
    runner = CliRunner()
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path / "proofs"))
    export = ["export", str(tmp_path / "runs.db"), "--out", str(tmp_path / "unproven")]
    # file_edit as it is never passed `validate` here: no training data comes out
    refused = runner.invoke(app, export)
    assert refused.exit_code == 1 and "never passed `proofgym validate`" in refused.output
    assert not (tmp_path / "unproven").exists()
    marked = runner.invoke(app, [*export, "--allow-unproven"])
    assert marked.exit_code == 0, marked.output
    rl = [
        json.loads(line) for line in (tmp_path / "unproven" / "rl.jsonl").read_text().splitlines()
    ]
    assert rl and all(row["proven"] is False for row in rl)
    await prove(FileEditEnv(), tmp_path / "proofs")
    for fmt in ("jsonl", "parquet"):
        out = tmp_path / fmt
        done = runner.invoke(
            app, ["export", str(tmp_path / "runs.db"), "--format", fmt, "--out", str(out)]
        )
        assert done.exit_code == 0, done.output
        counts = {}
        for kind in ("sft", "preference", "rl"):
            path = out / f"{kind}.{fmt}"
            if fmt == "jsonl":
                counts[kind] = len([json.loads(line) for line in path.read_text().splitlines()])
            else:
                counts[kind] = pq.read_table(path).num_rows
        assert counts == {"sft": 4, "preference": 4, "rl": 6}
        rows = pq.read_table(out / "rl.parquet").to_pylist() if fmt == "parquet" else []
        assert all(r["proven"] is True for r in rows)
    bad = runner.invoke(app, ["export", str(tmp_path / "runs.db"), "--format", "csv"])
    assert bad.exit_code == 2 and "jsonl or parquet" in bad.output
