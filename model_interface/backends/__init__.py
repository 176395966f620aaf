"""Model backends: each turns a ResponsesRequest into a Response."""

from __future__ import annotations

from typing import Any, Protocol

from openai.types.responses import Response

from model_interface.request import ResponsesRequest


class Backend(Protocol):
    """What the model interface needs of a backend."""

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        """Answer one Responses create; `route_key` keeps a rollout on one upstream."""

    async def chat(self, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        """Pass a Chat Completions request through to the upstream."""

    def models(self) -> list[str]:
        """The model names this backend serves."""

    async def aclose(self) -> None:
        """Release connections and models."""
