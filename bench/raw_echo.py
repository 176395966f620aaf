"""The echo as a plain ASGI callable, with nothing between the server and the handler.

It imports nothing but `json`, so any ASGI server in any environment can serve
`bench.raw_echo:app` (bench/asgi_servers.py serves it under another server than uvicorn).
The helpers are shared with bench/skeleton.py.
"""

from __future__ import annotations

import json
from typing import Any


async def lifespan(receive: Any, send: Any, on_shutdown: Any = None) -> None:
    """Answer an ASGI lifespan's startup and shutdown (awaiting `on_shutdown()` first)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if on_shutdown is not None:
                await on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def read_body(receive: Any) -> bytes:
    """The whole body of an ASGI HTTP request."""
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


JSON_ANSWER = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"application/json")],
}


async def app(scope: Any, receive: Any, send: Any) -> None:
    """Answer a POSTed JSON body as `{"output": body, "error": null}`."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
    if scope["type"] != "http":
        return
    body = await read_body(receive)
    answer = json.dumps({"output": json.loads(body), "error": None}).encode()
    await send(JSON_ANSWER)
    await send({"type": "http.response.body", "body": answer})
