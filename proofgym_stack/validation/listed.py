"""What the environment lists for the policy to choose from: the looks' output before any
action, and whether a value a near miss moved to is one of its options."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from proofgym.wire.protocol import Task
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, tool_outputs
from proofgym_stack.validation.steps import observations

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context


async def looked_at(v: Context, task: Task, reference: Script) -> list[str]:
    """What the environment's observing tools print on `task` before any action (the free
    days a listing offers, where honest play never looked): the listings a policy reads its
    options from."""
    looks = observations(v, task, reference)
    if not looks:
        return []
    script = [[call] for call in looks] + [[{"type": "message", "content": ""}]]
    return tool_outputs(await v.run(task, script, "probe: what the looks show"))


def another_option(script: Script, key: str, printed: str) -> bool:
    """Whether the last call's text argument `key`, its number moved, names another thing
    the task printed (`Canoe 1` moved is `Canoe 2`, listed beside it; another free day a
    look lists): another option chosen, judged as one by the search, not a near miss of a
    number. A line that marks it taken ("2026-05-20: fully booked") offers nothing."""
    calls = script_calls(script)
    value = call_arguments(calls[-1][2]).get(key) if calls else None
    if not isinstance(value, str) or not value.strip():
        return False
    said = re.compile(rf"(?<!\w){re.escape(value.strip())}(?!\w)", re.I)
    return any(said.search(line) and not _TAKEN.search(line) for line in printed.splitlines())


#: words that mark a listed thing as not on offer
_TAKEN = re.compile(r"\b(?:booked|unavailable|not available|sold out)\b", re.I)
