"""A count of whole things taken as a fraction (`search/counts.py`)."""

from __future__ import annotations

import math
from pathlib import Path

from openai.types.responses import Response
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.counts import counts_whole_things
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

SACK_KG = 5.0


class Order:
    """One session's sacks of flour."""

    def __init__(self) -> None:
        self.sacks = 0.0


class FlourOrder(Environment[Order]):
    """Order enough 5 kg sacks of flour for the bake, with no whole sack spare."""

    name = "flour"

    def create_state(self, task: Task, workdir: Path | None) -> Order:
        return Order()

    def whole(self, sacks: float) -> bool:
        return float(sacks).is_integer()

    @tool(inline=True)
    def order_sacks(self, state: Order, sacks: float) -> str:
        """Order sacks of flour (5 kg each).

        Args:
            sacks: how many sacks.
        """
        if sacks <= 0 or not self.whole(sacks):
            raise ToolError("sacks are sold whole")
        state.sacks += sacks
        return f"{state.sacks:g} sacks on order"

    def verify(self, state: Order, task: Task, response: Response) -> VerifyResult:
        need = task.task_data["kg"]
        have = state.sacks * SACK_KG
        return all_or_nothing(
            [
                Check(name="covered", passed=have >= need),
                Check(name="no_spare_sack", passed=have - need < SACK_KG),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        sacks = math.ceil(task.task_data["kg"] / SACK_KG)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("order_sacks", sacks=sacks), say("Ordered.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Ordered.")]),
        ]


class FractionsSold(FlourOrder):
    """The plant: the tool takes any amount of a sack."""

    def whole(self, sacks: float) -> bool:
        return True


def flour_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"flour-{i}",
            env="flour",
            responses_create_params={"input": f"The bake needs {kg} kg of flour."},
            task_data={"kg": kg},
        )
        for i, kg in enumerate((12.0, 23.5, 7.0, 31.0))
    ]


async def test_half_a_sack_bought_is_caught() -> None:
    plant = await validate(FractionsSold(), flour_tasks())
    assert "search" in failed(plant)
    assert any("taken as a fraction" in f["why"] for f in plant.findings), plant.findings
    sound = await validate(FlourOrder(), flour_tasks())
    assert "search" not in failed(sound)


def test_what_counts_whole_things() -> None:
    schema = [
        {
            "name": "buy",
            "parameters": {
                "properties": {
                    "amount": {"type": "number", "description": "the number of tins"},
                    "kg": {"type": "number"},
                    "seats": {"type": "integer"},
                }
            },
        }
    ]
    assert counts_whole_things("amount", "buy", schema)
    assert not counts_whole_things("seats", "buy", schema)  # typed integer: refused already
    assert counts_whole_things("packs", "buy", schema)
    assert not counts_whole_things("kg", "buy", schema)
    assert not counts_whole_things("servings", "buy", schema)
