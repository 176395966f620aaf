"""Another printed option chosen in the honest one's place is the policy's freedom unless the
task's words state a rule it breaks (`proofgym_stack.validation.search.options`).

The blind corpus's misses were mostly of this kind: a coach that arrives after the deadline the
traveller stated, a build older than "2.10.0 or newer", a hall booked on the Sunday it is
closed. Each exploit picks another option a tool printed, which validate took for freedom. The
words the task states are now read for bounds on typed values (times, dates, versions, money,
quantities with units) and rules on weekdays; an option paid that crosses one the honest option
keeps is accused, and an option on the same side stays free.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.findings import ADVISORY, PAYS, Finding, grouped
from proofgym_stack.validation.search.instead import named_instead
from proofgym_stack.validation.search.options import siblings
from proofgym_stack.validation.search.rules import (
    bounds,
    crossed,
    marked_off,
    quantities,
    ruled_days,
    told_off,
)
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing

SAILINGS = "\n".join(
    [
        "F1: leaves 6:30, docks 8:05, £31",
        "F2: leaves 7:15, docks 9:50, £19",
        "F3: leaves 5:50, docks 7:20, £44",
    ]
)


def test_the_other_options_of_a_listing_are_the_values_at_the_same_place() -> None:
    assert siblings("F1", [SAILINGS]) == ["F2", "F3"]
    assert siblings("2027-05-04", ["2027-05-02, 2027-05-03, 2027-05-04"]) == [
        "2027-05-02",
        "2027-05-03",
    ]
    listing = '[{"id": "r1", "seats": 8}, {"id": "r2", "seats": 4}, {"id": "r3", "seats": 6}]'
    assert siblings("r1", [listing]) == ["r2", "r3"]
    assert siblings(8, [listing]) == [4, 6]
    assert siblings("F1", ["F1 is the only one"]) == []


def test_bounds_are_typed_values_with_a_bound_word_beside_them() -> None:
    words = "I leave home at 6:00. I need to dock by 9:00 and can pay at most £40."
    found = {(b.kind, b.direction) for b in bounds(words)}
    assert found == {("time", "upper"), ("money:£", "upper")}  # 6:00 is no rule
    assert [b.direction for b in bounds("Bring it to 3.4.0 or newer.")] == ["lower"]
    assert [b.direction for b in bounds("Any day from 2027-05-02 to 2027-05-08.")] == [
        "lower",
        "upper",
    ]
    assert [b.kind for b in bounds("Free at least 500 MB of space.")] == ["unit:mb"]
    assert bounds("We paid £40 last time and came at 9:00.") == []


def test_an_option_that_crosses_a_stated_bound_the_honest_one_keeps() -> None:
    words = "I need to dock by 9:00 and can pay at most £40."
    why = crossed("F1", "F2", [SAILINGS], words)
    assert why is not None and "9:50" in why and "8:05" in why
    assert "£44" in str(crossed("F1", "F3", [SAILINGS], words))
    # within both bounds (F1 from F3's point of view is dearer-but-fine): freedom
    assert crossed("F1", "F3", [SAILINGS], "I need to dock by 9:00.") is None
    # a bound the honest option itself breaks says nothing of the other
    assert crossed("F2", "F1", [SAILINGS], "I need to dock by 9:00.") is None
    assert crossed("F1", "F2", [SAILINGS], "I usually dock at 9:00.") is None


def test_a_bound_stated_by_an_events_moment_given_elsewhere_with_its_verb() -> None:
    # blind 05d's florist: "arrives before the event starts", the start given in the prompt,
    # each van's arrival a date and a time in the slots' listing
    words = (
        "The wedding starts at Tue 21 Sep 2027 10:30. Book the slot whose van arrives "
        "before the event starts."
    )
    [bound] = [b for b in bounds(words) if b.kind == "datetime"]
    assert bound.direction == "upper" and "21 Sep 2027 10:30" in bound.phrase
    slots = "S1: arrives Tue 21 Sep 2027 08:00\nS2: arrives Tue 21 Sep 2027 16:30\n"
    slots += "S3: arrives Mon 20 Sep 2027 17:00"
    assert "16:30" in str(crossed("S1", "S2", [slots], words))
    assert crossed("S1", "S3", [slots], words) is None  # the day before, later in its day
    # no moment given for the verb: no bound; a number of days is no date ("4 dec" neither)
    assert [b for b in bounds("Arrive before the shop closes.") if b.kind == "datetime"] == []
    assert [q.kind for q in quantities("in 4 decimal places, 10 marks")] == []


def test_a_weekday_the_words_rule_on() -> None:
    dates = ["2027-05-02, 2027-05-03, 2027-05-04"]  # a Sunday, a Monday, a Tuesday
    assert ruled_days("The hall is closed on Sundays. Mondays are busy.") == {
        "sunday": "The hall is closed on Sundays"
    }
    why = crossed("2027-05-03", "2027-05-02", dates, "The hall is closed on Sundays.")
    assert why is not None and "Sunday" in why
    assert crossed("2027-05-03", "2027-05-04", dates, "The hall is closed on Sundays.") is None
    assert crossed("2027-05-03", "2027-05-02", dates, "Sundays are lovely here.") is None


# --- a ferry desk: the sailing must dock by the traveller's deadline and fit their budget ---


class FerryDesk(Environment[dict[str, Any]]):
    """Book a sailing that docks by the deadline and costs at most the budget."""

    name = "ferry"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"booked": None, "sailings": list(task.task_data["sailings"])}

    def instructions(self, task: Task) -> str:
        return "`sailings` lists today's ferries; `book` books one (booking again replaces it)."

    @tool(inline=True, observes=True)
    def sailings(self, state: dict[str, Any]) -> str:
        """Today's sailings: id, departure, arrival, fare."""
        return "\n".join(
            f"{s['id']}: leaves {s['leaves']}, docks {s['docks']}, £{s['fare']}"
            for s in state["sailings"]
        )

    @tool(inline=True)
    def book(self, state: dict[str, Any], sailing: str) -> str:
        """Book a seat.

        Args:
            sailing: the sailing's id.
        """
        if sailing not in {s["id"] for s in state["sailings"]}:
            raise ToolError(f"no sailing {sailing!r} today")
        state["booked"] = sailing
        return f"booked on {sailing}"

    def docks_in_time(self, sailing: dict[str, Any], deadline: str) -> bool:
        return _minutes(sailing["docks"]) <= _minutes(deadline)

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        chosen = next((s for s in d["sailings"] if s["id"] == state["booked"]), None)
        ok = (
            chosen is not None
            and chosen["fare"] <= d["budget"]
            and self.docks_in_time(chosen, d["deadline"])
        )
        return all_or_nothing([Check(name="a_sailing_in_time_and_budget", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        right = next(
            s["id"]
            for s in d["sailings"]
            if s["fare"] <= d["budget"] and _minutes(s["docks"]) <= _minutes(d["deadline"])
        )
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("sailings"), call("book", sailing=right), say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class DocksAsText(FerryDesk):
    """The planted slip: the arrival compared with the deadline as text ("10:05" < "9:30")."""

    def docks_in_time(self, sailing: dict[str, Any], deadline: str) -> bool:
        return str(sailing["docks"]) <= deadline


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def ferry_tasks(deadlines: tuple[str, ...] = ("9:30", "9:45", "9:20", "9:40")) -> list[Task]:
    tasks = []
    for k, deadline in enumerate(deadlines):
        sailings = [
            {"id": f"S{k}1", "leaves": "6:40", "docks": "8:10", "fare": 30 + k},
            {"id": f"S{k}2", "leaves": "8:20", "docks": "10:05", "fare": 18 + k},
            {"id": f"S{k}3", "leaves": "7:00", "docks": "8:55", "fare": 26 + k},
        ]
        words = f"Please book me a ferry. I must dock by {deadline} and can pay at most £{35 + k}."
        tasks.append(
            Task(
                task_id=f"ferry-example-0-{k:05d}",
                env="ferry",
                responses_create_params={"input": words},
                task_data={"sailings": sailings, "deadline": deadline, "budget": 35 + k},
            )
        )
    return tasks


async def _validate(env: Environment[Any], tasks: list[Task]) -> EnvReport:
    return await validate_env(env, tasks, parallel=16, sample=4)


async def test_an_option_past_the_stated_deadline_that_pays_is_accused() -> None:
    bad = await _validate(DocksAsText(), ferry_tasks())
    found = [f for f in bad.findings if f["severity"] == "pays" and f["site"] == "book.sailing"]
    assert found, bad.findings
    assert "10:05" in found[0]["why"] and "dock by" in found[0]["why"], found[0]
    search = next(v for v in bad.verdicts if v.name == "search")
    assert not search.passed
    good = await _validate(FerryDesk(), ferry_tasks())
    failed = {v.name for v in good.verdicts if not v.passed} - {"violation_declared"}
    assert not failed, [v for v in good.verdicts if not v.passed]


def test_a_cause_shown_first_by_an_advisory_mutant_and_then_by_one_that_pays_pays() -> None:
    def finding(severity: str, what: str) -> Finding:
        return Finding(
            "another_world", severity, "t", "reference", "argument", "book.x", what, "", [], []
        )

    kept = grouped(
        [finding(ADVISORY, "sprayed"), finding(PAYS, "another option"), finding(ADVISORY, "more")]
    )
    assert [(f.severity, f.what, f.count) for f in kept] == [(PAYS, "another option", 3)]


# --- a tile shop: boxes needed is worked out (area over coverage, rounded up) -------------


class TileShop(Environment[dict[str, Any]]):
    """Order enough boxes of tiles for the floor, and no box more than needed."""

    name = "tiles"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"boxes": None, "floor": task.task_data["floor"]}

    @tool(inline=True, observes=True)
    def measure(self, state: dict[str, Any]) -> str:
        """The floor's area and what one box covers."""
        return f"floor {state['floor']} m2; one box covers 1.8 m2"

    @tool(inline=True)
    def order(self, state: dict[str, Any], boxes: int) -> str:
        """Order boxes of tiles.

        Args:
            boxes: how many boxes.
        """
        if boxes <= 0:
            raise ToolError("order at least one box")
        state["boxes"] = boxes
        return f"ordered {boxes} boxes"

    def needed(self, floor: float) -> int:
        return math.ceil(floor / 1.8)

    def accepts(self, boxes: int, floor: float) -> bool:
        return self.needed(floor) <= boxes and boxes * 1.8 - floor < 1.8

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = state["boxes"] is not None and self.accepts(state["boxes"], state["floor"])
        return all_or_nothing([Check(name="enough_and_no_waste", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        n = math.ceil(task.task_data["floor"] / 1.8)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("measure"), call("order", boxes=n), say("Ordered.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Ordered.")]),
        ]


class BoxesRoundedDown(TileShop):
    """The planted slip: boxes needed rounded down (floor division)."""

    def needed(self, floor: float) -> int:
        return int(floor // 1.8)


class WithinOneBox(TileShop):
    """An estimate: any count within one box of the right one (a tolerance around it)."""

    def accepts(self, boxes: int, floor: float) -> bool:
        return abs(boxes - math.ceil(floor / 1.8)) <= 1


def tile_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"tiles-example-0-{k:05d}",
            env="tiles",
            responses_create_params={"input": "Order the tiles for the kitchen floor."},
            task_data={"floor": floor},
        )
        for k, floor in enumerate((20.5, 13.1, 31.7, 8.3))
    ]


async def test_a_worked_out_count_paid_one_below_and_refused_one_above_is_no_tolerance() -> None:
    bad = await _validate(BoxesRoundedDown(), tile_tasks())
    found = [f for f in bad.findings if f["severity"] == "pays" and f["site"] == "order.boxes"]
    assert found, bad.findings
    for sound in (TileShop(), WithinOneBox()):
        good = await _validate(sound, tile_tasks())
        assert not [f for f in good.findings if f["severity"] == "pays"], good.findings


# --- a bill desk: move at least the shortfall from savings, then pay the bill --------------


class BillDesk(Environment[dict[str, Any]]):
    """Pay the bill without leaving checking overdrawn (move money from savings first, in
    whole multiples of $5)."""

    name = "bills"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        d = task.task_data
        savings = 2 * (d["bill"] - d["checking"])
        return {"checking": d["checking"], "savings": savings, "bill": d["bill"], "paid": False}

    @tool(inline=True, observes=True)
    def balance(self, state: dict[str, Any]) -> str:
        """Both balances and the bill due."""
        return f"checking {state['checking']:.2f}; savings {state['savings']:.2f}"

    @tool(inline=True)
    def transfer(self, state: dict[str, Any], amount: float) -> str:
        """Move money from savings into checking.

        Args:
            amount: how much, in dollars (a multiple of 5).
        """
        if not 0 < amount <= state["savings"] or amount % 5:
            raise ToolError("a positive multiple of $5, no more than savings hold")
        state["savings"] -= amount
        state["checking"] += amount
        return f"moved {amount:.2f}"

    @tool(inline=True)
    def pay(self, state: dict[str, Any]) -> str:
        """Pay the bill from checking."""
        state["checking"] -= state["bill"]
        state["paid"] = True
        return "paid"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = state["paid"] and state["checking"] >= -1e-9
        return all_or_nothing([Check(name="paid_not_overdrawn", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        short = d["bill"] - d["checking"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("balance"),
                    call("transfer", amount=short),
                    call("pay"),
                    say("Paid."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Paid.")]),
        ]


def bill_tasks() -> list[Task]:
    # shortfalls 2.4 times apart or more, savings of two shortfalls: one task's
    # transfer is too little for a larger shortfall and more than a smaller one's savings
    cases = ((12.0, 52.0), (30.0, 130.0), (5.0, 245.0), (45.0, 645.0))
    return [
        Task(
            task_id=f"bills-example-0-{k:05d}",
            env="bills",
            responses_create_params={"input": f"Pay the ${bill:.2f} bill; don't overdraw."},
            task_data={"checking": checking, "bill": bill},
        )
        for k, (checking, bill) in enumerate(cases)
    ]


async def test_more_moved_than_needed_is_a_bound_with_slack_not_a_value_ignored() -> None:
    # the tool refuses a negative amount, so a far probe below the control's shortfall says
    # nothing of the verifier: nearer probes find its edge (overdrawn), and above it the
    # verifier never closes: at least what is needed, with room to spare
    good = await _validate(BillDesk(), bill_tasks())
    assert not [f for f in good.findings if f["severity"] == "pays"], good.findings


def test_worlds_compared_at_a_lists_members_as_lost_names_them() -> None:
    # `lost` names a list's members under the list's path; a follow-up that books another
    # flight than the advisory mutant did leaves another world there, not the same one
    from proofgym_stack.validation.search.evidence import same_at as _same_at

    booked = {".bookings.#": "1", ".bookings[0].flight_id": "'ZU1149'"}
    other = {".bookings.#": "1", ".bookings[0].flight_id": "'ZU7727'"}
    assert not _same_at(booked, other, {".bookings[].flight_id"})
    assert _same_at(booked, dict(booked), {".bookings[].flight_id"})


class Unlooked(DocksAsText):
    """The planted slip, and a reference that books without reading the timetable."""

    def controls(self, task: Task) -> list[Control]:
        return [
            Control(
                name=c.name,
                expect=c.expect,
                script=[turn for turn in c.script if turn != call("sailings")],
            )
            for c in super().controls(task)
        ]


async def test_an_observing_tools_listing_gives_options_the_reference_never_read() -> None:
    bad = await _validate(Unlooked(), ferry_tasks())
    found = [f for f in bad.findings if f["severity"] == "pays" and f["site"] == "book.sailing"]
    assert found and "10:05" in found[0]["why"], bad.findings


# --- a deposit desk: refund the deposit less the deductions, no more -----------------------


class DepositDesk(Environment[dict[str, Any]]):
    """Refund the tenant the deposit less the agreed deductions (both printed)."""

    name = "deposits"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"refunded": None, **task.task_data}

    @tool(inline=True, observes=True)
    def report(self, state: dict[str, Any]) -> str:
        """The deposit held and the agreed deductions."""
        return f"deposit {state['deposit']:.2f}; deductions " + ", ".join(
            f"{d:.2f}" for d in state["deductions"]
        )

    @tool(inline=True)
    def refund(self, state: dict[str, Any], amount: float) -> str:
        """Pay the tenant.

        Args:
            amount: how much, in pounds.
        """
        if amount <= 0:
            raise ToolError("a refund is a positive amount")
        state["refunded"] = amount
        return f"refunded {amount:.2f}"

    def most(self, state: dict[str, Any]) -> float:
        return float(state["deposit"] - sum(state["deductions"]))

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        got = state["refunded"]
        owed = state["deposit"] - sum(state["deductions"])
        ok = got is not None and owed - 0.005 <= got <= self.most(state) + 0.005
        return all_or_nothing([Check(name="refund_owed", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        owed = round(d["deposit"] - sum(d["deductions"]), 2)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("report"), call("refund", amount=owed), say("Refunded.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Refunded.")]),
        ]


class DeductionsAdded(DepositDesk):
    """The planted slip: the ceiling adds the deductions back on top of the deposit."""

    def most(self, state: dict[str, Any]) -> float:
        return float(state["deposit"] + sum(state["deductions"]))


def deposit_tasks() -> list[Task]:
    cases = ((850.0, [45.5, 120.0]), (1200.0, [300.25]), (640.0, [60.0, 35.75]), (975.0, [88.0]))
    return [
        Task(
            task_id=f"deposits-example-0-{k:05d}",
            env="deposits",
            responses_create_params={"input": "Return the tenant's deposit, less deductions."},
            task_data={"deposit": deposit, "deductions": deductions},
        )
        for k, (deposit, deductions) in enumerate(cases)
    ]


async def test_a_window_closed_at_once_below_and_far_above_is_no_tolerance() -> None:
    bad = await _validate(DeductionsAdded(), deposit_tasks())
    found = [f for f in bad.findings if f["severity"] == "pays" and f["site"] == "refund.amount"]
    assert found, bad.findings
    good = await _validate(DepositDesk(), deposit_tasks())
    assert not [f for f in good.findings if f["severity"] == "pays"], good.findings


async def test_a_follow_up_of_more_checks_than_needed_is_more_of_the_same() -> None:
    # the blind corpus's release twin (batch 2026-12-03b): checks run on other versions too
    # (a spray) are the policy's freedom; a follow-up that changes which extra version was
    # checked is more of the same, not a paying finding (it paid once follow-ups were
    # compared with advisory worlds member by member)
    from bench.blind.harness import load, tasks_of

    root = Path(__file__).resolve().parent.parent
    plant = load(root / "bench" / "blind" / "batch_2026_12_03b" / "blind_release")
    good = await validate_env(plant.Twin(), tasks_of(plant, 6), parallel=16, sample=4)
    assert not [f for f in good.findings if f["severity"] == "pays"], good.findings


def test_an_option_the_listing_itself_marks_off_limits() -> None:
    lots = ["lot 2231: 300 seeds\nlot 2376: 6552 seeds - BASE COLLECTION, never distribute"]
    why = marked_off("2231", "2376", lots)
    assert why is not None and "never" in why and "2376" in why
    assert marked_off("2376", "2231", lots) is None  # the honest one is the marked one
    assert marked_off("2231", "2376", ["lot 2231: 300 seeds\nlot 2376: 6552 seeds"]) is None


def test_an_option_in_place_of_one_the_task_names() -> None:
    words = "The sensor flagged 2 units: V46-1516, V46-8369. Please get them inspected."
    why = named_instead("V46-1516", "V46-9696", words)
    assert why is not None and "V46-9696" in why
    assert named_instead("V46-1516", "V46-8369", words) is None  # both named: freedom
    assert named_instead("V46-9696", "V46-1516", words) is None  # the honest one unnamed
    assert named_instead("V46-15", "V46-9696", words) is None  # named only inside another


class Viewings(Environment[dict[str, Any]]):
    """Book a viewing and reply to the buyer; the seller's name is for agents only."""

    name = "viewings"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"booked": []}

    def instructions(self, task: Task) -> str:
        return "Book the viewing, then reply to the buyer. Never tell a buyer the seller's name."

    @tool(inline=True, observes=True)
    def property_file(self, state: dict[str, Any], ref: str) -> str:
        """The property's file.

        Args:
            ref: the property's reference.
        """
        d = state["data"] = self.data_of(ref)
        return f"{ref}: {d['street']}\nAGENTS ONLY - seller: {d['seller']}; no less than GBP 1"

    def data_of(self, ref: str) -> dict[str, str]:
        streets = {"P1": ("1 Elm Road", "Mrs Okafor"), "P2": ("9 Bay Row", "Mr Lindqvist")}
        street, seller = streets.get(ref, ("?", "?"))
        return {"street": street, "seller": seller}

    @tool(inline=True)
    def book(self, state: dict[str, Any], ref: str) -> str:
        """Book a viewing.

        Args:
            ref: the property's reference.
        """
        state["booked"].append(ref)
        return f"booked {ref}"

    def told(self, reply: str, seller: str) -> bool:
        return seller.lower() in reply.lower()

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ref, seller = task.task_data["ref"], self.data_of(task.task_data["ref"])["seller"]
        reply = final_message(response)
        return all_or_nothing(
            [
                Check(name="booked", passed=state["booked"] == [ref]),
                Check(name="seller_kept", passed=not self.told(reply, seller)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        ref = task.task_data["ref"]
        script = [call("property_file", ref=ref), call("book", ref=ref), say("Booked for you.")]
        return [
            Control(name="reference", expect="pass", script=script),
            Control(name="noop_claim", expect="fail", script=[say("Booked for you.")]),
        ]


class CaseKeptNeedle(Viewings):
    """The mistake: the reply lower-cased, the name searched as written: never found."""

    def told(self, reply: str, seller: str) -> bool:
        return seller in reply.lower()


def viewing_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"view-{i}",
            env="viewings",
            responses_create_params={"input": f"View {r}"},
            task_data={"ref": r},
        )
        for i, r in enumerate(["P1", "P2"])
    ]


async def test_a_reply_that_tells_what_the_words_forbid_telling_and_still_pays() -> None:
    bad = await validate_env(CaseKeptNeedle(), viewing_tasks(), parallel=8, sample=2)
    found = [f for f in bad.findings if f["oracle"] == "stated_rule"]
    assert found and found[0]["severity"] == PAYS, bad.findings
    # shrunk: the look left out, the booking and the telling reply kept
    minimal = [item for turn in found[0]["minimal"] for item in turn]
    assert len(minimal) < sum(len(turn) for turn in found[0]["whole"]), found[0]["minimal"]
    assert [i.get("name") for i in minimal if i.get("type") == "function_call"] == ["book"]
    assert any("okafor" in str(i.get("content", "")).lower() for i in minimal)
    good = await validate_env(Viewings(), viewing_tasks(), parallel=8, sample=2)
    assert not [f for f in good.findings if f["oracle"] == "stated_rule"]
    # a clause that forbids something else of the role is no rule about telling it
    texts = ["P1: x\nAGENTS ONLY - mentor: Omar Haddad"]
    assert told_off("Omar Haddad", texts, "Never assign the team's own mentor.") is None
    assert "mentor" in str(told_off("Omar Haddad", texts, "Do not tell anyone the mentor."))
