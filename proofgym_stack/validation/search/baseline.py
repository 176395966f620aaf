"""What honest play looks like on one task, measured before any mutant is judged.

For each pass control of a task: its world (the state verify was handed) played twice (what
differs between the two is noise: a clock, a random id), the lines its verify ran, its tool
outputs (the values the grammar draws from); for the task: the world at the start (an empty
answer), the paths that only record the trajectory (they change when an observing call is
added to the reference), the paths two pass controls leave differently (the author's honest
freedom), and the other tasks on which the control itself fails (tasks with another truth).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from proofgym.wire.protocol import Control, Task
from proofgym_stack.validation.negatives import prompt_text, task_words
from proofgym_stack.validation.scope import scoped
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    leaves,
    named_tool_outputs,
    script_calls,
    without,
)
from proofgym_stack.validation.search.mutants import leaf_key
from proofgym_stack.validation.search.tracing import Line, VerifyRecord, VerifyTrace
from proofgym_stack.validation.search.values import Pools, numbers, quoted, tokens
from proofgym_stack.validation.search.world import World, differences
from proofgym_stack.validation.steps import inserted, observations

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

MAX_TARGETS = 2
#: the observing tools played beside the reference for the listings they print
MAX_LOOKS = 3
#: the longest reference whose steps are each left out to find a rule's scope
MAX_SCOPE_CALLS = 16


@dataclass
class Honest:
    """One pass control on one task, as honest play showed it."""

    task: Task
    control: Control
    world: World
    outputs: list[str]
    targets: list[Task] = field(default_factory=list)


@dataclass
class TaskBaseline:
    """Honest play on one task: its pass controls and what their worlds may differ in."""

    task: Task
    honest: list[Honest] = field(default_factory=list)
    lines: set[Line] = field(default_factory=set)
    ignored: set[str] = field(default_factory=set)  # noise, bookkeeping, honest freedom
    #: the world as it was before any action (a trajectory that only says nothing)
    initial: World = field(default_factory=dict)
    pools: Pools = field(default_factory=Pools)
    #: the task's words: its prompt and the environment's instructions
    words: str = ""


async def played(
    ctx: Context, trace: VerifyTrace, task: Task, script: Script, label: str
) -> tuple[bool, VerifyRecord | None, list[tuple[str, str]]]:
    """Play `script`: whether it passed, verify's record, the tool outputs (with the name
    of the tool that printed each)."""
    before = len(trace.records)
    result = await ctx.run(task, script, label)
    record = trace.last() if len(trace.records) > before else None
    return ctx.passes(result), record, named_tool_outputs(result)


async def measure(ctx: Context, trace: VerifyTrace, task: Task) -> TaskBaseline:
    """The baseline of `task` (pass controls that do not pass are left out)."""
    base = TaskBaseline(task, words=task_words(ctx.env, task))
    controls = [c for c in ctx.controls.get(task.task_id, []) if c.expect == "pass"]
    printed: list[tuple[str, str]] = []
    for control in controls:
        ok, first, outputs = await played(ctx, trace, task, control.script, "search: baseline")
        ok2, second, _ = await played(ctx, trace, task, control.script, "search: baseline again")
        if not (ok and ok2) or first is None or second is None:
            continue
        base.ignored |= differences(first.world, second.world)
        base.lines |= first.lines | second.lines
        base.honest.append(Honest(task, control, first.world, [o for _, o in outputs]))
        printed += outputs
    if not base.honest:
        return base
    reference = base.honest[0]
    for other in base.honest[1:]:
        base.ignored |= differences(reference.world, other.world)
    base.ignored |= await _scope_freedom(ctx, trace, task, reference)
    looks = observations(ctx, task, reference.control.script)
    looked: list[tuple[str, str]] = []  # what the observing tools print: listings honest play reads
    for n, look in enumerate(looks[:MAX_LOOKS]):
        script = inserted(reference.control.script, look)
        _, record, shown = await played(ctx, trace, task, script, "search: bookkeeping probe")
        looked += shown
        if n == 0 and record is not None:
            base.ignored |= differences(reference.world, record.world)
    before_any: list[tuple[str, str]] = []
    if looks:  # the listings before any action: the option honest play took still among them
        before = [[look] for look in looks[:MAX_LOOKS]] + [[{"type": "message", "content": ""}]]
        before_any = (await played(ctx, trace, task, before, "search: the looks first"))[2]
    _, untouched, _ = await played(
        ctx, trace, task, [[{"type": "message", "content": ""}]], "search: the world untouched"
    )
    if untouched is not None:
        base.initial = untouched.world
    for honest in base.honest:
        honest.targets = await _other_truths(ctx, honest)
    base.pools = _pools(ctx, task, base)
    base.pools.shown += [text for _, text in looked if text not in base.pools.shown]
    base.pools.printed = list(dict.fromkeys([*printed, *looked]))
    # the listings before any action are options to choose from, not what honest play's
    # world printed (a door's old code there is no term the words keep out)
    base.pools.before = [text for _, text in before_any if text not in base.pools.shown]
    return base


async def _scope_freedom(
    ctx: Context, trace: VerifyTrace, task: Task, reference: Honest
) -> set[str]:
    """Where the reference's world may differ by a step left out of its rule's scope (no
    sample taken of a beach it closes, `scope.scoped`): the author's honest freedom."""
    script = reference.control.script
    listed = script_calls(script)
    if len(listed) > MAX_SCOPE_CALLS:
        return set()
    observing = ctx.env.observing_tools(task)
    worlds: dict[int, World] = {}
    needed: list[int] = []
    for k, (t, i, item) in enumerate(listed):
        if str(item.get("name")) in observing:
            continue
        less = without(script, t, i)
        ok, record, _ = await played(ctx, trace, task, less, "search: the reference less one step")
        if ok and record is not None:
            worlds[k] = record.world
        elif not ok:
            needed.append(k)
    calls = [item for _, _, item in listed]
    out: set[str] = set()
    for k in scoped(calls, list(worlds), needed):
        out |= differences(reference.world, worlds[k])
    return out


async def _other_truths(ctx: Context, honest: Honest) -> list[Task]:
    """Other sampled tasks on which this control, unchanged, fails: tasks with another truth."""
    out: list[Task] = []
    for other in ctx.tasks:
        if other.task_id == honest.task.task_id or len(out) >= MAX_TARGETS:
            continue
        result = await ctx.run(other, honest.control.script, "search: another task's truth?")
        if not result.mask_sample and not ctx.passes(result):
            out.append(other)
    return out


def _pools(ctx: Context, task: Task, base: TaskBaseline) -> Pools:
    shown = "\n".join(o for h in base.honest for o in h.outputs)
    prompt = prompt_text(task)
    pools = Pools(
        outputs=tokens(shown),
        output_numbers=numbers(shown),
        prompt=tokens(prompt, 12),
        prompt_numbers=numbers(prompt),
        prompt_text=prompt,
        shown=[o for h in base.honest for o in h.outputs],
    )
    pools.tools = list(ctx.env.task_tool_schemas(task))
    for schema in pools.tools:
        pools.tool_words[str(schema.get("name", ""))] = str(schema.get("description") or "")
        props = (schema.get("parameters") or {}).get("properties") or {}
        pools.names += list(props)
        for key, prop in props.items():
            if isinstance(prop, dict):
                pools.enums += list(prop.get("enum") or [])
                named = quoted(str(prop.get("description") or ""))
                if named:
                    pools.described.setdefault(key, []).extend(named)
                pools.enums += list((prop.get("items") or {}).get("enum") or [])
    for other in ctx.tasks:  # each argument's values across the tasks: their common prefix
        reference = ctx.reference(other.task_id)
        if reference is None:
            continue
        for _, _, item in script_calls(reference.script):
            for path, value in leaves(call_arguments(item)):
                if path and isinstance(value, str):
                    pools.across_tasks.setdefault(leaf_key(path), []).append(value)
                    if other.task_id == task.task_id:
                        pools.within_task.setdefault(leaf_key(path), []).append(value)
    return pools
