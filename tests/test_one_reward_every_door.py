"""One reward through every door: the same trajectory of each shipped environment gets the
same reward played directly (the agent's `/run`), through `serve openenv` (OpenEnv's frames
on `/ws`), through `serve nemo-gym` (the calls and the `/verify` NeMo Gym's agent makes) and
through SkyRL's text environment (`RemoteEpisode`, tool calls written as model text).

Every control of the first example task of each environment is played: a door that loses an
item, reorders calls or reads the final message differently shows as a reward that differs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from helpers import serve_in_thread

from interop.nemo_rows import nemo_row
from interop.nemo_server import create_app as nemo_app
from interop.openenv_server import create_app as openenv_app
from interop.skyrl_env import RemoteEpisode
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task
from proofgym.wire.responses import assistant_message, build_response, function_call
from proofgym.wire.responses import function_call_output as output_item
from proofgym_stack.testing import in_process_stack
from resources_servers.base.app import create_app as resources_app
from resources_servers.base.registry import discover

ROOT = Path(__file__).resolve().parent.parent
ENVS = ("code", "file_edit", "game", "letters", "math", "support", "workflow")
Script = list[list[dict[str, Any]]]


def first_task(env: str) -> Task:
    line = (ROOT / "tasks" / env / "example.jsonl").read_text().splitlines()[0]
    return Task.model_validate(json.loads(line))


def steps(script: Script) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The script's calls in order (name, arguments) and its final message."""
    calls, final = [], ""
    for turn in script:
        for item in turn:
            if item.get("type") == "function_call":
                args = item.get("arguments") or {}
                calls.append((item["name"], json.loads(args) if isinstance(args, str) else args))
            elif item.get("type") == "message":
                final = str(item.get("content", ""))
    return calls, final


async def direct(stack: Any, task: Task, script: Script) -> float:
    body = {
        "task": task.model_dump(mode="json"),
        "model_params": {"model": "scripted", "script": script},
    }
    result = (await stack.run(body)).json()
    assert not result["mask_sample"], result["failure_reason"]
    return float(result["reward"])


def through_openenv(env: Any, task: Task, script: Script) -> float:
    calls, final = steps(script)
    app = openenv_app(env, ResourcesSettings(), [task], max_steps=256)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:

        def frame(kind: str, data: Any) -> dict[str, Any]:
            ws.send_text(json.dumps({"type": kind, "data": data}))
            return dict(json.loads(ws.receive_text()))

        assert frame("reset", {"task": task.model_dump(mode="json")})["type"] == "observation"
        for name, args in calls:
            frame("step", {"type": "call_tool", "tool_name": name, "arguments": args})
        done = frame(
            "step",
            {"type": "call_tool", "tool_name": "final_answer", "arguments": {"message": final}},
        )
    assert done["data"]["done"] is True, done
    return float(done["data"]["reward"])


async def through_nemo_gym(env: Any, task: Task, script: Script) -> float:
    calls, final = steps(script)
    row = nemo_row(task, env)
    app = nemo_app(env, ResourcesSettings(), close_after_verify_s=0)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://nemo") as client,
    ):
        assert (await client.post("/seed_session", json=row)).status_code == 200
        items = []
        for n, (name, args) in enumerate(calls):  # as simple_agent does: one call, its output
            answer = await client.post(f"/{name}", json=args)
            assert answer.status_code == 200, answer.text
            items += [function_call(name, json.dumps(args), f"call_{n}"),
                      output_item(f"call_{n}", answer.json()["output"])]  # fmt: skip
        items.append(assistant_message(final))
        response = build_response(items, model="nemo").model_dump(mode="json")
        verified = await client.post("/verify", json={**row, "response": response})
    assert verified.status_code == 200, verified.text
    return float(verified.json()["reward"])


def through_skyrl(url: str, task: Task, script: Script) -> float:
    calls, final = steps(script)
    episode = RemoteEpisode(url, task, max_turns=len(calls) + 2)
    episode.seed()
    for name, args in calls:  # one call a turn, written as the model would write it
        episode.step(f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>")
    return float(episode.step(final)["reward"])


@pytest.mark.parametrize("env_name", ENVS)
async def test_the_same_trajectory_gets_the_same_reward_through_every_door(env_name: str) -> None:
    def fresh() -> Any:  # each door's server owns (and at its end shuts) its environment
        return discover()[env_name].from_settings(ResourcesSettings())

    task = first_task(env_name)
    controls = fresh().controls(task)
    assert controls
    rewards: dict[str, dict[str, float]] = {}
    async with in_process_stack(envs={env_name: fresh()}) as stack:
        for control in controls:
            rewards[control.name] = {"direct": await direct(stack, task, control.script)}
    for control in controls:
        rewards[control.name]["openenv"] = through_openenv(fresh(), task, control.script)
        rewards[control.name]["nemo-gym"] = await through_nemo_gym(fresh(), task, control.script)
    with serve_in_thread(resources_app(ResourcesSettings(), envs={env_name: fresh()})) as url:
        for control in controls:
            rewards[control.name]["skyrl"] = through_skyrl(url, task, control.script)
    differ = {name: by_door for name, by_door in rewards.items() if len(set(by_door.values())) > 1}
    assert not differ, differ
    assert len({r["direct"] for r in rewards.values()}) > 1  # passes and failures both played
