"""The amount a named thing holds: the numbers a tool printed beside the record a call names.

Where a call sends a number together with the name of a thing (`move_notes(from_atm="STATION",
notes=900)`) and a tool printed that thing's line ("STATION: 1700"), the numbers on that line
are what a policy reading the listing tries for that number first: all of it, the whole
stock, the full balance, the line's own count. Honest play sent a part; the search tries the
whole (`held`), which is where a rule about what must be left behind is tested. A number is
tried only where the episode shows the part taken out of it (the thing printed again with the
whole less the part): a day sent beside a task's printed hours is no share of those hours.
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.search.values import NUMBER, without_thousands

#: numbers read off one line at most: a line with more is a table row of many columns
MAX_ON_LINE = 3
#: candidates per number sent
LIMIT = 4
#: a name shorter than this is no record's name (a unit, a flag)
MIN_NAME = 2


def held_numbers(value: Any, args: dict[str, Any], shown: list[str]) -> list[Any]:
    """For a number a call sent beside text arguments: the numbers printed on the lines that
    name one of those texts as a whole word (and no other of the call's texts), other than the
    number sent, typed like it. Empty for anything but a plain number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    names = [v.strip() for v in args.values() if isinstance(v, str) and len(v.strip()) >= MIN_NAME]
    if not names:
        return []
    found: list[Any] = []
    lines = [line for text in shown for line in text.splitlines()]
    for line in lines:
        named = [n for n in names if _names(line, n)]
        if len(named) != 1:
            continue  # a line naming two of the call's things is a move between them
        printed = _numbers_beside(line, named)
        if not printed or len(printed) > MAX_ON_LINE:
            continue
        for n in printed:
            typed = _like(n, value)
            # the whole where a part was sent: more than honest play's number, and a holding
            # the part was taken from (`_taken_from`), not a figure of another kind (a task's
            # hours beside the day it is put on)
            if (
                typed is not None
                and typed > value
                and typed not in found
                and _taken_from(lines, named[0], n, value)
            ):
                found.append(typed)
    return found[:LIMIT]


def _numbers_beside(line: str, named: list[str]) -> list[float]:
    """The numbers of `line` with the names in `named` cut out, thousands read whole."""
    rest = line
    for name in named:
        rest = _without(rest, name)
    return [float(n) for n in NUMBER.findall(without_thousands(rest))]


def _taken_from(lines: list[str], name: str, whole: float, part: float) -> bool:
    """Whether some line naming `name` prints `whole - part`: what the thing held after honest
    play took its part ("LIBRARY now 600" after 1300 of 1900). That is what makes `whole` an
    amount the call draws on; a number printed beside a thing that the call's number does not
    come out of (a day put beside a task's hours) is no holding of it."""
    left = whole - part
    for line in lines:
        if not _names(line, name):
            continue
        printed = _numbers_beside(line, [name])
        # a wide row's many numbers may hold the remainder by chance
        if len(printed) <= MAX_ON_LINE and any(abs(n - left) < 1e-9 for n in printed):
            return True
    return False


def _whole_word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def _names(line: str, name: str) -> bool:
    return _whole_word(name).search(line) is not None


def _without(line: str, name: str) -> str:
    """The line with the name cut out (its own digits are no amount: `BAY-12`)."""
    return _whole_word(name).sub(" ", line)


def _like(n: float, value: int | float) -> int | float | None:
    if isinstance(value, int):
        return int(n) if n == int(n) else None
    return n
