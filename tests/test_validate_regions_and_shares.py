"""Calibrations read off blind batch 05j: another task's answer inside the region this task
accepts (`regions`), a stated allowance of whole steps (`tolerance.allows`), and a share that
is a share only where the one call a mutant changed may go (`shares`). A sound twin with a
region and an allowance is not accused; a plant whose every call is needed, one of them past
its cap and paid, is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.regions import as_number, beyond, differing_numbers, written_like
from proofgym_stack.validation.search.tolerance import allowed_sides, allows
from proofgym_stack.validation.shares import one_call_touched, without_call
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- another task's answer inside this task's region ---------------------------------------


def test_numbers_read_on_their_own_scale() -> None:
    assert as_number("11:40") == 700 and written_like(745, "11:40") == "12:25"
    day = as_number("2027-02-27")
    assert day is not None and written_like(day + 2, "2027-02-27") == "2027-03-01"
    assert as_number("11:40 am") is None and as_number(True) is None
    assert written_like(24 * 60, "23:59") is None  # past midnight: no clock time


def test_two_trajectories_that_differ_only_in_numbers() -> None:
    own = [call("order", product="Slate", boxes=7), call("note", text="hi")]
    other = [call("note", text="hi"), call("order", product="Slate", boxes=8)]
    diffs = differing_numbers(other, own)
    assert diffs == [(0, ("boxes",), 7, 8)]
    far = beyond(own, diffs, 4)
    assert far is not None and far[0][0]["arguments"] == {"product": "Slate", "boxes": 11}
    assert differing_numbers([call("order", product="Oak", boxes=8)], own[:1]) is None
    assert differing_numbers([*other, call("note", text="more")], own) is None


class Basket:
    """One order's lines."""

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}


class Tiles(Environment[Basket]):
    """Order the boxes a room needs, at most two spare: a region of right answers."""

    name = "tiles"
    #: the plant: "at most 2 beyond" written as a distance, paying 2 short as well
    two_sided = False

    def create_state(self, task: Task, workdir: Path | None) -> Basket:
        return Basket()

    def instructions(self, task: Task) -> str:
        return (
            "Order the boxes the room needs, and carry no more than 2 boxes beyond that. "
            "Order only the range the customer chose."
        )

    @tool
    def order(self, state: Basket, product: str, boxes: int) -> str:
        """Set the boxes of a range on the order.

        Args:
            product: the range.
            boxes: whole boxes, 1 to 500.
        """
        if not 1 <= boxes <= 500:
            raise ToolError("boxes must be 1 to 500", "out_of_range")
        state.lines[product] = boxes
        return f"{product}: {boxes} boxes"

    def verify(self, state: Basket, task: Task, response: Response) -> VerifyResult:
        need = task.task_data["need"]
        boxes = state.lines.get("Slate", 0)
        enough = abs(boxes - need) <= 2 if self.two_sided else need <= boxes <= need + 2
        return all_or_nothing(
            [
                Check(name="enough", passed=enough),
                Check(name="only_slate", passed=set(state.lines) <= {"Slate"}),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        need = task.task_data["need"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("order", product="Slate", boxes=need), say(f"{need} ordered.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Ordered.")]),
        ]


async def test_a_sound_region_with_a_stated_allowance_is_not_accused() -> None:
    rows = [
        (f"Room {n}: it needs {k} boxes of Slate.", {"need": k})
        for n, k in enumerate([7, 8, 12, 20])
    ]
    report = await validate(Tiles(), tasks("tiles", rows))
    assert "replay:cross_task" not in failed(report), report.verdicts
    assert "search" not in failed(report), pays(report)


class TilesTwoSided(Tiles):
    two_sided = True


async def test_an_allowance_on_one_side_paid_on_the_other_is_accused() -> None:
    rows = [(f"Room {n}: it needs {k} boxes.", {"need": k}) for n, k in enumerate([7, 9, 12, 20])]
    report = await validate(TilesTwoSided(), tasks("tiles", rows))
    moves = [re.search(r"boxes (\d+) -> (\d+)", what) for what, _ in pays(report)]
    assert any(m and int(m.group(2)) != int(m.group(1)) for m in moves), pays(report)


def test_an_allowance_in_so_many_words() -> None:
    assert allows("carry no more than 2 boxes beyond that", 2)
    assert allows("up to 3 spare seats", 3)
    assert not allows("2 boxes of Slate", 2) and not allows("order 2 more boxes", 3)
    assert allowed_sides("no more than 2 boxes beyond that", 2) == {1}
    assert allowed_sides("up to 3 fewer seats", 3) == {-1}
    assert allowed_sides("at most 2 minutes either way", 2) == {1, -1}
    assert allowed_sides("no more than 2 minutes early or late", 2) == {1, -1}
    assert not allows("order 2 more boxes", 2) and not allows("order 2 or more boxes", 2)


# -- a share only where the one call may go ------------------------------------------------


def test_the_one_call_a_mutant_touched() -> None:
    honest = [call("set", item="a", p=1), call("set", item="b", p=2)]
    changed = [call("set", item="a", p=1), call("set", item="b", p=3)]
    touched = one_call_touched(honest, changed)
    assert touched == ("set", '{"item": "b", "p": 2}')
    assert without_call(honest, *touched) == [call("set", item="a", p=1)]
    assert one_call_touched(honest, list(reversed(changed))) == touched
    assert (
        one_call_touched(honest, [call("set", item="a", p=9), call("set", item="b", p=9)]) is None
    )


class Menu:
    """The prices of one session."""

    def __init__(self, prices: dict[str, int]) -> None:
        self.prices = dict(prices)


def _canteen(over_new: bool) -> type[Environment[Menu]]:
    """Raise every item by as much as a 10% cap allows; the plant measures the rise over the
    new price (`over_new`), letting about 11% through."""

    class Canteen(Environment[Menu]):
        name = "canteen"

        def create_state(self, task: Task, workdir: Path | None) -> Menu:
            return Menu(task.task_data["prices"])

        def instructions(self, task: Task) -> str:
            return "Raise every price as far as the cap allows: at most 10% of its current price."

        @tool
        def set_price(self, state: Menu, item: str, pence: int) -> str:
            """Set an item's price.

            Args:
                item: the item.
                pence: the new price in pence.
            """
            if item not in state.prices:
                raise ToolError(f"no item {item!r}", "unknown")
            state.prices[item] = pence
            return f"{item}: {pence}p"

        def verify(self, state: Menu, task: Task, response: Response) -> VerifyResult:
            ok = []
            for item, old in task.task_data["prices"].items():
                new = state.prices[item]
                base = new if over_new else old
                ok.append(new >= old * 110 // 100 and (new - old) * 100 <= 10 * base)
            return all_or_nothing([Check(name="raised", passed=all(ok))])

        def controls(self, task: Task) -> list[Control]:
            sets = [
                call("set_price", item=k, pence=v * 110 // 100)
                for k, v in task.task_data["prices"].items()
            ]
            return [
                Control(name="reference", expect="pass", script=[*sets, say("Raised.")]),
                Control(name="noop_claim", expect="fail", script=[say("Raised.")]),
            ]

    return Canteen


def canteen_tasks() -> list[Task]:
    names = ["soup", "wrap", "curry", "pie", "toastie"]
    rows: list[tuple[str, dict[str, Any]]] = []
    for n in range(4):
        prices = {k: 240 + 37 * n + 19 * j for j, k in enumerate(names)}
        rows.append((f"Review {n}: {', '.join(names)}.", {"prices": prices}))
    return tasks("canteen", rows)


async def test_one_of_many_needed_calls_past_its_cap_pays_only_on_the_plant() -> None:
    plant = await validate(_canteen(over_new=True)(), canteen_tasks())
    assert any("set_price" in what for what, _ in pays(plant)), pays(plant)
    sound = await validate(_canteen(over_new=False)(), canteen_tasks())
    assert "search" not in failed(sound), pays(sound)


# -- a share grants its slack to any one call, not to one the verifier never reads ------------

ROOT_LINE = "PermitRootLogin"


def _hardening(reads_root: bool) -> type[Environment[dict[str, str]]]:
    """Apply a ticket's settings and turn root login off; the plant's root-login check reads
    only the first line of the file (`^` without MULTILINE): the setting is never read. (The
    sound twin wants the setting "no", as sshd reads it: not merely not "yes".)"""

    class Hardening(Environment[dict[str, str]]):
        name = "hardening"

        def create_state(self, task: Task, workdir: Path | None) -> dict[str, str]:
            return {"Banner": "none", ROOT_LINE: "yes"}

        def instructions(self, task: Task) -> str:
            return "Apply the ticket's settings with set_option, and turn root login off."

        @tool
        def set_option(self, state: dict[str, str], key: str, value: str) -> str:
            """Set one option of the server's configuration.

            Args:
                key: the option.
                value: its value.
            """
            if not key.isalnum():
                raise ToolError(f"no option {key!r}", "unknown")
            state[key] = value
            return f"{key} {value}"

        def verify(self, state: dict[str, str], task: Task, response: Response) -> VerifyResult:
            text = "\n".join(f"{k} {v}" for k, v in state.items())
            ticket = all(state.get(k) == v for k, v in task.task_data["ticket"].items())
            if reads_root:
                off = state.get(ROOT_LINE) == "no"
            else:
                off = not re.search(rf"^{ROOT_LINE} yes", text)
            return all_or_nothing(
                [Check(name="ticket", passed=ticket), Check(name="root", passed=off)]
            )

        def controls(self, task: Task) -> list[Control]:
            sets = [call("set_option", key=k, value=v) for k, v in task.task_data["ticket"].items()]
            done = say("Applied.")
            return [
                Control(
                    name="reference",
                    expect="pass",
                    script=[*sets, call("set_option", key=ROOT_LINE, value="no"), done],
                ),
                Control(name="noop_claim", expect="fail", script=[done]),
                Control(name="violation_ticket_only", expect="fail", script=[*sets[:1], done]),
            ]

    return Hardening


def hardening_tasks() -> list[Task]:
    keys = ["MaxAuthTries", "LoginGraceTime", "ClientAliveInterval", "X11Forwarding"]
    rows: list[tuple[str, dict[str, Any]]] = []
    for n in range(4):
        ticket = {k: str(3 + n + 7 * j) for j, k in enumerate(keys)}
        rows.append((f"Ticket {n}: {ticket}.", {"ticket": ticket}))
    return tasks("hardening", rows)


async def test_a_call_left_out_that_only_it_may_be_is_no_share() -> None:
    plant = await validate(_hardening(reads_root=False)(), hardening_tasks())
    assert any(what == "set_option left out" for what, _ in pays(plant)), pays(plant)
    sound = await validate(_hardening(reads_root=True)(), hardening_tasks())
    assert "search" not in failed(sound), pays(sound)
