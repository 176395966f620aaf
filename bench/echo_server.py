"""The floor: echo routes that answer their JSON body, served like our services.

`app` is a bare FastAPI route; `bench.raw_echo:app` is the same echo as a plain ASGI callable
(no framework at all). Both run under uvicorn with uvloop and httptools, as `proofgym serve`
runs our services, so the CPU they spend per request is what any service of ours pays at least.
"""

from __future__ import annotations

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
