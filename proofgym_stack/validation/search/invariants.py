"""Rules the words state about the numbers of the world, whatever call made them: "No
envelope may be left below zero", "A student may hold at most 2 hours of study rooms a day".

Such a rule is read off the world verify is handed, not off any one argument: a paid mutant
that leaves a number below zero where honest play's world holds it at zero or above broke the
first, whichever call moved it there (the whole bill paid from one envelope instead of
split); one that leaves a length in hours past the bound the words state broke the second (a
booking lengthened by a sibling tool that forgot the allowance).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.evidence import CONDITION
from proofgym_stack.validation.search.rules import UNITS, bounds, clauses
from proofgym_stack.validation.search.tolerance import Played

#: a clause that keeps numbers from going below zero: "below zero", "overdrawn", a verb that
#: makes a thing negative ("go negative", "be left negative"); not "negative reviews"
_BELOW_ZERO = re.compile(
    r"\b(?:below|under|less than)\s+(?:zero|0)\b|\boverdrawn?\b|"
    r"\b(?:go(?:es)?|going|be|become|turn|fall|drop|left|end up|is|are)\s+(?:\w+\s+)?negative\b|"
    r"\bhave an? negative\b|\binto the red\b",
    re.I,
)
#: the words that make such a clause a ban, not a description ("a negative balance means...")
_BAN = re.compile(
    r"\b(?:no|never|not|must|may not|cannot|can't|mustn't|don't|do not|nothing|none)\b", re.I
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_DECIMAL = re.compile(r"Decimal\('(-?\d+(?:\.\d+)?)'\)")
#: lengths of time, plural as a duration is written ("hours", not "day": a day is a date)
_DURATIONS = frozenset({"hours", "hrs", "minutes", "mins", "days", "nights"})
#: words after a length that make it a gap before something, not a length held
GAP = re.compile(r"\b(?:notice|in advance|before|ahead|after|prior|apart|between)\b", re.I)


def ban_on_negatives(words: str) -> str | None:
    """The clause of `words` that bans a number below zero ("No envelope may be left below
    zero"), or None."""
    for clause in clauses(words):
        if CONDITION.search(clause):  # "do not pay if the balance is negative" bans a payment
            continue
        if _BELOW_ZERO.search(clause) and _BAN.search(clause):
            return " ".join(clause.split())[:100]
    return None


def _number(value: str | None) -> float | None:
    """A world leaf's value (its `repr`) read as a number, or None for any other kind."""
    if value is None:
        return None
    if m := _DECIMAL.fullmatch(value):
        return float(m.group(1))
    return float(value) if _NUMBER.fullmatch(value) else None


def _names(path: str, p: Played) -> set[str]:
    """What a world path speaks of: its parts, and the argument names under which honest
    play or the mutant sent one of its parts (`envelope` for `.balances.Car`, sent as
    `envelope="Car"`)."""
    parts = {s.lower() for s in re.split(r"[.\[\]]", path) if len(s) >= 3}
    calls = [*script_calls(p.honest.control.script), *script_calls(p.mutant.script)]
    for _, _, item in calls:
        for key, value in call_arguments(item).items():
            if isinstance(value, str) and value.lower() in parts:
                parts.add(str(key).lower())
    return parts


def below_zero(p: Played, words: str) -> str | None:
    """Where the mutant's world holds a number below zero that honest play's world holds at
    zero or above, at the same path (a list's members are not read: a path there names no
    one thing), and a clause of the words bans numbers below zero and speaks of that path (a
    part of it, or the argument that named it): the rule broken, or None."""
    said = ban_on_negatives(words)
    if said is None:
        return None
    for path, mine, theirs in _numbers(p):
        if mine < 0 <= theirs and any(
            re.search(rf"\b{re.escape(n[:5])}", said, re.I) for n in _names(path, p)
        ):
            return f"{path} is {mine:g}, below zero (honest play: {theirs:g}), where {said!r}"
    return None


def _numbers(p: Played) -> list[tuple[str, float, float]]:
    """The numbers of the mutant's world beside honest play's at the same path: (path,
    mutant's, honest play's); a list's members (no path names one thing there) and the
    paths the author ignores left out."""
    if p.record is None:
        return []
    out = []
    for path, value in sorted(p.record.world.items()):
        if "[" in path or path in p.base.ignored:
            continue
        mine, theirs = _number(value), _number(p.honest.world.get(path))
        if mine is not None and theirs is not None:
            out.append((path, mine, theirs))
    return out


def past_a_bound_in_its_name(p: Played, words: str) -> str | None:
    """Where the mutant's world holds a length of time named by its path's last part
    (`.bookings.B1.hours`) past a bound the words state in that unit ("at most 2 hours of
    study rooms a day"; not a gap, "48 hours' notice") that honest play's number at the same
    path keeps: the rule broken, or None."""
    initial = p.base.initial or {}
    for path, mine, theirs in _numbers(p):
        name = path.rsplit(".", 1)[-1].lower()
        # a record honest play made (a booking's hours), not a total kept before the task
        if mine == theirs or name not in _DURATIONS or path in initial:
            continue
        for clause in clauses(words):
            if GAP.search(clause):
                continue
            for bound in bounds(clause):
                if bound.kind != f"unit:{UNITS[name]}":
                    continue
                if bound.direction == "upper" and theirs <= bound.value < mine:
                    return f"{path} is {mine:g}, past {bound.phrase!r} (honest: {theirs:g})"
                if bound.direction == "lower" and mine < bound.value <= theirs:
                    return f"{path} is {mine:g}, short of {bound.phrase!r} (honest: {theirs:g})"
    return None
