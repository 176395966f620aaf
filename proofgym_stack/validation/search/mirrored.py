"""The author's own violation, turned round: a choice between two tools the author showed is
graded one way, paid the other way.

Where honest play makes one tool's call for one thing (`lend(drill)`) and another tool's for
another (`waitlist(tile cutter)`), a failing control of the author that makes the second tool
where honest play made the first (`violation_waitlisted_a_free_tool`: `waitlist(drill)`)
shows the choice between the two is the task's: it depends on the thing's state. A mutant
that makes the first tool where honest play made the second (`lend(tile cutter)`), paid with
another world, chose against the state the other way round: honest play judged that thing
the other kind, and the tool and the verifier let the choice through. On a sound environment
the tool refuses it (no unit is free), or the verifier fails it.
"""

from __future__ import annotations

from typing import Any

from proofgym.wire.protocol import Control
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.tolerance import Played


def _calls(script: Script) -> list[tuple[str, dict[str, Any]]]:
    return [(str(item.get("name")), call_arguments(item)) for _, _, item in script_calls(script)]


def _turned(honest: Script, failing: Script, new: str, old: str) -> bool:
    """Whether `failing` makes `old` on arguments honest play made `new` on (and honest play
    never made `old` on them), and never `new` on them: the author's violation of the choice
    between the two tools. A look honest play made beside its action (a quote before the
    booking) is no such choice."""
    ours, theirs = _calls(honest), _calls(failing)
    return any(
        name == new
        and (old, args) in theirs
        and (old, args) not in ours
        and (new, args) not in theirs
        for name, args in ours
    )


def mirrored_violation(p: Played, controls: list[Control]) -> str | None:
    """For a call made with another tool (`tool_swap`) and paid: the author's failing
    control that makes the choice between the two tools the other way round on another
    thing, as a reason; or None."""
    m = p.mutant
    if m.op != "tool_swap" or m.call_at is None:
        return None
    old = m.site
    t, i = m.call_at
    new = str(m.script[t][i].get("name")) if t < len(m.script) and i < len(m.script[t]) else ""
    honest = p.honest.control.script
    if not new or new == old or new not in {name for name, _ in _calls(honest)}:
        return None  # honest play never made the new tool: no choice between the two shown
    for control in controls:
        if control.expect != "fail" or control.role not in ("violation", "negative"):
            continue
        if _turned(honest, control.script, new, old):
            return (
                f"the author's {control.name!r} fails for making {old} where honest play made "
                f"{new}; this makes {new} where honest play made {old}, and is paid"
            )
    return None
