"""A verdict that reads what the policy chose to look at.

A look (a call of an observing tool) changes nothing the verifier should grade. Where another
option chosen instead (the first tariff, not the cheapest) fails, and the same trajectory
without the looks at the other options (their quotes) passes, the verifier judged the choice
against what the policy looked at, not against the task: a policy that looks at one option
only is always right (the optimum taken over the tariffs the policy quoted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from proofgym.wire.protocol import Task
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, replaced
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played

#: failing choices of another option played again without the other looks, per search
MAX_UNLOOKED = 4

WHY = (
    "full reward for another option once the looks at the other options are left out, where "
    "beside them it fails: the verdict reads what the policy looked at"
)


def without_other_looks(script: Script, looks: set[str], chosen: str) -> Script | None:
    """`script` without each look that takes arguments and names none of them `chosen`
    (the quotes of the other tariffs); None where there is none."""
    out, dropped = script, False
    for t, i, item in reversed(script_calls(script)):
        args = call_arguments(item)
        if str(item.get("name")) not in looks or not args:
            continue
        if any(str(v).strip().lower() == chosen.strip().lower() for v in args.values()):
            continue
        out, dropped = replaced(out, t, i, []), True
    return out if dropped else None


async def unlooked(
    played: list[Played], play: Play, passes: Passes, looks_of: Callable[[Task], Iterable[str]]
) -> list[Played]:
    """Each failed choice of another printed option that passes once the looks at the other
    options are left out (at most `MAX_UNLOOKED` tried; `looks_of`: a task's looks)."""
    out: list[Played] = []
    tried = 0
    for p in played:
        m = p.mutant
        if m.op != "argument" or m.source != "option" or not isinstance(m.new, str):
            continue
        if passes(p.result) or p.result.mask_sample or tried >= MAX_UNLOOKED:
            continue
        looks = set(looks_of(p.base.task))
        script = without_other_looks(m.script, looks, m.new)
        if script is None:
            continue
        tried += 1
        result, record = await play(p.base.task, script, "search: the other looks left out")
        if passes(result):
            what = f"{m.what}, the looks at the other options left out"
            bare = Mutant(script, m.op, m.site, m.source, what, None, m.leaf, m.old, m.new)
            out.append(Played(bare, p.honest, p.base, result, record))
    return out
