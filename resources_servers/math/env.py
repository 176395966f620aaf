"""The math environment: one numeric answer, stated as `Answer: N` or `\\boxed{N}`."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from resources_servers.math.task import MathTask
from resources_servers.sdk import (
    CalculatorError,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    evaluate_arithmetic,
    final_message,
    length_guard,
    numeric_answer_check,
    say,
    tool,
)

MAX_ANSWER_CHARS = 3000


class MathState:
    """Nothing to keep: the answer is in the final message."""

    __slots__ = ()


class MathEnv(Environment[MathState, MathTask]):
    """A word problem with one numeric answer; the calculator is optional."""

    name = "math"
    task_data_model = MathTask
    description = "Word problems with one numeric answer; an optional calculator tool."
    reward_range = (0.0, 1.0)
    secret_fields = ("answer", "expression")
    inline_verify = True  # regexes over at most MAX_ANSWER_CHARS of the final message
    #: what `validate` checks an honest answer may look like (its false-negative rate)
    honest_forms = (
        "preamble",
        "closing",
        "upper_case",
        "lower_case",
        "markdown_bold",
        "number_form",
    )

    refused_forms = MappingProxyType(
        {
            "answer_is_without_colon": "the instructions ask for a line 'Answer: N'; 'the answer "
            "is N' without a colon is reasoning, or a draft stated before the answer would "
            "count as a second answer",
            "number_in_words": "'forty-two' is not read: one number in digits is what is asked",
        }
    )

    def create_state(self, task: Task, workdir: Path | None) -> MathState:
        return MathState()

    def instructions(self, task: Task) -> str:
        return (
            "Solve the problem. You may use the calculator. End with one line 'Answer: <number>'."
        )

    @tool(observes=True, inline=True)  # bounded: short expressions, capped exponents
    def calculator(self, state: MathState, expression: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            expression: numbers with + - * / // % ** and parentheses, e.g. (3 + 4) * 12.
        """
        try:
            return evaluate_arithmetic(expression)
        except CalculatorError as exc:
            raise ToolError(str(exc), "invalid_expression") from None

    def verify(self, state: MathState, task: Task, response: Response) -> VerifyResult:
        text = final_message(response)
        # Over the length limit the reward is 0 whatever the answer says (all or nothing), so
        # the answer is read from the first MAX_ANSWER_CHARS only: a 30 MB message costs no
        # more to judge than a short one, and verify stays quick enough for the event loop.
        return all_or_nothing(
            [
                numeric_answer_check(text[:MAX_ANSWER_CHARS], float(self.data(task).answer)),
                length_guard(text, MAX_ANSWER_CHARS),
            ]
        )

    def honest_variants(self, task: Task, message: str) -> dict[str, str]:
        """The answer statements the instructions and docs promise to read, each with the
        task's number: `validate` requires every one to pass."""
        shown = _shown(self.data(task).answer)
        work = "Working through the quantities step by step."
        return {
            "final_answer": f"{work}\nFinal answer: {shown}",
            "so_the_answer_is": f"{work}\nSo the answer is: {shown}",
            "boxed": f"{work}\n\\boxed{{{shown}}}",
            "bold_label": f"{work}\n**Answer:** {shown}",
            "full_stop": f"{work}\nAnswer: {shown}.",
            "working_shown": f"Answer: {self.data(task).expression or shown} = {shown}",
            "the_answer_is": f"{work}\nThe answer is: {shown}",
            "answer_is_without_colon": f"{work}\nThe answer is {shown}.",
        }

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        answer = data.answer
        shown = _shown(answer)
        expression = data.expression if data.expression is not None else shown

        calc = call("calculator", expression=expression)
        near = [str(answer - 1), shown, str(answer + 1)]
        return [
            Control(
                name="reference",
                expect="pass",
                description="works it out, answers once",
                script=[say(f"Working through the quantities step by step.\nAnswer: {shown}")],
            ),
            Control(
                name="alternative",
                expect="pass",
                description="uses the calculator",
                script=[calc, say(f"The calculator gives it.\n\\boxed{{{shown}}}")],
            ),
            Control(
                name="violation_hedged_candidates",
                expect="fail",
                description="the right number among several candidates",
                script=[say("\n".join(f"Answer: {n}" for n in near))],
            ),
            Control(
                name="noop_claim",
                expect="fail",
                description="claims, answers nothing",
                script=[say("Done: I solved the problem.")],
            ),
        ]


def _shown(answer: float | int) -> str:
    return f"{answer:g}" if isinstance(answer, float) else str(answer)
