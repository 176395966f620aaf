"""`proofgym judge-check`: a judge's fitness learned in seconds, before training on it."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from helpers import serve_in_thread
from typer.testing import CliRunner

from proofgym_stack.cli import app
from resources_servers.support.env import RUBRIC, SupportEnv
from resources_servers.support.judge_cases import support_cases
from resources_servers.verifiers.judge import Judge
from resources_servers.verifiers.judge_check import check_judge
from resources_servers.verifiers.judge_offline import ReferenceOverlapJudge


class Scripted:
    """A judge backend answering from a function of the ask."""

    name = "scripted"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def complete(self, body: dict[str, Any]) -> str:
        return str(self.answer(body))


def test_a_judge_that_grades_by_the_facts_is_fit() -> None:
    judge = Judge(ReferenceOverlapJudge(), RUBRIC)
    report = check_judge(judge, support_cases(), pass_threshold=SupportEnv.pass_threshold)
    assert report.asks == 20 and report.valid == 1.0 and report.deterministic == 1.0
    assert report.agreement == 1.0 and report.fit


def test_a_judge_that_passes_everything_or_answers_prose_is_not() -> None:
    generous = Scripted(
        lambda body: json.dumps(
            {"scores": {c.name: c.max_score for c in RUBRIC.criteria}, "reason": "great"}
        )
    )
    report = check_judge(
        Judge(generous, RUBRIC), support_cases(1), pass_threshold=SupportEnv.pass_threshold
    )
    assert report.valid == 1.0 and report.deterministic == 1.0
    assert report.agreement == 0.25 and not report.fit  # only the reference should pass
    prose = check_judge(
        Judge(Scripted(lambda body: "I think it is good."), RUBRIC),
        support_cases(1),
        pass_threshold=SupportEnv.pass_threshold,
    )
    assert prose.valid == 0.0 and prose.agreement == 0.0 and not prose.fit
    assert "did not answer a verdict" in prose.cases[0].errors[0]


def test_the_command_reports_and_exits_1_for_an_unfit_judge() -> None:
    model = FastAPI()

    @model.post("/v1/responses")
    async def respond() -> dict[str, Any]:  # a model interface whose model rambles
        return {
            "id": "r",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "output": [
                {
                    "type": "message",
                    "id": "m",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Sure! 10/10", "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    with serve_in_thread(model) as url:
        result = CliRunner().invoke(
            app, ["judge-check", "--judge-url", url, "--questions", "1", "--json"]
        )
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout[result.stdout.index("{") :])
    assert report["valid"] == 0.0 and report["asks"] == 8 and not report["fit"]
