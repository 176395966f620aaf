"""The model interface: scripted and openai backends, conversion, routing, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI, Request

from model_interface.app import build_backend, create_app
from model_interface.convert import input_to_messages
from proofgym.clients.http import HttpxTransport
from proofgym.serving.settings import ModelSettings
from proofgym_stack.testing import RoutingTransport

TOOLS = [
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


def fake_chat_server(
    name: str, seen: list[tuple[str, dict[str, Any]]], mode: str = "tools"
) -> FastAPI:
    """A fake OpenAI-compatible chat server recording what it was sent."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        seen.append((name, body))
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "tool_calls"
        if mode == "tools":
            message["reasoning_content"] = "I should read it."
            message["tool_calls"] = [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                }
            ]
        else:
            message["content"] = "partial answ"
            finish = "length"
        return {
            "id": "c1",
            "object": "chat.completion",
            "model": body["model"],
            "created": 0,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
        }

    return app


def broken_server() -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat() -> Any:
        raise RuntimeError("upstream bug")

    return app


@pytest.fixture
async def seen() -> list[tuple[str, dict[str, Any]]]:
    return []


async def interface(apps: dict[str, FastAPI], urls: list[str]) -> httpx.AsyncClient:
    routing = RoutingTransport(apps)
    settings = ModelSettings(
        backend="openai", base_urls=urls, model="tiny", max_retries=1, backoff_base_s=0.001
    )
    backend = build_backend(settings, HttpxTransport(httpx.AsyncClient(transport=routing)))
    app = create_app(settings, backend)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://model")


async def test_openai_backend_converts_both_ways(seen: list[tuple[str, dict[str, Any]]]) -> None:
    client = await interface({"up": fake_chat_server("up", seen)}, ["http://up/v1"])
    history = [
        {"type": "message", "role": "user", "content": "read a.txt"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "thinking"}],
        },
        {
            "type": "function_call",
            "call_id": "c0",
            "name": "read_file",
            "arguments": '{"path": "b.txt"}',
        },
        {"type": "function_call_output", "call_id": "c0", "output": "B"},
    ]
    r = await client.post(
        "/v1/responses",
        json={
            "input": history,
            "instructions": "be careful",
            "tools": TOOLS,
            "max_output_tokens": 64,
            "temperature": 0.5,
        },
    )
    assert r.status_code == 200, r.text
    sent = seen[0][1]
    assert sent["model"] == "tiny" and sent["max_tokens"] == 64 and sent["temperature"] == 0.5
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "tool"]
    assistant = sent["messages"][2]
    assert assistant["reasoning_content"] == "thinking"
    assert assistant["tool_calls"][0]["id"] == "c0"
    assert sent["messages"][3] == {"role": "tool", "tool_call_id": "c0", "content": "B"}
    assert sent["tools"][0]["function"]["name"] == "read_file"
    out = r.json()
    assert [i["type"] for i in out["output"]] == ["reasoning", "function_call"]
    assert out["output"][1]["call_id"] == "call_1"
    assert out["usage"]["input_tokens"] == 12 and out["status"] == "completed"


async def test_length_cut_is_incomplete(seen: list[tuple[str, dict[str, Any]]]) -> None:
    client = await interface({"up": fake_chat_server("up", seen, "length")}, ["http://up/v1"])
    out = (await client.post("/v1/responses", json={"input": "hi"})).json()
    assert out["status"] == "incomplete"
    assert out["incomplete_details"]["reason"] == "max_output_tokens"


async def test_backend_failures_are_502_and_503() -> None:
    client = await interface({"bad": broken_server()}, ["http://bad/v1"])
    r = await client.post("/v1/responses", json={"input": "hi"})
    assert r.status_code == 502 and r.json()["error"]["kind"] == "backend_error"
    gone = await interface({}, ["http://nowhere/v1"])
    r = await gone.post("/v1/responses", json={"input": "hi"})
    assert r.status_code == 503 and r.json()["error"]["kind"] == "backend_unavailable"


async def test_rollouts_stick_to_one_of_three_upstreams(
    seen: list[tuple[str, dict[str, Any]]],
) -> None:
    apps = {f"u{i}": fake_chat_server(f"u{i}", seen) for i in range(3)}
    client = await interface(apps, [f"http://u{i}/v1" for i in range(3)])
    for rollout in range(30):
        for _ in range(3):
            await client.post(
                "/v1/responses",
                json={"input": "hi"},
                headers={"X-Rollout-Id": f"rollout-{rollout}"},
            )
    by_rollout: dict[int, set[str]] = {}
    for index, (name, _) in enumerate(seen):
        by_rollout.setdefault(index // 3, set()).add(name)
    assert all(len(names) == 1 for names in by_rollout.values())  # sticky
    assert {n for names in by_rollout.values() for n in names} == {"u0", "u1", "u2"}  # spread


async def test_bad_requests_are_4xx() -> None:
    app = create_app(ModelSettings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m") as c:
        missing = await c.post("/v1/responses", json={"model": "scripted"})
        assert missing.status_code == 422 and "input" in missing.json()["error"]["message"]
        no_script = await c.post("/v1/responses", json={"input": "hi"})
        assert no_script.status_code == 400
        assert no_script.json()["error"]["kind"] == "missing_script"
        bad_item = await c.post("/v1/responses", json={"input": "hi", "script": [[{"type": "x"}]]})
        assert bad_item.status_code == 400 and bad_item.json()["error"]["kind"] == "invalid_script"
        stream = await c.post(
            "/v1/responses", json={"input": "hi", "stream": True, "script": [[{"type": "message"}]]}
        )
        assert stream.status_code == 400 and stream.json()["error"]["kind"] == "unsupported"
        models = (await c.get("/v1/models")).json()
        assert models["data"][0]["id"] == "scripted"


def test_unsupported_items_are_refused_by_name() -> None:
    with pytest.raises(Exception, match=r"input\[1\]"):
        input_to_messages([{"role": "user", "content": "x"}, {"type": "computer_call"}], None)


async def test_the_official_openai_client_parses_our_responses() -> None:
    app = create_app(ModelSettings())
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m/v1")
    client = openai.AsyncOpenAI(api_key="unused", base_url="http://m/v1", http_client=http)
    script = [[{"type": "function_call", "name": "read_file", "arguments": {"path": "a"}}]]
    response = await client.responses.create(
        model="scripted", input="go", extra_body={"script": script}
    )
    assert response.output[0].type == "function_call"
    assert response.output[0].name == "read_file"
    done = await client.responses.create(
        model="scripted",
        extra_body={"script": [[{"type": "message", "content": "all done"}]]},
        input=[{"role": "user", "content": "go"}],
    )
    assert done.output_text == "all done"


async def test_a_script_starts_after_the_conversation_a_prompt_carries() -> None:
    # NeMo Gym's multi-turn rows (calendar, citation_if) hold a conversation's earlier
    # assistant turns in the prompt; counting them skipped the script to its end
    app = create_app(ModelSettings())
    script = [
        [{"type": "function_call", "name": "look", "arguments": {}}],
        [{"type": "message", "content": "the answer"}],
    ]
    history = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "an earlier answer"},
        {"role": "user", "content": "now this"},
    ]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m") as c:
        body = {"model": "scripted", "script": script, "input": history}
        first = (await c.post("/v1/responses", json=body)).json()
        assert first["output"][0]["type"] == "function_call"
        call = first["output"][0]
        played = [
            *history,
            call,
            {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"},
        ]
        second = (await c.post("/v1/responses", json={**body, "input": played})).json()
        assert second["output"][0]["content"][0]["text"] == "the answer"


async def test_a_script_starts_where_the_agent_says_the_rollout_starts() -> None:
    # a prompt that ends with a tool call and its output (NeMo Gym's single-step rows): with
    # no user message after them, they were counted as the script's first turn, and every
    # script played "(the script has ended)" (the peer table's audit found it)
    app = create_app(ModelSettings())
    script = [[{"type": "message", "content": "the answer"}]]
    prompt = [
        {"role": "user", "content": "what is the weather?"},
        {"type": "function_call", "name": "weather", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
    ]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m") as c:
        body = {"model": "scripted", "script": script, "input": prompt, "script_from": 3}
        first = (await c.post("/v1/responses", json=body)).json()
        assert first["output"][0]["content"][0]["text"] == "the answer"
        # without it the prompt's own call is read as a turn played
        body.pop("script_from")
        old = (await c.post("/v1/responses", json=body)).json()
        assert old["output"][0]["content"][0]["text"] == "(the script has ended)"


def test_the_local_backend_stops_generating_for_a_caller_that_has_gone(
    tiny_model_dir: Path,
) -> None:
    # a judge call that timed out used to keep the CPU model busy for nobody, and timed-out
    # calls piled up behind it
    from helpers import serve_in_thread

    settings = ModelSettings(
        backend="local",
        model=str(tiny_model_dir),
        pinned_sampling={"temperature": 0.0},
        torch_threads=1,
    )
    app = create_app(settings)
    with serve_in_thread(app) as url:
        long = {"model": "tiny", "input": "hi", "max_output_tokens": 3000}  # seconds of work
        with pytest.raises(httpx.TimeoutException):
            httpx.post(f"{url}/v1/responses", json=long, timeout=0.5)
        short = httpx.post(
            f"{url}/v1/responses",
            json={"model": "tiny", "input": "hi", "max_output_tokens": 4},
            timeout=60,
        )
        assert short.status_code == 200
        generator = app.state.backend.generator
    assert generator.abandoned == 1  # the gone caller's generation was stopped early
    last = short.json()["output"][-1]
    assert len(last["generation_token_ids"]) == 4
