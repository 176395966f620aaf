"""Cross-task replay: what earns reward on one task must not earn it on a task with another
truth.

Each sampled task's reference is replayed, unchanged and non-adaptive, on the other sampled
tasks. A verifier that pays it there checks something that does not depend on the task (that
a tool was called, that an answer is at least the truth, that any record was written).

Only pairs known to have another truth are judged, so an honest answer that happens to solve
both is never a false alarm (3 + 5 and 5 + 3 have one sum): where the environment declares its
truth (`truth_fields`, else `secret_fields`), the declared values differ; where it declares
none, the target task's own reference fails on the source task (an answer right for one and
wrong for the other: the two tasks accept different things). A game of chance
(`random_play_can_pass`) is n/a: a fixed sequence of moves may win another deal fairly. A
replay that passes by choosing, where the two references differ, only values the target's own
tools listed earlier in that rollout (another free slot) chose among the target's options: no
finding; nor does one that differs only in numbers the target grades as a region around its
own (`regions`: moved further the same way, they fail there), nor one that differs only in
closed choices the target grades (`choices`: circuit A or B; another combination satisfies it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym_stack.validation.choices import among_accepted
from proofgym_stack.validation.leaks import secrets_of
from proofgym_stack.validation.regions import inside_a_region
from proofgym_stack.validation.scripts import offered_choices, outcome, tool_outputs

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

MAX_PAIRS = 8


async def check_cross_task_replay(v: Context) -> None:
    """Each reference replayed on the other sampled tasks with another truth fails there."""
    name = "replay:cross_task"
    if v.env.random_play_can_pass:
        v.not_applicable(name, "a game of chance: a fixed sequence of moves may win another task")
        return
    refs = {}
    for task in v.tasks:
        control = v.reference(task.task_id)
        if control is not None:
            refs[task.task_id] = control.script
    fields = v.env.truth_fields or v.env.secret_fields
    tried, problems = 0, []
    for source in v.tasks:
        for target in v.tasks:
            script = refs.get(source.task_id)
            own = refs.get(target.task_id)
            if source is target or script is None or own is None or script == own:
                continue
            if tried >= MAX_PAIRS:
                break
            if fields:
                if secrets_of(source, fields) == secrets_of(target, fields):
                    continue  # the same truth under another id
            elif v.passes(await v.run(source, own, "probe: another task's reference")):
                continue  # the target's answer is right for the source too: no other truth known
            tried += 1
            label = f"replay of {source.task_id}'s reference"
            result = await v.run(target, script, label, expect="fail")
            if v.passes(result) and offered_choices(script, own, tool_outputs(result)):
                continue  # another option the target's own tools listed: an honest choice
            if v.passes(result) and await inside_a_region(v, target, script, own, result):
                continue  # inside the region the target accepts, which it closes further on
            if v.passes(result) and await among_accepted(v, target, script, own, result):
                continue  # another of the combinations of closed choices the target accepts
            if v.passes(result) or result.mask_sample:
                how = outcome(result)
                problems.append(f"{source.task_id}'s reference on {target.task_id}: {how}")
    if not tried:
        v.not_applicable(name, "the sampled tasks share one truth (one reference trajectory)")
        return
    v.verdict(
        name,
        not problems,
        "a trajectory earned reward on a task with another truth: " + "; ".join(problems[:3])
        if problems
        else f"{tried} references replayed on tasks with another truth: all failed",
    )
