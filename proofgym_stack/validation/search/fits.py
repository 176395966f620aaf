"""A thing that must fit inside the option chosen for it, compared dimension by dimension.

Where the task's words ask for an option a thing fits in ("a free plot that the stand fits
inside (it may be turned either way round)", "a bay the van fits", "large enough") and give
the thing's sizes in one unit ("the stand is 5 m wide and 4 m deep"), each option's record
prints its own sizes in that unit ("B2: 3 m wide x 12 m deep"). The thing fits where, the
sizes of each sorted largest first, every one of its sizes is at most the option's size of
the same rank (turned either way round). Another option chosen in honest play's place that
honest play's option fits and this one does not breaks the stated rule, though its area is
larger (a long narrow plot: the verifier compared areas).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from proofgym_stack.validation.search.options import record_of
from proofgym_stack.validation.search.rules import quantities

_FITS = re.compile(
    r"\b(?:fits?|fitting|fit (?:in|inside|into|on))\b|\b(?:large|big|long|wide) enough\b", re.I
)


def _sizes(text: str, kind: str) -> list[float]:
    return sorted((float(q.value) for q in quantities(text) if q.kind == kind), reverse=True)


def _fits_in(thing: list[float], room: list[float]) -> bool:
    return len(room) >= len(thing) and all(t <= r for t, r in zip(thing, room, strict=False))


def does_not_fit(old: Any, new: Any, outputs: list[str], words: str, prompt: str) -> str | None:
    """Why `new` (another option) breaks a fit the words ask for that honest `old` keeps: the
    thing's sizes in the prompt (two or more, in the unit most of them share) fit `old`'s
    record and not `new`'s; or None."""
    if not _FITS.search(words):
        return None
    units = Counter(q.kind for q in quantities(prompt) if q.kind.startswith("unit:"))
    if not units:
        return None
    kind, count = units.most_common(1)[0]
    if count < 2:
        return None
    thing = _sizes(prompt, kind)
    old_record, new_record = record_of(old, outputs), record_of(new, outputs)
    if not old_record or not new_record or old_record == new_record:
        return None
    mine, theirs = _sizes(old_record, kind), _sizes(new_record, kind)
    if len(mine) != len(thing) or len(theirs) != len(thing):
        return None  # records that print other sizes than the thing's
    if not _fits_in(thing, mine) or _fits_in(thing, theirs):
        return None
    shown = " x ".join(f"{v:g}" for v in thing)
    return f"{new} ({new_record.strip()[:60]!r}) does not fit {shown}, which {old} does"
