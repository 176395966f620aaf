"""A span between two moments of one call past a length the words state: "One hire lasts at
most 72 hours (3 days)" against `book(start="2025-08-10 12:00", end="2025-08-13 14:00")`.

No one argument carries the length: it is the distance between the call's start and its end.
A paid mutant that moved one of them, so that the call's span crosses a bound the words state
in hours, days or minutes that honest play's span keeps, broke that rule.
"""

from __future__ import annotations

from datetime import datetime

from proofgym_stack.validation.scripts import call_arguments
from proofgym_stack.validation.search.calendar import iso_moment
from proofgym_stack.validation.search.invariants import GAP
from proofgym_stack.validation.search.rules import bounds, clauses
from proofgym_stack.validation.search.tolerance import Played

#: hours in one of each unit a span's bound is stated in
_HOURS = {"unit:h": 1.0, "unit:day": 24.0, "unit:night": 24.0, "unit:min": 1 / 60}


def _moments(args: dict[str, object]) -> list[datetime]:
    """The call's moments, in order; an impossible one (`24:00`, 30 February) is none."""
    found = (iso_moment(v) for v in args.values() if isinstance(v, str))
    return sorted(m for m in found if m is not None)


def _span(args: dict[str, object], unit: str) -> float | None:
    """The length between a call's two moments in `unit`'s hours: whole calendar dates for
    days and nights (a stay from 15:00 to 11:00 two days on is 2 nights), hours otherwise;
    None where the call holds other than two moments."""
    moments = _moments(args)
    if len(moments) != 2:
        return None
    if unit in ("unit:day", "unit:night"):
        return float((moments[1].date() - moments[0].date()).days * 24)
    return (moments[1] - moments[0]).total_seconds() / 3600


def span_past_a_bound(p: Played, words: str) -> str | None:
    """For a mutant that changed one call holding two moments: the bound on the span the
    words state that honest play's span keeps and the mutant's crosses; or None."""
    honest, script = p.honest.control.script, p.mutant.script
    for t, turn in enumerate(script):
        for i, item in enumerate(turn):
            was = honest[t][i] if t < len(honest) and i < len(honest[t]) else None
            if was is None or item == was or item.get("type") != "function_call":
                continue
            if was.get("name") != item.get("name"):
                continue
            for bound in (b for c in clauses(words) if not GAP.search(c) for b in bounds(c)):
                scale = _HOURS.get(bound.kind)
                if scale is None:
                    continue
                before = _span(call_arguments(was), bound.kind)
                after = _span(call_arguments(item), bound.kind)
                if before is None or after is None or before == after:
                    continue
                limit = float(bound.value) * scale
                if bound.direction == "upper" and before <= limit < after:
                    return f"{after:g} h between the call's moments is past {bound.phrase!r}"
                if bound.direction == "lower" and after < limit <= before:
                    return f"{after:g} h between the call's moments is short of {bound.phrase!r}"
    return None
