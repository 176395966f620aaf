"""Fast routes answer exactly as the same endpoint under FastAPI would, minus the framework."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from pydantic import BaseModel

from proofgym.serving.fastroute import FastRoute, fast_post
from proofgym.serving.service import install_common
from proofgym.wire.errors import Conflict


class Item(BaseModel):
    name: str
    count: int = 1
    note: str | None = None


class Echoed(BaseModel):
    env: str
    item: Item
    header: str | None = None
    calls: int = 0


def make_app(fast: bool, calls: list[str]) -> FastAPI:
    """One endpoint, declared as a fast route or as a plain FastAPI route."""
    app = FastAPI()
    install_common(app, "test", None)
    declare = (lambda path, **kw: fast_post(app, path, **kw)) if fast else app.post

    @declare("/{env}/items", response_model_exclude_none=True)
    async def items(env: str, body: Item, request: Request) -> Echoed:
        calls.append(env)
        if body.name == "taken":
            raise Conflict("that name is taken", kind="rollout_running")
        if body.name == "bug":
            raise RuntimeError("a bug")
        return Echoed(env=env, item=body, header=request.headers.get("x-test"), calls=len(calls))

    return app


BODIES: list[Any] = [
    b'{"name": "a"}',
    b'{"name": "a", "count": 3, "note": "n"}',
    b'{"name": "taken"}',
    b"",
    b"   ",
    b"{not json",
    b"[1, 2]",
    b'{"count": "many"}',
    b'{"name": 5}',
    b'"just a string"',
    b"null",
    b'{"name": "a", "count": ' + b"9" * 5000 + b"}",
]


async def answer(app: FastAPI, method: str, path: str, body: bytes = b"") -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        headers = {"content-type": "application/json", "x-test": "h"}
        return await client.request(method, path, content=body, headers=headers)


def is_json(body: bytes) -> bool:
    try:
        json.loads(body)
        return True
    except ValueError:
        return False


def fields(message: str) -> list[str]:
    """The fields a validation message names (`a.b: what; c: what`)."""
    return [part.split(":")[0] for part in message.split("; ")]


@pytest.mark.parametrize("body", BODIES)
async def test_a_fast_route_answers_as_fastapi_does(body: bytes) -> None:
    fast_calls: list[str] = []
    plain_calls: list[str] = []
    fast = await answer(make_app(True, fast_calls), "POST", "/math/items", body)
    plain = await answer(make_app(False, plain_calls), "POST", "/math/items", body)
    assert fast.headers["content-type"] == "application/json"
    assert fast.status_code == plain.status_code
    got, want = fast.json(), plain.json()
    if fast.status_code < 400:
        assert got == want
    else:
        # the same kind, naming the same fields; only the parser's words may differ (it reads
        # the bytes as JSON: "Input should be an object", where FastAPI's says "a dictionary")
        assert got["error"]["kind"] == want["error"]["kind"]
        message = got["error"]["message"]
        if fast.status_code == 400:  # the integer of 5,000 digits
            assert message == "the body holds a number too long to read"
        elif is_json(body) or not body:
            assert fields(message) == fields(want["error"]["message"])
        else:  # the parser says where the JSON broke, in its own words
            assert message.startswith("body: Invalid JSON: "), got
    assert fast_calls == plain_calls  # the handler ran exactly when FastAPI would run it


async def test_a_bug_is_a_whole_500_and_other_methods_are_405() -> None:
    app = make_app(True, [])
    bug = await answer(app, "POST", "/math/items", b'{"name": "bug"}')
    assert bug.status_code == 500 and bug.json()["error"]["kind"] == "internal"
    wrong = await answer(app, "GET", "/math/items")
    assert wrong.status_code == 405 and "POST" in wrong.headers["allow"]
    missing = await answer(app, "POST", "/math/items/more", b"{}")
    assert missing.status_code == 404 and missing.json()["error"]["kind"] == "not_found"


async def test_the_fast_path_serves_and_metrics_name_the_route() -> None:
    app = make_app(True, [])
    served: list[str] = []
    endpoint = app.state.fast_routes[0].endpoint

    async def spy(**params: Any) -> Any:
        served.append(params["env"])
        return await endpoint(**params)

    route: FastRoute = app.state.fast_routes[0]
    app.state.fast_routes[0] = FastRoute(**{**route.__dict__, "endpoint": spy})
    ok = await answer(app, "POST", "/code/items", b'{"name": "a"}')
    assert ok.status_code == 200 and served == ["code"]
    want = {"env": "code", "item": {"name": "a", "count": 1}, "header": "h", "calls": 1}
    assert ok.json() == want
    metrics = (await answer(app, "GET", "/metrics")).text
    assert 'route="/{env}/items",service="test",status="200"' in metrics


def test_a_parameter_the_fast_path_cannot_fill_is_refused_at_declaration() -> None:
    app = FastAPI()
    install_common(app, "test", None)

    async def endpoint(env: str, limit: int) -> Echoed:
        raise AssertionError("never called")

    with pytest.raises(TypeError, match="'limit'"):
        fast_post(app, "/{env}/items")(endpoint)


async def test_a_bytes_parameter_is_the_raw_body() -> None:
    app = FastAPI()
    install_common(app, "test", None)
    seen: list[bytes] = []

    async def raw(body: bytes) -> Echoed:
        seen.append(body)
        return Echoed(env="e", item=Item(name="x"))

    from proofgym.serving.fastroute import add_fast_route

    add_fast_route(app, "/raw", raw, None)
    ok = await answer(app, "POST", "/raw", b'{"any": ["json", 1]}')
    assert ok.status_code == 200 and seen == [b'{"any": ["json", 1]}']
