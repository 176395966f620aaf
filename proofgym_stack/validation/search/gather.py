"""Everything put in the first of several places: a move a policy finds as the shortest path.

Honest play spread a list over calls that name different places (players over two rooms,
parcels over two vans); the mutant makes one call, the first, with every member. That is not
batching (the calls named different places), but neither is it always wrong: where the place
holds them all, the verifier may rightly pay it. So it is accused only where it put more in
one place than honest play ever did on any sampled task, past a number the task's words or
the tools' listings state that honest play kept within (a room's cap): the verifier does not
count what the place holds.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, _item, replaced, site_of
from proofgym_stack.validation.search.values import numbers


def gathered_mutants(script: Script) -> list[Mutant]:
    """Every call of a tool whose list argument honest play spread over calls that differ in
    another argument (players over two rooms, parcels over two vans) made as the first call
    with all the members: everything put in one place. Not batching (the calls named
    different places): where the verifier pays it, what a place holds is not graded."""
    by_tool: dict[str, list[tuple[int, int, dict[str, Any]]]] = defaultdict(list)
    for t, i, item in script_calls(script):
        by_tool[str(item.get("name"))].append((t, i, item))
    out: list[Mutant] = []
    for name, group in by_tool.items():
        if len(group) < 2:
            continue
        argsets = [call_arguments(item) for _, _, item in group]
        first = argsets[0]
        for key, value in first.items():
            if not isinstance(value, list) or not all(
                isinstance(a.get(key), list) and set(a) == set(first) for a in argsets
            ):
                continue
            others = [k for k in first if k != key]
            if all(a[k] == first[k] for a in argsets for k in others):
                continue  # the same place each time: `merge` batches that
            joined = {**first, key: [m for a in argsets for m in a[key]]}
            gathered = script
            for t, i, _ in reversed(group[1:]):
                gathered = replaced(gathered, t, i, [])
            t, i, _ = group[0]
            gathered = replaced(gathered, t, i, [_item(name, joined)])
            what = f"{len(group)} {name} calls as one, every {key} member in the first's place"
            out.append(Mutant(gathered, "gather", site_of(name, (key,)), "gather", what))
    return out


def most_in_one_place(scripts: list[Script], tool: str, key: str) -> int:
    """The most members honest play ever put in one call's `key` of `tool`."""
    sizes = [
        len(args[key])
        for script in scripts
        for _, _, item in script_calls(script)
        if item.get("name") == tool
        for args in [call_arguments(item)]
        if isinstance(args.get(key), list)
    ]
    return max(sizes, default=0)


def past_a_stated_number(m: Mutant, honest: list[Script], texts: list[str]) -> str | None:
    """Why the gathered call is past a stated limit: more members than honest play ever put
    in one place, past a whole number the texts state that honest play kept within. None
    where it is not (the place may hold them all)."""
    if m.op != "gather" or "." not in m.site:
        return None
    tool, key = m.site.split(".", 1)
    sizes = [
        len(call_arguments(item).get(key) or [])
        for _, _, item in script_calls(m.script)
        if item.get("name") == tool
    ]
    gathered, most = max(sizes, default=0), most_in_one_place(honest, tool, key)
    stated = sorted({int(n) for t in texts for n in numbers(t, limit=60) if n == int(n)})
    limits = [n for n in stated if most <= n < gathered]
    if gathered <= most or not limits:
        return None
    return (
        f"{gathered} {key} in one place, where honest play never put more than {most} and "
        f"the task states {limits[0]}"
    )
