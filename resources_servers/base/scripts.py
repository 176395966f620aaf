"""Control scripts, as an environment writes them: one model turn per call.

A script is a list of turns; a turn is the list of items the model emits at once. `call` and
`say` are whole turns (the common case); `function_call` and `message` are single items, for
a turn that makes several calls at once (`[function_call("a"), function_call("b")]`).
"""

from __future__ import annotations

import json
from typing import Any

Turn = list[dict[str, Any]]


def function_call(name: str, **arguments: Any) -> dict[str, Any]:
    """One item: a call of the tool `name` with `arguments`."""
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}


def message(text: str) -> dict[str, Any]:
    """One item: a final message."""
    return {"type": "message", "content": text}


def call(name: str, **arguments: Any) -> Turn:
    """One model turn that calls the tool `name` with `arguments`."""
    return [function_call(name, **arguments)]


def say(text: str) -> Turn:
    """One model turn with a final message."""
    return [message(text)]
