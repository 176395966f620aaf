"""Another task's own honest world, for the another-truth oracle.

A mutant that also passes on a task whose truth differs is another truth accepted, unless
the tools steered it there: played on the target, it left exactly the world the target's
own reference leaves (berth on every pontoon in turn, and only the one the boat fits takes
it), so it did there what honest play does (`Targets.steered`); or it differs from the
target's own honest play only in closed choices the target grades (`Targets.chosen`), or in
more of one tool's amounts than the target needs (`more_of_the_same`: a train waited for 24
minutes where the target's clears in 20).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.choices import among_accepted
from proofgym_stack.validation.scripts import Script, call_arguments, refused_calls, script_calls
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.tracing import VerifyRecord
from proofgym_stack.validation.search.world import World, lost

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context


class Targets:
    """Each target task's honest and untouched worlds, played once and kept."""

    def __init__(self, ctx: Context, play: Play) -> None:
        self.ctx = ctx
        self.play = play
        #: a task's id -> the world its reference leaves and the untouched one
        self.worlds: dict[str, tuple[World, World] | None] = {}

    async def steered(self, p: Played, target: Task, record: VerifyRecord | None) -> bool:
        """Whether the mutant, played on `target`, left exactly the world the target's own
        reference leaves there (and that world is not the untouched one): the tools steered
        it, refusing the options that do not fit, so it did there what honest play does: no
        other truth."""
        if record is None:
            return False
        honest = await self.honest_world(target)
        if honest is None or honest[0] == honest[1]:
            return False
        world, ignored = honest[0], p.base.ignored
        return not lost(record.world, world, ignored) and not lost(world, record.world, ignored)

    async def honest_world(self, task: Task) -> tuple[World, World] | None:
        """The world `task`'s reference leaves, and the untouched one (played once, kept)."""
        if task.task_id not in self.worlds:
            control = self.ctx.reference(task.task_id)
            found: tuple[World, World] | None = None
            if control is not None:
                result, honest = await self.play(task, control.script, "search: target's honest")
                _, untouched = await self.play(
                    task, [[{"type": "message", "content": ""}]], "search: target untouched"
                )
                if self.ctx.passes(result) and honest is not None and untouched is not None:
                    found = (honest.world, untouched.world)
            self.worlds[task.task_id] = found
        return self.worlds[task.task_id]

    async def chosen(self, p: Played, target: Task, result: RunResult) -> bool:
        """Whether the mutant differs from the target's own honest play only in closed
        choices the target grades (`choices`), another combination it accepts, or in more
        of one tool's amounts (`more_of_the_same`)."""
        control = self.ctx.reference(target.task_id)
        if control is None:
            return False
        refused = frozenset(refused_calls(p.mutant.script, result))
        if more_of_the_same(p.mutant.script, control.script, refused):
            return True
        return await among_accepted(self.ctx, target, p.mutant.script, control.script, result)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _gaps(
    script: Script, tool: str, skip: frozenset[tuple[int, int]] = frozenset()
) -> tuple[list[str], dict[tuple[int, str], float]]:
    """The script's other calls (each as its name and arguments), and the sum of each numeric
    argument of `tool`'s calls per gap between them (empty unless every call of `tool` takes
    numbers alone: else they are not amounts); the calls at `skip` (refused) left out."""
    others: list[str] = []
    sums: dict[tuple[int, str], float] = {}
    for t, i, item in script_calls(script):
        if (t, i) in skip:
            continue
        args = call_arguments(item)
        if item.get("name") != tool:
            others.append(f"{item.get('name')}{sorted(args.items())!r}")
            continue
        if not args or not all(_number(v) for v in args.values()):
            return others, {}
        for key, value in args.items():
            sums[(len(others), key)] = sums.get((len(others), key), 0.0) + float(value)
        sums[(len(others), "")] = sums.get((len(others), ""), 0.0) + 1  # the calls made
    return others, sums


def more_of_the_same(
    mutant: Script, honest: Script, refused: frozenset[tuple[int, int]] = frozenset()
) -> bool:
    """Whether `mutant` is `honest` (a target's own honest play) with more of one tool's
    amounts: every other call the same, in the same order, and that tool (taking numbers
    only, never the script's last call, which may be the answer; its calls adding up: made
    more often than the target makes it in one place, or twice running by the target itself)
    called in the same places, with sums that reach honest play's (the mutant's calls the
    target `refused` left out: they did nothing there). Waiting longer than a train needs is
    more of a monotone action, no other truth; one bigger number sent once is not."""
    calls = script_calls(mutant)
    names = {str(i.get("name")) for _, _, i in calls}
    last = str(calls[-1][2].get("name")) if calls else ""
    for tool in sorted(names - {last}):  # the last call may be the answer: never excused
        others, mine = _gaps(mutant, tool, refused)
        theirs_others, theirs = _gaps(honest, tool)
        if others != theirs_others or not mine or set(mine) != set(theirs):
            continue
        # a tool whose calls add up (made more often than the target makes it somewhere, or
        # made twice running by the target itself: a wait of 30 and then 6), not one bigger
        # number sent once (an answer, a setting)
        adds_up = any(mine[k] > theirs[k] or theirs[k] >= 2 for k in mine if k[1] == "")
        if adds_up and all(mine[k] >= theirs[k] for k in mine) and mine != theirs:
            return True
    return False
