"""Responses API <-> Chat Completions: messages, function calls and outputs, reasoning."""

from __future__ import annotations

from typing import Any

from proofgym.wire.errors import InvalidRequest
from proofgym.wire.responses import (
    assistant_message,
    function_call,
    message_text,
    new_id,
    normalize_input,
)


def tools_to_chat(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses function tools as Chat Completions tools (other tool types are refused)."""
    out = []
    for t in tools:
        if t.get("type") != "function":
            raise InvalidRequest(
                f"only function tools can be sent to a chat backend, not {t.get('type')!r}",
                kind="unsupported_tool",
            )
        fn = {"name": t["name"], "parameters": t.get("parameters") or {"type": "object"}}
        if t.get("description"):
            fn["description"] = t["description"]
        out.append({"type": "function", "function": fn})
    return out


def input_to_messages(input_value: Any, instructions: str | None) -> list[dict[str, Any]]:
    """Responses input items as chat messages, in order.

    Consecutive model items (reasoning, text, function calls) of one turn become one assistant
    message; reasoning travels as `reasoning_content`, the field vLLM and others use.
    """
    messages: list[dict[str, Any]] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    current: dict[str, Any] | None = None  # the assistant message being assembled

    def assistant() -> dict[str, Any]:
        nonlocal current
        if current is None:
            current = {"role": "assistant", "content": None}
            messages.append(current)
        return current

    for index, item in enumerate(normalize_input(input_value)):
        kind = item.get("type", "message")
        if kind == "reasoning":
            texts = [c.get("text", "") for c in item.get("content") or []]
            texts += [s.get("text", "") for s in item.get("summary") or []] if not texts else []
            msg = assistant()
            msg["reasoning_content"] = (msg.get("reasoning_content") or "") + "".join(texts)
        elif kind == "function_call":
            if "name" not in item or "call_id" not in item:
                raise InvalidRequest(f"input[{index}]: function_call needs name and call_id")
            msg = assistant()
            msg.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {"name": item["name"], "arguments": item.get("arguments", "{}")},
                }
            )
        elif kind == "function_call_output":
            if "call_id" not in item:
                raise InvalidRequest(f"input[{index}]: function_call_output needs call_id")
            current = None
            output = item.get("output", "")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": item["call_id"],
                    "content": output if isinstance(output, str) else str(output),
                }
            )
        elif kind == "message":
            role = item.get("role", "user")
            text = message_text(item)
            if role == "assistant":
                msg = assistant()
                msg["content"] = (msg["content"] or "") + text
            else:
                current = None
                messages.append(
                    {"role": "system" if role == "developer" else role, "content": text}
                )
        else:
            raise InvalidRequest(
                f"input[{index}]: items of type {kind!r} cannot be sent to a chat backend",
                kind="unsupported_item",
            )
    return messages


def reasoning_item(text: str, **extra: Any) -> dict[str, Any]:
    """A reasoning output item holding `text`."""
    return {
        "type": "reasoning",
        "id": new_id("rs"),
        "summary": [],
        "content": [{"type": "reasoning_text", "text": text}],
        "status": "completed",
        **extra,
    }


def chat_message_to_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    """One chat completion message as Responses output items: reasoning, text, function calls."""
    items: list[dict[str, Any]] = []
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        items.append(reasoning_item(reasoning))
    content = message.get("content")
    if isinstance(content, str) and content:
        items.append(assistant_message(content))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        items.append(
            function_call(
                str(fn.get("name", "")),
                str(fn.get("arguments") or "{}"),
                call_id=call.get("id") or None,
            )
        )
    if not items:
        items.append(assistant_message(""))
    return items


def chat_request(body: dict[str, Any], model: str) -> dict[str, Any]:
    """The Chat Completions request for a Responses request (as a dict)."""
    req: dict[str, Any] = {
        "model": model,
        "messages": input_to_messages(body["input"], body.get("instructions")),
    }
    if body.get("tools"):
        req["tools"] = tools_to_chat(body["tools"])
        if body.get("tool_choice") is not None:
            req["tool_choice"] = body["tool_choice"]
        if body.get("parallel_tool_calls") is not None:
            req["parallel_tool_calls"] = body["parallel_tool_calls"]
    if body.get("max_output_tokens") is not None:
        req["max_tokens"] = body["max_output_tokens"]
    for key in ("temperature", "top_p"):
        if body.get(key) is not None:
            req[key] = body[key]
    return req
