"""A run the task's words ask for ("the two days must be one rest block: consecutive days"),
on values of a sequence everybody knows (the days of the week, the months, whole numbers).

`sequence_options` gives the other members of such a sequence as options for a value
(`Thursday` for `Tuesday`), where no listing printed them; `broken_run` says which rule a
list argument broke when honest play's members stood in one run and the mutant's do not.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import call_arguments, script_calls

if TYPE_CHECKING:  # the search's records; values.py, which tolerance.py imports, imports this
    from proofgym_stack.validation.search.tolerance import Played

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
#: words that ask for members standing next to each other
_RUN = re.compile(
    r"\b(?:consecutive|in a row|back[- ]to[- ]back|one (?:rest )?block|adjacent|next to each "
    r"other|contiguous)\b",
    re.I,
)


def _position(value: Any) -> tuple[str, int] | None:
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
    if not isinstance(value, str) or (at := _position(value)) is None or at[0] == "int":
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


def _one_run(values: list[Any]) -> bool | None:
    """Whether the values stand next to each other in their sequence; None where they are
    not all of one known sequence (or fewer than two)."""
    places = [_position(v) for v in values]
    if len(values) < 2 or any(p is None for p in places):
        return None
    kinds = {p[0] for p in places if p is not None}
    if len(kinds) != 1:
        return None
    spots = sorted({p[1] for p in places if p is not None})
    return len(spots) == len(values) and spots[-1] - spots[0] == len(spots) - 1


def _list_at(script: Any, call_at: tuple[int, int], key: Any) -> list[Any] | None:
    for t, i, item in script_calls(script):
        if (t, i) == call_at:
            value = call_arguments(item).get(key)
            return value if isinstance(value, list) else None
    return None


def broken_run(p: Played, words: str) -> str | None:
    """For a member of a list argument changed: the clause of the words that asks for a run
    ("consecutive days"), where honest play's list stood in one run of its sequence and the
    mutant's does not; or None."""
    m = p.mutant
    if m.call_at is None or len(m.leaf) < 2 or not isinstance(m.leaf[-1], int):
        return None
    # the clause names what the list holds (`days` for `days`, `night` for `nights`)
    noun = str(m.leaf[0]).lower().rstrip("s")
    clause = next(
        (
            c
            for c in re.findall(r"[^.;!?\n]+", words)
            if _RUN.search(c) and len(noun) >= 3 and re.search(rf"\b{re.escape(noun)}", c, re.I)
        ),
        None,
    )
    if clause is None:
        return None
    honest = _list_at(p.honest.control.script, m.call_at, m.leaf[0])
    mine = _list_at(m.script, m.call_at, m.leaf[0])
    if (
        honest is None
        or mine is None
        or _one_run(honest) is not True
        or _one_run(mine) is not False
    ):
        return None
    return f"{mine} are not one run, which the words ask for ({clause.strip()[:80]!r})"
