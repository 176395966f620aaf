"""The `openai` backend: any OpenAI-compatible Chat Completions endpoint.

It carries no token data, so the agent marks its rollouts not trainable.
"""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response

from model_interface.convert import chat_message_to_items, chat_request
from model_interface.request import ResponsesRequest
from model_interface.upstream import post_upstream
from proofgym.clients.http import ServiceClient
from proofgym.clients.routing import sticky
from proofgym.wire.errors import UpstreamError
from proofgym.wire.responses import build_response


class OpenAIChatBackend:
    """Converts each Responses request to Chat Completions and back."""

    def __init__(
        self, client: ServiceClient, base_urls: list[str], model: str, api_key: str | None = None
    ) -> None:
        if not base_urls:
            raise ValueError("the openai backend needs at least one base URL")
        self.client = client
        self.base_urls = [u.rstrip("/") for u in base_urls]
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def _post(self, path: str, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        url = sticky(self.base_urls, route_key) + path
        return await post_upstream(self.client, url, body, "the model backend", self.headers)

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        body = request.model_dump(exclude_none=True)
        model = request.model if request.model and request.model != "default" else self.model
        chat = await self._post("/chat/completions", chat_request(body, model), route_key)
        try:
            choice = chat["choices"][0]
            items = chat_message_to_items(choice["message"])
        except (KeyError, IndexError, TypeError) as exc:
            raise UpstreamError(
                f"model backend answered an unusable completion: {exc!r}", kind="backend_error"
            ) from None
        usage = chat.get("usage") or {}
        cut = choice.get("finish_reason") == "length"
        return build_response(
            items,
            model=str(chat.get("model", model)),
            status="incomplete" if cut else "completed",
            incomplete_reason="max_output_tokens" if cut else None,
            usage={
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
            },
        )

    async def chat(self, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        body = {**body, "model": body.get("model") or self.model}
        return await self._post("/chat/completions", body, route_key)

    def models(self) -> list[str]:
        return [self.model]

    async def aclose(self) -> None:
        await self.client.aclose()
