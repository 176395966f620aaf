"""The `vllm` backend: vLLM's OpenAI server, token-exact.

Default mode sends the prompt as token ids to `/v1/completions` with `return_token_ids`, so
vLLM samples exactly after the ids we built and returns the sampled ids and their logprobs.
The `chat` mode goes through `/v1/chat/completions` (vLLM renders the prompt itself, with its
`return_token_ids`); its prompts may not extend the previous turn's ids, and the agent marks
such rollouts not trainable. The `nemo_rl` mode speaks to the OpenAI server NeMo RL exposes
from its vLLM workers, which has only `/v1/chat/completions` (and `/tokenize`): the last
assistant message of each request carries the token fields of the previous turn, which that
server splices in as the exact prefix of the new prompt (its `required_prefix_token_ids`), so
rollouts stay append-only; each answer's message carries the new turn's token fields.
"""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response

from model_interface.backends.token_exact import (
    Finish,
    Generation,
    Sampling,
    TokenExactBackend,
)
from model_interface.convert import chat_message_to_items, chat_request
from model_interface.hermes import PARSERS
from model_interface.request import ResponsesRequest
from model_interface.upstream import post_upstream
from proofgym.clients.http import ServiceClient
from proofgym.clients.routing import sticky
from proofgym.wire.errors import UpstreamError
from proofgym.wire.responses import build_response


def _token_ids(choice: dict[str, Any]) -> list[int]:
    if isinstance(choice.get("token_ids"), list):
        return [int(t) for t in choice["token_ids"]]
    tokens = (choice.get("logprobs") or {}).get("tokens") or []
    if tokens and all(isinstance(t, str) and t.startswith("token_id:") for t in tokens):
        return [int(t.removeprefix("token_id:")) for t in tokens]
    raise UpstreamError(
        "vLLM returned no token ids: it needs return_token_ids support "
        "(vLLM 0.10.2 or newer) or --return-tokens-as-token-ids",
        kind="backend_error",
    )


class VLLMGenerator:
    """Token-id completions against one or more vLLM servers (a rollout sticks to one)."""

    def __init__(self, client: ServiceClient, base_urls: list[str], model: str) -> None:
        if not base_urls:
            raise ValueError("the vllm backend needs at least one base URL")
        self.client = client
        self.base_urls = [u.rstrip("/") for u in base_urls]
        self.model = model

    async def post(self, path: str, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        """POST to the upstream this rollout sticks to; map its failures to our errors."""
        url = sticky(self.base_urls, route_key) + path
        return await post_upstream(self.client, url, body, "vLLM", {})

    async def generate(
        self, prompt_ids: list[int], sampling: Sampling, route_key: str
    ) -> Generation:
        body = {
            "model": self.model,
            "prompt": prompt_ids,
            "max_tokens": sampling.max_tokens,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "logprobs": 1,
            "return_token_ids": True,
            "return_tokens_as_token_ids": True,
            "skip_special_tokens": False,
        }
        answer = await self.post("/completions", body, route_key)
        try:
            choice = answer["choices"][0]
        except (KeyError, IndexError, TypeError):
            raise UpstreamError("vLLM answered no choice", kind="backend_error") from None
        ids = _token_ids(choice)
        logps = (choice.get("logprobs") or {}).get("token_logprobs") or []
        if len(logps) != len(ids):
            raise UpstreamError(
                f"vLLM returned {len(ids)} ids but {len(logps)} logprobs", kind="backend_error"
            )
        echoed = choice.get("prompt_token_ids")
        if echoed is not None and list(echoed) != prompt_ids:
            raise UpstreamError("vLLM changed the prompt ids", kind="backend_error")
        finish: Finish = "length" if choice.get("finish_reason") == "length" else "stop"
        return Generation(ids, [float(x) for x in logps], finish)

    def models(self) -> list[str]:
        return [self.model]

    async def aclose(self) -> None:
        await self.client.aclose()


class VLLMChatBackend(TokenExactBackend):
    """The fallback mode: vLLM renders and parses; we keep the ids it reports."""

    def prepare(self, body: dict[str, Any], request: ResponsesRequest) -> None:
        """Adjust the chat request before it is sent (the `nemo_rl` mode adds token fields)."""

    def token_data(
        self, answer: dict[str, Any], choice: dict[str, Any]
    ) -> tuple[list[int], list[int], list[float]] | None:
        """(prompt ids, generated ids, logprobs) of an answer, or None when it has none."""
        ids = _token_ids(choice)
        content = (choice.get("logprobs") or {}).get("content") or []
        logps = [float(c.get("logprob", 0.0)) for c in content]
        prompt = answer.get("prompt_token_ids")
        if isinstance(prompt, list) and len(logps) == len(ids):
            return [int(t) for t in prompt], ids, logps
        return None

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        assert isinstance(self.generator, VLLMGenerator)
        body = chat_request(request.model_dump(exclude_none=True), self.generator.model)
        for key, value in self.pinned.items():
            body[key] = value
        body.update(logprobs=True, return_token_ids=True, skip_special_tokens=False)
        self.prepare(body, request)
        answer = await self.generator.post("/chat/completions", body, route_key)
        try:
            choice = answer["choices"][0]
            items = chat_message_to_items(choice["message"])
        except (KeyError, IndexError, TypeError):
            raise UpstreamError(
                "vLLM answered an unusable completion", kind="backend_error"
            ) from None
        data = self.token_data(answer, choice)
        prompt, ids = (data[0], data[1]) if data else (None, [])
        if data is not None:
            items[-1].update(
                prompt_token_ids=data[0], generation_token_ids=data[1], generation_log_probs=data[2]
            )
        cut = choice.get("finish_reason") == "length"
        return build_response(
            items,
            model=self.generator.model,
            status="incomplete" if cut else "completed",
            incomplete_reason="max_output_tokens" if cut else None,
            usage={"input_tokens": len(prompt or []), "output_tokens": len(ids)},
        )


class NeMoRLChatBackend(VLLMChatBackend):
    """The `nemo_rl` mode (see the module docstring)."""

    def prepare(self, body: dict[str, Any], request: ResponsesRequest) -> None:
        previous = next(
            (
                item
                for item in reversed(request.input if isinstance(request.input, list) else [])
                if isinstance(item, dict) and isinstance(item.get("generation_token_ids"), list)
            ),
            None,
        )
        if previous is None:
            return
        assistant = next(
            (m for m in reversed(body["messages"]) if m.get("role") == "assistant"), None
        )
        if assistant is None:
            raise UpstreamError(
                "token fields but no assistant message to carry them", kind="backend_error"
            )
        assistant["prompt_token_ids"] = list(previous.get("prompt_token_ids") or [])
        assistant["generation_token_ids"] = list(previous["generation_token_ids"])
        assistant["generation_log_probs"] = list(previous.get("generation_log_probs") or [])

    def token_data(
        self, answer: dict[str, Any], choice: dict[str, Any]
    ) -> tuple[list[int], list[int], list[float]] | None:
        message = choice.get("message") or {}
        generated = message.get("generation_token_ids")
        logps = message.get("generation_log_probs")
        prompt = message.get("prompt_token_ids", answer.get("prompt_token_ids"))
        if not (
            isinstance(generated, list) and isinstance(logps, list) and isinstance(prompt, list)
        ):
            return super().token_data(answer, choice)
        if len(generated) != len(logps):
            raise UpstreamError(
                f"NeMo RL returned {len(generated)} ids but {len(logps)} logprobs",
                kind="backend_error",
            )
        return [int(t) for t in prompt], [int(t) for t in generated], [float(x) for x in logps]


def build_vllm(settings: Any, client: ServiceClient) -> TokenExactBackend:
    """The vllm backend the settings describe (tokenizer from `settings.tokenizer`)."""
    from transformers import AutoTokenizer

    source = settings.tokenizer or settings.model
    tokenizer = AutoTokenizer.from_pretrained(source)
    generator = VLLMGenerator(client, settings.base_urls, settings.model)
    context = settings.context_length or int(getattr(tokenizer, "model_max_length", 32768))
    cls = {"chat": VLLMChatBackend, "nemo_rl": NeMoRLChatBackend}.get(
        settings.vllm_mode, TokenExactBackend
    )
    return cls(
        tokenizer,
        generator,
        model=settings.model,
        context_length=min(context, 10**7),
        default_max_tokens=settings.default_max_tokens,
        pinned=settings.pinned_sampling,
        parser=PARSERS[settings.tool_parser],
    )
