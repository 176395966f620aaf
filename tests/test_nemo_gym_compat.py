"""NeMo Gym clients' shapes: output items in their Responses input form are normalized, and a
malformed item is refused with a message that names the item and the field."""

from __future__ import annotations

import json
from typing import Any

from helpers import key_of, session_headers

from proofgym_stack.testing import InProcessStack
from sdg.file_edit import generate

TASK = generate(1, seed=21)[0]


async def reference_run(stack: InProcessStack) -> dict[str, Any]:
    r = await stack.run({"task": TASK, "control": "reference"})
    assert r.status_code == 200
    return dict(r.json())


def as_input_items(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a NeMo Gym client sends: tool outputs without id or status."""
    return [
        {k: v for k, v in item.items() if k in ("type", "call_id", "output")}
        if item["type"] == "function_call_output"
        else item
        for item in output
    ]


async def verify(stack: InProcessStack, sid: str, response: dict[str, Any]) -> Any:
    return await stack.client.post(
        "http://resources/file_edit/verify",
        content=json.dumps({"session_id": sid, "response": response}),
        headers={"content-type": "application/json", **session_headers(sid)},
    )


async def test_tool_outputs_in_input_form_are_normalized(stack: InProcessStack) -> None:
    ran = await reference_run(stack)
    sid = "nemo-gym-session-0001"
    await stack.client.post(
        "http://resources/file_edit/seed_session",
        json={"session_id": sid, "task": TASK, "session_key": key_of(sid)},
    )
    for call in [i for i in ran["response"]["output"] if i["type"] == "function_call"]:
        await stack.client.post(
            f"http://resources/file_edit/tools/{call['name']}",
            content=call["arguments"],
            headers=session_headers(sid),
        )
    response = {**ran["response"], "output": as_input_items(ran["response"]["output"])}
    assert any("id" not in i for i in response["output"])
    r = await verify(stack, sid, response)
    assert r.status_code == 200, r.text
    assert r.json()["reward"] == ran["reward"] == 1.0


async def test_a_malformed_item_is_named(stack: InProcessStack) -> None:
    ran = await reference_run(stack)
    output = list(ran["response"]["output"])
    broken = {k: v for k, v in output[0].items() if k != "arguments"}  # a call with no arguments
    response = {**ran["response"], "output": [output[1], broken]}
    r = await verify(stack, "nemo-gym-session-0002", response)
    assert r.status_code == 422
    message = r.json()["error"]["message"]
    assert "output[1] (function_call)" in message and "arguments" in message
    assert len(message) < 400  # one line a person can act on, not a hundred union errors


async def test_run_takes_a_nemo_gym_row_with_earlier_turns_as_input_items(
    stack: InProcessStack,
) -> None:
    goal = TASK["task_data"]["goal"]
    row = {
        "responses_create_params": {
            "input": [
                *TASK["responses_create_params"]["input"],
                {"type": "function_call", "call_id": "c0", "name": "list_files", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c0", "output": goal["path"]},
            ]
        },
        **TASK["task_data"],  # NeMo Gym rows carry task fields at the top level
        "env": "file_edit",
        "task_id": "nemo-row-0001",
    }
    r = await stack.run({"task": row, "control": "reference"})
    assert r.status_code == 200, r.text[:300]
    assert r.json()["reward"] == 1.0
