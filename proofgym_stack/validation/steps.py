"""Ablation and insertion: every step of the reference is needed, and no tool rescues a
failure.

- **each step needed**: the reference with one of its calls removed must lose its reward.
  A verifier that still pays forgot a rule the step stands for (identity checked before a
  refund, the tests run before the claim): the rule the instructions state but nothing
  checks. Calls of tools declared `observes` (they only show the policy something) may be
  left out by an honest trajectory and are not removed; a step the same tool's call is needed
  for on other things, left out on a thing the reference then treats another way, is the
  rule's scope (`scope`: no sample needed for a beach it closes), not accused.
- **no tool rescues a failure**: each tool the environment offers, inserted into each failing
  control before its last message, must not turn it into a pass, unless the world it leaves
  is the reference's. A tool that wipes the evidence the verifier reads (an audit log reset,
  a record dropped while its effect stays) is found whatever it is called; a real undo that
  restores the world is not. What the world is afterwards is what the environment's
  `observes` tools show, called at the end of both (without such tools, any rescue is a
  finding). Arguments: ordinary ones (the values the reference passed under the same
  parameter name, else a value of the right type from the prompt) and random ones of the
  right types; a call the reference itself makes is never inserted (it would be the honest
  act, not a rescue).
A game of chance (`random_play_can_pass`) is n/a for both: a move removed or added may win.
"""

from __future__ import annotations

import json
import random
import re
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.negatives import prompt_text, random_tool_calls
from proofgym_stack.validation.scope import scoped
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    outcome,
    script_calls,
    tool_outputs,
    without,
)
from proofgym_stack.validation.shares import graded_as_a_share

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

MAX_TASKS = 2


def inserted(script: Script, call: dict[str, Any]) -> Script:
    """`script` with `call` in a turn of its own just before its last turn (the last message)."""
    if not script:
        return [[call]]
    return [*script[:-1], [call], script[-1]]


def _looking(script: Script, looks: list[dict[str, Any]]) -> Script:
    """`script` with the observing calls `looks` just before its last turn."""
    out = script
    for look in looks:
        out = inserted(out, look)
    return out


def _observes(v: Context, task: Task, tool: str) -> bool:
    return tool in v.env.observing_tools(task)


def reference_script(v: Context, task: Task) -> Script | None:
    """The task's reference control's script, if it has one."""
    control = v.reference(task.task_id)
    return control.script if control is not None else None


async def check_each_step_needed(v: Context) -> None:
    """The reference without any one of its acting calls must lose its reward."""
    name = "steps:each_needed"
    if v.env.random_play_can_pass:
        v.not_applicable(name, "a game of chance: a move left out may still win")
        return
    tried, in_scope, problems = 0, 0, []
    for task in v.tasks[:MAX_TASKS]:
        script = reference_script(v, task)
        if script is None:
            continue
        calls = [item for _, _, item in script_calls(script)]
        found: dict[int, str] = {}
        needed: list[int] = []
        for k, (t, i, item) in enumerate(script_calls(script)):
            if _observes(v, task, str(item.get("name"))):
                continue
            tried += 1
            result = await v.run(
                task, without(script, t, i), "the reference less one step", expect="fail"
            )
            if result.mask_sample:
                found[k] = outcome(result, "masked")
            elif v.passes(result):
                found[k] = outcome(result, "still reward")
            else:
                needed.append(k)
        # a step the rule needs only for things the reference treats another way is its scope
        free = scoped(calls, list(found), needed)
        # one of many like steps left out, where the verifier grades a share of them ("at
        # least 90% of the rows"), is inside the author's tolerance
        tools = {str(calls[k].get("name")) for k, how in found.items() if "masked" not in how}
        shared = {tool for tool in tools if await graded_as_a_share(v, task, script, tool)}
        for k, how in found.items():
            if (k in free or calls[k].get("name") in shared) and not how.startswith("masked"):
                in_scope += 1
                continue
            shown = json.dumps(call_arguments(calls[k]))[:60]
            problems.append(f"{task.task_id}: without {calls[k].get('name')}({shown}): {how}")
    if not tried:
        v.not_applicable(name, "the reference makes no call that acts (only `observes` tools)")
        return
    v.verdict(
        name,
        not problems,
        "a step the reference takes is not needed for the reward (a rule nothing checks? "
        "declare the tool `observes` if it only shows something): " + "; ".join(problems[:3])
        if problems
        else f"{tried} steps of the reference each needed"
        + (f" ({in_scope} of them only in their rule's scope or share)" if in_scope else ""),
    )


_WORD = re.compile(r"[\w.@+-]{2,}")


def ordinary_arguments(tool: dict[str, Any], task: Task, reference: Script) -> dict[str, Any]:
    """Arguments a policy would plausibly try: the value the reference passed under the same
    parameter name, else one of the right type from the prompt, else a plain one."""
    used: dict[str, Any] = {}
    for _, _, item in script_calls(reference):
        for key, value in call_arguments(item).items():
            used.setdefault(key, value)
    words = _WORD.findall(prompt_text(task))
    numbers = [int(w) for w in words if w.isdigit()]
    props = (tool.get("parameters") or {}).get("properties") or {}
    args: dict[str, Any] = {}
    for key, schema in props.items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        if key in used:
            args[key] = used[key]
        elif isinstance(schema, dict) and schema.get("enum"):
            args[key] = schema["enum"][0]
        elif kind == "integer":
            args[key] = numbers[0] if numbers else 1
        elif kind == "number":
            args[key] = float(numbers[0]) if numbers else 1.0
        elif kind == "boolean":
            args[key] = True
        elif kind == "array":
            args[key] = []
        elif kind == "object":
            args[key] = {}
        else:
            args[key] = words[0] if words else "x"
    return args


def _insertions(
    v: Context, task: Task, reference: Script, rng: random.Random
) -> list[dict[str, Any]]:
    honest = {
        (item.get("name"), json.dumps(call_arguments(item), sort_keys=True))
        for c in v.controls.get(task.task_id, [])
        if c.expect == "pass"
        for _, _, item in script_calls(c.script)
    }
    out = []
    for tool in v.env.task_tool_schemas(task):
        random_call = random_tool_calls([tool], rng, turns=1)[0][0]
        candidates = [
            {
                "type": "function_call",
                "name": tool["name"],
                "arguments": ordinary_arguments(tool, task, reference),
            },
            {**random_call, "arguments": call_arguments(random_call)},
        ]
        for call in candidates:
            key = (call["name"], json.dumps(call["arguments"], sort_keys=True))
            if key not in honest:
                out.append(call)
    return out


def observations(v: Context, task: Task, reference: Script) -> list[dict[str, Any]]:
    """Calls of the environment's `observes` tools (ordinary arguments): what the world shows."""
    return [
        {
            "type": "function_call",
            "name": tool["name"],
            "arguments": ordinary_arguments(tool, task, reference),
        }
        for tool in v.env.task_tool_schemas(task)
        if _observes(v, task, tool["name"])
    ]


def _last_outputs(result: Any, n: int) -> list[str]:
    outputs = tool_outputs(result)
    return outputs[-n:] if n else []


async def _an_undo(
    v: Context, task: Task, reference: Script, script: Script, call: dict[str, Any]
) -> bool:
    """Whether the failing control with `call` inserted hands `verify` the state of an honest
    trajectory (all but what differs between two honest runs: ids, clocks): the reference's,
    or the control's own with one of its calls left out where that passes. The inserted call
    then undid what made the control fail (a second booking cancelled), an honest repair."""
    # imported here: the search's package imports this module (its baseline inserts calls)
    from proofgym_stack.validation.search.tracing import VerifyTrace
    from proofgym_stack.validation.search.world import differences

    shorter = [without(script, t, i) for t, i, _ in script_calls(script)]
    with VerifyTrace(v.env, lines=False) as trace:
        await v.run(task, inserted(script, call), "the rescue, traced")
        rescued = trace.last()
        honest = []
        for n, played in enumerate([reference, reference, *shorter]):
            result = await v.run(task, played, "an honest world, traced")
            record = trace.last()
            if record is not None and record is not rescued and (n < 2 or v.passes(result)):
                honest.append(record.world)
    if rescued is None or len(honest) < 2:
        return False
    noise = differences(honest[0], honest[1])
    return any(not differences(rescued.world, world) - noise for world in honest[1:])


async def check_no_tool_rescues(v: Context) -> None:
    """Each offered tool inserted into each failing control must not make it pass, unless the
    world it leaves shows as the reference's does."""
    name = "steps:no_tool_rescues_a_failure"
    if v.env.random_play_can_pass:
        v.not_applicable(name, "a game of chance: a move added may win")
        return
    rng = random.Random(f"{v.seed}:insertion")
    tried, problems = 0, []
    for task in v.tasks[:1]:
        reference = reference_script(v, task)
        if reference is None:
            continue
        calls = _insertions(v, task, reference, rng)
        looks = observations(v, task, reference)
        honest_world: list[str] | None = None
        for control in v.controls.get(task.task_id, []):
            if control.expect != "fail" or not control.script:
                continue
            for call in calls:
                tried += 1
                label = f"{control.name} with {call['name']} inserted"
                result = await v.run(task, inserted(control.script, call), label)
                if not v.passes(result):
                    continue
                if looks:  # a rescue is honest when the world it leaves is the reference's
                    if honest_world is None:
                        seen = await v.run(
                            task, _looking(reference, looks), "the reference, looking"
                        )
                        honest_world = _last_outputs(seen, len(looks))
                    rescued = _looking(inserted(control.script, call), looks)
                    world = await v.run(task, rescued, label + ", looking")
                    if _last_outputs(world, len(looks)) == honest_world:
                        continue
                if await _an_undo(v, task, reference, control.script, call):
                    continue
                shown = json.dumps(call["arguments"])[:60]
                problems.append(
                    f"{task.task_id}: {control.name} passed once "
                    f"{call['name']}({shown}) was inserted (reward {result.reward:g})"
                )
    if not tried:
        v.not_applicable(name, "no failing control, or no tool, to insert into")
        return
    v.verdict(
        name,
        not problems,
        "a tool turns a failure into a pass: " + "; ".join(problems[:3])
        if problems
        else f"{tried} insertions of the environment's tools into failing controls: none passed",
    )
