"""Parsing generated text: `<think>` reasoning and Hermes/Qwen `<tool_call>{json}</tool_call>`.

The parser is pluggable (`Parser`); the token ids are never touched by it: items are a view of
the text, and the ids travel beside them unchanged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Protocol

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
    the model's own mistake is what the rollout records.
    """
    parsed = Parsed()
    reasoning = [m.group(1).strip() for m in _THINK.finditer(text)]
    parsed.reasoning = "\n".join(r for r in reasoning if r)
    rest = _THINK.sub("", text)
    kept = []
    last = 0
    for m in _CALL.finditer(rest):
        try:
            body = json.loads(m.group(1))
        except ValueError:
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
