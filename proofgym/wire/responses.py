"""Small helpers over Responses API objects, shared by the agent, verifiers and backends."""

from __future__ import annotations

import os
import random
import time
import typing
from typing import Any

from openai.types.responses import Response
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel, ValidationError

TOKEN_FIELDS = ("prompt_token_ids", "generation_token_ids", "generation_log_probs")


def _zeros(model: type[BaseModel]) -> dict[str, int]:
    return {name: 0 for name, f in model.model_fields.items() if f.is_required()}


# Required detail fields differ between openai releases: each is filled with 0. Read once.
_INPUT_DETAILS = _zeros(InputTokensDetails)
_OUTPUT_DETAILS = _zeros(OutputTokensDetails)


def _item_models() -> dict[str, type[BaseModel]]:
    """Each output item class of the openai package, by the literal of its `type` field."""
    (item,) = typing.get_args(Response.model_fields["output"].annotation)
    union = typing.get_args(item)[0]
    models: dict[str, type[BaseModel]] = {}
    for cls in typing.get_args(union):
        for literal in typing.get_args(cls.model_fields["type"].annotation):
            if literal in models:  # the fast path below relies on one class per literal
                raise TypeError(f"two openai output item classes take type {literal!r}")
            models[literal] = cls
    return models


ITEM_MODELS = _item_models()


def fill_usage(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with the usage fields this openai release requires and an older one's Response
    lacks filled with 0 (NeMo Gym 0.7.0 pins openai 2.44, whose usage has no
    `cache_write_tokens`; vLLM's and most servers' responses neither): what peers really
    send is read, never refused for a field their types did not have."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return body
    filled = dict(usage)
    for key, zeros in (
        ("input_tokens_details", _INPUT_DETAILS),
        ("output_tokens_details", _OUTPUT_DETAILS),
    ):
        details = filled.get(key)
        if details is None or isinstance(details, dict):
            filled[key] = {**zeros, **(details or {})}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        filled.setdefault(key, 0)
    return {**body, "usage": filled}


def validate_response(body: dict[str, Any]) -> Response:
    """`Response.model_validate(body)` at a fraction of the cost, with the same result (and
    the usage fields newer openai releases require filled in: `fill_usage`).

    openai's `output` is a union of 28 item classes without a discriminator pydantic knows,
    so pydantic tries them in turn for every item: most of the cost of a Response. Each item
    is validated here by the one class its `type` names, which is the only class the union
    can pick (no two take the same `type`); the rest of the Response without its items. Any
    input this path refuses goes through `Response.model_validate`, for its errors."""
    body = fill_usage(body)
    output = body.get("output")
    if isinstance(output, list):
        try:
            items = [ITEM_MODELS[item["type"]].model_validate(item) for item in output]
            response = Response.model_validate({**body, "output": []})
        except (KeyError, TypeError, ValidationError):
            pass
        else:
            response.output = items  # type: ignore[assignment]
            return response
    return Response.model_validate(body)


#: the generator of item ids: its own, seeded from the system's entropy, so that a caller's
#: `random.seed(...)` (a trainer's, a test's) can never make ids repeat; seeded afresh in
#: every forked child, so that forked services never share a sequence
_IDS = random.Random()
os.register_at_fork(after_in_child=_IDS.seed)


def new_id(prefix: str) -> str:
    """A fresh OpenAI-style id such as `fc_1a2b...` (128 random bits, as a uuid4's hex).

    An id names an item, it grants nothing, so it needs to be unique, not unguessable: a
    pseudo-random generator of its own (`_IDS`) instead of `uuid4`, whose system call for
    fresh entropy was 4% of the services' request handling (bench/HOT_PATH.md)."""
    return f"{prefix}_{_IDS.getrandbits(128):032x}"


def as_dict(item: Any) -> dict[str, Any]:
    """An item (openai model or dict) as a plain dict, extra fields (token data) included."""
    if isinstance(item, dict):
        return item
    dumped: dict[str, Any] = item.model_dump(mode="json", exclude_none=True)
    return dumped


def message_text(item: dict[str, Any]) -> str:
    """The text of a message item, whatever content form it takes."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") in ("output_text", "input_text", "text"):
            parts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") == "refusal":
            parts.append(str(part.get("refusal", "")))
    return "".join(parts)


def answer_text(body: Any) -> str:
    """The text of every output message of a Responses answer still in JSON form; ValueError
    when `body` is not one."""
    if not isinstance(body, dict) or not isinstance(body.get("output"), list):
        raise ValueError("the answer is not a Response")
    items = [i for i in body["output"] if isinstance(i, dict) and i.get("type") == "message"]
    return "".join(message_text(i) for i in items)


def output_items(response: Response) -> list[dict[str, Any]]:
    """Every output item of a Response as plain dicts."""
    return [as_dict(item) for item in response.output]


def final_message(response: Response) -> str:
    """The text of the last assistant message of the rollout ('' when there is none)."""
    for item in reversed(output_items(response)):
        if item.get("type") == "message" and item.get("role", "assistant") == "assistant":
            return message_text(item)
    return ""


def function_calls(response: Response) -> list[dict[str, Any]]:
    """Every function call of the rollout, in order."""
    return [i for i in output_items(response) if i.get("type") == "function_call"]


def assistant_message(text: str, **extra: Any) -> dict[str, Any]:
    """An assistant output message item."""
    return {
        "type": "message",
        "id": new_id("msg"),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
        **extra,
    }


def function_call(
    name: str, arguments: str, call_id: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A function call output item."""
    return {
        "type": "function_call",
        "id": new_id("fc"),
        "call_id": call_id or new_id("call"),
        "name": name,
        "arguments": arguments,
        "status": "completed",
        **extra,
    }


def function_call_output(call_id: str, output: str) -> dict[str, Any]:
    """The output of a function call, as the rollout's Response records it."""
    return {
        "type": "function_call_output",
        "id": new_id("fco"),
        "call_id": call_id,
        "output": output,
        "status": "completed",
    }


def build_response(
    output: list[dict[str, Any]],
    *,
    model: str,
    status: str = "completed",
    incomplete_reason: str | None = None,
    usage: dict[str, int] | None = None,
    response_id: str | None = None,
    **extra: Any,
) -> Response:
    """A Responses API `Response` holding `output`."""
    body: dict[str, Any] = {
        "id": response_id or new_id("resp"),
        "object": "response",
        "created_at": time.time(),
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "status": status,
        **extra,
    }
    if incomplete_reason:
        body["incomplete_details"] = {"reason": incomplete_reason}
    if usage:
        body["usage"] = {
            "input_tokens": usage.get("input_tokens", 0),
            "output_tokens": usage.get("output_tokens", 0),
            "total_tokens": usage.get("input_tokens", 0) + usage.get("output_tokens", 0),
            "input_tokens_details": dict(_INPUT_DETAILS),
            "output_tokens_details": dict(_OUTPUT_DETAILS),
        }
    return validate_response(body)


def normalize_input(value: Any) -> list[dict[str, Any]]:
    """Responses `input` as a list of items (a bare string becomes one user message)."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if isinstance(value, list):
        return [as_dict(v) for v in value]
    raise ValueError("input must be a string or a list of items")
