"""A minimal headless-Chromium driver over the DevTools protocol (aiohttp's websocket): enough
to load a page, run JavaScript in it, wait for something to show, and take a screenshot."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from helpers import patience

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
]


class Page:
    """One tab: `evaluate` JavaScript, `wait_for` a condition, `screenshot` to a PNG."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        await self.ws.send_json({"id": msg_id, "method": method, "params": params})
        while True:
            msg = await asyncio.wait_for(self.ws.receive_json(), 30)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            await asyncio.sleep(0.1)

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait_for("document.readyState === 'complete'")

    async def screenshot(self, path: Path) -> Path:
        shot = await self.send("Page.captureScreenshot", format="png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


@contextlib.asynccontextmanager
async def browser(port: int) -> AsyncIterator[Page]:
    """A headless Chromium with one blank tab, closed afterwards."""
    assert CHROMIUM is not None
    profile = tempfile.mkdtemp(prefix="proofgym-chromium-")
    proc = subprocess.Popen(
        [
            *(CHROMIUM, *FLAGS),
            *(f"--remote-debugging-port={port}", f"--user-data-dir={profile}", "about:blank"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with aiohttp.ClientSession() as http:
            targets: list[dict[str, Any]] = []
            deadline = time.monotonic() + patience(30)
            while not any(t.get("type") == "page" for t in targets):
                if time.monotonic() > deadline:
                    raise TimeoutError("chromium did not open its DevTools port")
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(f"http://127.0.0.1:{port}/json/list") as r:
                        targets = json.loads(await r.text())
                await asyncio.sleep(0.2)
            tab = next(t for t in targets if t.get("type") == "page")
            async with http.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                page = Page(ws)
                await page.send("Page.enable")
                await page.send("Runtime.enable")
                yield page
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
