"""A rule the task's words state on neighbours: "nobody conducts two Sundays running", "no
driver works consecutive nights", "the same team never plays back to back".

A tool that fills slots one call at a time (`assign(date, ringer)`) leaves a rota: each slot
(the argument whose values differ on every honest call) holds the last value sent for it.
Where the words rule out one value on two neighbouring slots, honest play's rota keeps the
rule and a mutant's that pays breaks it, the verifier does not check every neighbouring pair
(one compared in two, the first slot only, the pairs of one week). Neighbours are the slots
in their own order, where the slots are days, months, numbers, ISO dates or clock times
standing evenly spaced (a slot honest play left alone would make two others look like
neighbours); slots with no order of their own have no neighbours. A clause about a run's
length ("more than three nights in a row") is no rule on a pair.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import Script, call_arguments, refused_calls, script_calls
from proofgym_stack.validation.search.calendar import position

if TYPE_CHECKING:  # the search's records
    from proofgym_stack.validation.search.tolerance import Played

#: a clause that rules something out ...
_NEGATION = re.compile(r"\b(?:no|nobody|never|not|cannot|mustn't|can't|don't|doesn't)\b", re.I)
#: ... on two neighbours of a sequence
_RUNNING = re.compile(
    r"\b(?:running|consecutive|in a row|back[- ]to[- ]back|successive|in succession|"
    r"one after (?:the )?other)\b",
    re.I,
)
#: a cap on a run's length, which a pair of neighbours does not break
_COUNTED = re.compile(r"\b(?:more than|at most|up to|over|exceed\w*|longer than)\b", re.I)
#: slot values that sort in their own order as text (ISO dates, clock times of one width)
_SORTS_AS_TEXT = re.compile(r"^(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?|\d{2}:\d{2})$")


def neighbour_rule(words: str) -> str | None:
    """The clause of the words that rules a value out of two neighbouring slots, or None."""
    for clause in re.findall(r"[^.;!?\n]+", words):
        if _COUNTED.search(clause):
            continue  # "more than three nights in a row": a run's length, not neighbours
        if _NEGATION.search(clause) and _RUNNING.search(clause):
            return str(clause).strip()
    return None


def _rota(
    script: Script, tool: str, key: str, slot: str, skip: frozenset[tuple[int, int]]
) -> dict[Any, Any]:
    """slot value -> the last `key` value the script's taken calls of `tool` sent for it, in
    the order the slots were first filled."""
    out: dict[Any, Any] = {}
    for t, i, item in script_calls(script):
        if item.get("name") != tool or (t, i) in skip:
            continue
        args = call_arguments(item)
        if slot in args and key in args and _hashable(args[slot]) and _hashable(args[key]):
            out[args[slot]] = args[key]
    return out


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _slot_key(script: Script, tool: str, key: str) -> str | None:
    """The argument of `tool`'s honest calls (three or more) whose values differ on every
    call: the slot each call fills."""
    calls = [
        call_arguments(item) for _, _, item in script_calls(script) if item.get("name") == tool
    ]
    if len(calls) < 3:
        return None
    for name in calls[0]:
        if name == key:
            continue
        values = [c.get(name) for c in calls]
        if all(_hashable(v) for v in values) and len(set(values)) == len(values):
            return name
    return None


def _place(slot: Any) -> float | None:
    """Where a slot stands on its own scale (a weekday's or month's place, a number, an ISO
    date's day, a clock time's minute), or None."""
    if (at := position(slot)) is not None:
        return float(at[1])
    if isinstance(slot, (int, float)) and not isinstance(slot, bool):
        return float(slot)
    text = str(slot).strip()
    if not _SORTS_AS_TEXT.match(text):
        return None
    if ":" in text and "-" not in text:
        hours, minutes = text.split(":")
        return float(int(hours) * 60 + int(minutes))
    try:
        return float(dt.datetime.fromisoformat(text).timestamp() / 60)
    except ValueError:
        return None


def _in_order(slots: list[Any]) -> list[Any] | None:
    """The slots in their own order, where they have one and stand evenly spaced on it
    (every Sunday of a run; a slot honest play left out would make two others look like
    neighbours); None where they do not."""
    places = [_place(s) for s in slots]
    if len(slots) < 3 or any(p is None for p in places):
        return None
    ranked = sorted(zip(places, slots, strict=True), key=lambda x: x[0] or 0.0)
    steps = {round(float(b[0] or 0) - float(a[0] or 0), 6) for a, b in itertools.pairwise(ranked)}
    return [s for _, s in ranked] if len(steps) == 1 and 0 not in steps else None


def _repeat(rota: dict[Any, Any], order: list[Any]) -> tuple[Any, Any, Any] | None:
    """The first two neighbouring slots of `order` that hold one value: (a, b, value)."""
    filled = [s for s in order if s in rota]
    for a, b in itertools.pairwise(filled):
        if rota[a] == rota[b]:
            return a, b, rota[a]
    return None


def neighbours_repeat(p: Played, words: str) -> str | None:
    """For a value changed in a call that fills a slot: the words' rule against one value on
    two neighbouring slots, which honest play's rota keeps and the mutant's (paid) breaks, as
    a reason; None where the words state no such rule or the rotas do not differ so."""
    m = p.mutant
    if m.call_at is None or len(m.leaf) != 1 or not isinstance(m.leaf[0], str):
        return None
    clause = neighbour_rule(words)
    if clause is None:
        return None
    tool, key = m.site.split(".")[0], m.leaf[0]
    slot = _slot_key(p.honest.control.script, tool, key)
    if slot is None:
        return None
    honest = _rota(p.honest.control.script, tool, key, slot, frozenset())
    mine = _rota(m.script, tool, key, slot, frozenset(refused_calls(m.script, p.result)))
    order = _in_order(list(honest))
    if order is None or _repeat(honest, order) is not None:
        return None
    if (pair := _repeat(mine, order)) is None:
        return None
    a, b, value = pair
    return f"{value!r} on both {a!r} and {b!r}, neighbours, which the words rule out ({clause!r})"
