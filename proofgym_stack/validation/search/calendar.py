"""The sequences everybody knows (the days of the week, the months, whole numbers): where a
value stands in one, and the other members of its sequence, written as the value is.

`sequence_options` gives them as options for a value (`Thursday` for `Tuesday`) where no
listing printed them; `runs.py` judges a run the task's words ask for on them.
"""

from __future__ import annotations

from typing import Any

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
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
    for name, seq in (("day", _DAYS), ("month", _MONTHS)):
        if word in seq:
            return name, seq.index(word)
    # three letters only as a name is written (`Tue`), not a code (`SAT`, `DEC`)
    if len(text) == 3 and text.istitle():
        for name, seq in (("day", _DAYS), ("month", _MONTHS)):
            for n, full in enumerate(seq):
                if full.startswith(word):
                    return name, n
    return None


def sequence_options(value: Any) -> list[str]:
    """The other days of the week (or months) written as `value` is (full or three letters,
    its case): the options of a value whose listing is the calendar itself."""
    if not isinstance(value, str) or (at := position(value)) is None or at[0] == "int":
        return []
    seq = _DAYS if at[0] == "day" else _MONTHS
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
