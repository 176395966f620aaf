"""A bound the words state, seen broken by a look: the verifier never reads the path.

Where the task's words keep a quantity on one side of a number at every moment ("the battery
must never drop below 900 Wh", "the tank must never exceed 5000 litres"), and a look (a tool
that only shows, `@tool(observes=True)`, taking no argument) prints that quantity, a paying
mutant is played again with the looks made after its last call. A sentence that holds the
bound only at some moments or on a condition ("from 17:00", "by 18:00", "if") states none.
A printed series (the numbers at one path of the look's JSON, an hour's key or a list's
position read as any), tied to the bound's quantity by the words (`named_with`: "the
battery level hour by hour" for `level_by_hour.*`), that

- the actions move (the look on the untouched world prints it otherwise),
- honest play's look keeps on the stated side of the bound, every one of its numbers, and
- the mutant's look shows past it,

is the stated bound broken by a trajectory that earned the full reward: the verifier checks
the end of the path, or nothing. A policy sees it as plainly: the planner's own look shows
the battery at 700 Wh under a 900 Wh reserve, and the reward is 1.0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import RunResult
from proofgym_stack.validation.scripts import Script, named_tool_outputs
from proofgym_stack.validation.search.edges import OP as EDGES
from proofgym_stack.validation.search.mutants import before_final_message
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played

Numbers = dict[tuple[str, ...], list[float]]
#: paying mutants played again with the looks, per search (the eager rounds first)
MAX_CHECKED = 8
_NUM = r"(-?\d[\d,]*(?:\.\d+)?)"
_NEVER = r"(?:\bnever|\bnot|n't|\bno)\s+(?:\w+\s+){0,2}?"
#: a bound that holds only at some moments or on a condition ("from 17:00 on", "by 18:00",
#: "if it rains"): no invariant of the whole path
_QUALIFIED = re.compile(
    r"\b(?:from|after|before|by \d+|by the|during|between|until|till|if|when|unless|except|"
    r"at the end|final|finally)\b"
)
#: words of a bound's sentence that name no quantity
_NOT_SUBJECTS = frozenset(
    {
        "never",
        "below",
        "above",
        "must",
        "drop",
        "fall",
        "exceed",
        "under",
        "more",
        "than",
        "less",
        "stay",
        "remain",
        "kept",
        "keep",
        "starts",
        "start",
        "with",
        "that",
        "this",
        "every",
        "each",
        "should",
        "cannot",
        "over",
        "rise",
        "sink",
    }
)
#: (pattern, the side the words keep: "min" keeps values at or above the number)
_BOUNDS = (
    (
        re.compile(_NEVER + r"(?:fall|drop|go|dip|sink)?\s*(?:below|under|less than)\s+" + _NUM),
        "min",
    ),
    (
        re.compile(
            _NEVER + r"(?:exceed|go above|rise above|go over|more than|above|over)\s+" + _NUM
        ),
        "max",
    ),
    (re.compile(r"(?:stay|remain|be kept|kept)\s+(?:at or\s+)?above\s+" + _NUM), "min"),
    (re.compile(r"(?:stay|remain|be kept|kept)\s+(?:at or\s+)?below\s+" + _NUM), "max"),
)


@dataclass(frozen=True)
class Bound:
    """A number the words keep a quantity on one side of: `min` (never below) or `max`."""

    side: str
    number: float
    clause: str

    def kept(self, value: float) -> bool:
        """Whether `value` is on the side the words keep."""
        return value >= self.number if self.side == "min" else value <= self.number


def stated_bounds(words: str) -> list[Bound]:
    """The bounds the words state with "never below", "must not exceed", "stay above"..."""
    out: list[Bound] = []
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", words):
        low = sentence.lower()
        if _QUALIFIED.search(low):
            continue
        for pattern, side in _BOUNDS:
            for match in pattern.finditer(low):
                number = float(match.group(1).replace(",", ""))
                out.append(Bound(side, number, sentence.strip()[:160]))
    return out


def _numbers(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], float]]:
    """(path, number) for every number of a JSON value; keys that are numbers (an hour) and
    list positions read as `*`: one quantity along its path."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [(path, float(value))]
    out: list[tuple[tuple[str, ...], float]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            key = "*" if re.fullmatch(r"-?\d+(?:\.\d+)?", str(k)) else str(k)
            out += _numbers(v, (*path, key))
    elif isinstance(value, list):
        for v in value:
            out += _numbers(v, (*path, "*"))
    return out


def printed(result: RunResult, looks: frozenset[str]) -> Numbers:
    """The numbers the looks of a rollout printed, by (tool, path...): the last look of each
    tool only (the world as the trajectory left it)."""
    last: dict[str, str] = {}
    for name, output in named_tool_outputs(result):
        if name in looks:
            last[name] = output
    out: Numbers = {}
    for name, output in last.items():
        try:  # bounded: a look may print JSON nested 10,000 deep
            found = _numbers(loads_limited(output))
        except (ValueError, RecursionError):
            continue
        for path, number in found:
            if math.isfinite(number):
                out.setdefault((name, *path), []).append(number)
    return out


def with_looks(script: Script, looks: list[str]) -> Script:
    """`script` with a call of each look (no arguments) made before its final message."""
    calls = [{"type": "function_call", "name": n, "arguments": "{}"} for n in looks]
    return before_final_message(script, calls)


def broken(
    bound: Bound,
    untouched: Numbers,
    honest: Numbers,
    mutant: Numbers,
) -> tuple[tuple[str, ...], float] | None:
    """A path the actions move, honest play keeps on the bound's side and the mutant's look
    shows past it: (path, the value past it), or None."""
    for path, values in honest.items():
        seen = mutant.get(path, [])
        if not values or not seen or untouched.get(path) == values:
            continue
        if all(bound.kept(v) for v in values) and (past := [v for v in seen if not bound.kept(v)]):
            return path, past[0]
    return None


def named_with(bound: Bound, path: tuple[str, ...], texts: str) -> bool:
    """Whether the words tie the series at `path` to the bound's quantity: a word of its keys
    is a word of the bound's sentence ("tank" in `tank_litres.*`), or stands beside one in the
    words or a look's description ("the battery level hour by hour" for `level_by_hour.*`
    under "the battery must never drop below 900 Wh"). A number the same look prints beside
    it (the solar spilled) is another quantity."""
    subjects = {w for w in re.findall(r"[a-z]{4,}", bound.clause.lower()) if w not in _NOT_SUBJECTS}
    keys = {w for part in path[1:] for w in re.findall(r"[a-z]{3,}", part.lower())}
    if subjects & keys:
        return True
    low = texts.lower()
    for subject in subjects:
        for key in keys:
            near = rf"\b{subject}\W+(?:\w+\W+)?{key}\b|\b{key}\W+(?:of\W+)?(?:the\W+)?{subject}\b"
            if re.search(near, low):
                return True
    return False


def still_broken(bound: Bound, path: tuple[str, ...], looks: frozenset[str]) -> Any:
    """For the shrinker: whether a rollout's looks still show `path` past `bound`."""

    def check(result: RunResult) -> bool:
        return any(not bound.kept(v) for v in printed(result, looks).get(path, []))

    return check


def _described(env: Any, task: Any, looks: list[str]) -> str:
    """What the tool schemas (Responses function tools) say of the looks."""
    return "\n".join(
        str(schema.get("description") or "")
        for schema in env.task_tool_schemas(task)
        if schema.get("name") in looks
    )


def bare_looks(env: Any, task: Any) -> list[str]:
    """The task's looks that take no required argument."""
    looks = env.observing_tools(task)
    return sorted(
        str(schema["name"])
        for schema in env.task_tool_schemas(task)
        if schema.get("name") in looks and not (schema.get("parameters") or {}).get("required")
    )


async def seen_past_bound(
    played: list[Played], play: Play, passes: Passes, env: Any, words_of: Any
) -> list[tuple[Played, str, Any]]:
    """Each paying mutant (the eager rounds of `edges` first, at most `MAX_CHECKED`) whose
    looks show a stated bound broken that honest play's keep (see the module): the mutant
    with the looks made, why, and what the shrinker keeps true of a rollout."""
    out: list[tuple[Played, str, Any]] = []
    known: dict[str, tuple[list[Bound], list[str], Numbers, Numbers] | None] = {}
    paying = [p for p in played if passes(p.result) and not p.result.mask_sample]
    paying.sort(key=lambda p: p.mutant.op != EDGES)
    for p in paying[:MAX_CHECKED]:
        task = p.base.task
        key = f"{task.task_id}:{p.honest.control.name}"
        if key not in known:
            known[key] = await _honest_looks(p, play, env, words_of(task))
        if (seen := known[key]) is None:
            continue
        bounds, looks, untouched, honest = seen
        script = with_looks(p.mutant.script, looks)
        result, record = await play(task, script, "search: the looks after it")
        if not passes(result):
            continue
        numbers = printed(result, frozenset(looks))
        texts = words_of(task) + "\n" + _described(env, task, looks)
        for bound in bounds:
            series = {
                path: values
                for path, values in honest.items()
                if "*" in path and named_with(bound, path, texts)
            }
            if hit := broken(bound, untouched, series, numbers):
                path, value = hit
                where = ".".join(path[1:]) or "its number"
                kept = "above" if bound.side == "min" else "below"
                why = (
                    f"full reward: {path[0]} shows {where} at {value:g}, past the "
                    f"{bound.number:g} the words keep it {kept} ({bound.clause!r}), where honest "
                    "play's look keeps it: the verifier does not read the path"
                )
                mutant = replace(p.mutant, script=script)
                out.append(
                    (
                        Played(mutant, p.honest, p.base, result, record),
                        why,
                        still_broken(bound, path, frozenset(looks)),
                    )
                )
                break
    return out


async def _honest_looks(
    p: Played, play: Play, env: Any, words: str
) -> tuple[list[Bound], list[str], Numbers, Numbers] | None:
    """The task's bounds and bare looks, and what the looks print on the untouched world and
    after honest play (None where the words state no bound or no bare look exists)."""
    bounds = stated_bounds(words)
    looks = bare_looks(env, p.base.task) if bounds else []
    if not looks:
        return None
    plain = [[{"type": "message", "content": "Here is what I did."}]]
    untouched, _ = await play(p.base.task, with_looks(plain, looks), "search: looks alone")
    honest, _ = await play(
        p.base.task, with_looks(p.honest.control.script, looks), "search: looks, honest"
    )
    return bounds, looks, printed(untouched, frozenset(looks)), printed(honest, frozenset(looks))
