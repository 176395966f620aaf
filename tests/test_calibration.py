"""validate calibrates before it accuses: a tolerance is measured, not accused; content a
verifier never grades is not attacked; an argument with many right values is not "wrong"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport, validate_env
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.answers import extract_answers, statement_problem
from resources_servers.verifiers.compose import all_or_nothing


class Grams(Environment[None]):
    """Give a mass in grams, `Answer: 12.3 g`, within 1% (a measured quantity)."""

    name = "grams"
    secret_fields = ("answer",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def read(self, text: str) -> float | None:
        answers = extract_answers(text)
        if len(answers) != 1 or statement_problem(text) is not None:
            return None  # hedged, retracted, denied: no one answer stated
        found = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*g?\.?\s*", answers[0])
        return float(found.group(1)) if found else None

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        value, truth = self.read(final_message(response)), task.task_data["answer"]
        ok = value is not None and abs(value - truth) <= 0.01 * abs(truth)
        return all_or_nothing([Check(name="mass_right", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        truth = task.task_data["answer"]
        return [
            Control(name="reference", expect="pass", script=[say(f"Answer: {truth} g")]),
            Control(name="violation_wrong", expect="fail", script=[say(f"Answer: {truth * 2} g")]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


class GramsWithoutSign(Grams):
    """The mistake: the sign is dropped on both sides, so -x answers x."""

    def read(self, text: str) -> float | None:
        value = super().read(text)
        return None if value is None else abs(value)

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        value, truth = self.read(final_message(response)), abs(task.task_data["answer"])
        ok = value is not None and abs(value - truth) <= 0.01 * truth
        return all_or_nothing([Check(name="mass_right", passed=ok)])


def gram_tasks(sign: int = 1) -> list[Task]:
    return [
        Task(
            task_id=f"grams-example-0-{k:05d}",
            env="grams",
            responses_create_params={"input": f"How many grams? (case {k})"},
            task_data={"answer": sign * value},
        )
        for k, value in enumerate([388.43, 72.25, 891.81, 15.5])
    ]


class Rooms(Environment[dict[str, Any]]):
    """Book a room for a team at any free hour between 9 and 17, with the team's name."""

    name = "rooms"
    success_words = ("booked",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"booked": None}

    @tool(inline=True)
    def book(self, state: dict[str, Any], team: str, hour: int) -> str:
        """Book the room.

        Args:
            team: the team's name.
            hour: the starting hour.
        """
        if state["booked"] is not None:
            raise ToolError("already booked")
        state["booked"] = (team, hour)
        return f"booked {team} at {hour}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        booked = state["booked"]
        ok = booked is not None and booked[0] == task.task_data["team"] and 9 <= booked[1] < 17
        return all_or_nothing([Check(name="booked", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        team = task.task_data["team"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("book", team=team, hour=task.task_data["hour"]), say("Booked.")],
            ),
            Control(
                name="violation_at_night",
                expect="fail",
                script=[call("book", team=team, hour=22), say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


def room_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"rooms-example-0-{k:05d}",
            env="rooms",
            responses_create_params={"input": f"Book the room for {team} (try {hour}:00)."},
            task_data={"team": team, "hour": hour},
        )
        for k, (team, hour) in enumerate([("kestrel", 10), ("osprey", 13), ("heron", 15)])
    ]


async def run(env: Environment[Any], tasks: list[Task]) -> EnvReport:
    return await validate_env(env, tasks, parallel=16, sample=4)


def failed(report: EnvReport) -> set[str]:
    return {v.name for v in report.verdicts if not v.passed}


async def test_a_tolerance_is_measured_not_accused_and_a_sign_dropped_still_is() -> None:
    sound = await run(Grams(), gram_tasks())
    assert not failed(sound), [v for v in sound.verdicts if not v.passed]
    negative = await run(GramsWithoutSign(), gram_tasks(sign=-1))
    assert "answer_slot:near_miss" in failed(negative)


async def test_an_argument_that_takes_a_range_of_right_values_is_not_a_wrong_one() -> None:
    report = await run(Rooms(), room_tasks())
    assert not failed(report), [v for v in report.verdicts if not v.passed]
