"""A run the task's words ask for ("the two days must be one rest block: consecutive days"),
on values of a sequence everybody knows (the days of the week, the months, whole numbers).

`broken_run` says which rule a list argument broke when honest play's members stood in one
run and the mutant's do not (the sequences themselves: `calendar.py`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.calendar import position

if TYPE_CHECKING:  # the search's records
    from proofgym_stack.validation.search.tolerance import Played

#: words that ask for members standing next to each other
_RUN = re.compile(
    r"\b(?:consecutive|in a row|back[- ]to[- ]back|one (?:rest )?block|adjacent|next to each "
    r"other|contiguous)\b",
    re.I,
)


def _one_run(values: list[Any]) -> bool | None:
    """Whether the values stand next to each other in their sequence; None where they are
    not all of one known sequence (or fewer than two)."""
    places = [position(v) for v in values]
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
