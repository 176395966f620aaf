"""The agent server app: `POST /run`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI

from agent_server.loop import RolloutRunner
from proofgym import VERSION
from proofgym.clients.http import ServiceClient, Transport
from proofgym.rollouts.viewer import create_viewer
from proofgym.serving.fastroute import fast_post
from proofgym.serving.service import APP_OPTIONS, install_common
from proofgym.serving.settings import AgentSettings
from proofgym.wire.jsonlimits import MAX_BYTES
from proofgym.wire.protocol import RunRequest, RunResult


def create_app(
    settings: AgentSettings | None = None, transport: Transport | None = None
) -> FastAPI:
    """The agent app; `transport` replaces aiohttp (tests route it to in-process apps)."""
    settings = settings or AgentSettings()
    client = ServiceClient(settings, transport, token=settings.token)
    runner = RolloutRunner(settings, client)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        renewer = asyncio.create_task(runner.renew_forever())
        try:
            yield
        finally:
            renewer.cancel()
            await client.aclose()

    app = FastAPI(title="proofgym agent server", version=VERSION, lifespan=lifespan, **APP_OPTIONS)
    app.state.runner = runner
    # a task is all /run takes: it fits the policy-content parser's limit
    limits = settings.guard_limits(((r"/run", MAX_BYTES),))
    install_common(app, "agent", settings.token, limits, settings.instance)
    if settings.ui_store is not None:  # the viewer of a live store, read-only
        app.mount("/ui", create_viewer(settings.ui_store))

    @fast_post(app, "/run", response_model_exclude_none=True)
    async def run(body: RunRequest) -> RunResult:
        return await runner.run(body)

    return app
