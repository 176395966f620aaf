"""Every call at the edge the words state for its thing: what an eager (or a lazy) policy does.

Where honest play made several calls of one tool, each naming a thing the prompt gives a line
of its own ("- washing_machine: 900 Wh, between 6:00 and 9:00"), and each sending a number
that line brackets (the hour 7), the policy that does everything as early as allowed sends
every call at the low end of the range its line states (6), and the one that leaves
everything to the last at its high end (9). Each call alone stays inside what its line allows; the
round as a whole is what a rule over the whole path (a battery never below its reserve at
any hour) may not survive. These mutants are judged by the bound they cross (`monitored`),
never by the world they leave: each value is one the words allow for its thing.
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, with_call
from proofgym_stack.validation.search.values import like_sent

OP = "edges"
#: a range a line states: its two ends, a time read by its hour
_RANGE = re.compile(
    r"(?<![\w.:])(\d+(?:\.\d+)?)(?::\d\d)?\s*(?:-|\u2013|to|and)\s*(\d+(?:\.\d+)?)(?::\d\d)?(?![\w.:])"
)
#: fewest calls of the tool: one call moved to its edge is the plain argument mutant's work
MIN_CALLS = 2


def _line_naming(value: str, lines: list[str]) -> str | None:
    """The one line of the prompt that names `value` as a word, or None (none, or several)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])")
    found = [line for line in lines if pattern.search(line)]
    return found[0] if len(found) == 1 else None


def _bracket(value: float, line: str) -> tuple[float, float] | None:
    """The range of `line` that holds `value` ("between 6:00 and 9:00", "from 2 to 5",
    "10-14": a time read by its first number), or None."""
    for match in _RANGE.finditer(line):
        lo, hi = float(match.group(1)), float(match.group(2))
        if lo <= value <= hi:
            return lo, hi
    return None


def edge_mutants(script: Script, prompt: str) -> list[Mutant]:
    """For each tool called at least `MIN_CALLS` times, each numeric argument of every call
    set to the low end, then the high end, of the range its thing's line states (see the
    module)."""
    lines = [line for line in prompt.splitlines() if line.strip()]
    by_tool: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for t, i, item in script_calls(script):
        by_tool.setdefault(str(item.get("name")), []).append((t, i, call_arguments(item)))
    out: list[Mutant] = []
    for tool, calls in by_tool.items():
        if len(calls) < MIN_CALLS:
            continue
        keys = set.intersection(*(set(args) for _, _, args in calls))
        for key in sorted(keys):
            edges: list[tuple[int, int, dict[str, Any], tuple[float, float]]] = []
            for t, i, args in calls:
                value = args[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    break
                names = [v for k, v in args.items() if k != key and isinstance(v, str) and v]
                line = next((ln for n in names if (ln := _line_naming(n, lines))), None)
                bracket = _bracket(float(value), line) if line else None
                if bracket is None:
                    break
                edges.append((t, i, args, bracket))
            else:
                for side, word in ((0, "low"), (1, "high")):
                    mutated = [list(turn) for turn in script]
                    moved = 0
                    for t, i, args, bracket in edges:
                        new = like_sent(bracket[side], args[key])
                        moved += new != args[key]
                        mutated = with_call(mutated, t, i, {**args, key: new})
                    if moved >= MIN_CALLS:
                        what = (
                            f"{tool}: every {key} at the {word} end of the range its thing's "
                            "line states"
                        )
                        out.append(Mutant(mutated, OP, f"{tool}.{key}", "prompt", what))
    return out
