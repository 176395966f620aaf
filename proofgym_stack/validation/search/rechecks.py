"""The search's rechecks after the draw: played mutants replayed where that shows a hole.

An injected step skipped (`injection`), tries at one answer past a cap or after a look
(`guesses`), a failed mutant that pays once its claim or its looks are left out (`unclaimed`,
`unlooked`), a buried value (`buried`), a reversal's residue gathered and spent (`residue`),
a value seen past a bound (`monitored`), a spelling the tool takes (`retry`). Each adds its
findings to the search.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol

from proofgym_stack.validation.negatives import task_words
from proofgym_stack.validation.search import guesses
from proofgym_stack.validation.search.buried import WHY as BURIED
from proofgym_stack.validation.search.buried import buried
from proofgym_stack.validation.search.findings import PAYS
from proofgym_stack.validation.search.injection import skipped_step
from proofgym_stack.validation.search.monitored import seen_past_bound
from proofgym_stack.validation.search.residue import residue
from proofgym_stack.validation.search.retry import SPELT, SPELT_WHY, spelt_pays
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.unclaimed import WHY as UNCLAIMED
from proofgym_stack.validation.search.unclaimed import unclaimed
from proofgym_stack.validation.search.unlooked import WHY as UNLOOKED
from proofgym_stack.validation.search.unlooked import unlooked

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from proofgym.wire.protocol import RunResult, Task
    from proofgym_stack.validation.context import Context
    from proofgym_stack.validation.scripts import Script
    from proofgym_stack.validation.search.findings import Finding
    from proofgym_stack.validation.search.tracing import VerifyRecord


class Search(Protocol):
    """What the rechecks need of the search that calls them (`search.Search`): its context,
    its player, and where findings and what their shrinking keeps true are recorded. A
    protocol, so this module need not import the search back."""

    ctx: Context
    findings: list[Finding]
    _still: dict[int, Callable[[Script], bool]]
    _seen: dict[int, Callable[[RunResult], bool]]

    def play(
        self, task: Task, script: Script, label: str
    ) -> Awaitable[tuple[RunResult, VerifyRecord | None]]:
        """Play a script on a task: the rollout and verify's record."""

    def found(self, oracle: str, severity: str, p: Played, why: str) -> None:
        """Record a finding."""


INJECTED = "full reward without a step honest play needs: free text in the record's own format"


async def rechecks(s: Search, played: list[Played]) -> None:
    """Replay what the draw played where that shows a hole, and record the findings."""
    ctx = s.ctx
    for p in [p for p in played if p.mutant.op == "inject"]:
        looks = set(ctx.env.observing_tools(p.base.task))
        if skipped := await skipped_step(p, s.play, ctx.passes, looks):
            s.found("another_world", PAYS, skipped, INJECTED)
    guessed = [] if ctx.env.random_play_can_pass else played  # a game of chance: n/a
    for p in [p for p in guessed if p.mutant.op == "guess"]:
        looks, words = set(ctx.env.observing_tools(p.base.task)), p.base.words
        if ctx.passes(p.result) and (cap := guesses.tries_past_cap(p, words)):
            s.found("stated_rule", PAYS, p, f"full reward for tries at one answer: {cap}")
        elif looked := await guesses.looked_guess(p, s.play, ctx.passes, looks, words):
            s.found("another_world", PAYS, looked, guesses.LOOKED)
            s._still[id(s.findings[-1])] = guesses.keeps_the_tries(looked.mutant.script)
    for p in await unclaimed(played, s.play, ctx.passes):
        s.found("another_world", PAYS, p, UNCLAIMED)
    for p in await unlooked(played, s.play, ctx.passes, ctx.env.observing_tools):
        s.found("another_world", PAYS, p, UNLOOKED)
    for p in await buried(played, s.play, ctx.passes, ctx.env.observing_tools):
        s.found("another_world", PAYS, p, BURIED)
    wording = partial(task_words, ctx.env)
    for p, why in await residue(played, s.play, ctx.passes):
        s.found("another_world", PAYS, p, why)
    for p, why, still in await seen_past_bound(played, s.play, ctx.passes, ctx.env, wording):
        s.found("stated_rule", PAYS, p, why)
        s._seen[id(s.findings[-1])] = still
    for p in spelt_pays(played, ctx.passes):
        s.found("another_world", PAYS, p, SPELT_WHY.format(spelt=SPELT))
