"""The agent's loop: tool calls, termination, and infrastructure failures as data."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from agent_server.app import create_app as agent_app
from model_interface.app import create_app as model_app
from proofgym.clients.http import HttpxTransport
from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings
from proofgym.wire.protocol import CLOSE_HEADER, Check, Task, VerifyResult
from proofgym.wire.responses import assistant_message, build_response
from proofgym_stack.testing import RoutingTransport, in_process_stack
from resources_servers.base import Environment, tool
from resources_servers.base.app import create_app as resources_app
from resources_servers.file_edit import Env as FileEdit


class Probe:
    """Per-session state of the sleepy test environment."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0


class SleepyEnv(Environment[Probe]):
    """A test environment whose one async tool records how many calls overlap."""

    name = "sleepy"

    def create_state(self, task: Task, workdir: Path | None) -> Probe:
        return Probe()

    @tool
    async def wait(self, state: Probe, ms: int, tag: str) -> str:
        """Sleep `ms` milliseconds, then echo the tag."""
        state.in_flight += 1
        state.peak = max(state.peak, state.in_flight)
        await asyncio.sleep(ms / 1000)
        state.in_flight -= 1
        return f"{tag} peak={state.peak}"

    def verify(self, state: Probe, task: Task, response: Any) -> VerifyResult:
        return VerifyResult(reward=float(state.peak), checks=[Check(name="ran", passed=True)])


def sleepy_task() -> dict[str, Any]:
    return {"task_id": "sleepy-1", "env": "sleepy", "responses_create_params": {"input": "go"}}


def call(name: str, args: Any) -> dict[str, Any]:
    text = args if isinstance(args, str) else json.dumps(args)
    return {"type": "function_call", "name": name, "arguments": text}


def say(text: str) -> dict[str, Any]:
    return {"type": "message", "content": text}


def scripted(script: list[list[dict[str, Any]]]) -> dict[str, Any]:
    return {"model": "scripted", "script": script}


class Faulty(httpx.AsyncBaseTransport):
    """Wraps a transport; requests for which `fail` says a reason never reach their app."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, fail: Callable[[httpx.Request], str | None]
    ) -> None:
        self.inner = inner
        self.fail = fail
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        reason = self.fail(request)
        if reason == "refuse":
            raise httpx.ConnectError("connection refused", request=request)
        if reason == "500":
            return httpx.Response(500, json={"error": {"kind": "internal", "message": "boom"}})
        return await self.inner.handle_async_request(request)


@contextlib.asynccontextmanager
async def wired(
    fail: Callable[[httpx.Request], str | None] = lambda r: None,
    model: FastAPI | None = None,
    resources_urls: tuple[str, ...] = ("http://resources",),
    **agent: Any,
) -> AsyncIterator[tuple[httpx.AsyncClient, Faulty, FastAPI]]:
    resources = resources_app(
        ResourcesSettings(), envs={"file_edit": FileEdit(), "sleepy": SleepyEnv()}
    )
    routing = RoutingTransport(
        {"resources": resources, "model": model or model_app(ModelSettings())}
    )
    faulty = Faulty(routing, fail)
    settings = AgentSettings(
        resources_urls=list(resources_urls),
        model_url="http://model",
        max_retries=2,
        backoff_base_s=0.001,
        **agent,
    )
    app = agent_app(settings, transport=HttpxTransport(httpx.AsyncClient(transport=faulty)))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://agent", timeout=30
    ) as client:
        yield client, faulty, resources


async def test_tool_calls_of_one_turn_run_concurrently_in_call_order() -> None:
    turn = [call("wait", {"ms": 300 - 100 * i, "tag": f"t{i}"}) for i in range(3)]
    async with in_process_stack(envs={"sleepy": SleepyEnv()}) as stack:
        result = (
            await stack.run({"task": sleepy_task(), "model_params": scripted([turn, [say("ok")]])})
        ).json()
    outputs = [i for i in result["response"]["output"] if i["type"] == "function_call_output"]
    assert [o["output"].split()[0] for o in outputs] == ["t0", "t1", "t2"]
    assert result["reward"] == 3.0  # the verifier saw three calls in flight at once


async def test_bad_tool_calls_become_model_visible_errors(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    turn = [
        call("read_file", "{not json"),
        call("format_disk", {}),
        call("read_file", "[1]"),
        call("read_file", {"nope": 1}),
    ]
    async with in_process_stack() as stack:
        result = (
            await stack.run(
                {"task": file_edit_tasks[0], "model_params": scripted([turn, [say("giving up")]])}
            )
        ).json()
    outs = [
        i["output"] for i in result["response"]["output"] if i["type"] == "function_call_output"
    ]
    assert "not valid JSON" in outs[0]
    assert "unknown tool 'format_disk'" in outs[1]
    assert "must be a JSON object" in outs[2]
    assert "invalid arguments" in outs[3]
    assert result["mask_sample"] is False and result["reward"] == 0.0


async def test_max_steps_ends_the_loop(file_edit_tasks: list[dict[str, Any]]) -> None:
    script = [[call("list_files", {})]] * 5
    async with in_process_stack() as stack:
        result = (
            await stack.run(
                {"task": file_edit_tasks[0], "max_steps": 2, "model_params": scripted(script)}
            )
        ).json()
    assert result["termination_reason"] == "max_steps" and result["num_steps"] == 2


async def test_length_cut_ends_the_loop(file_edit_tasks: list[dict[str, Any]]) -> None:
    fake = FastAPI()

    @fake.post("/v1/responses")
    async def cut() -> Any:
        return build_response(
            [assistant_message("trunc")],
            model="fake",
            status="incomplete",
            incomplete_reason="max_output_tokens",
        ).model_dump(mode="json")

    async with wired(model=fake) as (client, _, _):
        result = (await client.post("/run", json={"task": file_edit_tasks[0]})).json()
    assert result["termination_reason"] == "length" and result["num_steps"] == 1


async def test_nemo_gym_rows_run_unchanged(file_edit_tasks: list[dict[str, Any]]) -> None:
    task = file_edit_tasks[0]
    row = {
        "responses_create_params": task["responses_create_params"],
        **task["task_data"],
        "env": "file_edit",
        "task_id": "nemo-row-1",
    }
    async with in_process_stack() as stack:
        result = (await stack.run({"task": row, "control": "reference"})).json()
    assert result["reward"] == 1.0 and result["task_id"] == "nemo-row-1"


async def test_a_control_plays_from_its_first_turn_after_a_prompt_ending_in_a_tool_output() -> None:
    # a NeMo Gym single-step row: the prompt ends with a call and its output, no user message
    # after them; the scripted policy read them as its first turn and skipped the reference
    # (math's reference is one turn: skipped, it played "(the script has ended)")
    rows = (Path(__file__).parents[1] / "tasks" / "math" / "example.jsonl").read_text()
    task = json.loads(rows.splitlines()[0])
    prompt = task["responses_create_params"]["input"]
    if isinstance(prompt, str):
        prompt = [{"role": "user", "content": prompt}]
    prompt += [
        {"type": "function_call", "name": "noop", "arguments": "{}", "call_id": "p1"},
        {"type": "function_call_output", "call_id": "p1", "output": "earlier"},
    ]
    task["responses_create_params"]["input"] = prompt
    async with in_process_stack() as stack:
        result = (await stack.run({"task": task, "control": "reference"})).json()
    assert result["reward"] == 1.0, result


async def test_bad_run_requests_are_4xx(file_edit_tasks: list[dict[str, Any]]) -> None:
    async with in_process_stack() as stack:
        unknown = await stack.run({"task": file_edit_tasks[0], "control": "telepathy"})
        assert unknown.status_code == 404
        assert unknown.json()["error"]["kind"] == "unknown_control"
        assert len(stack.resources.state.host.registries["file_edit"]) == 0  # closed anyway
        no_input = await stack.run(
            {"task": {"task_id": "x", "env": "file_edit", "responses_create_params": {}}}
        )
        assert no_input.status_code == 422 and "input" in no_input.json()["error"]["message"]
        bad_steps = await stack.run({"task": file_edit_tasks[0], "max_steps": 0})
        assert bad_steps.status_code == 422
        malformed = await stack.client.post("http://agent/run", content=b"{")
        assert malformed.status_code == 422


@pytest.mark.parametrize(
    "where,kind",
    [
        ("/v1/responses", "model_error"),
        ("/tools/", "resources_error"),
        ("/seed_session", "resources_error"),
        ("/verify", "verify_error"),
    ],
)
async def test_infrastructure_failures_are_masked_data(
    file_edit_tasks: list[dict[str, Any]], where: str, kind: str
) -> None:
    def fail(request: httpx.Request) -> str | None:
        if where in request.url.path:
            return "500" if where == "/verify" else "refuse"
        return None

    async with wired(fail) as (client, faulty, resources):
        r = await client.post("/run", json={"task": file_edit_tasks[0], "control": "reference"})
        assert r.status_code == 200, r.text
        result = r.json()
        assert result["mask_sample"] is True and result["failure_kind"] == kind
        assert result["termination_reason"] == "error" and result["reward"] == 0.0
        assert result["failure_reason"]
        # the session is closed whatever failed
        assert len(resources.state.host.registries["file_edit"]) == 0
        assert faulty.paths[-1].endswith("/close_session")


async def test_a_replica_that_refuses_connections_gets_no_new_session(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    # a replica whose node is gone: nothing listens. A new rollout routed there is seeded on
    # another replica (nothing ran on the gone one), not masked for a loss it had no part in
    def fail(request: httpx.Request) -> str | None:
        return "refuse" if request.url.host == "gone" else None

    urls = ("http://resources", "http://gone")
    async with wired(fail, resources_urls=urls) as (client, faulty, _resources):
        for i in range(12):
            body = {
                "task": file_edit_tasks[0],
                "control": "reference",
                "rollout_id": f"rollout-{i:010d}",
            }
            answer = await client.post("/run", json=body)
            assert answer.status_code == 200, answer.text
            result = answer.json()
            assert result["mask_sample"] is False and result["reward"] == 1.0, result
        tried = [p for p in faulty.paths if p.endswith("/seed_session")]
        # 12 sessions, and the gone replica was tried (its share of the ids), then left out
        assert len(tried) == 12 + 1 * 3  # one refused seed, its retries (max_retries=2)


async def test_a_slow_rollout_times_out_as_data(file_edit_tasks: list[dict[str, Any]]) -> None:
    slow = FastAPI()

    @slow.post("/v1/responses")
    async def hang() -> Any:
        await asyncio.sleep(5)

    async with wired(model=slow, rollout_timeout_s=0.2) as (client, _, resources):
        result = (await client.post("/run", json={"task": file_edit_tasks[0]})).json()
        assert result["failure_kind"] == "timeout" and result["mask_sample"] is True
        assert len(resources.state.host.registries["file_edit"]) == 0


async def test_a_token_protected_stack_runs_and_refuses_strangers(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    token = "t0k3n"
    agent = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", token=token
    )
    async with in_process_stack(
        resources_settings=ResourcesSettings(token=token),
        model_settings=ModelSettings(token=token),
        agent_settings=agent,
    ) as stack:
        denied = await stack.run({"task": file_edit_tasks[0], "control": "reference"})
        assert denied.status_code == 401
        ok = await stack.client.post(
            "http://agent/run",
            json={"task": file_edit_tasks[0], "control": "reference"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert ok.status_code == 200 and ok.json()["reward"] == 1.0  # the agent sent the token on
        health = await stack.client.get("http://model/health")
        assert health.status_code == 200


async def test_a_task_the_environment_refuses_is_the_callers_error(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    stale = dict(file_edit_tasks[0], env_version="0000000000000000")
    broken = dict(file_edit_tasks[0], task_data={"files": {}})
    async with in_process_stack() as stack:
        r = await stack.run({"task": stale, "control": "reference"})
        assert r.status_code == 409 and r.json()["error"]["kind"] == "env_version_mismatch"
        r = await stack.run({"task": broken, "control": "reference"})
        assert r.status_code == 400 and r.json()["error"]["kind"] == "invalid_task"
        r = await stack.run({"task": dict(file_edit_tasks[0], env="nope")})
        assert r.status_code == 404 and r.json()["error"]["kind"] == "unknown_env"


@pytest.mark.parametrize("server", ["closes with its verdict", "older: ignores the header"])
async def test_the_session_closes_once_however_the_server_answers_verify(
    file_edit_tasks: list[dict[str, Any]], server: str
) -> None:
    def older(request: httpx.Request) -> None:
        if server.startswith("older"):
            request.headers.pop(CLOSE_HEADER, None)  # a server that never heard of it

    async with wired(older) as (client, faulty, resources):
        r = await client.post("/run", json={"task": file_edit_tasks[0], "control": "reference"})
        assert r.status_code == 200 and r.json()["reward"] == 1.0, r.text
        assert len(resources.state.host.registries["file_edit"]) == 0
        closes = [p for p in faulty.paths if p.endswith("/close_session")]
        assert faulty.paths[-1].endswith("/close_session" if closes else "/verify")
        assert len(closes) == (1 if server.startswith("older") else 0)
