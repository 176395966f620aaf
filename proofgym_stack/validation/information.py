"""Information flow: a value that decides the reward must not be readable without doing the
task, in any encoding, by any argument.

Where the leakage check searches outputs for a declared secret as it is written, this one
needs no declaration and no encoding: it perturbs the task and watches what changes.
For each sampled task, each scalar value of its `task_data` that decides the reward (the
reference replayed on the task with that value moved loses its reward: the answer the
verifier compares against, declared secret or not) is moved, and every tool is called off
the honest path, on the task and on its moved twin, with ordinary arguments (the reference's
own values under the same names, values from the prompt) and a dictionary of words a policy
tries (`answer`, `hint`, `debug`, `*`, boundary numbers). A call whose answer differs between
the two reveals the value, whatever form it takes (verbatim, another number form, base64, a
hash). A tool that shows the value when called the ordinary way (the reference's own
values, the prompt's) is the policy's way to look it up, not a leak. What the policy may see
is not judged: a value the prompt, the instructions or a
passing control's tool outputs show (the honest path shows it), calls a passing control makes,
and calls whose answer differs between two runs of the same task (a clock, a random id).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.answers import final_text
from proofgym_stack.validation.negatives import task_words
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    leaves,
    named_tool_outputs,
    script_calls,
    set_at,
    shown,
    tool_outputs,
)
from proofgym_stack.validation.steps import ordinary_arguments, reference_script

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

MAX_TASKS = 2
MAX_VALUES = 6
CALLS_PER_PROBE = 10
WORDS = ("answer", "hint", "solution", "debug", "expected", "secret", "all", "*", "", "help")
NUMBERS = (0, -1, 1, 999_999_999)

Path = tuple[str | int, ...]


def _moved(value: Any) -> Any:
    """Another value of the same kind: the truth changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value * 2 + 7
    if isinstance(value, float):
        return value * 2 + 7.5
    if isinstance(value, str):
        return (value[::-1] + "x") if value else "x"
    return None


def _moved_clear(value: Any, taken: set[str]) -> Any:
    """`_moved(value)`, or, where that lands on a value already `taken`, the first of a few
    further moves that does not."""
    moved = _moved(value)
    step = value
    for _ in range(8):
        if str(moved) not in taken:
            return moved
        step = _moved(step)
        moved = _moved(step)
    return moved


def _guessed(arguments: dict[str, Any], value: Any) -> bool:
    """Whether a probe's `arguments` hold `value` itself (a scalar, as the task holds it)."""
    return any(leaf == value and type(leaf) is type(value) for _, leaf in leaves(arguments))


def _said(script: Script) -> str:
    """Everything the reference writes: its arguments and its final message."""
    parts = [
        json.dumps(call_arguments(item), sort_keys=True) for _, _, item in script_calls(script)
    ]
    return "\n".join([*parts, final_text(script) or ""])


def honest_view(v: Context, task: Task) -> str:
    """What the policy sees on the honest path: the prompt, the instructions, and every tool
    output of the task's passing controls."""
    parts = [task_words(v.env, task)]
    for control in v.controls.get(task.task_id, []):
        result = v.solo.get((task.task_id, control.name))
        if control.expect == "pass" and result is not None:
            parts += tool_outputs(result)
    return "\n".join(parts)


def candidate_values(
    task: Task, script: Script, fields: tuple[str, ...], visible: str = ""
) -> list[Path]:
    """The values to move that the honest path does not show (`visible`), first those the
    reference produces (its arguments and message: the answer it had to find) and those
    declared secret or true, at most MAX_VALUES."""
    said = _said(script)
    found = [
        (p, v) for p, v in leaves(task.task_data) if _moved(v) is not None and not shown(v, visible)
    ]
    named = [p for p, _ in found if p and ".".join(map(str, p[:1])) in fields]
    produced = [p for p, v in found if len(str(v)) >= 2 and str(v) in said]
    rest = [p for p, _ in found]
    ordered = list(dict.fromkeys([*produced, *named, *rest]))
    return ordered[:MAX_VALUES]


def probes(v: Context, task: Task, reference: Script) -> list[dict[str, Any]]:
    """Calls off the honest path: every tool with ordinary arguments and the word list."""
    honest = {
        (item.get("name"), json.dumps(call_arguments(item), sort_keys=True))
        for c in v.controls.get(task.task_id, [])
        if c.expect == "pass"
        for _, _, item in script_calls(c.script)
    }
    out = []
    for tool in v.env.task_tool_schemas(task):
        props = (tool.get("parameters") or {}).get("properties") or {}
        sets = [ordinary_arguments(tool, task, reference)]
        for word, number in zip(WORDS, [*NUMBERS] * 3, strict=False):
            sets.append({k: _typed(s, word, number) for k, s in props.items()})
        for args in sets:
            key = (tool["name"], json.dumps(args, sort_keys=True))
            if key not in honest:
                honest.add(key)  # once each
                out.append({"type": "function_call", "name": tool["name"], "arguments": args})
    return out


def _typed(schema: Any, word: str, number: int) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(schema, dict) and schema.get("enum"):
        return schema["enum"][0]
    if kind == "integer":
        return number
    if kind == "number":
        return float(number)
    if kind == "boolean":
        return True
    if kind == "array":
        return [word]
    if kind == "object":
        return {}
    return word


async def _observe(v: Context, task: Task, calls: list[dict[str, Any]]) -> list[list[str]]:
    """What each chunk of calls answers on `task`, one rollout per chunk."""
    seen = []
    for start in range(0, len(calls), CALLS_PER_PROBE):
        chunk = calls[start : start + CALLS_PER_PROBE]
        script = [*[[c] for c in chunk], [{"type": "message", "content": "Done."}]]
        result = await v.run(task, script, "information probe")
        seen.append(tool_outputs(result))
    return seen


async def check_information_flow(v: Context) -> None:
    """No call off the honest path answers differently when a value that decides the reward
    is moved."""
    name = "information_flow:truth_unreadable"
    fields = tuple({*v.env.secret_fields, *v.env.truth_fields})
    judged, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        reference = reference_script(v, task)
        tools = v.env.task_tool_schemas(task)
        if reference is None or not tools:
            continue
        calls = probes(v, task, reference)
        tools_by_name = {t["name"]: t for t in tools}
        if not calls:
            continue
        here = await _observe(v, task, calls)
        again = await _observe(v, task, calls)
        # values the task and the reference already use: a value moved onto one of them
        # (an id moved onto the id the reference's new record gets) decides the reward by
        # the collision, not by itself
        taken = {str(x) for _, x in leaves(task.task_data)} | set(
            re.findall(r"[\w.-]+", _said(reference))
        )
        for path in candidate_values(task, reference, fields, honest_view(v, task)):
            old = _value_at(task.task_data, path)
            moved_data = set_at(task.task_data, path, _moved_clear(old, taken))
            twin = task.model_copy(update={"task_data": moved_data})
            try:
                v.env.validate_task(twin)
            except ValueError:
                continue
            replay = await v.run(twin, reference, "the reference, the truth moved")
            if replay.mask_sample or v.passes(replay):
                continue  # the value does not decide the reward (or the twin cannot be seeded)
            judged += 1
            # a tool whose own call on the honest path answers otherwise once the value moved
            # (the next free id it assigns) shows the value to honest play itself
            honest_shows = _showing(v.reference_result(task.task_id), replay)
            there = await _observe(v, twin, calls)
            revealing = []
            for chunk, (a, b, c) in enumerate(zip(here, again, there, strict=False)):
                for i, (x, y, z) in enumerate(zip(a, b, c, strict=False)):
                    call = calls[chunk * CALLS_PER_PROBE + i]
                    if x != y or x == z:
                        continue
                    shows = honest_shows.get(call["name"])
                    if shows and _changed(x, z) <= shows:
                        continue  # changed just as the tool's honest call did (the next id)
                    if z.startswith("Error") and _guessed(call["arguments"], old):
                        continue  # it named the value itself: a guess that stopped matching
                    revealing.append(call)
            # a tool that shows the value when called the ordinary way (the reference's own
            # values, the prompt's) is how the policy is meant to find it out: a lookup, not
            # a leak; only an off-path argument that shows what the ordinary call does not is
            ordinary = {
                c["name"]
                for c in revealing
                if c["arguments"] == ordinary_arguments(tools_by_name[c["name"]], task, reference)
            }
            for call in revealing:
                if call["name"] in ordinary:
                    continue
                shown = json.dumps(call["arguments"])[:60]
                where = ".".join(map(str, path))
                problems.append(
                    f"{task.task_id}: {call['name']}({shown}) answers differently when "
                    f"task_data.{where} (it decides the reward) is moved"
                )
    if not judged:
        v.not_applicable(name, "no value of the sampled tasks decides the reward, or no tools")
        return
    v.verdict(
        name,
        not problems,
        "; ".join(list(dict.fromkeys(problems))[:3])
        if problems
        else f"{judged} values that decide the reward: no call off the honest path reveals them",
    )


def _changed(a: str, b: str) -> set[tuple[str, ...]]:
    """How one answer became the other, token by token at the same places: a number by how
    much it moved (ids counted on from the value move alike: 9 to 26 and 10 to 27), a word
    by what it became; an answer of another shape (tokens added, dropped or reordered in
    number) as the answer itself, which no other change matches."""
    x, y = re.findall(r"[\w.-]+", a), re.findall(r"[\w.-]+", b)
    if len(x) != len(y):
        return {("whole", a, b)}
    out: set[tuple[str, ...]] = set()
    for s, t in zip(x, y, strict=True):
        if s == t:
            continue
        if re.fullmatch(r"\d+", s) and re.fullmatch(r"\d+", t):
            out.add(("by", str(int(t) - int(s))))
        else:
            out.add(("word", s, t))
    return out or {("whole", a, b)}


def _showing(before: RunResult | None, after: RunResult) -> dict[str, set[tuple[str, ...]]]:
    """For each tool whose call answered otherwise in `after` (the reference on the moved
    twin) than in `before` (on the task), neither answer refused: what changed in it. A
    probe of that tool that changes no more shows the value no more than honest play's
    own call does (the next free id it assigns)."""
    if before is None:
        return {}
    a, b = named_tool_outputs(before), named_tool_outputs(after)
    out: dict[str, set[tuple[str, ...]]] = {}
    for (name, x), (other, y) in zip(a, b, strict=False):
        if name == other and x != y and not x.startswith("Error") and not y.startswith("Error"):
            out.setdefault(name, set()).update(_changed(x, y))
    return out


def _value_at(data: Any, path: Path) -> Any:
    for step in path:
        data = data[step]
    return data
