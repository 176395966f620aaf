"""Run the three services in one process, wired through httpx ASGI transports.

For tests and for checks that need the real services without ports: every service-to-service
call goes through the same client code as in production, only the transport differs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx
from fastapi import FastAPI

from proofgym.clients.http import HttpAnswer, HttpxTransport, http_answer, json_request
from proofgym.clients.lean_http import ConnectFailed
from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings


class RoutingTransport(httpx.AsyncBaseTransport):
    """Sends each request to the ASGI app registered for its host (`http://resources/...`)."""

    def __init__(self, apps: Mapping[str, FastAPI]) -> None:
        # An app that raises answers 500, as a real server does, instead of raising here.
        self.apps: dict[str, Any] = dict(apps)
        self.transports = {
            host: httpx.ASGITransport(app=app, raise_app_exceptions=False)
            for host, app in apps.items()
        }

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        transport = self.transports.get(request.url.host)
        if transport is None:
            raise httpx.ConnectError(f"no app at {request.url.host}", request=request)
        return await transport.handle_async_request(request)


class AsgiTransport:
    """Sends each call straight to the ASGI app registered for its host, as one ASGI
    request, without an HTTP client in between: the services' own client code
    (`ServiceClient`: retries, budgets, headers) runs as in production, and each app sees the
    scope a server gives it. An app that raises before it answers answers 500, as a real
    server does. Like `httpx.ASGITransport` it enforces no timeout; it is several times
    cheaper per call, which is most of what an in-process rollout costs."""

    def __init__(self, apps: Mapping[str, Any]) -> None:
        self.apps = apps

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer:
        parts = urlsplit(url)
        app = self.apps.get(parts.hostname or "")
        if app is None:
            raise ConnectFailed(f"no app at {parts.hostname}")
        data, headers = json_request(body, headers)
        content = data or b""
        raw = [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()]
        raw += [(b"host", (parts.netloc or "").encode("latin-1"))]
        if data is not None:
            raw.append((b"content-length", str(len(content)).encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": unquote(parts.path or "/"),
            "raw_path": (parts.path or "/").encode(),
            # as a client sends it: anything past ASCII percent-encoded
            "query_string": quote(parts.query, safe="=&;%+/:?@!$'()*,~").encode("ascii"),
            "root_path": "",
            "headers": raw,
            "server": (parts.hostname or "", parts.port or 80),
            "client": ("127.0.0.1", 123),
        }
        answer = _Answer()
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": content, "more_body": False}
            await answer.done.wait()
            return {"type": "http.disconnect"}

        try:
            await app(scope, receive, answer.take)
        except Exception:
            if answer.status is None:  # raised before answering: what a server answers
                answer.status, answer.headers, answer.chunks = 500, {}, [b"Internal Server Error"]
        answer.done.set()
        return http_answer(answer.status or 500, answer.headers, b"".join(answer.chunks))

    async def aclose(self) -> None:
        """Nothing to close: no connection was opened."""


class _Answer:
    """What an ASGI app sent back for one request."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.done = asyncio.Event()

    async def take(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            for k, v in message.get("headers", []):
                name, value = k.decode("latin-1"), v.decode("latin-1")
                # a header sent twice is read as one list, as an HTTP client joins it
                had = self.headers.get(name)
                self.headers[name] = value if had is None else f"{had}, {value}"
        elif message["type"] == "http.response.body":
            self.chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                self.done.set()


@dataclass
class InProcessStack:
    """The three apps and a client that reaches each by its host name."""

    agent: FastAPI
    resources: FastAPI
    model: FastAPI
    client: httpx.AsyncClient

    async def run(
        self, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> httpx.Response:
        """POST /run on the agent (JSON with non-ASCII escaped, as most clients send it)."""
        return await self.client.post(
            "http://agent/run",
            content=json.dumps(body),
            headers={"content-type": "application/json", **(headers or {})},
        )


@contextlib.asynccontextmanager
async def in_process_stack(
    resources_settings: ResourcesSettings | None = None,
    agent_settings: AgentSettings | None = None,
    model_settings: ModelSettings | None = None,
    envs: Mapping[str, Any] | None = None,
    extra_apps: Mapping[str, FastAPI] | None = None,
) -> AsyncIterator[InProcessStack]:
    """Build the three services in-process; the agent reaches the others through ASGI."""
    from agent_server.app import create_app as agent_app
    from model_interface.app import build_backend
    from model_interface.app import create_app as model_app
    from resources_servers.base.app import create_app as resources_app

    resources = resources_app(resources_settings or ResourcesSettings(), envs=envs)
    apps: dict[str, FastAPI] = {"resources": resources, **(extra_apps or {})}
    routing = RoutingTransport(apps)
    inner = httpx.AsyncClient(transport=routing)
    # the model interface's upstream calls (openai, vllm backends) reach `extra_apps` too
    model_settings = model_settings or ModelSettings()
    model = model_app(model_settings, build_backend(model_settings, HttpxTransport(inner)))
    apps["model"] = routing.apps["model"] = model
    routing.transports["model"] = httpx.ASGITransport(app=model, raise_app_exceptions=False)
    settings = agent_settings or AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=1,
        backoff_base_s=0.01,
        proofs_dir=None,  # tests and validate neither read proofs nor make a key in the cwd
    )
    # the agent's own calls, most of each rollout's, go straight to the apps
    agent = agent_app(settings, transport=AsgiTransport(routing.apps))
    apps["agent"] = routing.apps["agent"] = agent
    routing.transports["agent"] = httpx.ASGITransport(app=agent)
    client = httpx.AsyncClient(transport=routing, timeout=60)
    async with contextlib.AsyncExitStack() as stack:
        for app in (resources, model, agent):
            await stack.enter_async_context(app.router.lifespan_context(app))
        try:
            yield InProcessStack(agent, resources, model, client)
        finally:
            await client.aclose()
            await inner.aclose()
