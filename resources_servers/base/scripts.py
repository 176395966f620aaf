"""Control scripts, as an environment writes them: one model turn per call."""

from __future__ import annotations

import json
from typing import Any

Turn = list[dict[str, Any]]


def call(name: str, **arguments: Any) -> Turn:
    """One model turn that calls the tool `name` with `arguments`."""
    return [{"type": "function_call", "name": name, "arguments": json.dumps(arguments)}]


def say(text: str) -> Turn:
    """One model turn with a final message."""
    return [{"type": "message", "content": text}]
