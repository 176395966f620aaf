"""The lean HTTP client against real sockets: reuse, limits, every way a server can answer or
not answer, and the errors the retry logic depends on."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI, Request
from helpers import serve_in_thread

from proofgym.clients.http import CallFailed, ConnectFailed, LeanTransport, ServiceClient
from proofgym.clients.lean_http import ConnectFailed as LeanConnectFailed
from proofgym.clients.lean_http import LeanClient
from proofgym.serving.settings import ClientSettings
from proofgym_stack.up import free_port

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One request's head and body (by Content-Length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head, await reader.readexactly(length)


@contextlib.asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[tuple[str, list[int]]]:
    """A socket server running `handler` per connection; its URL and a connection count."""
    connections: list[int] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            await handler(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", connections
    finally:
        server.close()


def answering(*responses: bytes, keep: bool = True) -> Handler:
    """A handler answering each request on a connection with the next response in turn."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for response in responses:
            await read_request(reader)
            writer.write(response)
            await writer.drain()
        if keep:
            await reader.read()  # hold the connection until the client drops it

    return handler


def ok(body: bytes, *extra: bytes) -> bytes:
    head = [b"HTTP/1.1 200 OK", b"Content-Length: %d" % len(body), *extra]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


async def test_a_kept_alive_connection_carries_every_request() -> None:
    async with raw_server(answering(*[ok(b'{"n": %d}' % i) for i in range(20)])) as (url, conns):
        client = LeanClient()
        for i in range(20):
            r = await client.request("POST", f"{url}/x", b"{}", {}, 5)
            assert (r.status, r.body) == (200, b'{"n": %d}' % i)
        assert len(conns) == 1
        await client.aclose()


async def test_chunked_and_close_delimited_bodies_are_read_whole() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    async with raw_server(answering(chunked, ok(b"next"))) as (url, conns):
        client = LeanClient()
        assert (await client.request("GET", url, None, {}, 5)).body == b"abcde"
        assert (await client.request("GET", url, None, {}, 5)).body == b"next"
        assert len(conns) == 1  # chunked: the connection is reused
    until_close = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it"
    async with raw_server(answering(until_close, keep=False)) as (url, conns):
        r = await LeanClient().request("GET", url, None, {}, 5)
        assert (r.status, r.body) == (200, b"all of it")


async def test_a_closed_connection_is_never_reused() -> None:
    closing = ok(b"1", b"Connection: close")
    async with raw_server(answering(closing, keep=False)) as (url, conns):
        client = LeanClient()
        for _ in range(3):
            assert (await client.request("GET", url, None, {}, 5)).body == b"1"
        assert len(conns) == 3
    # the server drops the connection after answering (its idle timeout): no error follows
    async with raw_server(answering(ok(b"2"), keep=False)) as (url, conns):
        client = LeanClient()
        for _ in range(3):
            assert (await client.request("GET", url, None, {}, 5)).body == b"2"
            await asyncio.sleep(0.05)  # the close arrives while the connection is idle
        assert len(conns) == 3


async def test_at_most_the_limit_of_connections_the_rest_wait_in_turn() -> None:
    running: list[int] = []
    most = 0

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal most
        while True:
            await read_request(reader)
            running.append(1)
            most = max(most, len(running))
            await asyncio.sleep(0.05)
            running.pop()
            writer.write(ok(b"done"))
            await writer.drain()

    async with raw_server(slow) as (url, conns):
        client = LeanClient(limit_per_host=2)
        answers = await asyncio.gather(
            *(client.request("POST", url, b"{}", {}, 10) for _ in range(10))
        )
        assert all(a.body == b"done" for a in answers)
        assert most == 2 and len(conns) == 2


@pytest.mark.parametrize(
    ("handler", "says"),
    [
        (answering(keep=False), "without answering"),
        (answering(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", keep=False), "mid-answer"),
        (answering(b"this is not http at all\r\n\r\n"), "not HTTP"),
    ],
)
async def test_a_server_that_goes_or_garbles_is_a_connection_error(
    handler: Handler, says: str
) -> None:
    async with raw_server(handler) as (url, _):
        with pytest.raises(ConnectionError, match=says):
            await LeanClient().request("POST", url, b"{}", {}, 5)


async def test_a_server_that_never_answers_times_out_and_its_connection_goes() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    async with raw_server(silent) as (url, _):
        client = LeanClient()
        with pytest.raises(TimeoutError):
            await client.request("POST", url, b"{}", {}, 0.3)
        assert not any(pool.idle for pool in client.pools.values())


async def test_nothing_sent_is_connect_failed() -> None:
    with pytest.raises(LeanConnectFailed, match="cannot connect"):
        await LeanClient().request("GET", f"http://127.0.0.1:{free_port()}/", None, {}, 5)
    with pytest.raises(LeanConnectFailed, match="resolve"):
        await LeanClient().request("GET", "http://no-such-host.invalid/", None, {}, 5)


async def test_a_header_with_a_line_break_is_refused_before_sending() -> None:
    async with raw_server(answering(ok(b""))) as (url, conns):
        with pytest.raises(ValueError, match="line break"):
            await LeanClient().request("GET", url, None, {"X-A": "1\r\nX-B: 2"}, 5)
        assert conns == []


async def test_service_client_over_the_lean_transport_against_uvicorn() -> None:
    app = FastAPI()
    seen: list[dict[str, Any]] = []

    @app.post("/echo/{name}")
    async def echo(name: str, request: Request) -> dict[str, Any]:
        body = await request.json()
        seen.append({"name": name, "session": request.headers.get("x-session-id")})
        return {"got": body, "query": request.url.query}

    with serve_in_thread(app) as url:
        client = ServiceClient(ClientSettings())
        assert isinstance(client.transport, LeanTransport)
        body = {"text": "é ✓", "n": [1, 2.5, None]}
        for _ in range(3):
            answer = await client.post_json(
                f"{url}/echo/a?x=1", body, headers={"X-Session-Id": "s1"}
            )
            assert answer == {"got": body, "query": "x=1"}
        assert seen == [{"name": "a", "session": "s1"}] * 3
        missing = await client.call("GET", f"{url}/nowhere")
        assert missing.status == 404 and missing.headers["content-type"] == "application/json"
        await client.aclose()
    with pytest.raises(ConnectFailed):
        await LeanTransport().send("GET", f"http://127.0.0.1:{free_port()}/", None, {}, 5)


async def test_other_schemes_go_to_aiohttp() -> None:
    sent: list[str] = []

    class Recorder:
        async def send(self, method: str, url: str, *rest: Any) -> Any:
            sent.append(url)
            return "answer"

        async def aclose(self) -> None:
            pass

    transport = LeanTransport()
    transport._other = Recorder()  # type: ignore[assignment]
    assert await transport.send("POST", "https://api.example/v1", {}, {}, 5) == "answer"
    assert sent == ["https://api.example/v1"]


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_every_answer_shape_under_both_event_loops(loop: str) -> None:
    # the services run uvloop, whose transports are not asyncio's classes
    import uvloop

    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {"loop": type(asyncio.get_running_loop()).__module__}
        client = LeanClient()
        async with raw_server(answering(ok(b"1"), chunked, ok(b"3"))) as (url, conns):
            bodies = [(await client.request("GET", url, None, {}, 5)).body for _ in range(3)]
            seen["kept alive"] = (bodies, len(conns))
        async with raw_server(answering(keep=False)) as (url, _):
            try:
                await client.request("POST", url, b"{}", {}, 5)
            except ConnectionError as exc:
                seen["gone"] = str(exc)
        try:
            await client.request("GET", f"http://127.0.0.1:{free_port()}/", None, {}, 5)
        except LeanConnectFailed:
            seen["refused"] = "ConnectFailed"
        return seen

    factory = uvloop.new_event_loop if loop == "uvloop" else asyncio.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        seen = runner.run(scenario())
    assert seen["loop"].startswith("uvloop" if loop == "uvloop" else "asyncio"), seen
    assert seen["kept alive"] == ([b"1", b"abc", b"3"], 1)
    assert "without answering" in seen["gone"]
    assert seen["refused"] == "ConnectFailed"


async def test_every_resolved_address_is_tried_and_the_one_that_answers_comes_first() -> None:
    # `localhost` may resolve to ::1 before 127.0.0.1 while a server listens on one only
    async with raw_server(answering(ok(b"here"), ok(b"again"))) as (url, conns):
        port = int(url.rsplit(":", 1)[1])
        client = LeanClient()
        pool = client._pool("localhost", port)
        nobody = ("127.0.0.1", free_port())
        pool.addresses, pool.resolved_at = [nobody, ("127.0.0.1", port)], time.monotonic()
        r = await client.request("GET", f"http://localhost:{port}/", None, {}, 5)
        assert r.body == b"here" and pool.addresses[0] == ("127.0.0.1", port)
        await client.aclose()
        r = await client.request("GET", f"http://localhost:{port}/", None, {}, 5)
        assert r.body == b"here" and len(conns) == 2  # a new pool, resolved for real


def big_answer(size: int, declared: bool = True) -> bytes:
    """An answer of `size` body bytes, by Content-Length or chunked."""
    body = b"x" * size
    if declared:
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size + body
    return (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n" % size
        + body
        + b"\r\n0\r\n\r\n"
    )


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
async def test_an_answer_over_the_limit_is_not_read_and_fails_the_call_once(
    declared: bool,
) -> None:
    from proofgym.clients.lean_http import ResponseTooLarge

    async with raw_server(answering(big_answer(3000, declared), keep=False)) as (url, conns):
        client = LeanClient(max_response_bytes=1000)
        with pytest.raises(ResponseTooLarge):
            await client.request("GET", url + "/", None, {}, 5.0)
        small = LeanClient(max_response_bytes=5000)
        answer = await small.request("GET", url + "/", None, {}, 5.0)
        assert answer.status == 200 and len(answer.body) == 3000
        # through the service client: one attempt, no retries of an answer that will not shrink
        settings = ClientSettings(max_response_mb=1000 / 2**20, max_retries=3)
        service = ServiceClient(settings)
        before = len(conns)
        with pytest.raises(CallFailed, match="over 1000 bytes"):
            await service.call("GET", url + "/")
        assert len(conns) == before + 1
        await service.aclose()
        await client.aclose()
        await small.aclose()


async def test_a_kept_alive_connection_the_server_closed_is_retried_once_on_a_new_one() -> None:
    seen: list[bytes] = []

    async def closes_when_reused(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # answers the first request, then closes the connection as the next one arrives (its
        # idle timer fired in the same instant): no byte of answer
        _, body = await read_request(reader)
        seen.append(body)
        writer.write(ok(b"first"))
        await writer.drain()
        _, body = await read_request(reader)
        seen.append(body)

    async with raw_server(closes_when_reused) as (url, conns):
        client = LeanClient()
        assert (await client.request("POST", url, b"a", {}, 5)).body == b"first"
        assert (await client.request("POST", url, b"b", {}, 5)).body == b"first"  # retried
        assert len(conns) == 2 and seen == [b"a", b"b", b"b"]

    # a new connection that closes unanswered is a failure at once: no retry hides a dead server
    async def never_answers(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    async with raw_server(never_answers) as (url, conns):
        with pytest.raises(ConnectionError, match="without answering"):
            await LeanClient().request("POST", url, b"x", {}, 5)
        assert len(conns) == 1
