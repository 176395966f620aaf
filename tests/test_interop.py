"""Interop, every direction, against stand-ins that check what the peers' clients check
(`fake_peers.py`); `make test-interop` runs the real peers."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_peers import check_nemo_verify_answer, echo_peer, weather_peer
from fastapi.testclient import TestClient
from helpers import serve_in_thread
from openai.types.responses import Response
from typer.testing import CliRunner

from interop.bridges import BridgeError, bridge_class
from interop.nemo_rows import CREATE_FIELDS, nemo_row
from interop.nemo_server import create_app as nemo_app
from interop.openenv_server import create_app as openenv_app
from interop.skyrl_env import RemoteEpisode, skyrl_row, task_of
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task, VerifyResult
from proofgym_stack.cli import app as cli
from proofgym_stack.testing import in_process_stack
from proofgym_stack.validation import EnvReport, validate_env
from resources_servers.base.app import create_app as resources_app
from resources_servers.base.environment import Environment
from resources_servers.math import Env as MathEnv

ROOT = Path(__file__).resolve().parent.parent
MATH = [
    json.loads(line) for line in (ROOT / "tasks/math/example.jsonl").read_text().splitlines()[:2]
]


def verdicts(report: EnvReport) -> dict[str, bool]:
    return {v.name: v.passed for v in report.verdicts}


# --- 1. OpenEnv clients play proofgym environments -------------------------------------------


def openenv_client(env: Environment[Any] | None = None, **settings: Any) -> TestClient:
    tasks = [Task.from_row(r) for r in MATH]
    return TestClient(openenv_app(env or MathEnv(), ResourcesSettings(**settings), tasks))


def send(ws: Any, kind: str, data: Any = None) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": kind, "data": data or {}}))
    return dict(json.loads(ws.receive_text()))


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": tool, "arguments": arguments}


def test_openenv_routes_and_an_episode_as_generic_env_client_plays_it() -> None:
    row = MATH[0]
    answer, expression = row["task_data"]["answer"], row["task_data"]["expression"]
    with openenv_client() as client:
        assert client.get("/health").json() == {"status": "healthy"}
        assert client.get("/metadata").json()["name"] == "math"
        assert {"action", "observation"} <= set(client.get("/schema").json())
        with client.websocket_connect("/ws") as ws:
            reset = send(ws, "reset", {"task": row})
            assert reset["type"] == "observation" and reset["data"]["done"] is False
            obs = reset["data"]["observation"]
            assert "tools" not in obs  # MCPToolClient would read it as a tool list
            assert row["responses_create_params"]["input"][0]["content"] in obs["prompt"]
            assert {t["name"] for t in obs["tool_schemas"]} == {"calculator", "final_answer"}
            step = send(ws, "step", call("calculator", expression=expression))["data"]
            assert step["done"] is False and step["reward"] is None  # null before done
            assert step["observation"]["result"] == str(answer)
            done = send(ws, "step", call("final_answer", message=f"\\boxed{{{answer}}}"))["data"]
            assert done["done"] is True and done["reward"] == 1.0
            assert {"verify", "checks"} <= set(done["metadata"])
            after = send(ws, "step", call("calculator", expression="1+1"))["data"]
            assert after["done"] is True and "over" in after["observation"]["error"]["message"]
            send(ws, "reset", {"task": row})  # the same socket, a new episode
            wrong = send(ws, "step", call("final_answer", message=f"Answer: {answer + 1}"))
            assert wrong["data"]["done"] is True and wrong["data"]["reward"] == 0.0


def test_openenv_mcp_session_with_an_attached_socket_as_mcp_tool_client_uses_it() -> None:
    row = MATH[1]

    def rpc(client: TestClient, method: str, **params: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
        return dict(client.post("/mcp", json=body).json())

    with openenv_client() as client:
        made = rpc(client, "openenv/session/create")["result"]
        sid, key = made["session_id"], made["session_key"]
        with client.websocket_connect(f"/ws?session_id={sid}&session_key={key}") as ws:
            reset = send(ws, "reset", {"task_id": row["task_id"]})
            assert row["responses_create_params"]["input"][0]["content"] in json.dumps(reset)
            tools = rpc(client, "tools/list", session_id=sid)["result"]["tools"]
            assert {"calculator", "final_answer"} <= {t["name"] for t in tools}
            assert all("input_schema" in t for t in tools)
            out = rpc(
                client,
                "tools/call",
                name="calculator",
                arguments={"expression": row["task_data"]["expression"]},
                session_id=sid,
                session_key=key,
            )
            assert str(row["task_data"]["answer"]) in json.dumps(out["result"])
            final = send(
                ws, "step", call("final_answer", message=f"Answer: {row['task_data']['answer']}")
            )
            assert final["data"]["done"] is True and final["data"]["reward"] == 1.0
        closed = rpc(client, "openenv/session/close", session_id=sid, session_key=key)
        assert closed["result"]["closed"] is True


def test_openenv_errors_are_frames_never_a_dropped_socket() -> None:
    with openenv_client(max_sessions=1) as client, client.websocket_connect("/ws") as ws:
        missing = send(ws, "reset", {"task_id": "no-such-task"})
        assert missing["type"] == "error" and missing["data"]["code"] == "EXECUTION_ERROR"
        assert "no task" in missing["data"]["message"]
        assert send(ws, "step", call("calculator", expression="1"))["type"] == "error"  # no reset
        assert send(ws, "dance")["data"]["code"] == "UNKNOWN_TYPE"
        send(ws, "reset", {"seed": 0})
        bad = send(ws, "step", {"type": "call_tool", "tool_name": "calculator", "arguments": 5})
        assert bad["data"]["code"] == "VALIDATION_ERROR"
        policy = send(ws, "step", call("calculator", expression="2 +"))["data"]
        assert policy["done"] is False and policy["observation"]["error"]["error_type"]
        with client.websocket_connect("/ws") as second:  # past max_sessions
            full = send(second, "reset", {"seed": 1})
            assert full["data"]["code"] == "CAPACITY_REACHED" and full["data"]["max_sessions"] == 1


class MaskingMath(MathEnv):
    """A verifier whose judge is down."""

    def verify(self, state: Any, task: Task, response: Response) -> VerifyResult:
        return VerifyResult(
            reward=0.0, mask_sample=True, failure_kind="verify_error", failure_reason="down"
        )


def test_a_masked_verdict_ends_with_a_null_reward_never_a_zero() -> None:
    with openenv_client(MaskingMath()) as client, client.websocket_connect("/ws") as ws:
        send(ws, "reset", {"seed": 0})
        done = send(ws, "step", call("final_answer", message="Answer: 1"))["data"]
        assert done["done"] is True and done["reward"] is None
        assert done["metadata"]["verify"]["mask_sample"] is True


def test_openenv_routes_need_the_token_when_one_is_set() -> None:
    with openenv_client(token="s3cret") as client:
        assert client.get("/health").status_code == 200
        assert client.get("/schema").status_code == 401
        headers = {"Authorization": "Bearer s3cret"}
        assert client.get("/schema", headers=headers).status_code == 200


def test_the_trl_environment_class_plays_through_the_server() -> None:
    from transformers.utils import get_json_schema

    from interop.trl_env import trl_env_class

    tasks = [Task.from_row(r) for r in MATH]
    with serve_in_thread(openenv_app(MathEnv(), ResourcesSettings(), tasks)) as url:
        env_class = trl_env_class(url)
        public = [
            f
            for name, f in inspect.getmembers(env_class, inspect.isfunction)
            if not name.startswith("_") and name not in ("reset", "get_reward")
        ]
        names = {get_json_schema(f)["function"]["name"] for f in public}  # as TRL builds them
        assert names == {"calculator", "final_answer"}
        row = MATH[0]
        env = env_class()
        env.reset(prompt=[{"role": "user", "content": "..."}], task_id=row["task_id"])
        assert env.calculator(expression=row["task_data"]["expression"]) == str(  # type: ignore[attr-defined]
            row["task_data"]["answer"]
        )
        env.final_answer(message=f"Answer: {row['task_data']['answer']}")
        assert env.get_reward() == 1.0
        env.reset(task_id=row["task_id"])
        env.final_answer(message="Answer: 1")
        assert env.get_reward() == 0.0
        env.session.close()


# --- 3. NeMo Gym's agent plays proofgym environments -----------------------------------------


def nemo_shaped(response: dict[str, Any]) -> dict[str, Any]:
    """A response as simple_agent sends it: input-form outputs with null id and status."""
    for item in response["output"]:
        if item["type"] == "function_call_output":
            item["id"], item["status"] = None, None
    return response


async def test_nemo_gym_contract_with_the_session_cookie() -> None:
    env = MathEnv()
    row = nemo_row(Task.from_row(MATH[0]), env)
    answer = row["task_data"]["answer"]
    app = nemo_app(env, ResourcesSettings(), close_after_verify_s=0.05)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://n") as client,
    ):
        assert (await client.post("/calculator", json={"expression": "1"})).status_code == 404
        seeded = await client.post("/seed_session", json=row)
        assert seeded.status_code == 200 and seeded.json() == {}
        assert "proofgym_session" in client.cookies
        tool = await client.post("/calculator", json={"expression": row["task_data"]["expression"]})
        assert tool.json() == {"output": str(answer), "error": None}
        assert (await client.post("/nope", json={})).status_code == 404
        items = [
            {"type": "function_call", "name": "calculator", "arguments": "{}", "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": str(answer)},
            {
                "type": "message",
                "role": "assistant",
                "id": "m1",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": f"\\boxed{{{answer}}}", "annotations": []}
                ],
            },
        ]
        response = nemo_shaped(
            {"id": "r", "object": "response", "created_at": 0, "model": "m", "output": items,
             "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        )  # fmt: skip
        request = {**row, "response": response}
        verified = (await client.post("/verify", json=request)).json()
        check_nemo_verify_answer(request, verified)
        assert verified["reward"] == 1.0 and verified["task_id"] == row["task_id"]
        await asyncio.sleep(0.2)  # the legacy flow never closes: closed after verify
        gone = await client.post("/calculator", json={"expression": "1"})
        assert gone.status_code == 404
        other = {**row, "env": "code"}
        assert (await client.post("/seed_session", json=other)).json()["error"]["kind"] == (
            "wrong_env"
        )
        new_shape = {"resources_session_id": "a" * 32, "task_data": row["task_data"],
                     "responses_create_params": row["responses_create_params"]}  # fmt: skip
        assert (await client.post("/seed_session", json=new_shape)).json() == {
            "resources_session_id": "a" * 32
        }


def test_nemo_rows_inline_tools_and_keep_only_create_params(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    result = CliRunner().invoke(
        cli, ["nemo-rows", str(ROOT / "tasks/math/example.jsonl"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["responses_create_params"]["tools"] for r in rows)
    assert all(set(r["responses_create_params"]) <= CREATE_FIELDS for r in rows)
    assert [r["task_id"] for r in rows][:2] == [t["task_id"] for t in MATH]


# --- 2 and 4. proofgym runs and validates their servers --------------------------------------


def echo_tasks() -> list[Task]:
    def turn(message: str) -> list[list[dict[str, Any]]]:
        return [
            [
                {
                    "type": "function_call",
                    "name": "step",
                    "arguments": json.dumps({"message": message}),
                }
            ],
            [{"type": "message", "content": "done"}],
        ]

    return [
        Task.from_row(
            {
                "task_id": f"echo-{i}",
                "env": "echo",
                "responses_create_params": {"input": f"Task {i}: send 10+ characters."},
                "task_data": {
                    "reset": {"seed": i},
                    "controls": [
                        {"name": "reference", "expect": "pass", "script": turn("hello world!")},
                        {"name": "short_message", "expect": "fail", "script": turn("hi")},
                    ],
                },
            }
        )
        for i in range(2)
    ]


async def test_an_openenv_server_is_played_and_validated_as_a_proofgym_environment() -> None:
    with serve_in_thread(echo_peer()) as url:
        env = bridge_class("echo", f"openenv+{url}")()
        assert env.version().startswith("openenv:0.1.0:")
        assert env.tool_schemas()[0]["parameters"]["required"] == ["message"]
        async with in_process_stack(envs={"echo": env}) as stack:
            body = {"task": echo_tasks()[0].model_dump(), "control": "reference"}
            run = (await stack.run(body)).json()
        assert run["reward"] == 1.0 and not run["mask_sample"]
        assert "hello world!" in json.dumps(run["response"]["output"])  # the peer's echo
        report = await validate_env(env, echo_tasks(), sample=2, parallel=8)
    got = verdicts(report)
    for name in ("control:reference", "control:short_message", "negative:empty_answer",
                 "negative:garbage_text", "negative:claim_without_action", "determinism",
                 "adversarial:hostile_arguments", "reward_well_formed"):  # fmt: skip
        assert got[name], name
    # echo pays any 10+ character message, which is what its prompt asks: another message is
    # no wrong answer (a nonsense one passes too), so validate does not accuse it
    assert got["attack:plausible_wrong_arguments"] is True


async def test_an_openenv_peer_at_capacity_is_a_429_and_a_dead_peer_masks() -> None:
    with serve_in_thread(echo_peer(max_concurrent_envs=0)) as url:
        env = bridge_class("echo", f"openenv+{url}")()
        env.tool_schemas()  # read while the peer is up
        task = echo_tasks()[0]
        app = resources_app(ResourcesSettings(), envs={"echo": env})
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://r") as client:
            seeded = await client.post(
                "/echo/seed_session", json={"session_id": "s" * 20, "task": task.model_dump()}
            )
        assert seeded.status_code == 429 and seeded.json()["error"]["kind"] == "at_capacity"
    async with in_process_stack(envs={"echo": env}) as stack:  # the peer is gone now
        run = (await stack.run({"task": task.model_dump(), "control": "reference"})).json()
    assert run["mask_sample"] is True and run["failure_kind"] == "resources_error"


def weather_tasks() -> list[Task]:
    city = {"type": "object", "properties": {"city": {"type": "string"}},
            "required": ["city"], "additionalProperties": False}  # fmt: skip
    tool = {"type": "function", "name": "get_weather", "description": "", "parameters": city}
    call = {"type": "function_call", "name": "get_weather",
            "arguments": json.dumps({"city": "San Francisco"})}  # fmt: skip
    reference = [[call], [{"type": "message", "content": "Cold."}]]
    no_tool = [[{"type": "message", "content": "Nice, probably."}]]
    return [
        Task.from_row(
            {
                "task_id": f"weather-{i}",
                "env": "weather",
                "responses_create_params": {"input": f"sf weather? ({i})", "tools": [tool]},
                "controls": [
                    {"name": "reference", "expect": "pass", "script": reference},
                    {"name": "no_tool", "expect": "fail", "script": no_tool},
                ],
            }
        )
        for i in range(2)
    ]


@pytest.mark.parametrize("paid", [1e12, float("nan"), float("inf"), -3.0])
async def test_a_peer_s_reward_out_of_range_or_not_finite_is_its_error_named(paid: float) -> None:
    with serve_in_thread(weather_peer(paid)) as url:
        env = bridge_class("weather", f"nemo-gym+{url}")()
        async with in_process_stack(envs={"weather": env}) as stack:
            body = {"task": weather_tasks()[0].model_dump(), "control": "reference"}
            run = (await stack.run(body)).json()
    assert run["mask_sample"] is True and run["failure_kind"] == "verify_error"
    reason = run["failure_reason"]
    assert "NeMo Gym peer answered reward" in reason and "[0.0, 1.0]" in reason, reason
    assert run["reward"] != paid  # never passed on


async def test_validate_finds_the_nemo_example_server_pays_any_call_of_its_tool() -> None:
    with serve_in_thread(weather_peer()) as url:
        env = bridge_class("weather", f"nemo-gym+{url}")()
        assert env.tool_schemas() == []  # the row's tools reach the policy, never twice
        async with in_process_stack(envs={"weather": env}) as stack:
            body = {"task": weather_tasks()[0].model_dump(), "control": "reference"}
            run = (await stack.run(body)).json()
        assert run["reward"] == 1.0 and "The weather in San Francisco is cold." in json.dumps(
            run["response"]["output"]
        )
        tools = [i for i in run["responses_create_params"]["tools"] if i["name"] == "get_weather"]
        assert len(tools) == 1
        report = await validate_env(env, weather_tasks(), sample=2, parallel=8)
    got = verdicts(report)
    for name in ("control:reference", "control:no_tool", "negative:empty_answer",
                 "negative:garbage_text", "negative:claim_without_action"):  # fmt: skip
        assert got[name], name
    assert got["negative:random_tool_calls"] is False  # the finding: nonsense calls pay 1.0


def test_a_bad_bridge_setting_is_refused_by_name() -> None:
    with pytest.raises(BridgeError, match="KIND\\+URL"):
        bridge_class("x", "gopher://h")
    result = CliRunner().invoke(
        cli, ["envs"], env={"PROOFGYM_BRIDGES": '{"math": "openenv+http://127.0.0.1:9"}'}
    )
    assert result.exit_code != 0 and "shipped environment" in result.output


# --- 5. SkyRL plays proofgym environments ----------------------------------------------------


def test_skyrl_rows_and_an_episode_from_model_text(tmp_path: Path) -> None:
    out = tmp_path / "rows.parquet"
    result = CliRunner().invoke(
        cli, ["skyrl-rows", str(ROOT / "tasks/math/example.jsonl"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    rows = pq.read_table(out).to_pylist()
    assert rows[0]["env_class"] == "proofgym" and "<tool_call>" in rows[0]["prompt"][0]["content"]
    task = task_of(rows[0])
    assert task.model_dump() == Task.from_row(MATH[0]).model_dump()  # intact through Parquet
    data = task.task_data
    with serve_in_thread(resources_app(ResourcesSettings(envs=["math"]))) as url:
        for final, reward in ((f"Answer: {data['answer']}", 1.0), ("Answer: 1", 0.0)):
            episode = RemoteEpisode(url, task)
            assert {t["name"] for t in episode.seed()["tools"]} == {"calculator"}
            text = json.dumps(
                {"name": "calculator", "arguments": {"expression": data["expression"]}}
            )
            step = episode.step(f"Let me compute.<tool_call>{text}</tool_call>")
            assert (
                step["done"] is False and str(data["answer"]) in step["observations"][0]["content"]
            )
            deep = (
                '<tool_call>{"name": "calculator", "arguments": "' + "[" * 5000 + '"}</tool_call>'
            )
            hostile = episode.step(deep)  # the policy's own mess: an error it sees, scored
            assert hostile["done"] is False and "Error" in hostile["observations"][0]["content"]
            done = episode.step(final)
            assert done["done"] is True and done["reward"] == reward
            assert done["metadata"]["mask_sample"] is False
        dead = RemoteEpisode(url, task)
        dead.seed()
    # the server is gone: the verdict is masked, never a policy's 0
    done = dead.step("Answer: 1")
    assert done["metadata"]["mask_sample"] is True
    assert skyrl_row(task, [], None)["reward_spec"]["method"] == "env"


async def test_a_peer_at_its_capacity_is_its_limit_in_validate_not_broken_isolation() -> None:
    # the peer takes 4 sessions at once; validate runs 16 in parallel: the refused ones are
    # the peer's limit, reported as such, and the ones that ran are judged
    # (a reset beside another session holds it 0.2 s: the sessions overlap however loaded the
    # machine is)
    with serve_in_thread(echo_peer(max_concurrent_envs=4, reset_s=0.2)) as url:
        env = bridge_class("echo", f"openenv+{url}")()
        report = await validate_env(env, echo_tasks(), sample=2, parallel=16)
    isolation = next(v for v in report.verdicts if v.name == "isolation_parallel")
    assert isolation.passed, isolation.detail
    assert "refused at the environment's capacity" in isolation.detail


def mcp_tasks() -> list[Task]:
    """Tasks for an MCP OpenEnv peer serving math (proofgym's own `serve openenv`): the reset
    sends the peer its task; the reference answers through the peer's `final_answer` tool."""
    out = []
    for row in MATH:
        answer = row["task_data"]["answer"]

        def final(text: str) -> list[list[dict[str, Any]]]:
            call = {"type": "function_call", "name": "final_answer",
                    "arguments": json.dumps({"message": text})}  # fmt: skip
            return [[call], [{"type": "message", "content": "Answered."}]]

        controls = [
            {"name": "reference", "expect": "pass", "script": final(f"Answer: {answer}")},
            {"name": "noop_claim", "expect": "fail",
             "script": [[{"type": "message", "content": "Done, solved it."}]]},
            {"name": "violation_wrong_answer", "expect": "fail",
             "script": final(f"Answer: {answer * 3 + 17}")},
        ]  # fmt: skip
        out.append(
            Task(
                task_id=f"mcp-{row['task_id']}",
                env="mathmcp",
                responses_create_params=row["responses_create_params"],
                task_data={"reset": {"task": row}, "controls": controls, "reward": "last"},
            )
        )
    return out


async def test_an_openenv_peer_whose_actions_are_mcp_tool_calls_is_bridged_tool_by_tool() -> None:
    peer = openenv_app(MathEnv(), ResourcesSettings(), [Task.from_row(r) for r in MATH])
    with serve_in_thread(peer) as url:
        env = bridge_class("mathmcp", f"openenv+{url}")()
        names = {t["name"] for t in env.tool_schemas()}
        assert names == {"calculator", "final_answer"}  # the peer's tools, not one `step`
        async with in_process_stack(envs={"mathmcp": env}) as stack:
            calc = {"type": "function_call", "name": "calculator",
                    "arguments": json.dumps({"expression": "6 * 7"})}  # fmt: skip
            script = [[calc], [{"type": "message", "content": "42"}]]
            body = {
                "task": mcp_tasks()[0].model_dump(),
                "model_params": {"model": "scripted", "script": script},
            }
            run = (await stack.run(body)).json()
        assert "42" in json.dumps(run["response"]["output"])  # the peer's calculator answered
        report = await validate_env(env, mcp_tasks(), sample=2, parallel=8)
    assert report.passed, [(v.name, v.detail) for v in report.verdicts if not v.passed]
