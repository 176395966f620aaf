"""A service answers in one send: the status line, headers and body that uvicorn writes
separately leave together at the end of the event loop's turn, in order; a close sends what
is pending first and an abort drops it. Checked against a recording transport, alone and
under the uvicorn protocol the services run."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.server import ServerState

from proofgym.serving.server import CoalescedWrites, HeaderTimeoutProtocol


class Recording(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.events: list[str] = []
        self.closing = False

    def write(self, data: Any) -> None:
        self.sent.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.events.append("close")
        self.closing = True

    def abort(self) -> None:
        self.events.append("abort")
        self.closing = True

    def get_write_buffer_size(self) -> int:
        return 7

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


async def test_writes_of_one_turn_leave_as_one_in_order() -> None:
    inner = Recording()
    outer = CoalescedWrites(inner, asyncio.get_running_loop())
    outer.write(b"HTTP/1.1 200 OK\r\n\r\n")
    outer.write(b"body")
    assert inner.sent == [] and outer.get_write_buffer_size() == 7 + 23
    await asyncio.sleep(0)
    assert inner.sent == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
    outer.write(b"next")
    await asyncio.sleep(0)
    assert inner.sent[-1] == b"next"
    assert outer.get_extra_info("peername") == ("127.0.0.1", 1)  # the rest is the transport's


async def test_close_sends_what_is_pending_and_abort_drops_it() -> None:
    inner = Recording()
    outer = CoalescedWrites(inner, asyncio.get_running_loop())
    outer.write(b"last words")
    outer.close()
    assert inner.sent == [b"last words"] and inner.events == ["close"]
    await asyncio.sleep(0)  # the scheduled flush finds nothing more to send
    assert inner.sent == [b"last words"]

    inner = Recording()
    outer = CoalescedWrites(inner, asyncio.get_running_loop())
    outer.write(b"never")
    outer.abort()
    await asyncio.sleep(0)
    assert inner.sent == [] and inner.events == ["abort"]


async def test_a_service_answers_in_one_write() -> None:
    """The protocol `serve` runs, fed a request: uvicorn writes the status line and headers,
    then the body; the connection sees one write holding all of it."""
    app = FastAPI()

    @app.get("/x")
    async def x() -> dict[str, str]:
        return {"hello": "world"}

    config = uvicorn.Config(app, log_level="error")
    inner = Recording()
    protocol = HeaderTimeoutProtocol(config, ServerState(), {})
    protocol.connection_made(inner)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
    for _ in range(50):
        await asyncio.sleep(0)
        if inner.sent:
            break
    assert len(inner.sent) == 1, inner.sent
    assert inner.sent[0].startswith(b"HTTP/1.1 200 ") and inner.sent[0].endswith(
        b'{"hello":"world"}'
    )
    protocol.connection_lost(None)
