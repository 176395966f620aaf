"""Scripted trajectories as the checks build and read them: a script is a list of turns, each
a list of items (`function_call`s and `message`s), as the scripted model replays them."""

from __future__ import annotations

import json
import re
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


def call_index(script: Script, t: int, i: int) -> int | None:
    """The position of the call at turn `t`, item `i` among the script's calls."""
    for n, (ct, ci, _) in enumerate(script_calls(script)):
        if (ct, ci) == (t, i):
            return n
    return None


def tool_outputs(result: RunResult) -> list[str]:
    """What each tool call of a rollout answered, in order."""
    return [
        str(getattr(i, "output", ""))
        for i in result.response.output
        if getattr(i, "type", "") == "function_call_output"
    ]


def named_tool_outputs(result: RunResult) -> list[tuple[str, str]]:
    """(tool name, what it answered) for each tool call of a rollout, in order."""
    names: dict[str, str] = {}
    out: list[tuple[str, str]] = []
    for item in result.response.output:
        kind = getattr(item, "type", "")
        if kind == "function_call":
            names[str(getattr(item, "call_id", ""))] = str(getattr(item, "name", ""))
        elif kind == "function_call_output":
            name = names.get(str(getattr(item, "call_id", "")), "")
            out.append((name, str(getattr(item, "output", ""))))
    return out


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


def offered_choices(script: Script, own: Script, outputs: list[str]) -> bool:
    """Whether every argument value where `script` differs from `own` (another task's honest
    trajectory) was shown to the policy by an earlier tool output of the same rollout
    (`outputs`, one per call of `script`): a choice among the options the environment
    itself offered on this task, such as another free slot it listed, not a value carried
    over from another task's truth. A call the tool refused (an `Error:` answer) took no
    effect and is left aside (a watch the other task had empty is filled here). False when
    nothing differs or a call was added."""
    took = [
        (n, item)
        for n, (_, _, item) in enumerate(script_calls(script))
        if not (n < len(outputs) and outputs[n].startswith("Error:"))
    ]
    theirs = script_calls(own)
    if len(took) != len(theirs):
        return False
    differing = 0
    for (n, a), (_, _, b) in zip(took, theirs, strict=True):
        if a.get("name") != b.get("name"):
            return False
        ours = dict(leaves(call_arguments(b)))
        seen = "\n".join(outputs[:n])
        for path, value in leaves(call_arguments(a)):
            if path in ours and ours[path] == value:
                continue
            differing += 1
            if isinstance(value, bool) or value is None or not shown(value, seen):
                return False
    return differing > 0


def shown(value: Any, text: str) -> bool:
    """Whether `text` shows `value` as a word of its own."""
    word = str(value)
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def outcome(result: RunResult, paid: str = "reward") -> str:
    """How a rollout a check judged ended, for its detail: its reward, or the mask with its
    kind and reason (so a mask the setup made, a judge that is not served, reads as one)."""
    if result.mask_sample:
        return f"masked ({result.failure_kind}: {(result.failure_reason or '')[:200]})"
    return f"{paid} {result.reward:g}"


def final_reply(script: Script) -> str:
    """The script's last message's text ("" where it has none)."""
    for turn in reversed(script):
        for item in reversed(turn):
            if item.get("type") == "message":
                return str(item.get("content") or "")
    return ""


def refused_calls(script: Script, result: RunResult) -> set[tuple[int, int]]:
    """The (turn, item) of each call of `script` that `result` answered with an error: calls
    that took no effect."""
    outputs = tool_outputs(result)
    return {
        (t, i)
        for n, (t, i, _) in enumerate(script_calls(script))
        if n < len(outputs) and outputs[n].startswith("Error:")
    }


def only_looks(script: Script, looks: frozenset[str] | set[str]) -> bool:
    """Whether `script` calls nothing but the observing tools `looks` (or calls nothing)."""
    return all(item.get("name") in looks for _, _, item in script_calls(script))


def without(script: Script, t: int, i: int) -> Script:
    """`script` without the item at turn `t`, position `i` (an emptied turn dropped)."""
    turns = [
        [item for j, item in enumerate(turn) if (k, j) != (t, i)] for k, turn in enumerate(script)
    ]
    return [turn for turn in turns if turn]
