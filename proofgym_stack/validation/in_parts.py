"""A refused failure sent in parts: a batch the tool refused whole must not pay in pieces.

A failing control (`violation_over_budget`: every prop ordered from the premium supplier in one
order) may fail because a tool refused its batched call (the order would pass the budget).
A policy refused a batch sends it in smaller parts. Made one member per call, the control
must still fail: a rule the tool enforces on one call at a time, where it was a total (a
budget kept per order, because the running spend is never recorded), is paid in pieces.
Where the refusal names a limit per call ("at most 5 items per order", "too many"), sending
less per call meets it: not tried. Accused only where every part is taken and the parts
are not calls honest play makes (a mixed order sent in parts, as the reference sends it, is
the failure corrected).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, tool_outputs
from proofgym_stack.validation.search.mutants import _item, replaced
from proofgym_stack.validation.search.retry import per_call
from proofgym_stack.validation.steps import reference_script

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "steps:refused_failure_in_parts"
MAX_TASKS = 2


async def check_refused_failure_in_parts(v: Context) -> None:
    """Each failing control whose batched call (a list argument of two members or more) a
    tool refused, made again with that call sent one member per call, must not pass."""
    tried, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        for control in v.controls.get(task.task_id, []):
            if control.expect != "fail" or not control.script:
                continue
            result = v.solo.get((task.task_id, control.name))
            if result is None or v.passes(result) or result.mask_sample:
                continue
            outputs = tool_outputs(result)
            for n, (t, i, item) in enumerate(script_calls(control.script)):
                said = outputs[n] if n < len(outputs) else ""
                if not said.startswith("Error:") or per_call(said):
                    continue
                name, args = str(item.get("name")), call_arguments(item)
                for key, value in args.items():
                    if not isinstance(value, list) or len(value) < 2:
                        continue
                    tried += 1
                    parts: list[dict[str, Any]] = [
                        _item(name, {**args, key: [member]}) for member in value
                    ]
                    script = replaced(control.script, t, i, parts)
                    again = await v.run(task, script, f"{control.name} in parts")
                    if not v.passes(again) or again.mask_sample:
                        continue
                    if any(o.startswith("Error:") for o in tool_outputs(again)[n : n + len(parts)]):
                        continue  # a part still refused: the refusal was that member's
                    if _as_honest(reference_script(v, task), name, key, parts):
                        continue  # in parts it does what honest play does: corrected
                    problems.append(
                        f"{task.task_id}: {control.name} passed (reward {again.reward:g}) "
                        f"with {name}'s {key} sent one per call, where the whole was "
                        f"refused ({said[:80]!r})"
                    )
    if not tried:
        v.not_applicable(NAME, "no failing control with a batched call a tool refused")
        return
    v.verdict(
        NAME,
        not problems,
        "a failure the tool refused whole pays in parts (a rule kept per call, not on the "
        "total): " + "; ".join(problems[:3])
        if problems
        else f"{tried} refused batches of failing controls sent in parts: none passed",
    )


def _as_honest(reference: Script | None, name: str, key: str, parts: list[dict[str, Any]]) -> bool:
    """Whether each part is a call honest play makes: a call of the same tool with the same
    other arguments whose list holds that member (a mixed order sent in parts, as the
    reference sends it: the failure corrected, not a rule evaded)."""
    if reference is None:
        return False
    made = [call_arguments(i) for _, _, i in script_calls(reference) if i.get("name") == name]
    for part in parts:
        args = call_arguments(part)
        member = args[key][0]
        rest = {k: v for k, v in args.items() if k != key}
        if not any(
            {k: v for k, v in m.items() if k != key} == rest
            and isinstance(m.get(key), list)
            and member in m[key]
            for m in made
        ):
            return False
    return True
