"""A value the task states that its task model drops (`task_data:dropped_by_the_model`)."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from pydantic import BaseModel, ConfigDict
from test_validate_unseen import call, detail, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.dropped import kept_keys, moved, stated
from resources_servers.base import Environment, tool
from resources_servers.verifiers.compose import all_or_nothing

PRICE = 12.5


class Cart:
    """One session's order."""

    def __init__(self) -> None:
        self.boxes = 0


class LunchTask(BaseModel):
    """The sound model: it reads the key the rows carry."""

    model_config = ConfigDict(extra="forbid")
    people: int
    budget_usd: float


class StaleLunchTask(BaseModel):
    """The model written when the rows said `budget`: `budget_usd` is dropped, no cap."""

    people: int
    budget: float | None = None


class Lunch(Environment[Cart, LunchTask]):
    """Order a lunch box per person within the budget."""

    name = "lunch"
    task_data_model = LunchTask

    def create_state(self, task: Task, workdir: Path | None) -> Cart:
        return Cart()

    @tool(inline=True)
    def order(self, state: Cart, boxes: int) -> str:
        """Order lunch boxes at $12.50 each.

        Args:
            boxes: how many boxes.
        """
        state.boxes += boxes
        return f"{state.boxes} boxes ordered"

    def cap(self, task: Task) -> float | None:
        return self.data(task).budget_usd

    def verify(self, state: Cart, task: Task, response: Response) -> VerifyResult:
        people, cap = task.task_data["people"], self.cap(task)
        within = cap is None or state.boxes * PRICE <= cap
        return all_or_nothing(
            [
                Check(name="everyone_fed", passed=state.boxes >= people),
                Check(name="within_budget", passed=within),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        people = task.task_data["people"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("order", boxes=people), say(f"Ordered {people} boxes.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Ordered!")]),
        ]


class StaleLunch(Lunch):
    """The plant: its model drops the renamed budget, and the default means no cap."""

    task_data_model = StaleLunchTask  # type: ignore[assignment]

    def cap(self, task: Task) -> float | None:
        return StaleLunchTask.model_validate(task.task_data).budget


def lunch_tasks() -> list[Task]:
    out = []
    for i, people in enumerate((4, 7, 9, 12)):
        budget = people * PRICE + 10
        out.append(
            Task(
                task_id=f"lunch-{i}",
                env="lunch",
                responses_create_params={
                    "input": f"Order lunch for {people} people; the budget is ${budget:g}."
                },
                task_data={"people": people, "budget_usd": budget},
            )
        )
    return out


async def test_a_stated_key_the_model_drops_is_caught() -> None:
    report = await validate(StaleLunch(), lunch_tasks())
    assert "task_data:dropped_by_the_model" in failed(report)
    assert "budget_usd" in detail(report, "task_data:dropped_by_the_model")
    sound = await validate(Lunch(), lunch_tasks())
    assert "task_data:dropped_by_the_model" not in failed(sound)


def test_what_counts_as_stated_and_kept() -> None:
    assert stated(60.0, "the budget is $60.") and stated(1200, "up to 1,200 people")
    assert not stated(61.0, "the budget is $60.") and not stated(True, "true")
    assert stated("Harbour Hall", "at harbour hall tonight") and not stated("ab", "ab")
    assert kept_keys(StaleLunchTask) == {"people", "budget"}
    assert moved(50) == [0, 5000] and moved("x") == ["zzq-unused"]
