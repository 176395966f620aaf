"""Whatever a policy writes ends as a scored rollout: never a 5xx, never a masked sample.

Only infrastructure faults mask a rollout. If policy content could make a service fail, a
failing policy could turn its negative reward into a masked sample, and an RL run would learn
exactly that.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI, Request, Response

from proofgym.serving.guard import body_problem, has_lone_surrogate_escape
from proofgym.serving.settings import ModelSettings
from proofgym.wire.jsonlimits import MAX_BYTES
from proofgym_stack.testing import InProcessStack, in_process_stack
from sdg.file_edit import generate as file_edit_tasks
from sdg.math import generate as math_tasks
from sdg.workflow import generate as workflow_tasks

DEEP = "[" * 10_000 + "]" * 10_000
DEEP_OBJECT = '{"a": ' * 10_000 + "1" + "}" * 10_000
LONE = "\ud800 half a pair \udfff"


def call(name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": arguments}


def say(text: Any) -> dict[str, Any]:
    return {"type": "message", "content": text}


HOSTILE_TURNS: dict[str, list[list[dict[str, Any]]]] = {
    "nested_10000_deep_array": [[call("write_file", DEEP)]],
    "nested_10000_deep_object": [[call("write_file", DEEP_OBJECT)]],
    "nested_inside_an_argument": [
        [call("write_file", '{"path": "a.txt", "content": ' + DEEP + "}")]
    ],
    "lone_surrogates_in_arguments": [
        [call("write_file", json.dumps({"path": LONE, "content": LONE}))]
    ],
    "raw_lone_surrogate_escape": [[call("read_file", '{"path": "\\ud800"}')]],
    "huge_string": [
        [call("write_file", json.dumps({"path": "a.txt", "content": "x" * 3_000_000}))]
    ],
    "invalid_tool_names": [
        [call("../verify", "{}"), call("", "{}"), call("write_file\u0000", "{}"), call(LONE, "{}")]
    ],
    "not_json": [[call("write_file", "{'path': 'a'")]],
    "not_an_object": [[call("write_file", "[1, 2]"), call("list_files", "null")]],
    "wrong_types": [[call("write_file", json.dumps({"path": ["a"], "content": {"b": 1}}))]],
    "unknown_arguments": [[call("list_files", json.dumps({"x" * 10_000: 1}))]],
    # within the parser's own limits, but past what the resources server's request guard
    # takes: the policy's arguments, so a scored tool error, never a masked outage
    "seventy_thousand_objects": [
        [call("write_file", json.dumps({"path": "a.txt", "content": [{}] * 70_000}))]
    ],
    "a_hundred_forty_thousand_keys": [
        [call("write_file", json.dumps({"path": "a.txt", **{f"k{i}": 0 for i in range(140_000)}}))]
    ],
    "escaped_past_the_byte_limit": [
        [
            call(
                "write_file",
                json.dumps({"path": "a.txt", "content": "é" * 3_500_000}, ensure_ascii=False),
            )
        ]
    ],
}

FINAL_MESSAGES: dict[str, Any] = {
    "lone_surrogates": f"Done {LONE}",
    "huge": "Done. " + "y" * 2_000_000,
    "nul_and_controls": "Done\u0000\u0001\u001b[2J",
    "deep_json_text": DEEP,
}


def hostile_scripts() -> list[tuple[str, list[list[dict[str, Any]]]]]:
    out = [(name, [*turns, [say("Done: set the value.")]]) for name, turns in HOSTILE_TURNS.items()]
    out += [(f"final_{name}", [[say(text)]]) for name, text in FINAL_MESSAGES.items()]
    return out


def as_chat_completion(turn: list[dict[str, Any]]) -> dict[str, Any]:
    """One scripted turn as an OpenAI-compatible upstream would answer it."""
    calls = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": item["name"], "arguments": item["arguments"]},
        }
        for n, item in enumerate(turn)
        if item["type"] == "function_call"
    ]
    text = next((item["content"] for item in turn if item["type"] == "message"), None)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-1",
        "model": "upstream",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }


def replaying_upstream(script: list[list[dict[str, Any]]]) -> FastAPI:
    """An OpenAI-compatible endpoint answering turn N of `script` to a request holding N
    assistant turns. Its JSON escapes lone surrogates (`\\ud800`), as any JSON encoder may:
    the realistic way for a policy's lone surrogates to reach proofgym."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        messages = (await request.json())["messages"]
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        answer = as_chat_completion(script[min(turn, len(script) - 1)])
        return Response(json.dumps(answer), media_type="application/json")

    return app


async def run(stack: InProcessStack, task: dict[str, Any], script: Any) -> dict[str, Any]:
    body = {"task": task, "model_params": {"model": "scripted", "script": script}}
    raw = json.dumps(body).encode()
    if has_lone_surrogate_escape(raw) or len(raw) > MAX_BYTES or body_problem(raw, 64):
        # A /run body cannot carry lone surrogates, or more than a task needs (400
        # malformed_body, 413): the policy's own output, from an upstream, is where they come
        # from.
        return await run_through_upstream(task, script)
    r = await stack.run(body)
    assert r.status_code == 200, r.text[:500]
    return dict(r.json())


async def run_through_upstream(task: dict[str, Any], script: Any) -> dict[str, Any]:
    settings = ModelSettings(backend="openai", base_urls=["http://upstream/v1"], max_retries=0)
    upstream = {"upstream": replaying_upstream(script)}
    async with in_process_stack(model_settings=settings, extra_apps=upstream) as stack:
        r = await stack.run({"task": task})
    assert r.status_code == 200, r.text[:500]
    return dict(r.json())


async def test_a_run_body_escaping_a_lone_surrogate_is_refused(stack: InProcessStack) -> None:
    task = file_edit_tasks(1, seed=3)[0]
    body = {"task": task, "model_params": {"model": "scripted", "script": [[say(LONE)]]}}
    r = await stack.run(body)
    assert r.status_code == 400 and r.json()["error"]["kind"] == "malformed_body", r.text


@pytest.mark.parametrize(
    ("name", "script"), hostile_scripts(), ids=[n for n, _ in hostile_scripts()]
)
async def test_hostile_policy_content_is_scored_not_masked(
    stack: InProcessStack, name: str, script: list[list[dict[str, Any]]]
) -> None:
    task = file_edit_tasks(1, seed=3)[0]
    result = await run(stack, task, script)
    assert not result["mask_sample"], result["failure_reason"]
    assert result["failure_kind"] is None if "failure_kind" in result else True
    assert result["reward"] == 0.0, result["checks"]
    assert result["termination_reason"] == "final_message"


@pytest.mark.parametrize(
    "tasks", [math_tasks(1, seed=5), workflow_tasks(1, seed=5)], ids=["math", "workflow"]
)
async def test_every_environment_scores_hostile_final_messages(
    stack: InProcessStack, tasks: list[dict[str, Any]]
) -> None:
    for text in FINAL_MESSAGES.values():
        result = await run(stack, tasks[0], [[say(text)]])
        assert not result["mask_sample"] and result["reward"] <= 0.0, result["checks"]


async def test_verify_scores_a_response_full_of_hostile_arguments(stack: InProcessStack) -> None:
    # a client that sends the Response itself (as a NeMo Gym client would) gets a verdict too
    task = workflow_tasks(1, seed=5)[0]
    sid = "hostile-verify-0001"
    seeded = await stack.client.post(
        "http://resources/workflow/seed_session", json={"session_id": sid, "task": task}
    )
    owner = {"X-Session-Key": seeded.json()["session_key"]}
    output = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": name,
            "arguments": arguments,
            "status": "completed",
        }
        for i, (name, arguments) in enumerate(
            [("refund_order", DEEP), ("send_message", DEEP_OBJECT), ("refund_order", "{")]
        )
    ]
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "m",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    r = await stack.client.post(
        "http://resources/workflow/verify",
        json={"session_id": sid, "response": response},
        headers=owner,
    )
    assert r.status_code == 200, r.text[:300]
    assert r.json()["reward"] == 0.0 and not r.json()["mask_sample"]


async def test_a_running_rollout_id_cannot_be_shared(stack: InProcessStack) -> None:
    task = file_edit_tasks(1, seed=3)[0]
    slow = [[call("list_files", "{}")] for _ in range(30)] + [[say("done")]]
    body = {
        "task": task,
        "rollout_id": "shared-rollout-id-0001",
        "model_params": {"model": "scripted", "script": slow},
    }
    first, second = await asyncio.gather(stack.run(body), stack.run(body))
    codes = sorted([first.status_code, second.status_code])
    assert codes == [200, 409], (first.text[:200], second.text[:200])
    refused = first if first.status_code == 409 else second
    assert refused.json()["error"]["kind"] == "rollout_running"
    # once it finished, the id may be used again (a retry of the same rollout)
    again = await stack.run(body)
    assert again.status_code == 200
