"""The sequences everybody knows (the days of the week, the months, whole numbers): where a
value stands in one, and the other members of its sequence, written as the value is.

`sequence_options` gives them as options for a value (`Thursday` for `Tuesday`) where no
listing printed them; `runs.py` judges a run the task's words ask for on them. Dates written
with slashes are read in the order the texts show (`slash_order`, `iso_dates`).
"""

from __future__ import annotations

import datetime
import re
from typing import Any

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


def position(value: Any) -> tuple[str, int] | None:
    """The sequence a value belongs to and its place in it (`Tue` is the weekdays' 1)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "int", value
    if not isinstance(value, str):
        return None
    text = value.strip()
    word = text.lower()
    for name, seq in (("day", _DAYS), ("month", MONTHS)):
        if word in seq:
            return name, seq.index(word)
    # three letters only as a name is written (`Tue`), not a code (`SAT`, `DEC`)
    if len(text) == 3 and text.istitle():
        for name, seq in (("day", _DAYS), ("month", MONTHS)):
            for n, full in enumerate(seq):
                if full.startswith(word):
                    return name, n
    return None


def sequence_options(value: Any) -> list[str]:
    """The other days of the week (or months) written as `value` is (full or three letters,
    its case): the options of a value whose listing is the calendar itself."""
    if not isinstance(value, str) or (at := position(value)) is None or at[0] == "int":
        return []
    seq = _DAYS if at[0] == "day" else MONTHS
    word = value.strip()
    short = len(word) == 3 and word.lower() not in seq  # `Tue`, not `May`
    out = []
    for full in seq:
        form = full[:3] if short else full
        if word.isupper():
            form = form.upper()
        elif word[:1].isupper():
            form = form.title()
        if form.lower() != word.lower():
            out.append(form)
    return out


_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")


def slash_order(texts: list[str]) -> str | None:
    """How the texts write dates with slashes: `dmy` or `mdy`, from a stated format
    (`DD/MM/YYYY`) or from a part past 12; None where nothing tells (03/04 either way)."""
    joined = "\n".join(texts)
    if re.search(r"\bDD/MM\b", joined, re.I):
        return "dmy"
    if re.search(r"\bMM/DD\b", joined, re.I):
        return "mdy"
    parts = [(int(a), int(b)) for a, b, _ in _SLASHED.findall(joined)]
    first, second = any(a > 12 for a, _ in parts), any(b > 12 for _, b in parts)
    return "dmy" if first and not second else "mdy" if second and not first else None


def iso_dates(text: str, order: str) -> str:
    """`text` with its slashed dates written `YYYY-MM-DD` (read in `order`)."""

    def iso(m: re.Match[str]) -> str:
        a, b, year = m.groups()
        day, month = (a, b) if order == "dmy" else (b, a)
        return f"{year}-{int(month):02d}-{int(day):02d}"

    return _SLASHED.sub(iso, text)


#: an ISO date, with a time after a space or a `T` (`2025-08-13`, `2025-08-13 14:00`)
ISO_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})(?:([ T])(\d{2}:\d{2}(?::\d{2})?))?")


def iso_day(text: str) -> datetime.date | None:
    """`text` (spaces around it aside) as an ISO date without a time, or None (another form,
    or a day that does not exist: 30 February)."""
    m = ISO_MOMENT.fullmatch(text.strip())
    if m is None or m.group(2):
        return None
    try:
        return datetime.date.fromisoformat(m.group(1))
    except ValueError:
        return None


def iso_moment(text: str) -> datetime.datetime | None:
    """`text` as an ISO date with a time (`2025-08-13 14:00`), or None (another form, or a
    moment that does not exist: `24:00`, 30 February)."""
    m = ISO_MOMENT.fullmatch(text)
    if m is None or not m.group(2):
        return None
    try:
        return datetime.datetime.fromisoformat(f"{m.group(1)}T{m.group(3)}")
    except ValueError:
        return None
