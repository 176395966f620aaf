"""Run the three services in one process, wired through httpx ASGI transports.

For tests and for checks that need the real services without ports: every service-to-service
call goes through the same client code as in production, only the transport differs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from proofgym.clients.http import HttpxTransport
from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings


class RoutingTransport(httpx.AsyncBaseTransport):
    """Sends each request to the ASGI app registered for its host (`http://resources/...`)."""

    def __init__(self, apps: Mapping[str, FastAPI]) -> None:
        # An app that raises answers 500, as a real server does, instead of raising here.
        self.transports = {
            host: httpx.ASGITransport(app=app, raise_app_exceptions=False)
            for host, app in apps.items()
        }

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        transport = self.transports.get(request.url.host)
        if transport is None:
            raise httpx.ConnectError(f"no app at {request.url.host}", request=request)
        return await transport.handle_async_request(request)


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
    apps["model"] = model
    routing.transports["model"] = httpx.ASGITransport(app=model, raise_app_exceptions=False)
    settings = agent_settings or AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=1,
        backoff_base_s=0.01,
        proofs_dir=None,  # tests and validate neither read proofs nor make a key in the cwd
    )
    agent = agent_app(settings, transport=HttpxTransport(inner))
    apps["agent"] = agent
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
