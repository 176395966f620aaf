"""`validate`'s messages say in plain words what differs, masked or not, and what to do."""

from __future__ import annotations

from openai.types.responses import Response
from test_validate_unseen import Quiz, detail, failed, quiz_tasks, validate

from proofgym.wire.protocol import Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from resources_servers.base import say


class RefusesAnHonestAlternative(Quiz):
    """Only reads `Answer:` lines: an honest `The total is: N` scores 0."""

    def controls(self, task: Task) -> list[Control]:
        total = task.task_data["total"]
        honest = Control(name="alternative", expect="pass", script=[say(f"The total is: {total}")])
        return [*super().controls(task), honest]


class CrashesOnItsOwnViolation(Quiz):
    """Its verifier raises on the off-by-one answer: that rollout is masked, not judged."""

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        if str(task.task_data["total"] + 1) in final_message(response):
            raise RuntimeError("the verifier fell over")
        return super().verify(state, task, response)


async def test_a_refused_honest_control_says_so_and_what_to_do() -> None:
    report = await validate(RefusesAnHonestAlternative(), quiz_tasks())
    said = detail(report, "control:alternative")
    assert "expected pass, got reward 0 (a pass needs 1)" in said
    assert "the verifier refuses an honest solution" in said


async def test_a_masked_control_is_named_masked_not_a_verdict() -> None:
    report = await validate(CrashesOnItsOwnViolation(), quiz_tasks())
    assert "control:violation_off_by_one" in failed(report)
    said = detail(report, "control:violation_off_by_one")
    assert "masked (verify_error" in said and "not a verdict" in said
