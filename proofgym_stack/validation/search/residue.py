"""A reversal that leaves something behind: the action undone, one of its effects kept, that
effect gathered to the number the words trade it at, then spent.

A tool honest play never called that takes back what honest play's action did (a refund of
the sale, a cancel of the booking: the `follow_on` move, on the id the action printed) should
bring the world back where the action found it. Where it brings back some of what the action
changed (the takings) and keeps another number (the card's stamp), that number can be
gathered: the action and its reversal, made again and again, cost nothing. Where the words
state a count of that thing ("10 stamps buy one free wash"), the pair is made until the world
holds it, then each other tool honest play never called is made, one at a time, with honest
play's values (`redeem(wash="deluxe")`) in place of honest play's action. Full reward there,
with an effect of honest play's action missing from the world (no money taken), where one
pair alone and the same spending fails, is reward the policy did not earn; on a sound
environment the reversal gives everything back and nothing gathers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, _item, final_message
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.unused import _filling
from proofgym_stack.validation.search.values import tool_properties
from proofgym_stack.validation.search.world import World, lost

#: the most action-and-reversal pairs made before the gathered number is spent
MAX_CYCLES = 20
#: reversals tried per search
MAX_REVERSALS = 2

WHY = (
    "full reward after an action and its reversal were made again and again (the reversal "
    "leaves {kept} behind) and what gathered was spent, with {missing} as before any action: "
    "a reversal that undoes only some of what its action did"
)


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def kept_by_reversal(initial: World, honest: World, undone: World) -> tuple[set[str], set[str]]:
    """(what the reversal took back, the numbers it kept): among the paths that existed
    before any action and honest play's action changed (a count of records left aside: a
    refunded sale stays on the books)."""
    moved = {p for p, v in initial.items() if honest.get(p) != v and not p.endswith(".#")}
    back = {p for p in moved if undone.get(p) == initial[p]}
    kept = {
        p
        for p in moved - back
        if undone.get(p) == honest.get(p)
        and None not in (_number(initial[p]), _number(honest.get(p)))
    }
    return back, kept


#: counts written as words
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
_WORD_COUNTS = {w: n for n, w in enumerate(_NUMBER_WORDS)}


def stated_counts(path: str, words: str) -> list[float]:
    """The counts the words state of the thing a path names (`10` for `.stamps` in "10
    stamps buy one free wash", "ten loyalty stamps"), in order."""
    last = re.split(r"[.\[\]]", path.rstrip("."))[-1].lower()
    noun = last[:-1] if last.endswith("s") and not last.endswith("ss") else last
    if len(noun) < 3:
        return []
    number = rf"\d{{1,4}}|{'|'.join(_WORD_COUNTS)}"
    found = re.finditer(rf"\b({number})\s+(?:[a-z-]+\s+)?{re.escape(noun)}(?:es|s)?\b", words, re.I)
    return [float(_WORD_COUNTS.get(m.group(1).lower(), m.group(1))) for m in found]


def _next_ids(first: str, n: int) -> list[str] | None:
    """`first` and the ids after it, counted on its last digits (`S1`, `S2`, ...)."""
    found = re.search(r"(\d+)$", first)
    if found is None:
        return None
    head, k, width = first[: found.start()], int(found.group(1)), len(found.group(1))
    return [f"{head}{k + j:0{width}d}" for j in range(n)]


@dataclass(frozen=True)
class Gathered:
    """A partial reversal's residue gathered and spent: the script, the same with one pair
    only (the control: it must fail, or the gathering is not what paid), what the reversal
    took back and the number it kept."""

    script: Script
    one_pair: Script
    back: set[str]
    kept: set[str]


def gathered(p: Played, words: str, initial: World) -> list[Gathered]:
    """For a paid-or-not `follow_on` reversal `p` (honest play's action, then the tool that
    takes it back): the script that makes the pair until the kept number reaches the count
    the words state, then spends it with each other tool honest play never called; with
    what the reversal took back and what it kept: one per spending tool; none where it is no
    partial reversal."""
    m = p.mutant
    if m.op != "follow_on" or p.record is None or not initial:
        return []
    back, kept = kept_by_reversal(initial, p.honest.world, p.record.world)
    if not back or not kept:
        return []
    honest = p.honest.control.script
    calls = script_calls(honest)
    extra = [item for _, _, item in script_calls(m.script)][len(calls) :]
    if len(calls) != 1 or len(extra) != 1:
        return []  # one action and its reversal: what a cycle is made of
    action, reversal = calls[0][2], extra[0]
    ids = [v for v in call_arguments(reversal).values() if isinstance(v, str)]
    for path in sorted(kept):
        start, step = _number(initial.get(path)), _number(p.honest.world.get(path))
        if start is None or step is None or step == start:
            continue
        # the nearest count past honest play's, the way one action moves it (10 stamps, not
        # the 8 the card holds)
        ahead = [n for n in stated_counts(path, words) if (n - step) * (step - start) > 0]
        if not ahead or len(ids) != 1:
            continue
        cycles = math.ceil((min(ahead, key=lambda n: abs(n - step)) - start) / (step - start))
        numbered = _next_ids(ids[0], cycles) if 1 <= cycles <= MAX_CYCLES else None
        at = final_message(honest)
        if numbered is None or at is None:
            continue
        key = next(k for k, v in call_arguments(reversal).items() if v == ids[0])
        turns: Script = []
        for sale in numbered:
            undo = {**call_arguments(reversal), key: sale}
            turns += [[action], [_item(str(reversal.get("name")), undo)]]
        reply = [honest[at[0]][at[1]]]
        plans = [
            Gathered([*turns, [spend], reply], [*turns[:2], [spend], reply], back, {path})
            for spend in _spenders(p, {str(action.get("name")), str(reversal.get("name"))})
        ]
        if plans:
            return plans
    return []


def _spenders(p: Played, used: set[str]) -> list[dict[str, Any]]:
    """A call of each tool neither honest play nor the reversal made, filled from honest
    play's values (`redeem(wash="deluxe")`)."""
    tools = p.base.pools.tools
    by_name: dict[str, Any] = {}
    for _, _, item in script_calls(p.honest.control.script):
        by_name.update(call_arguments(item))
    out = []
    for tool in tools:
        name = str(tool.get("name")) if isinstance(tool, dict) else ""
        props = tool_properties(tools, name)
        if not name or name in used or not props:
            continue
        filled = _filling(props, by_name, None)
        if filled is not None:
            out.append(_item(name, filled))
    return out


async def residue(played: list[Played], play: Play, passes: Passes) -> list[tuple[Played, str]]:
    """Each partial reversal whose gathered residue, spent, pays full reward with an effect
    of honest play's action missing (at most `MAX_REVERSALS` tried), with the reason."""
    out: list[tuple[Played, str]] = []
    tried = 0
    for p in played:
        if tried >= MAX_REVERSALS:
            break
        plans = gathered(p, p.base.words, p.base.initial)
        tried += bool(plans)
        for plan in plans:
            result, record = await play(p.base.task, plan.script, "search: a residue spent")
            if not passes(result) or record is None:
                continue
            missing = lost(record.world, p.honest.world, p.base.ignored) & plan.back
            if not missing:
                continue
            control, _ = await play(p.base.task, plan.one_pair, "search: one pair, then spent")
            if passes(control):
                continue  # spending pays without the gathering: not what this reports
            calls = sum(1 for turn in plan.script for i in turn if i.get("type") == "function_call")
            what = f"{p.mutant.what}, the pair made again and again, then spent ({calls} calls)"
            m = Mutant(plan.script, "residue", p.mutant.site, "residue", what)
            kept, gone = ", ".join(sorted(plan.kept)), ", ".join(sorted(missing))
            out.append(
                (Played(m, p.honest, p.base, result, record), WHY.format(kept=kept, missing=gone))
            )
            break
    return out
