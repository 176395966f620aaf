"""Another task's own honest world, for the another-truth oracle.

A mutant that also passes on a task whose truth differs is another truth accepted, unless
the tools steered it there: played on the target, it left exactly the world the target's
own reference leaves (berth on every pontoon in turn, and only the one the boat fits takes
it), so it did there what honest play does (`Targets.steered`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym.wire.protocol import Task
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
