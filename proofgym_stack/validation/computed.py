"""A tool that computes from the policy's own arguments shows no secret, whatever it prints.

A calculator given `120 * 850 * 0.8 * 0.9` prints the yield the task hides: the policy wrote
the sum, the tool only did the arithmetic. A value leaks where a tool *knows* it; it is the
policy's own work where the tool prints it from the arguments alone. The test: the same call,
made first in a fresh session of another sampled task whose secret is another, answers the
same. A tool that reads the hidden answer (a lookup, a hint, a checker echoing the key)
answers that task's own, or refuses; one that only computes cannot tell the tasks apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import Task
from proofgym_stack.validation.leaks import Leak, secrets_of
from proofgym_stack.validation.sessions import HandSession

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context


async def computed(
    ctx: Context, leak: Leak, tasks: dict[str, Task], known: dict[tuple[str, ...], bool]
) -> bool:
    """Whether `leak` (a tool's output) answers the same, the call made alone on another
    sampled task whose value of the leaked field is another (see the module); `known` keeps
    each call's answer, asked once."""
    if leak.call is None or leak.task_id not in tasks:
        return False
    key = (leak.task_id, leak.field, *leak.call, leak.output)
    if key not in known:
        known[key] = await _same_elsewhere(ctx, leak, tasks)
    return known[key]


async def _same_elsewhere(ctx: Context, leak: Leak, tasks: dict[str, Task]) -> bool:
    assert leak.call is not None
    name, raw = leak.call
    try:
        args = loads_limited(raw)
    except ValueError:
        return False
    if not isinstance(args, dict):
        return False
    mine = {s.text for s in secrets_of(tasks[leak.task_id], [leak.field])}
    for other in tasks.values():
        theirs = {s.text for s in secrets_of(other, [leak.field])}
        if other.task_id == leak.task_id or not theirs or theirs & mine:
            continue
        session = HandSession(ctx.stack.client, ctx.base, other, "computed")
        if not await session.seed():
            return False
        try:
            answer = await session.call(name, args)
        except RuntimeError:
            return False
        finally:
            await session.close()
        return str(answer.get("output", "")) == leak.output
    return False
