"""NeMo Gym task rows with a reference control replayed from the peer's own example rollout
(interop/nemo_controls.py), on the shapes NeMo Gym 0.7.0 writes: dataset rows whose input
items differ from the rollout's (types and ids added), reasoning items, batched calls."""

from __future__ import annotations

import json
from typing import Any

from interop.nemo_controls import NOOP_CLAIM, input_key, read_jsonl, script_of, task_rows
from proofgym.wire.protocol import Control, Task

SYSTEM = "# Instructions\nExtract the synonym values."
USER = "What are the values of Blazing and Warm?"


def dataset_row(number: int, user: str = USER) -> dict[str, Any]:
    return {
        "id": number,
        "responses_create_params": {
            "input": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        },
        "expected_synonym_values": [711, 407],
    }


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(args),
        "call_id": call_id,
        "id": f"fc_{call_id}",
        "status": "completed",
    }


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text, "id": None}


def rollout(reward: float, user: str = USER) -> dict[str, Any]:
    # NeMo's recorded input: the same text as typed input items with ids
    def typed(role: str, text: str) -> dict[str, Any]:
        return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}

    params = {"input": [typed("system", SYSTEM), typed("user", user)]}
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "plan"}]},
        call("get_synonym_value", {"synonym": "Blazing"}, "a"),
        call("get_synonym_value", {"synonym": "Warm"}, "b"),
        output("a", '{"synonym_value": 711}'),
        output("b", '{"synonym_value": 407}'),
        call("extract_synonym_values", {"synonym_values": [711, 407]}, "c"),
        output("c", '{"success": true}'),
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "[711, 407]", "annotations": []}],
        },
    ]
    return {"responses_create_params": params, "response": {"output": items}, "reward": reward}


def test_a_rollout_becomes_turns_of_the_policy_actions_only() -> None:
    script = script_of(rollout(1.0)["response"]["output"])
    assert [[item["type"] for item in turn] for turn in script] == [
        ["function_call", "function_call"],
        ["function_call"],
        ["message"],
    ]
    assert script[0][0] == {
        "type": "function_call",
        "name": "get_synonym_value",
        "arguments": '{"synonym": "Blazing"}',
    }
    assert script[-1] == [{"type": "message", "content": "[711, 407]"}]
    assert "711" not in json.dumps(script[0])  # no tool output is replayed


def test_the_dataset_row_and_its_recorded_rollout_share_a_key() -> None:
    assert input_key(dataset_row(0)["responses_create_params"]) == input_key(
        rollout(1.0)["responses_create_params"]
    )
    assert input_key({"input": "plain"}) == "plain"


def test_only_full_reward_rollouts_vouch_and_rows_stay_the_peers() -> None:
    rows = [dataset_row(0), dataset_row(1, "Another question"), dataset_row(2, "Third")]
    recorded = [rollout(0.5), rollout(1.0), rollout(0.0, "Another question"), rollout(1.0, "Third")]
    out = task_rows("ng_demo", rows, recorded)
    assert [r["task_data"]["id"] for r in out] == [0, 2]  # row 1 never reached 1.0
    first = out[0]
    assert first["task_data"]["expected_synonym_values"] == [711, 407]  # the peer's, unchanged
    task = Task.from_row(first)
    controls = [Control.model_validate(c) for c in task.task_data["controls"]]
    assert [(c.name, c.role, c.expect) for c in controls] == [
        ("reference", "reference", "pass"),
        ("noop_claim", "negative", "fail"),
    ]
    assert controls[1].script == NOOP_CLAIM["script"]
    assert task.task_data["expected_synonym_values"] == [711, 407]
    assert task_rows("ng_demo", rows, recorded, limit=1) == out[:1]


def test_a_bad_line_of_a_peer_file_loses_only_itself() -> None:
    text = json.dumps(dataset_row(0)) + "\nnot json\n[1, 2]\n" + json.dumps(dataset_row(1))
    assert [r["id"] for r in read_jsonl(text)] == [0, 1]


def test_rollouts_recorded_on_other_rows_carry_their_own() -> None:
    recorded = rollout(1.0, "Not among the examples")
    recorded.update(expected_synonym_values=[1, 2], _ng_task_index=4, _ng_rollout_index=0)
    recorded["responses_create_params"].update(tool_choice=None, temperature=None)
    out = task_rows("ng_demo", [dataset_row(0)], [recorded, rollout(1.0)])
    assert [r["task_data"].get("id") for r in out] == [0, None]  # the example row first
    carried = out[1]["task_data"]
    assert carried["expected_synonym_values"] == [1, 2]
    assert not {"response", "reward", "_ng_task_index"} & set(carried)
    # recorded as null, refused by the peer's own request model: not sent
    assert set(out[1]["responses_create_params"]) == {"input"}
    assert input_key(out[1]["responses_create_params"]) == input_key(
        recorded["responses_create_params"]
    )


def test_a_peer_field_named_like_ours_stays_the_peer_s() -> None:
    row = {**dataset_row(0), "split": "test", "env": "lean"}  # NeMo rows carry their own
    (out,) = task_rows("ng_demo", [row], [rollout(1.0)])
    task = Task.from_row(out)
    assert (task.env, task.split) == ("ng_demo", "train")
    assert (task.task_data["split"], task.task_data["env"]) == ("test", "lean")
