"""The floor: echo routes that answer their JSON body, served like our services.

`app` is a bare FastAPI route; `raw_app` is the same echo as a plain ASGI callable (no
framework at all). Both run under uvicorn with uvloop and httptools, as `proofgym serve` runs
our services, so the CPU they spend per request is what any service of ours pays at least.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/echo")
async def echo(request: Request) -> Any:
    return {"output": await request.json(), "error": None}


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


async def raw_app(scope: Any, receive: Any, send: Any) -> None:
    """The echo with nothing between uvicorn and the handler."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
    if scope["type"] != "http":
        return
    body = await read_body(receive)
    answer = json.dumps({"output": json.loads(body), "error": None}).encode()
    await send(JSON_ANSWER)
    await send({"type": "http.response.body", "body": answer})


def start(port: int, target: str = "bench.echo_server:app") -> subprocess.Popen[bytes]:
    """An echo server (`target`, an ASGI app path) in its own process, served as
    `proofgym serve` serves our services, listening when this returns."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            target,
            "--port",
            str(port),
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--log-level",
            "warning",
            "--backlog",
            "8192",
        ],
        cwd=Path(__file__).resolve().parent.parent,
    )
    wait_listening(port, proc, f"the echo server {target}")
    return proc


def wait_listening(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    """Return once `proc` listens on `port`; kill it and raise if it exits first or does not
    listen within a minute."""
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"{what} did not listen on {port}") from None
            time.sleep(0.1)
