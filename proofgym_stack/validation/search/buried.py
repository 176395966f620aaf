"""A change that fails, paid once looks follow it: a verdict that reads a window of history.

A look (a call of an observing tool) changes nothing the verifier should grade, however often
it is made. Where a changed action fails (a property deleted that must never be), and the same
trajectory with honest play's own looks made again many times after it passes, while the
world the verifier reads still holds what the change did (the property is still gone), the
verdict read a bounded record (the last ten entries of an activity log) that the looks pushed
the change out of: a policy that reads enough after its violation is never caught.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.scripts import Script, script_calls
from proofgym_stack.validation.search.mutants import Mutant, before_final_message
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.world import World, lost, members

OP = "buried"
#: looks made after the change: past the windows a record of "recent" activity keeps
LOOKS = 30
#: failed changes played again with the looks after them, per search
MAX_BURIED = 6
#: the changes of an action whose failure a record of history may be what shows: another
#: tool, another value, one more action, an action taken back
ACTIONS = ("tool_swap", "one_more", "undo", "argument", "call_repeat")

WHY = (
    "full reward for a change that fails on its own, once honest play's looks are made again "
    "after it, the change still in the world the verifier reads: the verdict reads a window "
    "of recent history that looks push the change out of"
)


def with_looks_after(script: Script, looks: list[dict[str, Any]], n: int = LOOKS) -> Script:
    """`script` with `looks` made again, in turn, `n` calls in all, as one turn just before its
    final message (at the end where it has none)."""
    return before_final_message(script, [dict(looks[k % len(looks)]) for k in range(n)])


def _moved(a: World, b: World, ignored: set[str]) -> set[str]:
    """The paths (a list's members read together) where two worlds differ."""
    ma, mb = members(a, ignored), members(b, ignored)
    return {k for k in ma.keys() | mb.keys() if sorted(ma.get(k, [])) != sorted(mb.get(k, []))}


def _changed_look(m: Mutant, looks: set[str]) -> bool:
    """Whether the mutant's change is at a look (its site names an observing tool)."""
    return m.site.split(".")[0] in looks


async def buried(
    played: list[Played], play: Play, passes: Passes, looks_of: Callable[[Task], Iterable[str]]
) -> list[Played]:
    """Each failed change of an action that passes with honest play's looks made again after
    it, the world still lost where the change alone lost it (at most `MAX_BURIED` tried; one
    per operator and site, the changes of the kinds in `ACTIONS` in that order)."""
    out: list[Played] = []
    seen: set[tuple[str, str]] = set()
    ranked = sorted(
        (p for p in played if p.mutant.op in ACTIONS),
        key=lambda p: ACTIONS.index(p.mutant.op),
    )
    tried = 0
    for p in ranked:
        m = p.mutant
        if tried >= MAX_BURIED:
            break
        if passes(p.result) or p.result.mask_sample or p.record is None:
            continue
        looks = set(looks_of(p.base.task))
        if (m.op, m.site) in seen or _changed_look(m, looks):
            continue
        damage = lost(p.record.world, p.honest.world, p.base.ignored)
        honest_looks = [
            item
            for _, _, item in script_calls(p.honest.control.script)
            if str(item.get("name")) in looks
        ]
        if not damage or not honest_looks:
            continue
        seen.add((m.op, m.site))
        tried += 1
        script = with_looks_after(m.script, honest_looks)
        result, record = await play(p.base.task, script, "search: the change, looks after it")
        if not passes(result) or record is None:
            continue
        # what the change lost, still lost, where the looks moved nothing (the log they
        # filled moved; the deleted property did not come back)
        moved = _moved(record.world, p.record.world, p.base.ignored)
        if not (lost(record.world, p.honest.world, p.base.ignored) & damage) - moved:
            continue  # the looks undid the change: a look that acts, not a window
        what = f"{m.what}, then {LOOKS} looks"
        again = Mutant(script, OP, m.site, m.source, what, None, m.leaf, m.old, m.new)
        out.append(Played(again, p.honest, p.base, result, record))
    return out
