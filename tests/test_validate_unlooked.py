"""A verdict that reads what the policy looked at (`search.unlooked`), read off blind batch
05l (tariffs): another option chosen fails beside the looks at every option, and pays once
the looks at the others are left out, where the verifier takes the cheapest over the quotes
the policy asked for; the sound twin, which takes it over every option, is not accused."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.unlooked import without_other_looks
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_the_looks_at_the_other_options_are_left_out() -> None:
    script = [call("quote", c="A"), call("quote", c="B"), call("book", c="B"), say("Booked.")]
    kept = without_other_looks(script, {"quote"}, "A")
    assert kept == [call("quote", c="A"), call("book", c="B"), say("Booked.")]
    assert without_other_looks(script, {"list"}, "A") is None


class Desk:
    """The couriers' prices, the quotes asked for, and the courier booked."""

    def __init__(self, prices: dict[str, int]) -> None:
        self.prices = prices
        self.quoted: list[str] = []
        self.booked = ""


class Couriers(Environment[Desk]):
    """Book the cheapest courier for a parcel."""

    name = "couriers"
    #: the sound twin compares every courier; the plant only the ones quoted
    over_quoted = False

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk(dict(task.task_data["prices"]))

    def instructions(self, task: Task) -> str:
        return "Book the cheapest courier for the parcel: `quote` each one, then `book` it."

    @tool(observes=True)
    def couriers(self, state: Desk) -> str:
        """The couriers on offer."""
        return "\n".join(state.prices)

    @tool(observes=True)
    def quote(self, state: Desk, courier: str) -> str:
        """A courier's price for the parcel.

        Args:
            courier: the courier's name.
        """
        if courier not in state.prices:
            raise ToolError(f"no courier {courier!r}", "not_found")
        state.quoted.append(courier)
        return f"{courier}: GBP {state.prices[courier]}"

    @tool
    def book(self, state: Desk, courier: str) -> str:
        """Book a courier.

        Args:
            courier: the courier's name.
        """
        if courier not in state.prices:
            raise ToolError(f"no courier {courier!r}", "not_found")
        state.booked = courier
        return f"{courier} booked."

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        prices = state.prices
        among = [c for c in prices if c in state.quoted] if self.over_quoted else list(prices)
        best = min(among, key=prices.__getitem__) if among else None
        return all_or_nothing([Check(name="cheapest", passed=state.booked == best)])

    def controls(self, task: Task) -> list[Control]:
        prices = task.task_data["prices"]
        best = min(prices, key=prices.__getitem__)
        dearest = max(prices, key=prices.__getitem__)
        quotes = [call("quote", courier=c) for c in prices]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("couriers"), *quotes, call("book", courier=best), say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
            Control(
                name="violation_dearest",
                expect="fail",
                script=[*quotes, call("book", courier=dearest), say("Booked.")],
            ),
        ]


class CouriersOverQuoted(Couriers):
    """The plant: the cheapest taken over the couriers the policy quoted."""

    over_quoted = True


def _tasks() -> list[Task]:
    shops = [
        {"Parcelly": 14, "Swiftly": 9, "Boxo": 12},
        {"Parcelly": 8, "Swiftly": 11, "Boxo": 10},
        {"Parcelly": 13, "Swiftly": 15, "Boxo": 7},
        {"Parcelly": 10, "Swiftly": 6, "Boxo": 9},
    ]
    return tasks(
        "couriers",
        [(f"Parcel {n}: book the cheapest.", {"prices": p}) for n, p in enumerate(shops)],
    )


async def test_the_cheapest_over_every_option_is_not_accused() -> None:
    report = await validate(Couriers(), _tasks())
    assert "search" not in failed(report), pays(report)


async def test_the_cheapest_over_what_was_looked_at_is_accused() -> None:
    report = await validate(CouriersOverQuoted(), _tasks())
    assert "search" in failed(report)
    assert any("reads what the policy looked at" in why for _, why in pays(report)), pays(report)
