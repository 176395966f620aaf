"""What the real peers send, recorded from their own types and replayed here, so that a
drift in a dependency (openai 3.x made usage fields required that NeMo Gym's openai 2.44
responses lack) shows in the default suite without installing the peers.

`tests/peer_payloads/` holds the recordings: `nemo_gym_0.7.0_verify.json` is the `/verify`
body NeMo Gym 0.7.0's `simple_agent` sends, built by NeMo Gym's own `BaseVerifyRequest` and
`NeMoGymResponse` under its pinned openai 2.44 (`make test-interop` re-checks against the
live peer); `nemo_gym_0.7.0_mcp_weather_openapi.json` is the OpenAPI document of NeMo Gym's
`example_mcp_weather` server (whose rows list `tools: []`), its component schemas trimmed to
the tool's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from interop.nemo_server import create_app as nemo_app
from proofgym.serving.settings import ResourcesSettings
from resources_servers.math import Env as MathEnv

PAYLOADS = Path(__file__).resolve().parent / "peer_payloads"


def recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((PAYLOADS / name).read_text()))


async def test_nemo_gym_s_own_verify_body_is_accepted_by_serve_nemo_gym() -> None:
    captured = recorded("nemo_gym_0.7.0_verify.json")
    assert captured["openai"].startswith("2.")  # recorded under the peer's own pin
    body = captured["body"]
    usage = body["response"]["usage"]["input_tokens_details"]
    assert "cache_write_tokens" not in usage  # what openai 3.x requires and 2.44 never sends
    row = {k: v for k, v in body.items() if k != "response"}
    app = nemo_app(MathEnv(), ResourcesSettings(), close_after_verify_s=0)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://nemo") as client,
    ):
        seeded = await client.post("/seed_session", json=row)
        assert seeded.status_code == 200, seeded.text
        call = body["response"]["output"][0]
        tool = await client.post(f"/{call['name']}", content=call["arguments"])
        assert tool.status_code == 200 and tool.json()["error"] is None, tool.text
        verified = await client.post("/verify", json=body)
    assert verified.status_code == 200, verified.text  # was 422: cache_write_tokens required
    answer = verified.json()
    assert answer["reward"] == 1.0 and answer["mask_sample"] is False
    assert answer["response"]["id"] == "resp_nemo_capture"  # the request echoed, as NeMo wants


def test_a_nemo_gym_server_s_tools_are_read_from_its_openapi() -> None:
    """A peer whose rows list no tools has them announced at seed, read from its routes:
    every POST route outside NeMo's contract, its body schema inlined as the parameters."""
    from interop.bridges import openapi_tools

    tools = openapi_tools(recorded("nemo_gym_0.7.0_mcp_weather_openapi.json"))
    assert tools == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Get a deterministic weather report for a city.",
            "parameters": {
                "properties": {"city": {"type": "string"}},
                "type": "object",
                "required": ["city"],
            },
        }
    ]


def test_a_seed_announces_only_the_tools_the_row_does_not_list() -> None:
    from interop.bridges import bridge_class
    from proofgym.wire.protocol import Task
    from resources_servers.base.app import unlisted_tools

    bridge = bridge_class("weather", "nemo-gym+http://127.0.0.1:9")
    bridge._openapi = recorded("nemo_gym_0.7.0_mcp_weather_openapi.json")
    env = bridge()
    bare = Task.from_row(
        {"task_id": "a", "env": "weather", "responses_create_params": {"input": "x", "tools": []}}
    )
    assert [t["name"] for t in unlisted_tools(env, bare)] == ["get_weather"]
    own = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
    listed = Task.from_row(
        {
            "task_id": "b",
            "env": "weather",
            "responses_create_params": {"input": "x", "tools": [own]},
        }
    )
    assert unlisted_tools(env, listed) == []  # the row's tools reach the policy with the row
    assert [t["name"] for t in unlisted_tools(MathEnv(), bare)] == [
        t["name"] for t in MathEnv.tool_schemas()
    ]
