"""The order of a failing control's actions: the same actions in another order must still fail.

A failing control (`violation_*`) makes calls that leave a world the verifier must refuse. The
same calls made in another order, each answered with the same output as before (none refused
that ran, no running value shown otherwise), leave what the environment's `observes` tools
show as the same world, and hand `verify` the same state (where it can be traced: a record
the looks never show, a motion declared carried and then lost, is the world too); a verifier
that judges the world refuses it again. One that pays it reads
something an order can fool: a "before" snapshot taken at the first write (the first change
of a session goes unseen), a log checked from its last entry, a rule tested on the call that
came first.

Honest play's own order is never held against it: an order that puts two calls the way a pass
control makes them, where the failing control had them the other way round, is not tried (it
may repair the failure: the violation "refund, then verify" with verify moved first). A game
of chance is n/a: a move moved may win.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, tool_outputs
from proofgym_stack.validation.steps import observations, reference_script

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "steps:order_of_a_failure"
MAX_TASKS = 2
#: orders tried per failing control: reversed, then each acting call first, then each last
MAX_ORDERS = 4
#: acting calls a control may have for its orders to be tried (more: a long script, and its
#: orders say little about one rule)
MAX_CALLS = 6

Slot = tuple[int, int]


def _key(item: dict[str, Any]) -> str:
    return f"{item.get('name')}:{json.dumps(call_arguments(item), sort_keys=True)}"


def reordered(script: Script, slots: list[Slot], order: list[int]) -> Script:
    """`script` with the calls at `slots` put back in `order` (indices into `slots`): each
    slot keeps its turn, only which call stands in it changes."""
    out = [list(turn) for turn in script]
    calls = [script[t][i] for t, i in slots]
    for (t, i), k in zip(slots, order, strict=True):
        out[t][i] = calls[k]
    return out


def orders(n: int) -> list[list[int]]:
    """Other orders of `n` calls (never the given one): reversed, each first, each last."""
    found: list[list[int]] = [list(reversed(range(n)))]
    for k in range(n):
        rest = [j for j in range(n) if j != k]
        found += [[k, *rest], [*rest, k]]
    seen: set[tuple[int, ...]] = {tuple(range(n))}
    out: list[list[int]] = []
    for order in found:
        if tuple(order) not in seen:
            seen.add(tuple(order))
            out.append(order)
    return out[:MAX_ORDERS]


def honest_order(original: list[str], moved: list[str], passing: list[list[str]]) -> bool:
    """Whether the new order puts two calls the way a pass control makes them where the
    failing control had them the other way round: it may repair what made the control fail
    (the violation "refund, then verify", with verify moved first, is honest play's order
    for that pair), so its pass proves nothing."""
    was = {k: i for i, k in reversed(list(enumerate(original)))}
    now = {k: i for i, k in reversed(list(enumerate(moved)))}
    for calls in passing:
        rank = {k: i for i, k in reversed(list(enumerate(calls)))}
        for a in now:
            for b in now:
                honest = a in rank and b in rank and rank[a] < rank[b]
                if honest and now[a] < now[b] and was[a] > was[b]:
                    return True
    return False


async def shown_world(
    v: Context, task: Task, script: Script, looks: list[dict[str, Any]]
) -> list[str]:
    """What the observing tools show after `script` (before its last turn)."""
    if not looks:
        return []
    ends_in_words = bool(script) and all(i.get("type") == "message" for i in script[-1])
    seen = [[look] for look in looks]
    looking = [*script[:-1], *seen, script[-1]] if ends_in_words else [*script, *seen]
    result = await v.run(task, looking, "a failure's world, looking")
    outputs = tool_outputs(result)
    return outputs[-len(looks) :]


async def handed_otherwise(
    v: Context, task: Task, written: Script, moved: Script, honest: Script | None = None
) -> bool:
    """Whether `verify` is handed another state after `moved` than after `written` (beyond
    what differs between two runs of `written`: ids, clocks): a record the looks never show,
    such as a motion declared carried and then lost, which a later call overrides. With
    `honest` (the reference), only where what differs is as honest play leaves it (the
    motion carried in the end, as honest play declares it): a difference honest play does
    not share (a baseline snapshot taken at the first write, which the reorder moved onto
    the forbidden move) is the order read, not another outcome. False where verify cannot be
    traced (a server in another process)."""
    # imported here: the search's package imports this module's neighbours
    from proofgym_stack.validation.search.tracing import VerifyTrace
    from proofgym_stack.validation.search.world import _MEMBER, differences, records

    plays = (written, written, moved) if honest is None else (written, written, moved, honest)
    worlds = []
    with VerifyTrace(v.env, lines=False) as trace:
        for played in plays:
            await v.run(task, played, "a failure's order, traced")
            record = trace.last()
            if record is None:
                return False
            worlds.append(record.world)
    noise = differences(worlds[0], worlds[1])
    changed = {p for p in differences(worlds[0], worlds[2]) - noise if not _MEMBER.match(p)}
    # a list's members read as a multiset: the same bookings in another order are the same
    # world (a verifier that reads only the last one reads the order)
    before, after = records(worlds[0], noise), records(worlds[2], noise)
    as_bags = [{k: sorted(v) for k, v in r.items()} for r in (before, after)]
    lists = {k for k in set(as_bags[0]) | set(as_bags[1]) if as_bags[0].get(k) != as_bags[1].get(k)}
    if honest is not None and (changed or lists):
        mine, theirs = worlds[2], worlds[3]
        bags = {k: sorted(v) for k, v in records(theirs, noise).items()}
        return all(mine.get(p) == theirs.get(p) for p in changed) and all(
            as_bags[1].get(k) == bags.get(k) for k in lists
        )
    return bool(changed) or bool(lists)


async def check_order_of_a_failure(v: Context) -> None:
    """Each failing control's acting calls, put in another order, must not pass while every
    call is answered as before and the world shows the same."""
    if v.env.random_play_can_pass:
        v.not_applicable(NAME, "a game of chance: a move moved may win")
        return
    tried, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        observing = v.env.observing_tools(task)
        controls = v.controls.get(task.task_id, [])
        passing = [
            [_key(item) for _, _, item in script_calls(c.script)]
            for c in controls
            if c.expect == "pass"
        ]
        reference = reference_script(v, task)
        looks = observations(v, task, reference) if reference is not None else []
        for control in controls:
            if control.expect != "fail":
                continue
            slots = [
                (t, i)
                for t, i, item in script_calls(control.script)
                if str(item.get("name")) not in observing
            ]
            if not 2 <= len(slots) <= MAX_CALLS:
                continue
            keys = [_key(control.script[t][i]) for t, i in slots]
            failed = None
            for order in orders(len(slots)):
                moved = [keys[k] for k in order]
                if len(set(keys)) < 2 or honest_order(keys, moved, passing):
                    continue
                if failed is None:
                    failed = await v.run(task, control.script, f"{control.name} as written")
                    if v.passes(failed) or failed.mask_sample:
                        break  # not a failure to reorder
                tried += 1
                script = reordered(control.script, slots, order)
                label = f"{control.name} in another order"
                result = await v.run(task, script, label)
                if not v.passes(result) or result.mask_sample:
                    continue
                if sorted(tool_outputs(result)) != sorted(tool_outputs(failed)):
                    # a call answered otherwise (refused in one order, or showing another
                    # running value: a counter past its target on the way) is another path,
                    # and a verifier may rightly read it
                    continue
                before = await shown_world(v, task, control.script, looks)
                if before != await shown_world(v, task, script, looks):
                    continue  # the order changed the world: the verdict may follow it
                if await handed_otherwise(v, task, control.script, script, reference):
                    continue  # what the looks do not show differs (a later call overrides)
                names = ", ".join(str(script[t][i].get("name")) for t, i in slots)
                problems.append(
                    f"{task.task_id}: {control.name} passed with its calls in another order "
                    f"({names}; reward {result.reward:g}), the world showing the same"
                )
    if not tried:
        v.not_applicable(NAME, "no failing control with two acting calls to reorder")
        return
    v.verdict(
        NAME,
        not problems,
        "the verifier pays a failure made in another order (it reads the order of the calls, "
        "not the world they leave): " + "; ".join(problems[:3])
        if problems
        else f"{tried} other orders of failing controls' calls: none passed",
    )
