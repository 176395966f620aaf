"""The search as one check of `validate`: its verdict, failing on any `pays` finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym_stack.validation.search.findings import ADVISORY, FAILING, Finding
from proofgym_stack.validation.search.search import NAME, Search
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.tracing import VerifyTrace

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context


async def check_search(ctx: Context) -> list[Finding]:
    """The search as one check of `validate`: it fails on any `pays` finding."""
    if not ctx.controls or ctx.budget <= 0:
        ctx.not_applicable(NAME, "no pass control to mutate, or a budget of 0")
        return []
    with VerifyTrace(ctx.env) as trace:
        search = Search(ctx, trace)
        if ctx.env.random_play_can_pass:
            search.judge = _faults_only  # type: ignore[method-assign]
        played, found = await search.run()
    pays = [f for f in found if f.severity in FAILING]
    advisory = [f for f in found if f.severity == ADVISORY]
    if not played:
        ctx.not_applicable(NAME, "no pass control passed twice: nothing to mutate")
        return found
    summary = (
        f"{played} mutants of the pass controls (budget {ctx.budget}, "
        f"{search.follow_ups_played} of them follow-ups)"
    )
    if pays:
        ctx.verdict(NAME, False, f"{summary}: " + "; ".join(f.line() for f in pays[:3]))
    else:
        note = f"; {len(advisory)} advisory" if advisory else ""
        ctx.verdict(NAME, True, f"{summary}: none earned reward it did not deserve{note}")
    return found


async def _faults_only(played: list[Played]) -> None:
    """A game of chance: a changed move may win fairly, so only faults are judged."""
