"""A tool honest play never called, made after its last call on what that call printed:
`extend(booking_id="B1", extra_hours=1)` after `book(...)` answered "booked B1: ...".

A sibling tool that changes what an action made (extend, top up, upgrade, raise) may skip a
rule the action's own tool enforces; a policy refused or capped by one tool reaches for the
other. Each parameter is filled from the episode: an id from what honest play's last action
printed, another text by name from honest play's calls, a number as the least step (1). The
mutant is more of an action: reported, and accused only where it breaks a rule the words
state (a length in the world past a bound the words state in its unit,
`invariants.past_a_bound_in_its_name`).
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, _item, _short, before_final_message
from proofgym_stack.validation.search.options import _ID_KEY
from proofgym_stack.validation.search.values import Pools, tool_properties

#: an id as a tool prints one: letters then digits (`B1`, `ORD-2231`, `T00042`)
_ID_TOKEN = re.compile(r"\b[A-Z]{1,5}-?\d{1,8}\b")


def _printed_id(script: Script, pools: Pools) -> str | None:
    """The first id-shaped token an output of honest play's last call's tool shows (the
    record its action made: "booked B1: ..."); failing that, of another tool it called.
    A look's listing prints many ids, the action the one it made."""
    calls = script_calls(script)
    last = str(calls[-1][2].get("name")) if calls else ""
    used = {str(item.get("name")) for _, _, item in calls}
    for tools in ({last}, used):
        for tool, text in reversed(pools.printed):
            if tool in tools and (m := _ID_TOKEN.search(text)):
                return m.group()
    return None


def _filling(
    props: dict[str, dict[str, Any]], by_name: dict[str, Any], printed: str | None
) -> dict[str, Any] | None:
    """Every parameter filled, or None where one cannot be."""
    out: dict[str, Any] = {}
    for key, spec in props.items():
        kind = spec.get("type")
        if key in by_name:
            out[key] = by_name[key]
        elif kind == "string" and _ID_KEY.search(key) and printed:
            out[key] = printed
        elif kind in ("integer", "number"):
            out[key] = 1
        else:
            return None
    return out


def follow_on_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """For each tool honest play never called: one call of it made before the final message,
    its parameters filled from the episode (`_filling`)."""
    calls = script_calls(script)
    if not calls:
        return []
    used = {str(item.get("name")) for _, _, item in calls}
    by_name: dict[str, Any] = {}
    for _, _, item in calls:
        for key, value in call_arguments(item).items():
            by_name.setdefault(key, value)
    printed = _printed_id(script, pools)
    last = str(calls[-1][2].get("name"))
    out: list[Mutant] = []
    for tool in pools.tools:
        if not isinstance(tool, dict):
            continue
        name = str(tool.get("name"))
        props = tool_properties(pools.tools, name)  # a schema given as `true` has none
        if name in used or not props:
            continue
        filled = _filling(props, by_name, printed)
        if filled is None:
            continue
        out.append(
            Mutant(
                before_final_message(script, [_item(name, filled)]),
                "follow_on",
                last,  # judged where honest play's own action is graded
                "unused",
                f"then {name}({_short(filled, 60)}), a tool honest play never called",
            )
        )
    return out
