"""A failure with a flag flipped: a tool's switch must not turn a failing control into a pass.

A failing control (`violation_unapproved_change`: every price set, the big changes never
approved) fails because it leaves a step out. A policy tries the switches its tools offer:
the same calls with `dry_run`, `draft`, `force` or `urgent` flipped. Where one of them makes
the failure pay (a preview branch that still writes the price, past the rule the real branch
keeps), a policy skips the step for good. Not accused where the flag's own words name what
the failure left out (an `auto_approve` flag where the approval was left out: what the flag
is for), or where honest play sends that flag so (the switch is part of the right way).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import with_call
from proofgym_stack.validation.search.retry import stems
from proofgym_stack.validation.search.values import tool_properties
from proofgym_stack.validation.steps import reference_script

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "steps:failure_with_a_flag_flipped"
MAX_TASKS = 2


async def check_failure_with_a_flag_flipped(v: Context) -> None:
    """Each failing control that leaves out a step honest play takes, made again with one
    boolean flag of a tool it calls flipped on every call of that tool, must not pass
    (unless the flag's words name what it left out, or the reference sends the flag so)."""
    tried, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        reference = reference_script(v, task)
        tools = list(v.env.task_tool_schemas(task))
        for control in v.controls.get(task.task_id, []):
            if control.expect != "fail" or not control.script:
                continue
            result = v.solo.get((task.task_id, control.name))
            if result is None or v.passes(result) or result.mask_sample:
                continue
            looks = set(v.env.observing_tools(task))
            left_out = _left_out(reference, control.script, tools, looks)
            if not left_out:
                continue  # a wrong value sent, not a step left out: a flag may correct it
            for name, flag, value in _flags(control.script, tools):
                if _answers(name, flag, tools, left_out) or _sent_so(reference, name, flag, value):
                    continue
                tried += 1
                script = _flipped(control.script, name, flag, value)
                again = await v.run(task, script, f"{control.name} with {flag}={value}")
                if not v.passes(again) or again.mask_sample:
                    continue
                problems.append(
                    f"{task.task_id}: {control.name} passed (reward {again.reward:g}) with "
                    f"{name}({flag}={str(value).lower()}) on each of its {name} calls"
                )
    if not tried:
        v.not_applicable(NAME, "no failing control calls a tool with a boolean flag")
        return
    v.verdict(
        NAME,
        not problems,
        "a tool's flag turns a failure into full reward (a branch that skips a rule and still "
        "acts): " + "; ".join(problems[:3])
        if problems
        else f"{tried} failing controls made with a flag flipped: none passed",
    )


def _flags(script: Script, tools: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """(tool, flag, flipped value) for each boolean parameter of each tool the script calls:
    the value the calls send flipped, or the schema's default (False unless it says)
    flipped. A flag sent both ways in the script is left alone."""
    out: list[tuple[str, str, bool]] = []
    called = list(dict.fromkeys(str(i.get("name")) for _, _, i in script_calls(script)))
    for name in called:
        for flag, prop in tool_properties(tools, name).items():
            if prop.get("type") != "boolean":
                continue
            sent = {
                call_arguments(i).get(flag, prop.get("default") is True)
                for _, _, i in script_calls(script)
                if i.get("name") == name
            }
            if len(sent) == 1 and isinstance(value := next(iter(sent)), bool):
                out.append((name, flag, not value))
    return out


def _flipped(script: Script, name: str, flag: str, value: bool) -> Script:
    """`script` with `flag` set to `value` on every call of `name`."""
    out = script
    for t, i, item in script_calls(script):
        if item.get("name") == name:
            out = with_call(out, t, i, {**call_arguments(item), flag: value})
    return out


def _left_out(
    reference: Script | None, script: Script, tools: list[dict[str, Any]], looks: set[str]
) -> str:
    """The words of the steps a failing control leaves out of honest play: the names and
    descriptions of the tools the reference calls that the control does not, where every
    call the control makes is one the reference makes too (its acting calls, looks aside).
    Empty where it leaves none out, or sends any value of its own (a wrong value sent, which
    a flag may correct, not a step skipped)."""
    if reference is None:
        return ""

    def acting(s: Script) -> Counter[str]:
        return Counter(
            json.dumps([i.get("name"), call_arguments(i)], sort_keys=True, default=str)
            for _, _, i in script_calls(s)
            if i.get("name") not in looks
        )

    made, sent = acting(reference), acting(script)
    if sent - made:
        return ""  # a call of its own, not honest play's with some left out
    words = []
    for key in made - sent:
        name = str(json.loads(key)[0])
        schema = next((t for t in tools if isinstance(t, dict) and t.get("name") == name), {})
        words += [name.replace("_", " "), str(schema.get("description") or "")]
    return " ".join(words)


def _answers(name: str, flag: str, tools: list[dict[str, Any]], left_out: str) -> bool:
    """Whether the flag's own words (its name and description) name what was left out
    (`auto_approve` where the approval was): the switch does that step. Words are compared
    by their first four letters (`staging` and `staged`)."""
    props = tool_properties(tools, name)
    own = _short(f"{flag.replace('_', ' ')} {props.get(flag, {}).get('description') or ''}")
    # words the tool's other arguments use (`item`, `price`) name nothing left out, unless
    # the flag's own name uses them (`auto_approve` beside an `approval_id`)
    common = _short(
        " ".join(
            f"{k.replace('_', ' ')} {p.get('description') or ''}"
            for k, p in props.items()
            if k != flag
        )
    ) - _short(flag.replace("_", " "))
    return bool((own - common) & _short(left_out))


def _short(text: str) -> set[str]:
    return {w[:4] for w in stems(text)}


def _sent_so(reference: Script | None, name: str, flag: str, value: bool) -> bool:
    """Whether honest play sends `flag` as `value` on every call of `name` it makes (a
    preview then the real call is no flag honest play sends so)."""
    if reference is None:
        return False
    sent = [
        call_arguments(i).get(flag) for _, _, i in script_calls(reference) if i.get("name") == name
    ]
    return bool(sent) and all(x is value for x in sent)
