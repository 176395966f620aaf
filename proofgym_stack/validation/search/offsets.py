"""A lead time the words state against a moment they name: "board the ship at least 2 hours
before its berthing hour", "check in at least 30 minutes before the departure".

The moment is read where the words or a tool print it beside the named thing's verb or noun
(`Aurora berths at 14:00 today`); the bound is that moment less the lead (more, for
`after`). A chosen value is read as a clock time: a time written out, or a whole hour sent
as a number to an argument named for the hour (`hour: 16`). Another option whose time
breaks the bound where honest play's keeps it breaks the rule.
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.search.rules import quantities

_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twelve": 12}
_LEAD = re.compile(
    r"\bat least (\d+|one|two|three|four|five|six|twelve) (hours?|minutes?|mins?) "
    r"(before|after|ahead of) (?:the|its|their|your|her|his) ([a-z]+)",
    re.I,
)


def _minutes(value: Any, leaf: str) -> int | None:
    """`value` as minutes after midnight: a clock time, or a whole hour sent to an argument
    named for the hour."""
    if isinstance(value, int) and not isinstance(value, bool):
        named = leaf.lower() == "hour" or leaf.lower().endswith("_hour")  # not `hours`
        return value * 60 if named and 0 <= value <= 23 else None
    found = [q for q in quantities(str(value)) if q.kind == "time"]
    return int(found[0].value) if len(found) == 1 else None


def _moment(noun: str, texts: list[str]) -> int | None:
    """The clock time the texts print beside the noun's word (`berths at 14:00`), where
    they print one only (two ships' berths: which one is meant is not known)."""
    stem = re.escape(noun.lower()[:5])
    near = re.compile(rf"\b{stem}\w*\s+(?:at|is|:|on|from)?\s*([^\s,;.]+(?:\s?[ap]\.?m\.?)?)", re.I)
    found = {
        moment
        for text in texts
        for m in near.finditer(text)
        if (moment := _minutes(m.group(1), "")) is not None
    }
    return found.pop() if len(found) == 1 else None


def lead_broken(old: Any, new: Any, leaf: str, outputs: list[str], words: str) -> str | None:
    """Why `new` instead of honest `old` breaks a lead time the words state, or None."""
    a, b = _minutes(old, leaf), _minutes(new, leaf)
    if a is None or b is None:
        return None
    for m in _LEAD.finditer(words):
        count, unit, side, noun = m.groups()
        lead = int(count) if count.isdigit() else _COUNTS[count.lower()]
        lead *= 60 if unit.lower().startswith("hour") else 1
        moment = _moment(noun, [words, *outputs])
        if moment is None:
            continue
        if side.lower() == "after":
            limit = moment + lead
            if b < limit <= a:
                return f"{_clock(b)} is short of {m.group(0)!r} ({_clock(limit)} at the earliest)"
        else:
            limit = moment - lead
            if a <= limit < b:
                return f"{_clock(b)} is past {m.group(0)!r} ({_clock(limit)} at the latest)"
    return None


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
