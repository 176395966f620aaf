"""Stand-ins for the peers, built from their source (OpenEnv 0.10.0, NeMo Gym 0.7.0), for the
default suite; `make test-interop` runs the real ones.

- `echo_peer()`: OpenEnv's `openenv init` echo environment as its server speaks it: `/schema`,
  `/metadata`, and `/ws` frames (`reset`, `step` with the action validated against
  `{message: str}`, `close`), the reward `min(len(message) * 0.1, 1.0)`, and
  `CAPACITY_REACHED` past `max_concurrent_envs`.
- `weather_peer()`: NeMo Gym's `example_single_tool_call`: a cookie session from
  `/seed_session`, `get_weather(city)`, and a `/verify` that pays 1.0 when any `get_weather`
  call is in the response (its real verifier), answering the request echoed with the reward.
- `check_nemo_verify_answer`: what simple_agent's `SimpleAgentVerifyResponse` requires.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, Response

ECHO_SCHEMA = {
    "action": {
        "additionalProperties": False,
        "properties": {
            "metadata": {"type": "object", "title": "Metadata"},
            "message": {"description": "Message to echo back", "type": "string"},
        },
        "required": ["message"],
        "title": "EchoAction",
        "type": "object",
    },
    "observation": {"title": "EchoObservation", "type": "object", "properties": {}},
    "state": {"title": "State", "type": "object", "properties": {}},
}


def echo_peer(max_concurrent_envs: int = 64, reset_s: float = 0.0) -> FastAPI:
    """OpenEnv's echo environment server, as its wire protocol has it; a reset while another
    session is open takes `reset_s` (a burst of sessions held open together, however loaded
    the machine; a session alone is not slowed)."""
    app = FastAPI()
    active: set[str] = set()

    @app.get("/schema")
    async def schema() -> dict[str, Any]:
        return ECHO_SCHEMA

    @app.get("/metadata")
    async def metadata() -> dict[str, Any]:
        return {"name": "echo_env", "description": "echoes messages", "version": "0.1.0"}

    def observation(message: str, reward: float, done: bool = False) -> dict[str, Any]:
        obs = {"echoed_message": message, "message_length": len(message), "metadata": {}}
        return {"observation": obs, "reward": reward, "done": done}

    @app.websocket("/ws")
    async def ws(socket: WebSocket) -> None:
        await socket.accept()
        if len(active) >= max_concurrent_envs:
            await socket.send_text(
                json.dumps(
                    {
                        "type": "error",
                        "data": {
                            "message": "capacity",
                            "code": "CAPACITY_REACHED",
                            "active_sessions": len(active),
                            "max_sessions": max_concurrent_envs,
                        },
                    }
                )
            )
            await socket.close()
            return
        sid = uuid.uuid4().hex
        active.add(sid)
        try:
            while True:
                frame = json.loads(await socket.receive_text())
                kind, data = frame.get("type"), frame.get("data") or {}
                if kind == "close":
                    break
                if kind == "reset":
                    if len(active) > 1:
                        await asyncio.sleep(reset_s)
                    answer = {"type": "observation", "data": observation("Echo env ready!", 0.0)}
                elif kind == "step":
                    message = data.get("message")
                    extra = set(data) - {"message", "metadata"}
                    if not isinstance(message, str) or extra:
                        answer = {
                            "type": "error",
                            "data": {
                                "message": "Invalid message",
                                "code": "VALIDATION_ERROR",
                                "errors": [{"loc": ["message"], "msg": "a string is required"}],
                            },
                        }
                    else:
                        reward = min(len(message) * 0.1, 1.0)
                        answer = {"type": "observation", "data": observation(message, reward)}
                else:
                    answer = {
                        "type": "error",
                        "data": {
                            "message": f"Unknown message type: {kind}",
                            "code": "UNKNOWN_TYPE",
                        },
                    }
                await socket.send_text(json.dumps(answer))
        except WebSocketDisconnect:
            pass
        finally:
            active.discard(sid)

    return app


COOKIE = "SimpleWeatherResourcesServer___env_resources"


def weather_peer(paid: Any = None) -> FastAPI:
    """NeMo Gym's example_single_tool_call resources server, as its source has it (`paid`:
    the reward its verify answers instead, a broken peer's)."""
    app = FastAPI()
    sessions: set[str] = set()

    @app.post("/seed_session")
    async def seed(request: Request) -> Any:
        await request.json()
        sid = uuid.uuid4().hex
        sessions.add(sid)
        answer = JSONResponse({})
        answer.set_cookie(COOKIE, sid)
        return answer

    @app.post("/get_weather")
    async def get_weather(request: Request) -> Any:
        if request.cookies.get(COOKIE) not in sessions:
            return JSONResponse({"detail": "no session"}, 400)
        body = await request.json()
        if not isinstance(body, dict) or not isinstance(body.get("city"), str):
            return JSONResponse({"detail": [{"loc": ["body", "city"], "msg": "required"}]}, 422)
        city = body["city"]
        return {"city": city, "weather_description": f"The weather in {city} is cold."}

    @app.post("/verify")
    async def verify(request: Request) -> Any:
        body = await request.json()
        called = any(
            item.get("type") == "function_call" and item.get("name") == "get_weather"
            for item in body["response"]["output"]
        )
        reward = 1.0 if called else 0.0
        if paid is not None:  # a broken peer: json.dumps writes NaN and Infinity as they are
            return Response(json.dumps({**body, "reward": paid}), media_type="application/json")
        return {**body, "reward": reward}

    return app


def check_nemo_verify_answer(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """What simple_agent's verify response model requires: the request echoed (its
    `responses_create_params`, which forbids extra fields, and `response`) and a float
    `reward`; raise AssertionError naming what is missing."""
    assert answer.get("responses_create_params") == request["responses_create_params"]
    assert isinstance(answer.get("response"), dict) and answer["response"]["output"]
    assert isinstance(answer.get("reward"), float)
    allowed = {
        "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens",
        "max_tool_calls", "temperature", "top_p", "top_logprobs", "metadata", "model", "reasoning",
        "text", "truncation", "include", "previous_response_id", "store", "service_tier", "user",
        "prompt", "background",
    }  # fmt: skip
    extra = set(answer["responses_create_params"]) - allowed
    assert not extra, f"NeMo's create params forbid {extra}"
