"""The floor: a bare FastAPI route that answers its JSON body, served like our services."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/echo")
async def echo(request: Request) -> Any:
    return {"output": await request.json(), "error": None}


def start(port: int) -> subprocess.Popen[bytes]:
    """The floor server in its own process, served as `proofgym serve` serves our services."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "bench.echo_server:app",
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
