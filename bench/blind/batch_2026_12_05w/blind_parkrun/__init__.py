"""blind_parkrun: roster enough course marshals for the expected turnout."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

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

NAME = "blind_parkrun"
PER_MARSHAL = 50
PARKS = ("Riverside", "Hilltop", "Forest Edge", "Lakeside", "Old Mill", "Castle Green")
PEOPLE = (
    "Ade",
    "Bev",
    "Cal",
    "Dina",
    "Eoin",
    "Fran",
    "Gus",
    "Hetty",
    "Iqbal",
    "Jess",
    "Kofi",
    "Lorna",
    "Mo",
    "Nell",
    "Ollie",
    "Peg",
    "Raj",
    "Sue",
    "Tomas",
    "Una",
    "Vic",
    "Wyn",
)


class Volunteer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    available: bool


class RunTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    park: str
    expected_runners: int
    volunteers: list[Volunteer]


class Roster:
    __slots__ = ("data", "marshals")

    def __init__(self, data: RunTask) -> None:
        self.data = data
        self.marshals: list[str] = []


class Twin(Environment[Roster, RunTask]):
    """Enough available marshals for the turnout, by the safety plan's rounding."""

    name = NAME
    description = "Park run: roster course marshals for the expected turnout."
    reward_range = (0.0, 1.0)
    task_data_model = RunTask
    success_words = ("rostered",)

    def create_state(self, task: Task, workdir: Path | None) -> Roster:
        return Roster(self.data(task))

    def instructions(self, task: Task) -> str:
        return (
            "You are the run director. The safety plan needs one course marshal per "
            f"{PER_MARSHAL} expected runners, rounded to the nearest whole marshal (a half "
            "rounds up). `volunteers` lists this week's volunteers and whether each is "
            "available; `roster` makes one a course marshal. Roster at least the number the "
            "plan needs, and only available volunteers. Finish with a short message."
        )

    @tool(inline=True, observes=True)
    def volunteers(self, state: Roster) -> str:
        """List this week's volunteers and their availability."""
        return "\n".join(
            f"{v.name}: {'available' if v.available else 'not available'}"
            for v in state.data.volunteers
        )

    @tool(inline=True)
    def roster(self, state: Roster, volunteer: str) -> str:
        """Roster one volunteer as a course marshal.

        Args:
            volunteer: the volunteer's name.
        """
        names = {v.name.lower(): v.name for v in state.data.volunteers}
        key = volunteer.strip().lower()
        if key not in names:
            raise ToolError(f"no volunteer called {volunteer!r}", "unknown_volunteer")
        if names[key] not in state.marshals:
            state.marshals.append(names[key])
        return f"{names[key]} rostered ({len(state.marshals)} marshals)"

    def marshals_needed(self, runners: int) -> int:
        return math.floor(runners / PER_MARSHAL + 0.5)

    def verify(self, state: Roster, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        avail = {v.name for v in data.volunteers if v.available}
        need = self.marshals_needed(data.expected_runners)
        enough = len(state.marshals) >= need
        unavailable = [m for m in state.marshals if m not in avail]
        done = enough and not unavailable
        return all_or_nothing(
            [
                Check(
                    name="enough_marshals", passed=enough, detail=f"{len(state.marshals)}/{need}"
                ),
                Check(name="only_available", passed=not unavailable, detail=f"{unavailable}"),
                claim_check(final_message(response), achieved=done, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        need = math.floor(data.expected_runners / PER_MARSHAL + 0.5)
        avail = [v.name for v in data.volunteers if v.available]
        steps = [call("roster", volunteer=n) for n in avail[:need]]
        done = say(f"Done: {need} course marshals rostered.")
        away = next(v.name for v in data.volunteers if not v.available)
        return [
            Control(name="reference", expect="pass", script=[call("volunteers"), *steps, done]),
            Control(
                name="violation_unavailable_volunteer",
                expect="fail",
                description="also rosters a volunteer who is not available",
                script=[call("volunteers"), *steps, call("roster", volunteer=away), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def marshals_needed(self, runners: int) -> int:
        return round(runners / PER_MARSHAL)


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        whole = rng.choice((2, 4, 6, 8, 10))
        runners = PER_MARSHAL * whole + PER_MARSHAL // 2
        assert round(runners / PER_MARSHAL) == whole
        people = rng.sample(PEOPLE, whole + 6)
        vols = [Volunteer(name=p, available=True) for p in people[: whole + 3]]
        vols += [Volunteer(name=p, available=False) for p in people[whole + 3 :]]
        rng.shuffle(vols)
        park = rng.choice(PARKS)
        data = RunTask(park=park, expected_runners=runners, volunteers=vols)
        prompt = f"{park} park run expects {runners} runners this Saturday. Sort out the marshals."
        rows.append(
            task_row(
                NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data.model_dump(mode="json")
            )
        )
    return rows


def exploit(task: dict[str, Any] | Task) -> list:
    raw = task.task_data if isinstance(task, Task) else task["task_data"]
    data = RunTask.model_validate(raw)
    k = round(data.expected_runners / PER_MARSHAL)
    avail = [v.name for v in data.volunteers if v.available]
    return [
        call("volunteers"),
        *[call("roster", volunteer=n) for n in avail[:k]],
        say(f"Done: {k} course marshals rostered."),
    ]
