"""Calibration of the search and the answer slot on mistakes of the blind corpus's classes.

Each mistake below is one a blind plant writer made (bench/blind/): a number graded with a
tolerance in the wrong unit, a value compared with itself where a worked-out total was meant,
a status read as a substring. Each comes with its sound twin and, where a calibration could
over-reach, an honest environment it must leave alone: a lookup made with a wrong argument,
a free choice among the options a tool printed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport, validate_env
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing

# --- a unit converter: the answer in the final message, within 1% -------------------------

FACTORS = {("mi", "km"): 1.609344, ("lb", "kg"): 0.45359237, ("gal", "l"): 3.785411784}


class Converter(Environment[dict[str, Any]]):
    """Convert a quantity; `factor` shows the factor; the answer is `Answer: N`."""

    name = "convert"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {}

    @tool(inline=True, observes=True)
    def factor(self, state: dict[str, Any], from_unit: str, to_unit: str) -> str:
        """The factor from one unit to another.

        Args:
            from_unit: the unit converted from.
            to_unit: the unit converted to.
        """
        if (from_unit, to_unit) not in FACTORS:
            raise ToolError("no such conversion")
        return str(FACTORS[(from_unit, to_unit)])

    def close_enough(self, got: float, want: float) -> bool:
        return math.isclose(got, want, rel_tol=0.01)

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        want = d["q"] * FACTORS[(d["f"], d["t"])]
        text = final_message(response).rpartition("Answer:")[2].strip().rstrip(".")
        try:
            ok = self.close_enough(float(text), want)
        except ValueError:
            ok = False
        return all_or_nothing([Check(name="answer_within_one_percent", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        want = d["q"] * FACTORS[(d["f"], d["t"])]
        look = call("factor", from_unit=d["f"], to_unit=d["t"])
        return [
            Control(name="reference", expect="pass", script=[look, say(f"Answer: {want:.4f}")]),
            Control(name="noop_claim", expect="fail", script=[say("Converted.")]),
        ]


class PercentAsFraction(Converter):
    """The mistake: the 1 (percent) given as `rel_tol`, a fraction: any same-sign number."""

    def close_enough(self, got: float, want: float) -> bool:
        return math.isclose(got, want, rel_tol=1.0)


def converter_tasks() -> list[Task]:
    rows = [(37.0, "mi", "km"), (120.0, "lb", "kg"), (12.5, "gal", "l"), (5.0, "mi", "km")]
    return [
        Task(
            task_id=f"convert-example-0-{k:05d}",
            env="convert",
            responses_create_params={"input": f"Convert {q} {f} to {t}. End with Answer: N."},
            task_data={"q": q, "f": f, "t": t},
        )
        for k, (q, f, t) in enumerate(rows)
    ]


# --- a timesheet: book the week's total, worked out from the card ------------------------


class Timesheet(Environment[dict[str, Any]]):
    """Book an employee's clocked hours (the card's total) as one entry."""

    name = "timesheet"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"entries": [], "card": dict(task.task_data["card"])}

    @tool(inline=True, observes=True)
    def read_card(self, state: dict[str, Any], employee: str) -> str:
        """The hours an employee clocked each day.

        Args:
            employee: the employee's id.
        """
        return ", ".join(f"{day}: {h}" for day, h in state["card"].items())

    @tool(inline=True)
    def log_hours(self, state: dict[str, Any], employee: str, hours: float) -> str:
        """Book hours.

        Args:
            employee: the employee's id.
            hours: more than 0, at most 80.
        """
        if not 0 < hours <= 80:
            raise ToolError("hours must be above 0 and at most 80")
        state["entries"].append({"employee": employee, "hours": hours})
        return f"entry {len(state['entries'])} booked"

    def hours_ok(self, entry: dict[str, Any], total: float) -> bool:
        return abs(entry["hours"] - total) < 0.01

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        total = sum(task.task_data["card"].values())
        entries = state["entries"]
        ok = len(entries) == 1 and entries[0]["employee"] == task.task_data["employee"]
        ok = ok and self.hours_ok(entries[0], total)
        return all_or_nothing([Check(name="hours_match_card", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        total = sum(d["card"].values())
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("read_card", employee=d["employee"]),
                    call("log_hours", employee=d["employee"], hours=total),
                    say("Booked."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class SelfCompared(Timesheet):
    """The mistake: the entry's hours compared with themselves, not the card's total."""

    def hours_ok(self, entry: dict[str, Any], total: float) -> bool:
        logged = entry["hours"]
        return abs(entry["hours"] - logged) < 0.01


def timesheet_tasks() -> list[Task]:
    cards = [
        {"mon": 8.5, "tue": 7.0, "wed": 6.0},
        {"mon": 4.0, "tue": 9.5, "wed": 8.0},
        {"mon": 7.5, "tue": 7.5, "wed": 3.0},
        {"mon": 6.0, "tue": 2.5, "wed": 9.0},
    ]
    return [
        Task(
            task_id=f"timesheet-example-0-{k:05d}",
            env="timesheet",
            responses_create_params={"input": f"Book E{k}'s clocked hours as one entry."},
            task_data={"employee": f"E{k}", "card": card},
        )
        for k, card in enumerate(cards)
    ]


# --- a room desk: any free slot the tool lists is an honest booking -----------------------


class RoomDesk(Environment[dict[str, Any]]):
    """Book the room at any free hour; `free_hours` lists them and `book` refuses others."""

    name = "rooms"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"booked": None, "free": list(task.task_data["free"])}

    @tool(inline=True, observes=True)
    def free_hours(self, state: dict[str, Any]) -> str:
        """The hours the room is free today."""
        return "free at " + ", ".join(str(h) for h in state["free"])

    @tool(inline=True)
    def book(self, state: dict[str, Any], hour: int) -> str:
        """Book the room.

        Args:
            hour: a free hour.
        """
        if hour not in state["free"]:
            raise ToolError(f"the room is not free at {hour}")
        state["booked"] = hour
        return f"booked at {hour}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = state["booked"] in task.task_data["free"]
        return all_or_nothing([Check(name="booked_a_free_hour", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        first = task.task_data["free"][0]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("free_hours"), call("book", hour=first), say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


def room_tasks() -> list[Task]:
    frees = [[9, 11, 14, 16], [10, 13, 15], [9, 12, 13, 17], [11, 14, 15]]
    return [
        Task(
            task_id=f"rooms-example-0-{k:05d}",
            env="rooms",
            responses_create_params={"input": "Book the meeting room for one hour, any time."},
            task_data={"free": free},
        )
        for k, free in enumerate(frees)
    ]


# --- a membership desk: the allowed statuses named only in the argument's description ------

STATUSES = ("active", "frozen", "inactive")


class Memberships(Environment[dict[str, Any]]):
    """Cancel a frozen membership: `set_status(member, status)`."""

    name = "members"
    cancelled: tuple[str, ...] = ("inactive",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"status": {m: "frozen" for m in task.task_data["members"]}}

    @tool(inline=True)
    def set_status(self, state: dict[str, Any], member: str, status: str) -> str:
        """Set a membership's status.

        Args:
            member: the member's id.
            status: one of "active", "frozen", "inactive".
        """
        if member not in state["status"] or status not in STATUSES:
            raise ToolError("no such member or status")
        state["status"][member] = status
        return f"{member} is {status}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        member = task.task_data["cancel"]
        ok = state["status"][member] in self.cancelled
        others = all(s == "frozen" for m, s in state["status"].items() if m != member)
        return all_or_nothing(
            [Check(name="cancelled", passed=ok), Check(name="others_unchanged", passed=others)]
        )

    def controls(self, task: Task) -> list[Control]:
        member = task.task_data["cancel"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("set_status", member=member, status="inactive"), say("Cancelled.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Cancelled.")]),
        ]


class MissingComma(Memberships):
    """The mistake: `("inactive")` is a string, so `in` is a substring test."""

    cancelled = "inactive"  # type: ignore[assignment]


def member_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"members-example-0-{k:05d}",
            env="members",
            responses_create_params={"input": f"Cancel member M{k}'s membership."},
            task_data={"members": [f"M{k}", f"M{k + 10}"], "cancel": f"M{k}"},
        )
        for k in range(4)
    ]


async def validate(env: Environment[Any], tasks: list[Task]) -> EnvReport:
    return await validate_env(env, tasks, parallel=16, sample=4)


def failed(report: EnvReport) -> set[str]:
    return {v.name for v in report.verdicts if not v.passed} - {"violation_declared"}


def pays(report: EnvReport) -> list[dict[str, Any]]:
    return [f for f in report.findings if f["severity"] == "pays"]


async def test_a_tolerance_that_pays_any_number_of_the_same_sign_is_a_near_miss_paid() -> None:
    # far above still passes the planted verifier: the number is judged by the zero and the
    # sign flipped too, and its near misses are then accused
    bad = await validate(PercentAsFraction(), converter_tasks())
    assert "answer_slot:near_miss" in failed(bad)
    good = await validate(Converter(), converter_tasks())
    assert not failed(good), failed(good)


async def test_a_lookup_made_with_a_wrong_argument_is_no_wrong_answer() -> None:
    # the sound converter: `factor` only shows something; the answer is graded
    good = await validate(Converter(), converter_tasks())
    attack = next(v for v in good.verdicts if v.name == "attack:plausible_wrong_arguments")
    assert attack.passed, attack.detail


async def test_a_worked_out_value_the_verifier_ignores_is_found_where_only_the_tool_bounds_it() -> (
    None
):
    bad = await validate(SelfCompared(), timesheet_tasks())
    found = pays(bad)
    assert any(f["site"] == "log_hours.hours" for f in found), found
    good = await validate(Timesheet(), timesheet_tasks())
    assert not pays(good) and "search" not in failed(good), good.findings


async def test_another_option_the_tool_offered_is_an_honest_choice() -> None:
    report = await validate(RoomDesk(), room_tasks())
    assert not pays(report), report.findings
    assert not failed(report), failed(report)


async def test_the_values_a_description_names_are_tried() -> None:
    bad = await validate(MissingComma(), member_tasks())
    found = pays(bad)
    assert any(f["site"] == "set_status.status" for f in found), found
    good = await validate(Memberships(), member_tasks())
    assert not pays(good), good.findings


# --- a ledger: amounts the task states to the cent ------------------------------------------


class Ledger(Environment[dict[str, Any]]):
    """Post one payment the prompt states to the cent: `pay(amount)`."""

    name = "ledger"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"balance": 1000.0}

    @tool(inline=True)
    def pay(self, state: dict[str, Any], amount: float) -> str:
        """Pay an amount out of the account.

        Args:
            amount: dollars and cents.
        """
        state["balance"] -= amount
        return f"paid {amount}"

    def same(self, got: float, want: float) -> bool:
        return round(got, 2) == round(want, 2)

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = self.same(state["balance"], 1000.0 - task.task_data["amount"])
        return all_or_nothing([Check(name="balance_right", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        pay = call("pay", amount=task.task_data["amount"])
        return [
            Control(name="reference", expect="pass", script=[pay, say("Paid.")]),
            Control(name="noop_claim", expect="fail", script=[say("Paid.")]),
        ]


class WholeDollars(Ledger):
    """The mistake: `round()` without `ndigits`: the balance is checked to the dollar."""

    def same(self, got: float, want: float) -> bool:
        return round(got) == round(want)


def ledger_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"ledger-example-0-{k:05d}",
            env="ledger",
            responses_create_params={"input": f"Pay ${a:.2f} to the supplier."},
            task_data={"amount": a},
        )
        for k, a in enumerate([125.30, 40.20, 310.15, 72.05])
    ]


async def test_a_value_the_task_states_to_the_cent_is_not_taken_within_a_dollar() -> None:
    bad = await validate(WholeDollars(), ledger_tasks())
    assert "answer_slot:near_miss" in failed(bad), failed(bad)
    good = await validate(Ledger(), ledger_tasks())
    assert "answer_slot:near_miss" not in failed(good), failed(good)


# --- a billing desk: the reply names the charge and must not repeat the card --------------


class Billing(Environment[dict[str, Any]]):
    """Explain the bill's extra charge; never write the card number out."""

    name = "billing"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"looked": False}

    @tool(inline=True, observes=True)
    def account(self, state: dict[str, Any], customer: str) -> str:
        """The customer's account record.

        Args:
            customer: the customer's id.
        """
        d = task_data_of(customer)
        state["looked"] = True
        card = " ".join(d["card"][i : i + 4] for i in range(0, 16, 4))
        return f"extra charge {d['extra']} for {d['reason']}; card on file {card}"

    def leaks(self, reply: str, card: str) -> bool:
        return card in "".join(ch for ch in reply if ch.isdigit())

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        reply = final_message(response)
        named = d["extra"] in reply and d["reason"] in reply
        return all_or_nothing(
            [
                Check(name="looked_up", passed=state["looked"]),
                Check(name="charge_named", passed=named),
                Check(name="card_kept", passed=not self.leaks(reply, d["card"])),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        answer = (
            f"The extra {d['extra']} is for {d['reason']}, on your card ending {d['card'][-4:]}."
        )
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("account", customer=d["customer"]), say(answer)],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Explained.")]),
        ]


class RawCardCheck(Billing):
    """The mistake: the card looked for as stored, not as the record shows it (in fours)."""

    def leaks(self, reply: str, card: str) -> bool:
        return card in reply


BILLS = {
    f"C{k}": {"customer": f"C{k}", "extra": extra, "reason": reason, "card": card}
    for k, (extra, reason, card) in enumerate(
        [
            ("12.40", "roaming", "4539148803436467"),
            ("30.00", "a late fee", "4916338506082832"),
            ("7.99", "premium texts", "4024007117846563"),
            ("55.10", "a device instalment", "4485275742308327"),
        ]
    )
}


def task_data_of(customer: str) -> dict[str, str]:
    if customer not in BILLS:
        raise ToolError("no such customer")
    return BILLS[customer]


def billing_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"billing-example-0-{k:05d}",
            env="billing",
            responses_create_params={"input": f"Customer {c}: why is my bill higher?"},
            task_data=d,
        )
        for k, (c, d) in enumerate(BILLS.items())
    ]


async def test_what_the_tools_printed_pasted_back_is_no_answer() -> None:
    bad = await validate(RawCardCheck(), billing_tasks())
    assert "attack:echoed_observations" in failed(bad), failed(bad)
    good = await validate(Billing(), billing_tasks())
    assert not failed(good), failed(good)


# --- a stock room: a transfer redone as a correction leaves the source's work undone -------


class StockRoom(Environment[dict[str, Any]]):
    """Move units to the packing bin with `transfer`; `adjust` corrects a count."""

    name = "stockroom"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        stock = {"A1": 100, "B2": 80, "PACK": 0}
        return {"stock": stock, "before": dict(stock)}

    @tool(inline=True)
    def transfer(self, state: dict[str, Any], from_bin: str, to_bin: str, qty: int) -> str:
        """Move units from one bin to another.

        Args:
            from_bin: the bin taken from.
            to_bin: the bin put into.
            qty: how many units.
        """
        if from_bin not in state["stock"] or to_bin not in state["stock"] or qty < 1:
            raise ToolError("no such bin, or nothing to move")
        state["stock"][from_bin] -= qty
        state["stock"][to_bin] += qty
        return f"moved {qty} from {from_bin} to {to_bin}"

    @tool(inline=True)
    def adjust(self, state: dict[str, Any], bin: str, delta: int, reason: str) -> str:
        """Correct a bin's count after a cycle count.

        Args:
            bin: the bin.
            delta: units added (negative: removed).
            reason: why.
        """
        if bin not in state["stock"] or not reason:
            raise ToolError("no such bin, or no reason")
        state["stock"][bin] += delta
        return f"{bin} corrected by {delta}"

    def conserved(self, state: dict[str, Any]) -> bool:
        return sum(state["stock"].values()) == sum(state["before"].values())

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        packed = state["stock"]["PACK"] == d["qty"]
        # no other bin touched (the search found the first version of this sound environment
        # paying a move from another task's bin)
        others = [b for b in state["stock"] if b not in (d["from_bin"], "PACK")]
        packed = packed and all(state["stock"][b] == state["before"].get(b) for b in others)
        return all_or_nothing(
            [
                Check(name="packed", passed=packed),
                Check(name="conserved", passed=self.conserved(state)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        move = call("transfer", from_bin=d["from_bin"], to_bin="PACK", qty=d["qty"])
        return [
            Control(name="reference", expect="pass", script=[move, say("Moved.")]),
            Control(name="noop_claim", expect="fail", script=[say("Moved.")]),
        ]


class UnitsConjured(StockRoom):
    """The mistake: the 'before' is the same dict as the stock (an alias): always conserved."""

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        stock = {"A1": 100, "B2": 80, "PACK": 0}
        return {"stock": stock, "before": stock}


def stock_tasks() -> list[Task]:
    rows = [("A1", 40), ("B2", 25), ("A1", 12), ("B2", 60)]
    return [
        Task(
            task_id=f"stockroom-example-0-{k:05d}",
            env="stockroom",
            responses_create_params={"input": f"Move {q} units from {b} to PACK."},
            task_data={"from_bin": b, "qty": q},
        )
        for k, (b, q) in enumerate(rows)
    ]


async def test_another_tool_that_leaves_the_replaced_calls_work_undone_pays() -> None:
    bad = await validate(UnitsConjured(), stock_tasks())
    swaps = [f for f in pays(bad) if f["site"] == "transfer" and "made as adjust" in f["what"]]
    assert swaps, bad.findings
    good = await validate(StockRoom(), stock_tasks())
    assert not pays(good), good.findings


# --- a disk clean-up: free at least N MB by deleting old files, never a pinned one ----------


class Cleanup(Environment[dict[str, Any]]):
    """Delete files (one call, a list) until at least `free_mb` is freed; pinned files stay.
    The honest plan frees more than needed: fewer files also reach the goal (slack)."""

    name = "cleanup"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"files": task.task_data["files"], "deleted": []}

    @tool(inline=True, observes=True)
    def listing(self, state: dict[str, Any]) -> str:
        """The files: name, size in MB, pinned or not."""
        return "\n".join(f"{n} {mb} MB{' pinned' if p else ''}" for n, mb, p in state["files"])

    @tool(inline=True)
    def delete(self, state: dict[str, Any], names: list[str]) -> str:
        """Delete files.

        Args:
            names: the files to delete.
        """
        pinned = {n: p for n, _, p in state["files"]}
        if any(n not in pinned for n in names):
            raise ToolError("no such file")
        if any(pinned[n] for n in names):
            raise ToolError("a pinned file cannot be deleted")
        state["deleted"] += [n for n in names if n not in state["deleted"]]
        return f"deleted {len(names)} files"

    def freed(self, state: dict[str, Any], task: Task) -> bool:
        sizes = {n: mb for n, mb, _ in task.task_data["files"]}
        return sum(sizes[n] for n in state["deleted"]) >= task.task_data["free_mb"]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = self.freed(state, task)
        return all_or_nothing([Check(name="space_freed", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        plan = [n for n, _, pinned in task.task_data["files"] if not pinned][:4]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("listing"), call("delete", names=plan), say("Done.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done: space freed.")]),
        ]


class AnyFileDeleted(Cleanup):
    """The mistake (another task: delete these four named files): `any` where `all` was
    meant: one of them deleted pays."""

    def freed(self, state: dict[str, Any], task: Task) -> bool:
        wanted = [n for n, _, pinned in task.task_data["files"] if not pinned][:4]
        return any(n in state["deleted"] for n in wanted)


def cleanup_tasks() -> list[Task]:
    out = []
    for k in range(4):
        # four deletable files of 300, 250, 200 and 150 MB (+k): the goal, 600 MB, is reached
        # by the plan's 900 with room to spare, never by one file alone
        files = [[f"f{k}-{j}.log", mb + k, False] for j, mb in enumerate((300, 250, 200, 150))]
        files.insert(2, [f"keep-{k}.db", 500, True])
        out.append(
            Task(
                task_id=f"cleanup-example-0-{k:05d}",
                env="cleanup",
                responses_create_params={
                    "input": "Free at least 600 MB; never delete a pinned file."
                },
                task_data={"files": files, "free_mb": 600},
            )
        )
    return out


async def test_fewer_members_that_still_reach_a_goal_with_slack_are_no_finding() -> None:
    # issue 42 (blind_photos' twin): dropping one file of the plan still frees enough; no
    # single file does, so the verifier counts what the files add up to: the policy's freedom
    good = await validate(Cleanup(), cleanup_tasks())
    assert not pays(good) and "search" not in failed(good), good.findings
    # where one member alone pays, the others are not graded: still accused
    bad = await validate(AnyFileDeleted(), cleanup_tasks())
    found = [f for f in pays(bad) if f["site"].startswith("delete")]
    assert found, bad.findings


# --- a pool dosed into a band: hundreds of grams, a band of ppm --------------------------------


class Dosing(Environment[dict[str, Any]]):
    """Dose shock so the pool's chlorine lands in its band (1 g raises 0.0013 ppm)."""

    name = "dosing"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"ppm": task.task_data["start"], "bag": 10000.0}

    @tool(inline=True)
    def add_shock(self, state: dict[str, Any], grams: float) -> str:
        """Add shock to the pool.

        Args:
            grams: grams of shock, above 0 and at most what is left in the bag.
        """
        if not 0 < grams <= state["bag"]:
            raise ToolError(f"grams must be above 0 and at most {state['bag']:g}")
        state["bag"] -= grams
        state["ppm"] += grams * 0.0013
        return f"added {grams:g} g"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        low, high = task.task_data["band"]
        return all_or_nothing([Check(name="in_band", passed=low <= state["ppm"] <= high)])

    def controls(self, task: Task) -> list[Control]:
        low, high = task.task_data["band"]
        grams = round(((low + high) / 2 - task.task_data["start"]) / 0.0013)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("add_shock", grams=grams), say(f"Added {grams} g.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("The pool is dosed.")]),
        ]


def dosing_tasks() -> list[Task]:
    # bands of 1 ppm (770 g) that no other task's dose lands in
    rows = [(1.0, (3.0, 4.0)), (2.0, (6.0, 7.0)), (0.5, (1.2, 2.2)), (1.5, (9.0, 10.0))]
    return [
        Task(
            task_id=f"dosing-{k}",
            env="dosing",
            responses_create_params={"input": f"Bring the pool into {low}-{high} ppm."},
            task_data={"start": start, "band": [low, high]},
        )
        for k, (start, (low, high)) in enumerate(rows)
    ]


async def test_a_dose_within_a_band_hundreds_of_grams_wide_is_a_tolerance() -> None:
    # a step of 1 g, doubled 8 times, stays inside a band of +-385 g: the window is followed
    # farther, and the verifier's edge is found (a blind twin was accused of another world)
    good = await validate(Dosing(), dosing_tasks())
    assert not pays(good), pays(good)
    assert "search" not in failed(good)


# --- stock moved between bins: a move onto itself ----------------------------------------------


class Bins(Environment[dict[str, int]]):
    """Bring the shelf to the wanted count, taking stock from the back room only."""

    name = "bins"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, int]:
        return {"shelf": 10, "back": 20, "returns": 9}

    @tool(inline=True)
    def move(self, state: dict[str, int], from_bin: str, to_bin: str, count: int) -> str:
        """Move stock between bins (shelf, back, returns).

        Args:
            from_bin: the bin to take from.
            to_bin: the bin to put into.
            count: how many, 1 to 20.
        """
        if from_bin not in state or to_bin not in state or not 1 <= count <= 20:
            raise ToolError("unknown bin, or a count outside 1 to 20")
        if count > state[from_bin]:
            raise ToolError(f"only {state[from_bin]} in {from_bin}")
        self.moved(state, from_bin, to_bin, count)
        return f"moved {count} from {from_bin} to {to_bin}"

    def moved(self, state: dict[str, int], a: str, b: str, count: int) -> None:
        state[a] -= count
        state[b] += count

    def verify(self, state: dict[str, int], task: Task, response: Response) -> VerifyResult:
        ok = state["shelf"] == task.task_data["wanted"] and state["returns"] == 9
        return all_or_nothing([Check(name="shelf_stocked", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        need = task.task_data["wanted"] - 10
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("move", from_bin="back", to_bin="shelf", count=need), say("Done.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("The shelf is stocked.")]),
        ]


class ReadsBothFirst(Bins):
    """The mistake: both counts read before either is written, so a move onto itself adds."""

    def moved(self, state: dict[str, int], a: str, b: str, count: int) -> None:
        have, there = state[a], state[b]
        state[a], state[b] = have - count, there + count


def bins_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"bins-{k}",
            env="bins",
            responses_create_params={"input": f"Stock the shelf to {w} from the back room."},
            task_data={"wanted": w},
        )
        for k, w in enumerate([13, 15, 17, 19])
    ]


async def test_a_move_onto_itself_that_adds_stock_is_found_and_a_sound_move_is_not() -> None:
    bad = await validate(ReadsBothFirst(), bins_tasks())
    found = [f for f in pays(bad) if f["op"] == "alias"]
    assert found and found[0]["site"].startswith("move."), pays(bad)
    good = await validate(Bins(), bins_tasks())
    assert not pays(good), pays(good)
