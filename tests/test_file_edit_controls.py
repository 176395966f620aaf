"""The file_edit controls give their expected rewards through the real loop."""

from __future__ import annotations

from typing import Any

import pytest

from proofgym_stack.testing import InProcessStack

CONTROLS = {
    "reference": 1.0,
    "alternative": 1.0,
    "violation_delete_others": 0.0,
    "violation_touch_other": 0.0,
    "noop_claim": 0.0,
}


@pytest.mark.parametrize("control,expected", sorted(CONTROLS.items()))
async def test_control_gets_expected_reward(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]], control: str, expected: float
) -> None:
    for task in file_edit_tasks[:3]:
        r = await stack.run({"task": task, "control": control})
        assert r.status_code == 200, r.text
        result = r.json()
        assert result["mask_sample"] is False, result.get("failure_reason")
        assert result["reward"] == expected, (control, result["checks"])
        assert result["termination_reason"] == "final_message"


async def test_violations_fail_for_the_named_reason(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    task = file_edit_tasks[0]
    failed = {}
    for control in ("violation_delete_others", "violation_touch_other", "noop_claim"):
        result = (await stack.run({"task": task, "control": control})).json()
        failed[control] = {c["name"] for c in result["checks"] if not c["passed"]}
    assert failed["violation_delete_others"] == {"other_files_unchanged"}
    assert failed["violation_touch_other"] == {"other_files_unchanged"}
    assert failed["noop_claim"] == {"goal_set", "claim_matches_state"}


async def test_rollout_response_holds_every_item_in_order(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    result = (await stack.run({"task": file_edit_tasks[0], "control": "reference"})).json()
    kinds = [item["type"] for item in result["response"]["output"]]
    assert kinds == [
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
        "message",
    ]
    calls = [i for i in result["response"]["output"] if i["type"] == "function_call"]
    outs = [i for i in result["response"]["output"] if i["type"] == "function_call_output"]
    assert [c["call_id"] for c in calls] == [o["call_id"] for o in outs]
    assert result["num_steps"] == 3
    # The scripted backend carries no token data: not trainable.
    assert result["trainable"] is False
    assert result["timings"]["total"] >= result["timings"]["tools"] > 0


async def test_example_tasks_all_pass_reference(
    stack: InProcessStack, example_tasks: list[dict[str, Any]]
) -> None:
    assert len(example_tasks) >= 5
    for task in example_tasks:
        result = (await stack.run({"task": task, "control": "reference"})).json()
        assert result["reward"] == 1.0, result["checks"]
