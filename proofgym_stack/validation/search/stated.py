"""A reply judged against the task's words: what it tells, how long it is, what it leaves out.

A changed reply that still pays is the policy's freedom, unless the task's words state a rule
it breaks and honest play's reply keeps: a value told that the words say not to tell (`tell`),
a reply past the length they cap (`stretch`), a value they ask for left out (`withhold`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from proofgym_stack.validation.scripts import Script, final_reply
from proofgym_stack.validation.search.caps import over_length
from proofgym_stack.validation.search.rules import told_off
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.withheld import asking_clause, still_withheld


def stated(p: Played, words: str) -> tuple[str | None, Callable[[Script], bool] | None]:
    """For a reply changed against the task's words: the rule it breaks that honest play
    keeps (a value told that the words say not to tell, a reply past the length they
    cap, a value they ask for left out), and what the shrinker keeps true of it."""
    m = p.mutant
    if m.op == "tell":
        told = str(m.new).lower()
        rule = told_off(str(m.new), [t for _, t in p.base.pools.printed], words)
        return rule, lambda s: told in final_reply(s).lower()
    if m.op == "withhold":
        clause = asking_clause(str(m.old), words)
        rule = f"the reply leaves out the {m.old} the task asks for ({clause!r})"
        return (rule if clause else None), partial(still_withheld, str(m.new))
    honest = final_reply(p.honest.control.script)
    rule = over_length(honest, final_reply(m.script), words)
    return rule, lambda s: over_length(honest, final_reply(s), words) is not None
