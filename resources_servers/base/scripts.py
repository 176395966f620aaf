"""Control scripts, as an environment writes them: one model turn per call.

A script is a list of turns; a turn is the list of items the model emits at once. `call` and
`say` are whole turns (the common case); `call_item` and `say_item` are single items, for a
turn that makes several calls at once (`[call_item("a"), call_item("b")]`). They are the
script form the scripted model replays (no ids: it gives each replayed item its own), not
`proofgym.wire.responses.function_call`, which builds a finished output item.
"""

from __future__ import annotations

import json
from typing import Any

Turn = list[dict[str, Any]]


def call_item(name: str, **arguments: Any) -> dict[str, Any]:
    """One item: a call of the tool `name` with `arguments`."""
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}


def say_item(text: str) -> dict[str, Any]:
    """One item: a final message."""
    return {"type": "message", "content": text}


def call(name: str, **arguments: Any) -> Turn:
    """One model turn that calls the tool `name` with `arguments`."""
    return [call_item(name, **arguments)]


def say(text: str) -> Turn:
    """One model turn with a final message."""
    return [say_item(text)]
