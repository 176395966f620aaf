"""The in-process stack's lean transport: each call handed straight to its app, as a server
would hand it (the body, the query, the headers, a 500 for an app that raises), and the same
verdicts as through httpx's ASGI transport, in a fraction of the time (bench/ measures it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from proofgym.clients.http import ClientSettings, ServiceClient
from proofgym.clients.lean_http import ConnectFailed
from proofgym_stack.testing import AsgiTransport


def app() -> FastAPI:
    service = FastAPI()

    @service.post("/echo")
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "body": await request.json(),
                "query": dict(request.query_params),
                "rollout": request.headers.get("x-rollout-id"),
                "host": request.headers.get("host"),
            },
            headers={"X-Seen": "yes"},
        )

    @service.post("/raise")
    async def boom() -> None:
        raise RuntimeError("the app fails")

    @service.get("/twice")
    async def twice() -> Response:
        answer = Response("ok")
        answer.headers.append("X-Part", "a")
        answer.headers.append("X-Part", "b")
        return answer

    @service.get("/stream")
    async def stream() -> StreamingResponse:
        async def parts() -> AsyncIterator[bytes]:
            for word in (b"one ", b"two ", b"three"):
                await asyncio.sleep(0)
                yield word

        return StreamingResponse(parts(), media_type="text/plain")

    return service


async def test_a_call_reaches_its_app_as_a_server_would_hand_it() -> None:
    transport = AsgiTransport({"svc": app()})
    answer = await transport.send(
        "POST", "http://svc/echo?page=2&q=a%20b", {"n": 1}, {"X-Rollout-Id": "r1"}, 5.0
    )
    assert answer.status == 200 and answer.header("x-seen") == "yes"
    assert answer.body == {
        "body": {"n": 1},
        "query": {"page": "2", "q": "a b"},
        "rollout": "r1",
        "host": "svc",
    }
    # read by an independent review: a query past ASCII arrives as sent, a header sent
    # twice as one list
    accented = await transport.send("POST", "http://svc/echo?q=café", {}, {}, 5.0)
    assert accented.body["query"] == {"q": "café"}
    twice = await transport.send("GET", "http://svc/twice", None, {}, 5.0)
    assert twice.header("x-part") == "a, b"
    streamed = await transport.send("GET", "http://svc/stream", None, {}, 5.0)
    assert streamed.status == 200 and streamed.text == "one two three"


async def test_an_app_that_raises_answers_500_and_an_unknown_host_is_not_reached() -> None:
    transport = AsgiTransport({"svc": app()})
    failed = await transport.send("POST", "http://svc/raise", {}, {}, 5.0)
    assert failed.status == 500
    with pytest.raises(ConnectFailed):
        await transport.send("POST", "http://elsewhere/echo", {}, {}, 5.0)
    # through the services' own client: a 500 is retried, then reported with its status
    client = ServiceClient(ClientSettings(max_retries=1, backoff_base_s=0.0), transport)
    answer = await client.post_json("http://svc/echo", {"k": "v"})
    assert answer["body"] == {"k": "v"}
