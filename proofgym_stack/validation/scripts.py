"""Scripted trajectories as the checks build and read them: a script is a list of turns, each
a list of items (`function_call`s and `message`s), as the scripted model replays them."""

from __future__ import annotations

import json
from typing import Any

from proofgym.wire.protocol import RunResult

Script = list[list[dict[str, Any]]]
#: where a value stands inside a JSON value: keys and indices
ArgPath = tuple[str | int, ...]


def call_arguments(item: dict[str, Any]) -> dict[str, Any]:
    """A scripted call's arguments as an object ({} when they are not one)."""
    args = item.get("arguments") or {}
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {}
    return args if isinstance(args, dict) else {}


def script_calls(script: Script) -> list[tuple[int, int, dict[str, Any]]]:
    """Every call of a script: (turn, position, item)."""
    return [
        (t, i, item)
        for t, turn in enumerate(script)
        for i, item in enumerate(turn)
        if item.get("type") == "function_call"
    ]


def tool_outputs(result: RunResult) -> list[str]:
    """What each tool call of a rollout answered, in order."""
    return [
        str(getattr(i, "output", ""))
        for i in result.response.output
        if getattr(i, "type", "") == "function_call_output"
    ]


def leaves(value: Any, prefix: ArgPath = ()) -> list[tuple[ArgPath, Any]]:
    """Every scalar in an argument object, with its path."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, (*prefix, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, (*prefix, i))]
    return [(prefix, value)]


def set_at(data: Any, path: ArgPath, new: Any) -> Any:
    """A copy of `data` with the value at `path` replaced."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: set_at(data[head], rest, new)}
    copy = list(data)
    copy[head] = set_at(data[head], rest, new)  # type: ignore[index]
    return copy
