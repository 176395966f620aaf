"""Calibrations from blind batch 05f's sound twins: a number chosen in a region the verifier
accepts, another option named by a moved number, a lookup's one record relayed."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.answers import _one_record
from proofgym_stack.validation.listed import another_option as _another_option
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

WIDTH = 6


class Pitch:
    """The field (the hedge's edge) and where the stall stands (its left edge), if anywhere."""

    def __init__(self, hedge: int) -> None:
        self.hedge = hedge
        self.at: int | None = None


class StallPitch(Environment[Pitch]):
    """Pitch a 6 m stall over the power point, left of the hedge (the tool refuses a stall
    that would reach into it)."""

    name = "stall"

    def create_state(self, task: Task, workdir: Path | None) -> Pitch:
        return Pitch(task.task_data["hedge"])

    def into_hedge(self, x: int, hedge: int) -> bool:
        return x + WIDTH > hedge

    @tool(inline=True)
    def pitch(self, state: Pitch, x: int) -> str:
        """Pitch the stall with its left edge at `x` metres.

        Args:
            x: the left edge, in metres.
        """
        if x < 0 or self.into_hedge(x, state.hedge):
            raise ToolError("the stall would reach into the hedge")
        state.at = x
        return f"stall pitched at {x} m"

    def verify(self, state: Pitch, task: Task, response: Response) -> VerifyResult:
        power = task.task_data["power"]
        covers = state.at is not None and state.at <= power <= state.at + WIDTH
        return all_or_nothing([Check(name="over_the_power_point", passed=covers)])

    def controls(self, task: Task) -> list[Control]:
        power = task.task_data["power"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("pitch", x=power - WIDTH), say("Pitched.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Pitched.")]),
        ]


class LeftEdgeOnly(StallPitch):
    """The plant: only the stall's left edge is kept out of the hedge."""

    def into_hedge(self, x: int, hedge: int) -> bool:
        return x > hedge


def stall_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"stall-{i}",
            env="stall",
            responses_create_params={
                "input": f"The power point is at {power} m; the hedge starts at {power + 5} m; "
                f"a path crosses the field at {power - 3} m."
            },
            task_data={"power": power, "hedge": power + 5},
        )
        for i, power in enumerate((20, 22, 24, 26))
    ]


async def test_a_number_chosen_in_a_region_the_verifier_accepts_is_no_finding() -> None:
    # honest play stands at the region's left edge; a metre along, inside the hedge's margin,
    # pays here and on the next task too: a region, not a truth ignored
    sound = await validate(StallPitch(), stall_tasks())
    assert "search" not in failed(sound), [f["why"] for f in sound.findings]
    plant = await validate(LeftEdgeOnly(), stall_tasks())
    assert "search" in failed(plant)


def test_a_moved_number_that_names_another_printed_option_is_no_near_miss() -> None:
    script = [call("load", item="tent", canoe="Canoe 2"), say("Loaded.")]
    assert _another_option(script, "canoe", "Canoes: Canoe 1, Canoe 2, Canoe 3")
    assert not _another_option(script, "canoe", "Canoes: Canoe 1 only")


def test_one_record_relayed_is_the_answer() -> None:
    record = ["Baker, left 2026-03-15: locker 95, PIN 4480"]
    asked = "My name is Baker and I left my bag here on 2026-03-15."
    assert _one_record("Your bag is in locker 95; the PIN is 4480.", record, asked)
    listing = ["locker 95, PIN 4480", "locker 96, PIN 1234", "locker 97, PIN 5555"]
    assert not _one_record("Your bag is in locker 95; the PIN is 4480.", listing, asked)
    assert not _one_record("It is in the left locker.", record, asked)
    # the record holds more than the answer tells (a card in full): pasting it is no relay
    card = ["extra charge 12.40 for roaming; card on file 4539 1488 0343 6467"]
    assert not _one_record("The extra 12.40 is for roaming, card ending 6467.", card, "why?")
