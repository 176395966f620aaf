"""Another option chosen where the task's words asked for the honest one: they name it and
never the other (`named_instead`), or they describe it by a value or a phrase of its record
that the other's record holds otherwise (`described_instead`)."""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.search.options import names_its_record, record_of
from proofgym_stack.validation.search.rules import (
    _aligned,
    _pairs,
    _typed,
    names,
    quantities,
    range_ends,
)

_BOUNDING = re.compile(
    r"\b(?:by|before|until|till|after|from|no later than|latest|earliest|within)\s*$", re.I
)


def named_instead(old: Any, new: Any, words: str) -> str | None:
    """Why choosing `new` instead of honest `old` is not what was asked: the task's words
    name `old` ("flagged 2 units: V46-1516, V46-8369") and never `new`."""
    if not isinstance(old, str) or not isinstance(new, str) or not old.strip():
        return None
    if names(words, old) and not names(words, new):
        return f"the task names {old!r}, and never {new!r}"
    return None


def described_instead(old: Any, new: Any, shown: list[str], words: str) -> str | None:
    """Why choosing `new` instead of honest `old` is not what was asked: the task's words
    state a typed value of `old`'s record ("the 7:30 pm sailing": `S4 | departs 07:30 PM`)
    that `new`'s record, a row of the same listing, holds otherwise (`07:30 AM`), or a word
    of `old`'s record that `new`'s lacks ("4.7 megohm": `R-4.7m | 4.7 milliohm shunt`)."""
    mine, theirs = record_of(old, shown), record_of(new, shown)
    if mine is None or theirs is None or mine == theirs:
        return None
    if isinstance(new, str) and new.strip() and names(words, new):
        return None  # the words name the other option too ("crews: crew_north, crew_east")
    if not names_its_record(old, mine) or not names_its_record(new, theirs):
        return None  # a count the two records hold, not the option chosen
    # a moment the words bound ("by 7 June", "after 10:00") is a limit, not the option's name;
    # so is either end of a range they state ("the window is 00:00-04:00")
    stated = quantities(words)
    # a range names an option whose record prints it ("the 09:00-10:00 slot"): only where
    # the values chosen are the typed values themselves is either end a limit
    ends = range_ends(words, stated) if _typed(str(old)) else set()
    asked = [
        q
        for q in stated
        if not _BOUNDING.search(words[max(0, q.start - 16) : q.start]) and q.start not in ends
    ]
    a, b = quantities(mine), quantities(theirs)
    # a time of day names one option (a size may be met by more than one, and a date is more
    # often a deadline or the event's own than the option's name)
    for kind in sorted({q.kind for q in a} & {"time"}):
        for x, y in _aligned(a, b, kind):
            if x.value != y.value and any(q.kind == kind and q.value == x.value for q in asked):
                return f"the task asks for {x.text!r} ({old!r}'s), and {new!r} has {y.text!r}"
    # a phrase the task describes the thing by ("4.7 megohm") that the other record writes
    # with another word after the same first one ("4.7 milliohm")
    asked_pairs, mine_pairs, theirs_pairs = (_pairs(t) for t in (words, mine, theirs))
    for first, second in sorted(asked_pairs & mine_pairs - theirs_pairs):
        other = sorted((b for a, b in theirs_pairs if a == first and b != second), key=len)
        if other:
            said, has = f"{first} {second}", f"{first} {other[-1]}"
            return f"the task asks for {said!r} ({old!r}'s record); {new!r}'s has {has!r}"
    return None
