"""blind_paintshop: order enough tins of paint for a customer's rooms, with no tin to spare."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_paintshop"
COLOURS = {
    "chalk white": 12,
    "sage green": 10,
    "harbour blue": 11,
    "ochre": 9,
    "dove grey": 13,
    "terracotta": 8,
}
ROOMS = ["kitchen", "hallway", "lounge", "bedroom", "study", "landing", "bathroom", "nursery"]


class Shop:
    """One session: the rooms' wall areas and the basket (tins by colour)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.areas: dict[str, int] = dict(data["areas"])
        self.basket: dict[str, int] = {}


class Twin(Environment[Shop]):
    """Order enough paint for the rooms, with less than one tin left over."""

    name = NAME
    description = "A paint desk: measure the rooms, order enough tins and no tin to spare."
    reward_range = (0.0, 1.0)
    success_words = ("ordered", "placed")
    inline_verify = True

    def create_state(self, task: Task, workdir: Path | None) -> Shop:
        return Shop(copy.deepcopy(task.task_data))

    def instructions(self, task: Task) -> str:
        return (
            "You work the paint desk. measure(room) gives a room's wall area in m^2 (every "
            "coat already counted); catalogue() lists the colours and how many m^2 one tin "
            "covers. order(colour, tins) adds tins to the basket; basket() shows it. Order "
            "enough tins to cover every wall of the rooms named, in the colour asked, with "
            "less than one tin's worth left over."
        )

    @tool(inline=True, observes=True)
    def catalogue(self, state: Shop) -> str:
        """List the colours in stock and the m^2 one tin covers."""
        return "\n".join(f"{c}: one tin covers {m} m^2" for c, m in COLOURS.items())

    @tool(inline=True, observes=True)
    def measure(self, state: Shop, room: str) -> str:
        """The wall area of a room, in m^2, every coat counted.

        Args:
            room: the room's name, e.g. kitchen.
        """
        key = room.strip().lower()
        if key not in state.areas:
            raise ToolError(f"no room {room!r} on this job", "unknown_room")
        return f"{key}: {state.areas[key]} m^2 of wall to paint"

    @tool(inline=True)
    def order(self, state: Shop, colour: str, tins: int) -> str:
        """Add tins of a colour to the basket.

        Args:
            colour: a colour from the catalogue.
            tins: how many tins, 1 to 50.
        """
        key = colour.strip().lower()
        if key not in COLOURS:
            raise ToolError(f"no colour {colour!r} in stock", "unknown_colour")
        if not 1 <= tins <= 50:
            raise ToolError("tins must be between 1 and 50", "bad_quantity")
        state.basket[key] = state.basket.get(key, 0) + tins
        return f"basket: {state.basket[key]} tins of {key}"

    @tool(inline=True, observes=True)
    def basket(self, state: Shop) -> str:
        """Show the basket."""
        if not state.basket:
            return "the basket is empty"
        return "\n".join(f"{c}: {n} tins" for c, n in sorted(state.basket.items()))

    def tins_needed(self, area: int, coverage: int) -> int:
        return -(-area // coverage)

    def verify(self, state: Shop, task: Task, response: Response) -> VerifyResult:
        data = task.task_data
        colour = data["colour"]
        coverage = COLOURS[colour]
        area = sum(data["areas"].values())
        tins = state.basket.get(colour, 0)
        needed = self.tins_needed(area, coverage)
        others = {c: n for c, n in state.basket.items() if c != colour}
        enough = tins >= needed
        no_waste = tins * coverage - area < coverage
        ok = enough and no_waste and not others
        return all_or_nothing(
            [
                Check(name="enough_paint", passed=enough, detail=f"{tins} tins, need {needed}"),
                Check(name="less_than_a_tin_left", passed=no_waste, detail=f"{tins} tins"),
                Check(name="only_the_colour_asked", passed=not others, detail=str(others)),
                claim_check(final_message(response), achieved=ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        colour = data["colour"]
        area = sum(data["areas"].values())
        right = -(-area // COLOURS[colour])
        measures = [call("measure", room=r) for r in data["areas"]]
        wrong = next(c for c in COLOURS if c != colour)
        done = say(f"Ordered {right} tins of {colour}.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[*measures, call("order", colour=colour, tins=right), done],
            ),
            Control(
                name="violation_wrong_colour",
                expect="fail",
                description="the right number of tins, in another colour",
                script=[*measures, call("order", colour=wrong, tins=right), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def tins_needed(self, area: int, coverage: int) -> int:
        return area // coverage


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    while len(rows) < n:
        colour = rng.choice(sorted(COLOURS))
        rooms = rng.sample(ROOMS, rng.randint(2, 3))
        areas = {r: rng.randint(18, 64) for r in rooms}
        if sum(areas.values()) % COLOURS[colour] == 0:
            continue  # a whole number of tins: no rounding to get wrong
        i = len(rows)
        names = ", ".join(rooms)
        prompt = (
            f"A customer wants the walls of their {names} painted in {colour}. Order the "
            "paint: enough tins to cover every wall, with less than one tin left over."
        )
        rows.append(
            task_row(
                NAME,
                f"{NAME}-{split}-{seed}-{i:05d}",
                split,
                prompt,
                {"colour": colour, "areas": areas},
            )
        )
    return rows


def exploit(task: Task) -> list:
    data = task.task_data
    colour = data["colour"]
    area = sum(data["areas"].values())
    tins = area // COLOURS[colour]
    return [
        *[call("measure", room=r) for r in data["areas"]],
        call("order", colour=colour, tins=tins),
        say(f"Ordered {tins} tins of {colour}."),
    ]
