"""The model interface app: `/v1/responses`, `/v1/chat/completions`, `/v1/models`."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic_core import PydanticSerializationError

from model_interface.backends import Backend
from model_interface.backends.scripted import ScriptedBackend
from model_interface.request import ResponsesRequest
from proofgym import VERSION
from proofgym.clients.http import ServiceClient, Transport
from proofgym.serving.fastroute import fast_post
from proofgym.serving.service import APP_OPTIONS, install_common, while_connected
from proofgym.serving.settings import ModelSettings
from proofgym.wire.errors import BadRequest, InvalidRequest
from proofgym.wire.jsonlimits import scrub_surrogates


def build_backend(settings: ModelSettings, transport: Transport | None = None) -> Backend:
    """The backend the settings name."""
    if settings.backend == "scripted":
        return ScriptedBackend()
    if settings.backend == "openai":
        from model_interface.backends.openai_chat import OpenAIChatBackend

        client = ServiceClient(settings, transport)
        return OpenAIChatBackend(client, settings.base_urls, settings.model, settings.api_key)
    if settings.backend == "local":
        from model_interface.backends.local import build_local

        return build_local(Path(settings.model), settings)
    if settings.backend == "vllm":
        from model_interface.backends.vllm import build_vllm

        return build_vllm(settings, ServiceClient(settings, transport))
    raise ValueError(f"unknown backend {settings.backend!r}")


def route_key(header: str | None, body: Any) -> str:
    """What keeps a rollout on one upstream: its id, else a hash of its first input."""
    if header:
        return header
    first = body[:1] if isinstance(body, list) else body
    return hashlib.sha1(json.dumps(first, sort_keys=True, default=str).encode()).hexdigest()


def create_app(settings: ModelSettings | None = None, backend: Backend | None = None) -> FastAPI:
    """The model interface app over `backend` (default: the one the settings name).

    Requests that carry a `script` always go to the scripted backend, so controls run against
    any deployment.
    """
    settings = settings or ModelSettings()
    main = backend or build_backend(settings)
    scripted = ScriptedBackend()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await main.aclose()

    app = FastAPI(
        title="proofgym model interface", version=VERSION, lifespan=lifespan, **APP_OPTIONS
    )
    install_common(app, "model", settings.token, settings.guard_limits(), settings.instance)
    app.state.backend = main

    @fast_post(app, "/v1/responses")
    async def responses(body: ResponsesRequest, request: Request) -> Response:
        if body.stream:  # PROTOCOL.md: non-streaming is required, streaming optional
            raise BadRequest("streaming is not supported; send stream=false", kind="unsupported")
        target = scripted if body.script is not None else main
        key = route_key(request.headers.get("x-rollout-id"), body.input)
        response = await while_connected(request, target.respond(body, key))
        if response is None:  # the caller went away: nothing to answer, nothing generated
            return Response(status_code=499)
        try:
            data = response.model_dump_json(exclude_none=True)
        except PydanticSerializationError:
            # Model text may hold lone surrogates (an endpoint's JSON escapes, a script),
            # which no UTF-8 body can carry; token ids stay exact, the text shows U+FFFD.
            dumped = response.model_dump(mode="json", exclude_none=True)
            return JSONResponse(scrub_surrogates(dumped))
        return Response(data, media_type="application/json")

    @fast_post(app, "/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            raise InvalidRequest(f"body is not valid JSON: {exc}", kind="malformed_json") from None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise InvalidRequest("chat completions need a JSON object with 'messages'")
        key = route_key(request.headers.get("x-rollout-id"), body["messages"])
        return JSONResponse(scrub_surrogates(await main.chat(body, key)))

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        names = main.models()
        return {
            "object": "list",
            "data": [
                {"id": n, "object": "model", "created": 0, "owned_by": "proofgym"} for n in names
            ],
        }

    return app
