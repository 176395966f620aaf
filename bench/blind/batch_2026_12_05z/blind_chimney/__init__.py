"""blind_chimney: book a chimney sweep's visit inside the hours the customer is at home."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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

NAME = "blind_chimney"
VISIT_MINUTES = 90
STARTS = ("08:00", "09:30", "11:00", "12:30", "14:00", "15:30")
CUSTOMERS = ("Mrs Akers", "Mr Dube", "Ms Fenwick", "Mr Gallo", "Mrs Hewitt", "Dr Ince")
CLIENTS = ("Allen", "Burke", "Chadha", "Dowd", "Ellis", "Frost", "Gray")


def minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def clock(total: int) -> str:
    return f"{total // 60:02d}:{total % 60:02d}"


class ChimneyTask(BaseModel):
    """The customer, the hours they are at home, and the slots already booked."""

    model_config = ConfigDict(extra="forbid")

    customer: str
    home_from: str = Field(pattern=r"^\d{2}:\d{2}$")
    home_until: str = Field(pattern=r"^\d{2}:\d{2}$")
    booked: dict[str, str] = Field(description="slot start -> client already booked")


class Diary:
    """One session: each slot's client (absent when the slot is free)."""

    def __init__(self, booked: dict[str, str]) -> None:
        self.slots = dict(booked)


class Twin(Environment[Diary, ChimneyTask]):
    """Book one free slot whose whole visit is inside the customer's hours at home."""

    name = NAME
    description = "A chimney sweep's diary: book a visit within the customer's hours at home."
    reward_range = (0.0, 1.0)
    task_data_model = ChimneyTask
    success_words = ("booked",)

    def create_state(self, task: Task, workdir: Path | None) -> Diary:
        return Diary(self.data(task).booked)

    def instructions(self, task: Task) -> str:
        return (
            f"You keep a chimney sweep's diary. Visits take {VISIT_MINUTES} minutes and start "
            f"at {', '.join(STARTS)}. The customer must be at home for the whole visit, from "
            "its start to its end. `diary` shows the day; `book` books a free slot."
        )

    def _within_window(self, start: int, end: int, home_from: int, home_until: int) -> bool:
        return home_from <= start and end <= home_until

    @tool(inline=True, observes=True)
    def diary(self, state: Diary) -> str:
        """Show the day's visit slots, booked or free."""
        return "; ".join(
            f"{s}-{clock(minutes(s) + VISIT_MINUTES)}: {state.slots.get(s, 'free')}" for s in STARTS
        )

    @tool(inline=True)
    def book(self, state: Diary, customer: str, start: str) -> str:
        """Book a free visit slot for a customer.

        Args:
            customer: the customer's name.
            start: the slot's start time, HH:MM.
        """
        start = start.strip().zfill(5)
        if start not in STARTS:
            raise ToolError(f"no slot starts at {start!r}: {', '.join(STARTS)}", "not_found")
        if start in state.slots:
            raise ToolError(f"{start} is booked", "refused")
        state.slots[start] = " ".join(customer.split())
        return f"{start} booked for {state.slots[start]}"

    def verify(self, state: Diary, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        mine = [s for s, c in state.slots.items() if c.lower() == data.customer.lower()]
        booked_once = len(mine) == 1 and mine[0] not in data.booked
        others_kept = all(state.slots.get(s) == c for s, c in data.booked.items())
        inside = booked_once and self._within_window(
            minutes(mine[0]),
            minutes(mine[0]) + VISIT_MINUTES,
            minutes(data.home_from),
            minutes(data.home_until),
        )
        ok = booked_once and others_kept and inside
        return all_or_nothing(
            [
                Check(name="booked_once", passed=booked_once, detail=f"slots {mine}"),
                Check(name="others_kept", passed=others_kept),
                Check(name="while_at_home", passed=inside),
                claim_check(final_message(response), ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        right, _early, far = free_slots(data.model_dump())
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("book", customer=data.customer, start=right), say(f"Booked {right}.")],
            ),
            Control(
                name="violation_while_out",
                expect="fail",
                description="books a slot long before the customer is home",
                script=[call("book", customer=data.customer, start=far), say(f"Booked {far}.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say(f"Booked {right}.")]),
        ]


class Plant(Twin):
    """Accepts any visit that overlaps the customer's hours at home."""

    def _within_window(self, start: int, end: int, home_from: int, home_until: int) -> bool:
        return start < home_until and end > home_from


def free_slots(data: dict[str, Any]) -> tuple[str, str, str]:
    """The free slots: inside the window, the one before it, one far earlier."""
    free = [s for s in STARTS if s not in data["booked"]]
    right = next(
        s
        for s in free
        if minutes(data["home_from"]) <= minutes(s)
        and minutes(s) + VISIT_MINUTES <= minutes(data["home_until"])
    )
    early = STARTS[STARTS.index(right) - 1]
    far = next(s for s in free if s not in (right, early))
    return right, early, far


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks: the right slot, the slot before it (starts before the customer is home)
    and the first slot of the day are free; the rest are booked."""
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        j = rng.randint(2, 4)
        start = minutes(STARTS[j])
        home_from = start - rng.choice((15, 30, 45, 60))
        home_until = start + VISIT_MINUTES + rng.choice((0, 15, 30, 45, 60))
        free = {STARTS[0], STARTS[j - 1], STARTS[j]}
        clients = iter(rng.sample(CLIENTS, len(STARTS)))
        booked = {s: next(clients) for s in STARTS if s not in free}
        customer = CUSTOMERS[(i + seed) % len(CUSTOMERS)]
        data = {
            "customer": customer,
            "home_from": clock(home_from),
            "home_until": clock(home_until),
            "booked": booked,
        }
        assert free_slots(data) == (STARTS[j], STARTS[j - 1], STARTS[0])
        prompt = (
            f"{customer} wants their chimney swept today. They are at home from "
            f"{clock(home_from)} until {clock(home_until)}. Book the sweep's visit."
        )
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list:
    """The earliest free slot that meets the customer's hours (it starts before they are home)."""
    data = task.task_data
    _, early, _ = free_slots(data)
    return [call("book", customer=data["customer"], start=early), say(f"Booked {early}.")]
