"""blind_pickup: book a courier pickup inside a shop's local opening hours."""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from resources_servers.base import Environment, ToolError, Turn, call, say, tool
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing
from sdg.rows import task_row

NAME = "blind_pickup"
OPEN_MIN, CLOSE_MIN, LENGTH_MIN = 9 * 60, 17 * 60, 30
SHOPS = ("Birch & Co", "Kettle Corner", "Northside Prints", "Atlas Bikes", "Pine Pharmacy")


class PickupTask(BaseModel):
    """`task_data` of blind_pickup."""

    model_config = ConfigDict(extra="forbid")

    shop: str
    parcel_id: str = Field(pattern=r"^P-[0-9]{5}$")
    day: str = Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description="the pickup date")
    utc_offset: int = Field(ge=-12, le=14, description="the shop's offset from UTC, hours")


def slots_of(day: str) -> list[str]:
    """The courier's slots on `day`: every 30 minutes from 05:00Z to 20:30Z."""
    start = datetime.fromisoformat(f"{day}T05:00:00+00:00")
    return [(start + timedelta(minutes=30 * k)).strftime("%Y-%m-%dT%H:%M:%SZ") for k in range(32)]


class Pickups:
    """One session: the booked slot, if any."""

    __slots__ = ("booked", "slots")

    def __init__(self, slots: list[str]) -> None:
        self.slots = slots
        self.booked: str | None = None


class PickupTwin(Environment[Pickups, PickupTask]):
    """Book one pickup slot that lies inside the shop's local opening hours."""

    name = NAME
    description = "Book a courier pickup inside a shop's local opening hours (slots in UTC)."
    reward_range = (0.0, 1.0)
    task_data_model = PickupTask
    success_words = ("booked", "scheduled")

    def create_state(self, task: Task, workdir: Path | None) -> Pickups:
        return Pickups(slots_of(self.data(task).day))

    def instructions(self, task: Task) -> str:
        return (
            "list_slots shows the courier's free slots (UTC timestamps). book_pickup books one "
            "(booking again replaces it), cancel_pickup frees it. A pickup takes 30 minutes "
            "and must start and end within the shop's opening hours, in the shop's local time."
        )

    @tool(inline=True, observes=True)
    def list_slots(self, state: Pickups) -> str:
        """List the courier's free pickup slots on the pickup date (UTC)."""
        return json.dumps({"slots_utc": state.slots, "length_minutes": LENGTH_MIN})

    @tool(inline=True)
    def book_pickup(self, state: Pickups, slot: str) -> str:
        """Book the pickup in one slot.

        Args:
            slot: a timestamp exactly as list_slots shows it.
        """
        if slot not in state.slots:
            raise ToolError("no such slot; use a timestamp from list_slots", "unknown_slot")
        state.booked = slot
        return f"pickup booked at {slot}"

    @tool(inline=True)
    def cancel_pickup(self, state: Pickups) -> str:
        """Cancel the booked pickup."""
        if state.booked is None:
            raise ToolError("nothing is booked", "nothing_booked")
        state.booked = None
        return "pickup cancelled"

    def _local_minutes(self, start: datetime, offset: int) -> tuple[date, int]:
        """The local date and minute of the day of a slot's start."""
        local = start.astimezone(timezone(timedelta(hours=offset)))
        return local.date(), local.hour * 60 + local.minute

    def verify(self, state: Pickups, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        booked = state.booked is not None
        inside = False
        detail = "nothing booked"
        if state.booked is not None:
            start = datetime.fromisoformat(state.booked.replace("Z", "+00:00"))
            day, minute = self._local_minutes(start, data.utc_offset)
            same_day = day.isoformat() == data.day
            inside = same_day and minute >= OPEN_MIN and minute + LENGTH_MIN <= CLOSE_MIN
            detail = f"local start {day} {minute // 60:02d}:{minute % 60:02d}"
        checks = [
            Check(name="pickup_booked", passed=booked),
            Check(name="inside_opening_hours", passed=inside, detail=detail),
        ]
        ok = all(c.passed for c in checks)
        checks.append(claim_check(final_message(response), ok, words=self.success_words))
        return all_or_nothing(checks)

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        noon = f"{data.day}T{12 - data.utc_offset:02d}:00:00Z"
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("list_slots"),
                    call("book_pickup", slot=noon),
                    say(f"Booked: the courier collects {data.parcel_id} at 12:00 local time."),
                ],
            ),
            Control(
                name="noop_claim",
                expect="fail",
                script=[say(f"Booked: the courier collects {data.parcel_id} at noon.")],
            ),
            Control(
                name="violation_before_opening",
                expect="fail",
                description="books the first slot, before the shop opens",
                script=[
                    call("book_pickup", slot=f"{data.day}T05:00:00Z"),
                    say("Booked the first slot of the day."),
                ],
            ),
        ]


class PickupPlant(PickupTwin):
    """The same desk, reading the slot's clock time without converting it."""

    def _local_minutes(self, start: datetime, offset: int) -> tuple[date, int]:
        return start.date(), start.hour * 60 + start.minute


Plant = PickupPlant
Twin = PickupTwin


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` pickups on different dates, shops and offsets, the same for the same seed."""
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        day = (date(2026, 12, 1) + timedelta(days=rng.randrange(60))).isoformat()
        offset = rng.choice((1, 2, 3))
        shop = rng.choice(SHOPS)
        parcel = f"P-{rng.randrange(100000):05d}"
        prompt = (
            f"Please book a courier pickup for parcel {parcel} at {shop} on {day}. The shop "
            f"is in UTC+{offset} and is open 09:00-17:00 local time."
        )
        data = {"shop": shop, "parcel_id": parcel, "day": day, "utc_offset": offset}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list[Turn]:
    """Book the 16:30Z slot, as if the listed UTC times were the shop's local times."""
    day = task.task_data["day"]
    return [
        call("list_slots"),
        call("book_pickup", slot=f"{day}T16:30:00Z"),
        say("Booked: the courier comes at 16:30, before the shop closes."),
    ]
