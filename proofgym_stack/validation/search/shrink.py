"""Shrinking: the smallest trajectory that still shows a finding, as property-based testing
shrinks a counterexample.

Greedy and bounded: drop one item (a call, a message) at a time, then one member of a list
argument at a time, keeping each removal after which the finding still holds (its oracle,
asked again through the real services), until none can go or the budget of tries is spent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, set_at
from proofgym_stack.validation.search.mutants import containers, replaced, with_call

MAX_TRIES = 24

Holds = Callable[[Script], Awaitable[bool]]


def _smaller(script: Script) -> list[Script]:
    """Each script one item, or one list member, smaller than `script`."""
    out: list[Script] = []
    items = [(t, i) for t, turn in enumerate(script) for i in range(len(turn))]
    if len(items) > 1:
        out += [replaced(script, t, i, []) for t, i in reversed(items)]
    for t, i, item in script_calls(script):
        args = call_arguments(item)
        for path, box in containers(args):
            if isinstance(box, list) and len(box) >= 2:
                for k in range(len(box)):
                    out.append(with_call(script, t, i, set_at(args, path, box[:k] + box[k + 1 :])))
    return out


async def shrink(script: Script, holds: Holds, tries: int = MAX_TRIES) -> Script:
    """The smallest script found from `script` for which `holds` is still true."""
    current = script
    progress = True
    while progress and tries > 0:
        progress = False
        for candidate in _smaller(current):
            if tries <= 0:
                break
            tries -= 1
            if await holds(candidate):
                current, progress = candidate, True
                break
    return current
