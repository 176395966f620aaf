"""The floor: a bare FastAPI route that answers its JSON body, served like our services."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/echo")
async def echo(request: Request) -> Any:
    return {"output": await request.json(), "error": None}
