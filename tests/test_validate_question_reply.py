"""A question whose answer's number goes ungraded (`answer_slot`, read off blind batch 05l,
platforms): honest play only looked, silence fails, yet a number far off and another task's
answer both pay. The near misses then accuse; a verifier that grades the number is not."""

from __future__ import annotations

import re
from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from resources_servers.base import Environment, tool
from resources_servers.verifiers.compose import all_or_nothing


class Departures(Environment[None]):
    """Which platform does the asked train leave from?"""

    name = "departures"
    #: the plant: any "platform N" is taken for the right one
    reads_the_number = True

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    @tool(observes=True)
    def board(self, state: None, task: Task) -> str:
        """The departure board."""
        return "\n".join(f"{t} | platform {p}" for t, p in task.task_data["board"].items())

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        text = response.output_text.lower()
        said = re.findall(r"platform (\d+)", text)
        truth = str(task.task_data["board"].get(task.task_data["asked"]))
        if self.reads_the_number:
            right = bool(said) and said[-1] == truth
        else:  # the plant: a platform and some number anywhere
            right = "platform" in text and re.search(r"\d", text) is not None
        return all_or_nothing([Check(name="platform", passed=right)])

    def controls(self, task: Task) -> list[Control]:
        truth = task.task_data["board"][task.task_data["asked"]]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("board"), say(f"It leaves from platform {truth}.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


def _tasks() -> list[Task]:
    boards = [{"09:34": 9, "10:02": 4}, {"11:17": 10, "11:40": 2}, {"08:15": 3, "08:50": 7}]
    asked = ["09:34", "11:40", "08:50"]
    rows = [
        (f"Which platform for the {a}?", {"board": b, "asked": a})
        for b, a in zip(boards, asked, strict=True)
    ]
    return tasks("departures", rows)


async def test_a_question_that_grades_its_number_is_not_accused() -> None:
    report = await validate(Departures(), _tasks())
    assert not {"answer_slot:near_miss", "answer_slot:last_number_trap"} & failed(report), (
        report.verdicts
    )


class AnyPlatform(Departures):
    reads_the_number = False


async def test_a_question_whose_number_goes_ungraded_is_accused() -> None:
    report = await validate(AnyPlatform(), _tasks())
    assert "answer_slot:near_miss" in failed(report), report.verdicts
