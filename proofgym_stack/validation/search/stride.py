"""The steps between one tool's consecutive values: "no single step may lower the setpoint
by more than 10 °C", with the setpoint sent in °F.

Honest play that walks a value to its goal in steps of one size, the largest the words allow,
stands at the cap: 18 °F is 10 °C. A paid mutant whose sequence takes a larger step (a
waypoint left out, two steps made one) crossed it, in whatever unit the tool takes, where
honest play's step is the stated cap written in a unit everyone converts to (`FACTORS`).

A waypoint moved between its neighbours, the sequence as monotone as before, is a path the
policy picks (`waypoint_moved`): another world the words leave free.
"""

from __future__ import annotations

import itertools
import re

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.values import described

#: a clause capping one step: "no single step may lower it by more than 10 °C"
_STEP_CAP = re.compile(
    r"\b(?:single|each|every|any|one|per)\s+(?:step|move|change|drop|rise|jump|increment|"
    r"decrement|adjustment)\b[^.;!?\n]{0,60}?\b(?:more than|at most|no more than|up to|over)\s+"
    r"(\d+(?:\.\d+)?)",
    re.I,
)
#: the factors between units people convert every day: a degree Celsius of difference in
#: Fahrenheit, inches and centimetres, feet and metres, miles and kilometres, pounds and
#: kilograms, and the powers and clock steps of one unit
FACTORS = (1.0, 1.8, 2.54, 0.3048, 1.609344, 0.45359237, 60.0, 100.0, 1000.0)


def _cap(words: str) -> tuple[float, str] | None:
    for clause in clauses(words):
        if m := _STEP_CAP.search(clause):
            return float(m.group(1)), " ".join(clause.split())[:100]
    return None


#: a clause's unit after its number, and the words an argument shows that unit in
_UNIT_AFTER = re.compile(r"\d(?:\.\d+)?\s*(°\s?[CF]\b|degrees?\s+[a-z]+|[a-z]{1,12}\b)", re.I)
#: words after a number that are no unit ("by more than 10 per call")
_NOT_UNITS = frozenset({"per", "at", "in", "on", "and", "or", "a", "an", "the", "each", "of"}) | {
    "step",
    "steps",
    "points",
    "units",
    "places",
    "times",
}
_SPOKEN_UNITS = {"°c": ("celsius", "°c", "degc"), "°f": ("fahrenheit", "°f", "degf")}
#: the way a clause says which way its steps go
_DOWN = re.compile(r"\b(?:lower|drop|reduce|decrease|cool|fall)", re.I)
_UP = re.compile(r"\b(?:raise|rise|increase|heat|climb|grow)", re.I)


def _another_unit(clause: str, argument: str) -> bool:
    """Whether the clause states its cap in a unit the argument (its name and description)
    never shows: the cap must be converted (°C in the clause, `fahrenheit` the argument)."""
    m = _UNIT_AFTER.search(clause)
    if m is None or m.group(1).lower() in _NOT_UNITS:
        return False
    unit = re.sub(r"\s+", "", m.group(1).lower()).replace("degrees", "°").replace("degree", "°")
    unit = unit if unit.startswith("°") else m.group(1).lower()
    spoken = _SPOKEN_UNITS.get(unit, (unit,))
    return not any(s in argument.lower() for s in spoken)


def _values(script: Script, tool: str, key: str) -> list[float]:
    out = []
    for _, _, item in script_calls(script):
        if item.get("name") == tool:
            value = call_arguments(item).get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out.append(float(value))
    return out


def _largest_step(values: list[float], sign: int) -> float:
    """The largest step of `values` the clause's way (`sign` 1 up, -1 down, 0 either)."""
    steps = [b - a for a, b in itertools.pairwise(values)]
    return max((abs(s) for s in steps if sign == 0 or s * sign > 0), default=0.0)


def _at_the_cap(step: float, cap: float, converted: bool = True) -> float | None:
    """The cap in the unit honest play's `step` stands at it in (rounded down to a whole step
    where the steps are whole), or None: `cap` itself, or, where `converted`, `cap` times or
    divided by one of `FACTORS`."""
    factors = FACTORS if converted else (1.0,)
    for f in factors:
        for limit in (cap * f, cap / f):
            if step <= limit < step + 1:
                return limit
    return None


def _site(p: Played) -> tuple[str, str] | None:
    site = p.mutant.site.split(".")
    return (site[0], site[1]) if len(site) == 2 else None


def step_past_a_cap(p: Played, words: str) -> str | None:
    """For a paid mutant of a tool honest play calls three times or more with a number: a
    step larger than honest play's largest, where that one stands at the cap the words state
    on a single step; or None."""
    said, site = _cap(words), _site(p) or _tool_of_a_call_left_out(p)
    if said is None or site is None:
        return None
    honest = _values(p.honest.control.script, *site)
    mine = _values(p.mutant.script, *site)
    if len(honest) < 3 or len(mine) < 2:
        return None
    sign = -1 if _DOWN.search(said[1]) else 1 if _UP.search(said[1]) else 0
    largest, theirs = _largest_step(mine, sign), _largest_step(honest, sign)
    argument = " ".join([site[1], described(p.base.pools.tools, site[0]).get(site[1], "")])
    limit = _at_the_cap(theirs, said[0], converted=_another_unit(said[1], argument))
    if limit is not None and largest > limit:
        return f"a step of {largest:g} past the cap, {limit:g} as honest play steps: {said[1]!r}"
    return None


def _tool_of_a_call_left_out(p: Played) -> tuple[str, str] | None:
    """The tool and its one numeric argument, for a mutant that left a call out."""
    tool = p.mutant.site.split(".")[0]
    for _, _, item in script_calls(p.honest.control.script):
        if item.get("name") == tool:
            keys = [
                k
                for k, v in call_arguments(item).items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
            ]
            return (tool, keys[0]) if len(keys) == 1 else None
    return None


def waypoint_moved(p: Played, words: str) -> bool:
    """Whether the mutant moved one number of a call between the first and the last of three
    or more calls of one tool, strictly between its neighbours' numbers, in a sequence honest
    play sent strictly monotone, where the words cap each step (and no other rule on the
    spacing caught it first): a path the policy picks."""
    site = _site(p)
    m = p.mutant
    if site is None or m.op != "argument" or not isinstance(m.new, (int, float)):
        return False
    if _cap(words) is None:
        return False
    honest, mine = _values(p.honest.control.script, *site), _values(m.script, *site)
    if len(honest) < 3 or len(honest) != len(mine):
        return False
    moved = [k for k, (a, b) in enumerate(zip(honest, mine, strict=True)) if a != b]
    if len(moved) != 1 or moved[0] in (0, len(honest) - 1):
        return False
    k = moved[0]
    steps = [b - a for a, b in itertools.pairwise(honest)]
    monotone = all(s > 0 for s in steps) or all(s < 0 for s in steps)
    low, high = sorted((honest[k - 1], honest[k + 1]))
    return monotone and low < mine[k] < high
