"""A tool that computes from the policy's own arguments shows no secret, whatever it prints.

A calculator given `120 * 850 * 0.8 * 0.9` prints the yield the task hides: the policy wrote
the sum, the tool only did the arithmetic. A value leaks where a tool *knows* it; it is the
policy's own work where the tool prints it from the arguments alone. The test: the same call,
made first in a fresh session of another sampled task whose secret is another, answers the
same, its answer is the number alone, and the call with one of its numbers moved answers
something else (a table keyed by the argument, which also answers the same on every task,
has no row for an input no task uses, or answers in the words of a record). A tool that
reads the hidden answer (a lookup, a hint, a checker echoing the key) answers that task's
own, or refuses; one that only computes cannot tell the tasks apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import Task
from proofgym_stack.validation.leaks import Leak, secrets_of
from proofgym_stack.validation.sessions import HandSession

#: what a calculator answers: the number alone
_BARE_NUMBER = re.compile(r"\s*[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?\s*")

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
    moved = _moved_input(args)
    if moved is None or not _BARE_NUMBER.fullmatch(leak.output):
        # nothing to compute from (a lookup by name), or an answer in words around the
        # number ("record: expected yield 102360 litres"): a record read, not arithmetic
        return False
    mine = {s.text for s in secrets_of(tasks[leak.task_id], [leak.field])}
    for other in tasks.values():
        theirs = {s.text for s in secrets_of(other, [leak.field])}
        if other.task_id == leak.task_id or not theirs or theirs & mine:
            continue
        same = await _answers(ctx, other, name, args)
        if same is None or same != leak.output:
            return False
        # a lookup keyed by the argument answers the same too: with an input no task uses, a
        # computation still answers (something else); a table has no such row
        elsewhere = await _answers(ctx, other, name, moved)
        return elsewhere is not None and elsewhere not in (leak.output, "")
    return False


async def _answers(ctx: Context, task: Task, name: str, args: dict[str, Any]) -> str | None:
    """What the tool answers to `args`, made first in a fresh session of `task`; None where
    it refused or the call failed."""
    session = HandSession(ctx.stack.client, ctx.base, task, "computed")
    try:
        if not await session.seed():
            return None
        answer = await session.call(name, args)
        await session.close()
    except Exception:  # any failure of the probe only withholds the excuse: the leak stands
        return None
    if answer.get("error"):
        return None
    return str(answer.get("output", ""))


def _moved_input(args: dict[str, Any]) -> dict[str, Any] | None:
    """`args` with its first number (an argument's, or the first written inside a text) one
    more, or None where no argument holds a number."""
    for key, value in args.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            return {**args, key: value + 1}
        if isinstance(value, str) and (found := re.search(r"\d+", value)):
            bumped = str(int(found.group()) + 1)
            return {**args, key: value[: found.start()] + bumped + value[found.end() :]}
    return None
