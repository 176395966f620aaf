"""blind_quarry: book one blast per rock face inside the window, blasts `gap` minutes apart."""

from __future__ import annotations

import itertools
import random
import re
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

NAME = "blind_quarry"
_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class QuarryTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    faces: list[str] = Field(min_length=3, max_length=6)
    window_open: int = Field(ge=0, le=1439, description="minutes after midnight")
    window_close: int = Field(ge=0, le=1439)
    gap: int = Field(ge=10, le=180, description="minimum minutes between consecutive blasts")


class Board:
    def __init__(self, faces: list[str]) -> None:
        self.faces = list(faces)
        self.blasts: dict[str, int] = {}


class Twin(Environment[Board, QuarryTask]):
    name = NAME
    description = "Schedule quarry blasts inside the window, consecutive blasts spaced apart."
    reward_range = (0.0, 1.0)
    task_data_model = QuarryTask
    success_words = ("scheduled", "booked")
    inline_verify = True

    def create_state(self, task: Task, workdir: Path | None) -> Board:
        return Board(self.data(task).faces)

    def instructions(self, task: Task) -> str:
        return (
            "You are the shot-firer's assistant. Book exactly one blast for every rock face "
            "with schedule_blast(face, time), times as HH:MM (24-hour). Every blast must lie "
            "inside the day's blasting window, and any two consecutive blasts of the day must "
            "be at least the stated gap apart. list_blasts shows the board; cancel_blast "
            "removes a booking. Say when the schedule is done."
        )

    @tool(inline=True, observes=True)
    def list_blasts(self, state: Board) -> str:
        """Show every face and its booked blast time, if any."""
        return "\n".join(
            f"{f}: {hhmm(state.blasts[f]) if f in state.blasts else 'not booked'}"
            for f in state.faces
        )

    @tool(inline=True)
    def schedule_blast(self, state: Board, face: str, time: str) -> str:
        """Book (or move) the blast for one rock face.

        Args:
            face: the face's name, as the prompt gives it.
            time: HH:MM, 24-hour clock.
        """
        if face not in state.faces:
            raise ToolError(f"no rock face named {face[:40]!r}", "unknown_face")
        m = _TIME.match(time)
        if m is None:
            raise ToolError("time must be HH:MM (24-hour)", "bad_time")
        state.blasts[face] = int(m.group(1)) * 60 + int(m.group(2))
        return f"blast at {face} booked for {time}"

    @tool(inline=True)
    def cancel_blast(self, state: Board, face: str) -> str:
        """Remove the booked blast of one rock face.

        Args:
            face: the face's name.
        """
        if face not in state.blasts:
            raise ToolError("that face has no booked blast", "not_booked")
        del state.blasts[face]
        return f"blast at {face} cancelled"

    def _spacing_ok(self, times: list[int], gap: int) -> bool:
        return all(b - a >= gap for a, b in itertools.pairwise(times))

    def verify(self, state: Board, task: Task, response: Response) -> VerifyResult:
        d = self.data(task)
        times = sorted(state.blasts.values())
        all_booked = set(state.blasts) == set(d.faces)
        in_window = all(d.window_open <= t <= d.window_close for t in times)
        spaced = self._spacing_ok(times, d.gap)
        ok = all_booked and in_window and spaced
        return all_or_nothing(
            [
                Check(name="every_face_booked", passed=all_booked),
                Check(name="inside_window", passed=in_window),
                Check(name="blasts_spaced", passed=spaced, detail=str([hhmm(t) for t in times])),
                claim_check(final_message(response), ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = self.data(task)
        ref = [
            call("schedule_blast", face=f, time=hhmm(d.window_open + i * d.gap))
            for i, f in enumerate(d.faces)
        ]
        late = [
            call(
                "schedule_blast", face=f, time=hhmm(d.window_close - (len(d.faces) - 2 - i) * d.gap)
            )
            for i, f in enumerate(d.faces)
        ]
        done = say("All blasts are scheduled inside the window.")
        return [
            Control(name="reference", expect="pass", script=[*ref, done]),
            Control(
                name="violation_after_window",
                expect="fail",
                description="well spaced, but the last blast falls after the window closes",
                script=[*late, done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def _spacing_ok(self, times: list[int], gap: int) -> bool:
        return all(t - times[0] >= gap for t in times[1:])


FACES = ["North Bench", "East Wall", "Pit Floor", "Upper Lift", "West Cut", "Haul Ramp"]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        faces = rng.sample(FACES, rng.randint(3, 5))
        gap = rng.choice([30, 45, 60, 75, 90])
        opening = rng.randint(8, 11) * 60 + rng.choice([0, 15, 30])
        close = opening + (len(faces) - 1) * gap + rng.choice([15, 30, 45])
        prompt = (
            f"Today's blasting window at the quarry is {hhmm(opening)} to {hhmm(close)}. "
            f"Book one blast for each of these faces: {', '.join(faces)}. Consecutive blasts "
            f"must be at least {gap} minutes apart."
        )
        data = {"faces": faces, "window_open": opening, "window_close": close, "gap": gap}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list:
    d = task.task_data
    times = [d["window_open"]] + [
        d["window_open"] + d["gap"] + k for k in range(len(d["faces"]) - 1)
    ]
    steps = [
        call("schedule_blast", face=f, time=hhmm(t)) for f, t in zip(d["faces"], times, strict=True)
    ]
    return [*steps, say("All blasts are scheduled inside the window.")]
