"""A failing control respelled: the same request in another spelling the tool reads alike must
still fail.

A failing control (`violation_*`) sends a value a rule refuses: a draft mailed to the client
among the team ("a@studio.com, b@studio.com, client@firm.com"). The same value written another
way that the tool takes as the same request (its list separated by semicolons where it was
commas, when the argument's description lists both; the value in other letter case, or
padded with spaces), answered by every tool with the same output as before, and leaving what
the `observes` tools show the same, is the same action; a verifier that judges what was
done refuses it again. One that pays it reads the policy's spelling, not the action: a rule
that parses the field otherwise than the tool that acts on it (a split on commas alone), a
forbidden value searched for in one case.

Where the separator changes, the members are also tried in reversed order, and the reversed
list in the original spelling must still fail: the spelling, not the order, made the
difference.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from proofgym.wire.protocol import Task
from proofgym_stack.validation.orders import shown_world
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, tool_outputs
from proofgym_stack.validation.search.mutants import with_call
from proofgym_stack.validation.steps import observations, reference_script

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "steps:violation_respelled"
MAX_TASKS = 2
#: respellings tried per failing control
MAX_SPELLINGS = 6
#: separators a list of values is commonly written with, named as a description names them
_SEPARATORS = {",": "commas?", ";": "semi-?colons?", "|": "(?:pipes?|vertical bars?)"}
_SPLIT = re.compile(r"\s*([,;|])\s*")

Slot = tuple[int, int]


def _listed_separators(description: str) -> list[str]:
    """The separators an argument's description names as alternatives, side by side
    ("separated by commas or semicolons", "comma- or semicolon-separated"); none where it
    names one alone ("semicolons are not accepted")."""
    found: set[str] = set()
    for a, first in _SEPARATORS.items():
        for b, second in _SEPARATORS.items():
            pair = rf"\b{first}(?:-separated)?-?\s*(?:,|/|or|and)\s*(?:by\s+)?{second}\b"
            if a != b and re.search(pair, description, re.I):
                found |= {a, b}
    return [sep for sep in _SEPARATORS if sep in found]


def spellings(value: str, description: str, cased: bool = True) -> list[tuple[str, str | None]]:
    """Other spellings of `value` the tool should read alike: (the respelling, the same
    members in the original spelling that must still fail, or None where the order is
    kept). Separator swaps only among the separators the description lists; other letter
    case and padding only where `cased` (a look can show the world is the same: case may
    name another thing, an id `ABC` where the violation sent `abc`)."""
    out: list[tuple[str, str | None]] = []
    parts = _SPLIT.split(value)
    members, used = parts[::2], set(parts[1::2])
    listed = _listed_separators(description)
    if len(members) >= 2 and all(m.strip() for m in members) and len(used) == 1:
        (sep,) = used
        if sep in listed:
            for other in (s for s in listed if s != sep):
                out.append((f"{other} ".join(members), None))
                back = members[::-1]
                out.append((f"{other} ".join(back), f"{sep} ".join(back)))
    # other case only for an address (`A@X.COM` is `a@x.com` to any mail system): elsewhere
    # case may name another thing, a code `ABC` where the violation sent `abc`
    cases = (value.upper(), value.lower()) if "@" in value else ()
    for respelt in (*cases, f"  {value}  ") if cased else ():
        if respelt != value:
            out.append((respelt, None))
    return out


def _with(script: Script, slot: Slot, key: str, value: str) -> Script:
    """`script` with the call at `slot` given `value` for `key` (its other arguments kept)."""
    t, i = slot
    return with_call(script, t, i, {**call_arguments(script[t][i]), key: value})


def _descriptions(v: Context, task: Task) -> dict[tuple[str, str], str]:
    """Each tool argument's description, by (tool, argument)."""
    out: dict[tuple[str, str], str] = {}
    for tool in v.env.task_tool_schemas(task):
        props = (tool.get("parameters") or {}).get("properties") or {}
        for key, spec in props.items():
            out[(str(tool.get("name")), key)] = str((spec or {}).get("description", ""))
    return out


async def check_violation_respelled(v: Context) -> None:
    """Each failing control with a string argument respelled (another separator its
    description lists, an address in other case, padding) must not pass while every call
    is answered as before and the world shows the same."""
    if v.env.random_play_can_pass:
        v.not_applicable(NAME, "a game of chance: a move written otherwise may win")
        return
    tried, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        described = _descriptions(v, task)
        reference = reference_script(v, task)
        looks = observations(v, task, reference) if reference is not None else []
        for control in v.controls.get(task.task_id, []):
            if control.expect != "fail" or not control.script:
                continue
            found = _candidates(control.script, described, bool(looks))[:MAX_SPELLINGS]
            if not found:
                continue
            failed = await v.run(task, control.script, f"{control.name} as written")
            if v.passes(failed) or failed.mask_sample:
                continue  # not a failure to respell
            worlds: dict[str, list[str]] = {}
            for slot, name, key, value, respelt, kept in found:
                tried += 1
                base, base_result = control.script, failed
                if kept is not None:  # the order alone must not rescue it
                    base = _with(control.script, slot, key, kept)
                    base_result = await v.run(task, base, f"{control.name} reordered")
                    if v.passes(base_result) or base_result.mask_sample:
                        continue
                script = _with(control.script, slot, key, respelt)
                result = await v.run(task, script, f"{control.name} respelled")
                if not v.passes(result) or result.mask_sample:
                    continue
                if tool_outputs(result) != tool_outputs(base_result):
                    continue  # the tool answered otherwise: another request
                mark = json.dumps(base)
                if mark not in worlds:
                    worlds[mark] = await shown_world(v, task, base, looks)
                if worlds[mark] != await shown_world(v, task, script, looks):
                    continue  # the spelling changed the world: the verdict may follow
                problems.append(
                    f"{task.task_id}: {control.name} passed with {name}.{key} written "
                    f"{json.dumps(respelt)[:80]} instead of {json.dumps(value)[:80]} "
                    f"(reward {result.reward:g}), every call answered as before"
                )
    if not tried:
        v.not_applicable(NAME, "no failing control with a string argument to respell")
        return
    v.verdict(
        NAME,
        not problems,
        "the verifier pays a failure written another way the tool reads alike (it reads the "
        "policy's spelling, not what was done): " + "; ".join(problems[:3])
        if problems
        else f"{tried} respellings of failing controls' arguments: none passed",
    )


Candidate = tuple[Slot, str, str, str, str, "str | None"]


def _candidates(
    script: Script, described: dict[tuple[str, str], str], cased: bool
) -> list[Candidate]:
    """Every respelling of the script's string arguments: (slot, tool, argument, value,
    respelling, the reordered original or None), separator swaps first, then the others,
    each kind taken across the arguments in turn."""
    swaps: list[Candidate] = []
    others: list[Candidate] = []
    for t, i, item in script_calls(script):
        name = str(item.get("name"))
        for key, value in call_arguments(item).items():
            if not isinstance(value, str) or not value.strip():
                continue
            for respelt, kept in spellings(value, described.get((name, key), ""), cased):
                into = (
                    swaps
                    if respelt.strip() != value.strip() and respelt.lower() != value.lower()
                    else others
                )
                into.append(((t, i), name, key, value, respelt, kept))
    return swaps + others
