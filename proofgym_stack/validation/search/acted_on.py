"""Mutants that act on what a changed call showed (the search's follow-ups).

A policy reads what its changed call printed and acts on it: it searches the other direction,
books what it found. For each played mutant whose tools printed tokens honest play never
showed, its later calls' string arguments are set to each of them (`mutants.follow_ups`).
"""

from __future__ import annotations

from proofgym_stack.validation.scripts import script_calls, tool_outputs
from proofgym_stack.validation.search.mutants import Mutant, follow_ups
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.values import tokens


def acting_on_what_showed(played: list[Played]) -> list[tuple[Mutant, Played]]:
    """Each follow-up mutant, with the played mutant it follows."""
    out: list[tuple[Mutant, Played]] = []
    for p in played:
        if p.mutant.op in ("message", "call_drop"):
            continue
        seen = set(p.base.pools.outputs) | set(p.base.pools.prompt)
        fresh = [tok for tok in tokens("\n".join(tool_outputs(p.result))) if tok not in seen]
        if not fresh:
            continue
        calls = [item for _, _, item in script_calls(p.mutant.script)]
        honest = [item for _, _, item in script_calls(p.honest.control.script)]
        changed = next(
            (n for n, (a, b) in enumerate(zip(calls, honest, strict=False)) if a != b),
            min(len(calls), len(honest)),
        )
        out += [(m, p) for m in follow_ups(p.mutant.script, changed, fresh)]
    return out
