"""Overshoot and correct: an amount moved past a total the words cap, then moved back.

A policy that moves too much and moves the excess back (fuel pumped past the target and
returned, money sent twice and refunded) ends in honest play's world. Where the task's words
cap the total moved ("the pump may move at most 6500 litres today"), and honest play came
near the cap, that round trip crosses the rule while the world hides it: a verifier that
reads the total from the net change (the final levels) instead of what was moved pays it.

`round_trip_mutants` makes the first call of a tool that moves an amount between two named
things send the cap's excess more, followed by the same call with the two things swapped
and the excess; `total_crossed` says which stated cap the mutant's calls (those the tools
took) cross in sum while honest play's keep it. A cap stated per call ("at most 5000 litres
per transfer") is no total, and a cap honest play stays far under (a tank's capacity) is no
budget it came near: neither is read; nor a cap whose clause does not name the tool (the
pump's, not the drain's), nor a level to fill "up to".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, _item, replaced
from proofgym_stack.validation.search.values import tool_properties

if TYPE_CHECKING:  # the search's records
    from proofgym_stack.validation.search.tolerance import Played

OP = "round_trip"
#: a cap on an amount with its unit: "at most 6500 litres", "no more than 12,000 kg"
_CAP = re.compile(
    r"\b(?:at most|no more than|not more than|a maximum of|maximum of|a limit of|"
    r"limit of|limited to)\s+(\d[\d,]*(?:\.\d+)?)\s*([A-Za-z]{2,})",
    re.I,
)
#: a cap stated for one call or one thing, not for the total
_PER = re.compile(
    r"\b(?:per|each|a single|at a time|in one go|in any one|in a single|apiece)\b", re.I
)
#: honest play's share of a cap that makes it a budget it came near
NEAR = 0.5
#: mutants a script gets (one per tool that moves an amount)
MAX_MUTANTS = 2


def amount_caps(words: str) -> list[tuple[float, str, str]]:
    """The totals the words cap on an amount with a unit: (6500, "litres", "at most 6500
    litres today"), a cap its clause states per call or per thing left out."""
    out = []
    for clause in re.findall(r"[^.;!?\n]+", words):
        if _PER.search(clause):
            continue
        for m in _CAP.finditer(clause):
            n = float(m.group(1).replace(",", ""))
            out.append((n, m.group(2).lower(), clause.strip()))
    return out


def _measures(unit: str, key: str, description: str) -> bool:
    """Whether an argument (its name or its description) is counted in `unit`: the same
    first four letters (`litres`, `litre`, `liters`)."""
    stem = unit[:4]
    words = re.findall(r"[a-z]+", f"{key} {description}".lower())
    return len(stem) >= 3 and any(w.startswith(stem) for w in words)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sum(script: Script, tool: str, key: str, skip: frozenset[tuple[int, int]]) -> float:
    return sum(
        float(call_arguments(item)[key])
        for t, i, item in script_calls(script)
        if item.get("name") == tool
        and (t, i) not in skip
        and _number(call_arguments(item).get(key))
    )


def _capped(
    script: Script, tool: str, words: str, tools: list[dict[str, Any]]
) -> list[tuple[str, float, str]]:
    """(argument, cap, clause) for each numeric argument of `tool` a stated total caps, where
    honest play's sum comes near it and keeps it."""
    props = tool_properties(tools, tool)
    calls = [call_arguments(i) for _, _, i in script_calls(script) if i.get("name") == tool]
    keys = {k for c in calls for k, v in c.items() if _number(v)}
    caps = amount_caps(words)
    parts = [p for p in re.split(r"[_\W]+", tool.lower()) if len(p) >= 4]
    out = []
    for key in sorted(keys):
        description = str(props.get(key, {}).get("description") or "")
        total = _sum(script, tool, key, frozenset())
        for n, unit, clause in caps:
            # the cap is this tool's: its clause names the tool (a drain's cap is no pump's)
            named = any(part[:4] in clause.lower() for part in parts)
            if not named or not _measures(unit, key, description):
                continue
            if NEAR * n <= total <= n:
                out.append((key, n, clause))
    return out


def round_trip_mutants(script: Script, words: str, tools: list[dict[str, Any]]) -> list[Mutant]:
    """For each tool whose amount a stated total caps: its first call that names two things
    sent the excess over the cap more, then the excess moved back (the two swapped)."""
    out: list[Mutant] = []
    seen: set[str] = set()
    for t, i, item in script_calls(script):
        tool = str(item.get("name"))
        if tool in seen or len(out) >= MAX_MUTANTS:
            continue
        args = call_arguments(item)
        texts = [k for k, v in args.items() if isinstance(v, str) and v.strip()]
        pair = next(((a, b) for a in texts for b in texts if a < b and args[a] != args[b]), None)
        capped = _capped(script, tool, words, tools) if pair else []
        for key, n, _ in capped:
            if not _number(args.get(key)):
                continue
            seen.add(tool)
            a, b = pair or ("", "")
            excess: float = n - _sum(script, tool, key, frozenset()) + 1
            if isinstance(args[key], int):
                excess = int(excess)
            there = {**args, key: args[key] + excess}
            back = {**args, a: args[b], b: args[a], key: excess}
            out.append(
                Mutant(
                    replaced(script, t, i, [_item(tool, there), _item(tool, back)]),
                    OP,
                    f"{tool}.{key}",
                    OP,
                    f"{tool}: {key} {args[key]} -> {there[key]}, then {excess} moved back "
                    f"({a} and {b} swapped)",
                )
            )
            break
    return out


def total_crossed(
    honest: Script,
    mutant: Script,
    tool: str,
    words: str,
    tools: list[dict[str, Any]],
    refused: frozenset[tuple[int, int]] = frozenset(),
) -> str | None:
    """The stated total the mutant's taken calls of `tool` cross in sum while honest play's
    keep it, as a reason; None where none is."""
    for key, n, clause in _capped(honest, tool, words, tools):
        moved = _sum(mutant, tool, key, refused)
        if moved > n:
            return (
                f"the task's words cap the total ({clause!r}); honest play moved "
                f"{_sum(honest, tool, key, frozenset()):g}, this {moved:g} in all"
            )
    return None


def stated_total(
    p: Played, words: str, refused: frozenset[tuple[int, int]]
) -> tuple[str, Callable[[Script], bool]] | None:
    """For a round trip that paid: the stated total it crossed, and the test a shrunk script
    must still pass (it crosses it too); None where it crossed none."""
    m = p.mutant
    if m.op != OP:
        return None
    honest, tool, tools = p.honest.control.script, m.site.split(".")[0], p.base.pools.tools
    why = total_crossed(honest, m.script, tool, words, tools, refused)
    if why is None:
        return None
    return why, lambda s: total_crossed(honest, s, tool, words, tools) is not None
