"""Parsing generated text: `<think>` reasoning and Hermes/Qwen `<tool_call>{json}</tool_call>`.

The parser is pluggable (`Parser`); the token ids are never touched by it: items are a view of
the text, and the ids travel beside them unchanged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from model_interface.convert import reasoning_item
from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.responses import assistant_message, function_call

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass
class ParsedCall:
    """One tool call: its name and its arguments as a JSON string."""

    name: str
    arguments: str


@dataclass
class Parsed:
    """What a generation says: reasoning, visible text and tool calls."""

    reasoning: str = ""
    content: str = ""
    calls: list[ParsedCall] = field(default_factory=list)


class Parser(Protocol):
    """Turns generated text into reasoning, content and tool calls."""

    def __call__(self, text: str) -> Parsed: ...


def parse_hermes(text: str) -> Parsed:
    """Split `<think>` blocks and `<tool_call>` blocks out of `text`.

    A tool call whose body is not a JSON object with a string `name` stays in the content, so
    the model's own mistake is what the rollout records. Bodies are parsed with the project's
    depth and size limits: whatever a model generates ends as content or a call, never an
    exception.
    """
    parsed = Parsed()
    reasoning = [m.group(1).strip() for m in _THINK.finditer(text)]
    parsed.reasoning = "\n".join(r for r in reasoning if r)
    rest = _THINK.sub("", text)
    kept = []
    last = 0
    for m in _CALL.finditer(rest):
        try:
            body = loads_limited(m.group(1))
        except (ValueError, RecursionError):
            continue
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            continue
        args = body.get("arguments", {})
        parsed.calls.append(
            ParsedCall(body["name"], args if isinstance(args, str) else json.dumps(args))
        )
        kept.append(rest[last : m.start()])
        last = m.end()
    kept.append(rest[last:])
    parsed.content = "".join(kept).strip()
    return parsed


def parse_text_only(text: str) -> Parsed:
    """No tool calls: reasoning split out, everything else is the message (a model served
    without tools, or whose tool-call format no parser here reads)."""
    reasoning = [m.group(1).strip() for m in _THINK.finditer(text)]
    return Parsed(
        reasoning="\n".join(r for r in reasoning if r), content=_THINK.sub("", text).strip()
    )


#: the `tool_parser` setting's values
PARSERS: dict[str, Parser] = {"hermes": parse_hermes, "none": parse_text_only}


def items_from_generation(text: str, parser: Parser) -> list[dict[str, Any]]:
    """Output items of one generation: reasoning, text, function calls (in that order)."""
    parsed = parser(text)
    items: list[dict[str, Any]] = []
    if parsed.reasoning:
        items.append(reasoning_item(parsed.reasoning))
    if parsed.content or not parsed.calls:
        items.append(assistant_message(parsed.content))
    items += [function_call(c.name, c.arguments) for c in parsed.calls]
    return items
