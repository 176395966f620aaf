"""Mutants that act on what a changed call showed (the search's follow-ups).

A policy reads what its changed call printed and acts on it: it searches the other direction,
books what it found. For each played mutant whose tools printed tokens honest play never
showed, its later calls' string arguments are set to each of them (`mutants.follow_ups`).
And a number honest play copied from a tool's output into a later call (the quote's £512.00
paid as `payment=512.0`) is copied again from what the changed call printed in its place
(£482.00, the quote without the permit), where the changed call is that look itself and
failed as it was: a policy pays what it was quoted (`copied_again`, at most `MAX_COPIED` a
search, played beside the follow-ups' draw).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.negatives import prompt_text
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    leaves,
    script_calls,
    set_at,
    tool_outputs,
)
from proofgym_stack.validation.search.mutants import Mutant, follow_ups, site_of, with_call
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.values import NUMBER, like_sent, numbers, tokens

#: numbers copied again, played per search beside the follow-ups' seeded draw
MAX_COPIED = 12
#: the source of a number copied again: judged, like an argument's number, within the
#: verifier's tolerance around honest play's
COPIED = "copied"


def acting_on_what_showed(played: list[Played]) -> list[tuple[Mutant, Played]]:
    """Each follow-up mutant, with the played mutant it follows."""
    out: list[tuple[Mutant, Played]] = []
    for p in played:
        if p.mutant.op in ("message", "call_drop"):
            continue
        seen = set(p.base.pools.outputs) | set(p.base.pools.prompt)
        fresh = [tok for tok in tokens("\n".join(tool_outputs(p.result))) if tok not in seen]
        if not fresh:
            continue
        calls = [item for _, _, item in script_calls(p.mutant.script)]
        honest = [item for _, _, item in script_calls(p.honest.control.script)]
        changed = next(
            (n for n, (a, b) in enumerate(zip(calls, honest, strict=False)) if a != b),
            min(len(calls), len(honest)),
        )
        out += [(m, p) for m in follow_ups(p.mutant.script, changed, fresh)]
    return out


def copied_again(
    played: list[Played],
    looks_of: Callable[[Task], frozenset[str]],
    passes: Callable[[RunResult], bool],
) -> list[tuple[Mutant, Played]]:
    """Each failed mutant's numbers copied again from what a look printed (`copies_moved`),
    with the mutant it follows. Only a look's: an action's output that moved (a job put on
    another press, ending at another hour) is re-planned from consistently by honest play
    too, and what follows is another valid plan, not a figure taken on trust. Only after a
    mutant that failed: where the changed look alone passes, the look decides nothing (a
    sheet read twice); where it fails and the copy pays, the verdict follows the figure the
    look printed, not the truth."""
    out: list[tuple[Mutant, Played]] = []
    seen: set[tuple[str, Any]] = set()  # one copy of a number into one site
    given: dict[str, frozenset[float]] = {}  # the numbers each task's prompt states
    for p in played:
        if passes(p.result) or p.result.mask_sample:
            continue
        if p.mutant.op not in ("message", "call_drop", "follow_up"):
            script, honest = p.mutant.script, p.honest.control.script
            looks = looks_of(p.base.task)
            task = p.base.task
            if task.task_id not in given:
                given[task.task_id] = frozenset(numbers(prompt_text(task), limit=200))
            outputs = tool_outputs(p.result)
            moved = copies_moved(
                script, honest, p.honest.outputs, outputs, looks, given[task.task_id]
            )
            out += [(m, p) for m in moved if (m.site, m.new) not in seen]
            seen |= {(m.site, m.new) for m in moved}
    return out


def _moved_numbers(honest: str, now: str) -> dict[float, float]:
    """Where one output prints the same numbers in the same order as another but some moved:
    each moved number -> what it became (nothing where the count differs)."""
    before = [float(n) for n in NUMBER.findall(honest)]
    after = [float(n) for n in NUMBER.findall(now)]
    if len(before) != len(after) or now.startswith("Error"):
        return {}
    pairs = {(b, a) for b, a in zip(before, after, strict=True)}
    twice = {b for b, _ in pairs if sum(1 for c, _ in pairs if c == b) > 1}  # moved two ways
    return {b: a for b, a in pairs if a != b and b not in twice}


def copies_moved(
    script: Script,
    honest: Script,
    was: list[str],
    now: list[str],
    looks: frozenset[str] | None = None,
    given: frozenset[float] = frozenset(),
) -> list[Mutant]:
    """The mutant `script` with a later call's number that honest play (`honest`, whose
    calls printed `was`) copied from a tool's output set to what that output printed in its
    place after the change (`now`), one number a mutant, where the output is a look's
    (`looks`, when given). The calls must line up with honest play's, tool by tool; a number
    the policy itself sent before the output (a transfer's amount, echoed back) or one the
    task's words give (`given`: the minutes the group asked for) was not copied from it."""
    calls, own = script_calls(script), script_calls(honest)
    names = [str(item.get("name")) for _, _, item in calls]
    if not len(now) == len(was) == len(calls) or names != [str(c.get("name")) for *_, c in own]:
        return []
    out: list[Mutant] = []
    # the first call the mutant changed: a number is copied again only from that call's own
    # output (a look asked otherwise); after a changed action, a look shows what the action
    # did, and what follows is honest play re-planned (another room chosen, its price paid)
    first = next((n for n, (a, b) in enumerate(zip(calls, own, strict=True)) if a[2] != b[2]), None)
    for k, (before, after) in enumerate(zip(was, now, strict=True)):
        if k != first or (looks is not None and names[k] not in looks):
            continue  # an action's output: what follows it is re-planned, not copied
        sent = {
            float(v)
            for _, _, item in own[: k + 1]
            for _, v in leaves(call_arguments(item))
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        moved = {b: a for b, a in _moved_numbers(before, after).items() if b not in sent | given}
        for t, i, item in calls[k + 1 :] if moved else []:
            args = call_arguments(item)
            for path, value in leaves(args):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    continue
                if float(value) in moved:
                    number = like_sent(moved[float(value)], value)
                    site = site_of(str(item.get("name")), path)
                    what = f"then {site}: copied again from what call {k + 1} printed"
                    changed = with_call(script, t, i, set_at(args, path, number))
                    out.append(
                        Mutant(
                            changed, "follow_up", site, COPIED, what, (t, i), path, value, number
                        )
                    )
    return out
