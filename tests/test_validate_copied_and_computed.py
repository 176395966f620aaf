"""Read off blind batch 05p: a number honest play copied from a tool's output, copied again
after a changed call (a quote without the permit, paid as quoted); a tool that computes from
the policy's own arguments (a calculator) shows no secret; a sign ignored on a quantity no
task makes signed is no accusation while the magnitude is graded; an answer ten times over (a
unit slip) is a near miss. Each on a plant that must
be caught (or an environment that must still be accused) and a sound twin."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation.search.acted_on import copies_moved
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- a number copied again --------------------------------------------------------------------


def test_a_copied_number_is_copied_again_from_what_the_changed_call_printed() -> None:
    honest = [
        call("quote", size="midi", road=True),
        call("book", size="midi", road=True, payment=512.0),
        say("Booked."),
    ]
    script = [call("quote", size="midi", road=False), *honest[1:]]
    was = ["midi for 7 days, on the road: £512.00", "booked, paid £512.00"]
    now = ["midi for 7 days, off the road: £482.00", "booked, paid £512.00"]
    (again,) = copies_moved(script, honest, was, now)
    assert '"payment": 482.0' in str(again.script[1]) and again.site == "book.payment"
    assert (again.old, again.new, again.leaf) == (512.0, 482.0, ("payment",))
    assert copies_moved(script, honest, was, now, frozenset({"quote"})) == [again]
    # an action's output that moved (a job on another press ends at another hour) is
    # re-planned from by honest play too: only a look's number is copied again
    assert copies_moved(script, honest, was, now, frozenset({"book"})) == []
    # the count of numbers differs: nothing lines up, nothing is copied
    assert copies_moved(script, honest, was, ["midi, off the road: £482.00", "booked"]) == []
    # a call more or less than honest play made: the outputs no longer line up with the calls
    assert copies_moved(script, honest, was, now[:1]) == []
    # calls swapped: the outputs are another tool's, nothing lines up
    assert copies_moved(script[::-1][1:] + script[-1:], honest, was, now[::-1]) == []
    # after a changed action (another room chosen), the cart's new price is honest play
    # re-planned, not a figure taken on trust: only the changed call's own output is copied
    rooms = [call("select", room="oak"), call("cart"), call("pay", amount=141.0), say("Paid.")]
    elm = [call("select", room="elm"), *rooms[1:]]
    cart = ["oak selected", "cart: 141.00", "paid"]
    assert copies_moved(elm, rooms, cart, ["elm selected", "cart: 126.00", "paid"]) == []
    # a number the task's words give (the price the customer was told) was not copied
    assert copies_moved(script, honest, was, now, given=frozenset({512.0})) == []
    # a number the policy sent itself, echoed back, was not copied from the output
    moved = [call("move", amount=90.0), call("pay", bill="B1", amount=90.0), say("Paid.")]
    changed = [call("move", amount=120.0), *moved[1:]]
    echoed = copies_moved(changed, moved, ["moved 90.00", "paid"], ["moved 120.00", "paid"])
    assert echoed == []


SIZES = {"mini": 180, "midi": 260, "maxi": 340}
PERMIT = 45


class Desk:
    """One session: the last quote and the bookings."""

    def __init__(self) -> None:
        self.last_quote = 0.0
        self.orders: list[dict[str, Any]] = []


class SkipDesk(Environment[Desk]):
    """Quote, then book and pay the booked order's price (a road permit on top)."""

    name = "skipdesk"

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk()

    def instructions(self, task: Task) -> str:
        return "quote(size, road) prices a skip; book(size, road, payment) books and pays."

    @tool(inline=True, observes=True)
    def quote(self, state: Desk, size: str, road: bool = False) -> str:
        """Quote a skip.

        Args:
            size: mini, midi or maxi.
            road: whether it stands on the road (a permit).
        """
        if size not in SIZES:
            raise ToolError("no such size")
        state.last_quote = float(SIZES[size] + (PERMIT if road else 0))
        return f"{size} skip: £{state.last_quote:.2f}"

    @tool(inline=True)
    def book(self, state: Desk, size: str, road: bool, payment: float) -> str:
        """Book a skip and take the payment.

        Args:
            size: mini, midi or maxi.
            road: whether it stands on the road.
            payment: the amount taken, in pounds.
        """
        if size not in SIZES or not 0 < payment < 10_000:
            raise ToolError("no such size, or the payment is out of range")
        state.orders.append({"size": size, "road": road, "payment": payment})
        return f"booked a {size} skip"

    def expected(self, state: Desk, order: dict[str, Any]) -> float:
        return float(SIZES[order["size"]] + (PERMIT if order["road"] else 0))

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        right = [
            o
            for o in state.orders
            if o["size"] == d["size"] and o["road"] and o["payment"] == self.expected(state, o)
        ]
        return all_or_nothing([Check(name="booked_and_paid", passed=len(right) == 1)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        price = float(SIZES[d["size"]] + PERMIT)
        done = say("Booked and paid.")
        book = call("book", size=d["size"], road=True, payment=price)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("quote", size=d["size"], road=True), book, done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_underpaid",
                expect="fail",
                script=[call("book", size=d["size"], road=True, payment=price - 10), done],
            ),
        ]


class PaysTheLastQuote(SkipDesk):
    """The planted slip: the payment checked against the last quote, whatever it priced."""

    def expected(self, state: Desk, order: dict[str, Any]) -> float:
        return state.last_quote


def skip_tasks() -> list[Task]:
    rows = [
        (f"Book a {s} skip on the road outside no. {n}.", {"size": s})
        for n, s in enumerate(["midi", "maxi", "mini", "midi"], 3)
    ]
    return tasks("skipdesk", rows)


async def test_a_payment_checked_against_the_last_quote_is_caught_only_on_the_plant() -> None:
    plant = await validate(PaysTheLastQuote(), skip_tasks())
    copied = [what for what, _ in pays(plant) if "copied again" in what]
    assert copied and "book.payment" in copied[0], pays(plant)
    twin = await validate(SkipDesk(), skip_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]


# -- a calculator computes; a sign no task carries --------------------------------------------

#: the last line, `Answer: <number>`: the sign is not read, a yield is never negative
_ANSWER = re.compile(r"Answer:\s*[-\u2212]?([0-9]+)\.?")


class Yield(Environment[None]):
    """How many litres a roof harvests: area times rainfall. A calculator is offered."""

    name = "rainyield"
    secret_fields = ("litres",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def instructions(self, task: Task) -> str:
        return "Use calc(a, b) if you like. End with 'Answer: <litres>'."

    @tool(inline=True, observes=True)
    def calc(self, state: None, a: int, b: int) -> str:
        """Multiply two numbers.

        Args:
            a: a whole number.
            b: another.
        """
        return str(a * b)

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        lines = final_message(response).strip().splitlines() or [""]
        found = _ANSWER.fullmatch(lines[-1].strip())
        right = found is not None and int(found.group(1)) == task.task_data["litres"]
        return all_or_nothing([Check(name="answer", passed=right)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        answer = say(f"Answer: {d['litres']}")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("calc", a=d["area"], b=d["mm"]), answer],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
            Control(
                name="violation_area_only", expect="fail", script=[say(f"Answer: {d['area']}")]
            ),
        ]


class ZerosStripped(Yield):
    """The planted slip: both numbers tidied with `rstrip("0")`, so a unit slip (ten times
    over) compares equal."""

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        lines = final_message(response).strip().splitlines() or [""]
        found = _ANSWER.fullmatch(lines[-1].strip())
        truth = str(task.task_data["litres"]).rstrip("0")
        right = found is not None and found.group(1).rstrip("0") == truth
        return all_or_nothing([Check(name="answer", passed=right)])


class Hinted(Yield):
    """A tool that knows the answer: it shows the task's own litres."""

    @tool(inline=True, observes=True)
    def calc(self, state: None, a: int, b: int) -> str:
        """Multiply two numbers.

        Args:
            a: a whole number.
            b: another.
        """
        return f"{a * b} (the expected yield is {self.hidden} litres)"

    hidden = 0

    def create_state(self, task: Task, workdir: Path | None) -> None:
        self.hidden = task.task_data["litres"]


class Keyed(Yield):
    """A table keyed by the arguments: every task's yield, looked up, not computed."""

    @tool(inline=True, observes=True)
    def calc(self, state: None, a: int, b: int) -> str:
        """Multiply two numbers.

        Args:
            a: a whole number.
            b: another.
        """
        table = {(t.task_data["area"], t.task_data["mm"]): t.task_data["litres"] for t in ROOFS}
        if (a, b) not in table:
            raise ToolError("no such roof on record")
        return str(table[(a, b)])


def yield_tasks(signed: bool = False) -> list[Task]:
    rows: list[tuple[str, dict[str, Any]]] = []
    for k, (area, mm) in enumerate([(120, 853), (95, 611), (143, 702), (88, 927)]):
        text = f"A roof of {area} m2 gets {mm} mm of rain a year. How many litres?"
        if signed:
            text += " (Report a shortfall as a negative number, e.g. -40.)"
        rows.append((text, {"area": area, "mm": mm, "litres": area * mm, "k": k}))
    return tasks("rainyield", rows)


ROOFS = yield_tasks()


def _verdict(report: Any, name: str) -> Any:
    return next(v for v in report.verdicts if v.name == name)


async def test_a_calculator_shows_no_secret_and_an_unread_sign_on_a_yield_is_advisory() -> None:
    report = await validate(Yield(), yield_tasks())
    assert not failed(report), [v for v in report.verdicts if not v.passed]
    assert "advisory" in _verdict(report, "answer_slot:near_miss").detail
    # a tool that shows the task's own answer still leaks, and so does a table keyed by the
    # arguments (the same on every task, but no row for an input no task uses)
    hinted = await validate(Hinted(), yield_tasks())
    assert "no_ground_truth_leak" in failed(hinted)
    keyed = await validate(Keyed(), yield_tasks())
    assert "no_ground_truth_leak" in failed(keyed)


async def test_a_unit_slip_ten_times_over_is_a_near_miss() -> None:
    report = await validate(ZerosStripped(), yield_tasks())
    assert "answer_slot:near_miss" in failed(report)
    assert "1023600" in _verdict(report, "answer_slot:near_miss").detail  # 102360 x 10


async def test_an_unread_sign_is_accused_where_the_task_s_quantities_are_signed() -> None:
    report = await validate(Yield(), yield_tasks(signed=True))
    assert "answer_slot:near_miss" in failed(report)
