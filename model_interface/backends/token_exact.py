"""What the token-exact backends (`local`, `vllm`) share: prompt ids from the renderer, a
generator that returns ids and logprobs, and items parsed from the text with the ids attached.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openai.types.responses import Response

from model_interface.hermes import Parser, items_from_generation, parse_hermes
from model_interface.rendering import Renderer
from model_interface.request import ResponsesRequest
from proofgym.wire.errors import BadRequest
from proofgym.wire.responses import assistant_message, build_response

Finish = Literal["stop", "length"]


@dataclass
class Sampling:
    """How to sample one generation."""

    max_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0


@dataclass
class Generation:
    """What a generator returns: the sampled ids, one logprob each, and why it stopped."""

    token_ids: list[int]
    log_probs: list[float]
    finish: Finish


class Generator(Protocol):
    """Samples a continuation of a prompt given as token ids."""

    async def generate(
        self, prompt_ids: list[int], sampling: Sampling, route_key: str
    ) -> Generation: ...

    def models(self) -> list[str]: ...

    async def aclose(self) -> None: ...


class TokenExactBackend:
    """A Responses backend over a token-level generator.

    The last output item of each response carries `prompt_token_ids`, `generation_token_ids`
    and `generation_log_probs` (not in the OpenAI spec). `pinned` sampling values override the
    request's (on-policy training wants the trainer's temperature, not the caller's).
    """

    def __init__(
        self,
        tokenizer: Any,
        generator: Generator,
        *,
        model: str,
        context_length: int,
        default_max_tokens: int = 512,
        pinned: dict[str, float] | None = None,
        parser: Parser = parse_hermes,
    ) -> None:
        self.tokenizer = tokenizer
        self.renderer = Renderer(tokenizer)
        self.generator = generator
        self.model = model
        self.context_length = context_length
        self.default_max_tokens = default_max_tokens
        self.pinned = pinned or {}
        self.parser = parser

    def sampling(self, request: ResponsesRequest, prompt_len: int) -> Sampling:
        """The sampling of one request, pinned values first, bounded by the context."""
        wanted = request.max_output_tokens or self.default_max_tokens
        temperature = self.pinned.get("temperature", request.temperature)
        top_p = self.pinned.get("top_p", request.top_p)
        return Sampling(
            max_tokens=min(wanted, self.context_length - prompt_len),
            temperature=1.0 if temperature is None else float(temperature),
            top_p=1.0 if top_p is None else float(top_p),
        )

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        # Templating and tokenizing a long history is CPU work: keep it off the event loop.
        prompt_ids, _ = await asyncio.to_thread(
            self.renderer.prompt, request.input, request.instructions, request.tools
        )
        if len(prompt_ids) >= self.context_length:
            return build_response(
                [assistant_message("")],
                model=self.model,
                status="incomplete",
                incomplete_reason="max_output_tokens",
                usage={"input_tokens": len(prompt_ids), "output_tokens": 0},
                proofgym_incomplete_reason="context_length",  # not in the OpenAI spec
            )
        sampling = self.sampling(request, len(prompt_ids))
        gen = await self.generator.generate(prompt_ids, sampling, route_key)
        ids = gen.token_ids
        items = await asyncio.to_thread(self._items, ids)
        items[-1].update(
            prompt_token_ids=prompt_ids,
            generation_token_ids=ids,
            generation_log_probs=gen.log_probs,
        )
        cut = gen.finish == "length"
        return build_response(
            items,
            model=self.model,
            status="incomplete" if cut else "completed",
            incomplete_reason="max_output_tokens" if cut else None,
            usage={"input_tokens": len(prompt_ids), "output_tokens": len(ids)},
        )

    def _items(self, ids: list[int]) -> list[dict[str, Any]]:
        body = ids[:-1] if ids and ids[-1] == self.tokenizer.eos_token_id else ids
        return items_from_generation(
            self.tokenizer.decode(body, skip_special_tokens=False), self.parser
        )

    async def chat(self, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        raise BadRequest("use /v1/responses with a token-exact backend", kind="unsupported")

    def models(self) -> list[str]:
        return self.generator.models()

    async def aclose(self) -> None:
        await self.generator.aclose()
