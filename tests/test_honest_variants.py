"""Error rates both ways: honest variants of a passing answer must pass (false negatives), and
what had to fail and was paid is counted (false positives)."""

from __future__ import annotations

import unicodedata

from openai.types.responses import Response
from test_validate_principles import ConfidencePays, outcome
from test_validate_unseen import (
    Quiz,
    TrustsTheFinalMessage,
    detail,
    failed,
    quiz_tasks,
    validate,
)

from proofgym.wire.protocol import Check, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.examples import example_tasks
from proofgym_stack.validation.honest_variants import CLAIMABLE, UNIVERSAL
from resources_servers.letters.env import LettersEnv
from resources_servers.math.env import MathEnv
from resources_servers.verifiers.answers import numeric_answer_check


class StopsAtTheFirstSpace(LettersEnv):
    """The mutation that survived the starter controls: whitespace ends the count instead of
    being skipped, so an honest answer with a leading newline counts nothing."""

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        text = final_message(response)
        letter = task.task_data["letter"]
        counted = []
        for c in text:
            if c.isspace() or unicodedata.combining(c):
                break
            counted.append(c in {letter.lower(), letter.upper()})
        share = sum(counted) / len(counted) if counted else 0.0
        reward = share if len(counted) >= int(task.task_data.get("min_chars", 8)) else 0.0
        return VerifyResult(reward=reward, checks=[Check(name="share", passed=reward >= 0.5)])


async def test_a_verifier_that_refuses_surrounding_whitespace_is_a_false_negative() -> None:
    tasks = example_tasks("letters")[0]
    report = await validate(StopsAtTheFirstSpace(), tasks)
    assert "honest_variant:surrounding_whitespace" in failed(report)
    assert "false negative" in detail(report, "honest_variant:surrounding_whitespace")
    rates = report.to_json()["error_rates"]["false_negative"]
    assert rates["wrong"] > 0 and 0 < rates["rate"] <= 1
    sound = await validate(LettersEnv(), tasks)
    assert outcome(sound, "honest_variant:surrounding_whitespace") == "pass"
    assert sound.to_json()["error_rates"]["false_negative"]["wrong"] == 0


class BoldBlind(Quiz):
    """Claims Markdown bold but reads `**Answer: 7**` as `7**`."""

    honest_forms = ("markdown_bold",)

    def correct(self, text: str, task: Task) -> bool:
        lines = [ln for ln in text.splitlines() if ln.startswith("Answer:")]
        return bool(lines) and lines[-1].split(":", 1)[1].strip() == str(task.task_data["total"])


async def test_a_claimed_form_the_verifier_misreads_fails_and_an_unclaimed_one_is_not_run() -> None:
    report = await validate(BoldBlind(), quiz_tasks())
    assert "honest_variant:markdown_bold" in failed(report)
    assert not any(v.name == "honest_variant:upper_case" for v in report.verdicts)


class RefusesBold(BoldBlind):
    refused_forms = {"markdown_bold": "the answer line is read as written"}


async def test_a_refused_form_is_reported_with_why_and_not_run() -> None:
    report = await validate(RefusesBold(), quiz_tasks())
    assert outcome(report, "honest_variant:markdown_bold") == "n/a"
    assert "read as written" in detail(report, "honest_variant:markdown_bold")


class OwnPhrasings(Quiz):
    """Declares a phrasing of its own that its verifier does not read."""

    def honest_variants(self, task: Task, message: str) -> dict[str, str]:
        return {"total_line": f"Total: {task.task_data['total']}"}


async def test_an_environments_own_variant_that_fails_is_a_false_negative() -> None:
    report = await validate(OwnPhrasings(), quiz_tasks())
    assert "honest_variant:own" in failed(report)
    assert "total_line" in detail(report, "honest_variant:own")


class UnknownForm(Quiz):
    honest_forms = ("in_klingon",)


async def test_an_unknown_claimed_form_is_the_authors_error_named() -> None:
    report = await validate(UnknownForm(), quiz_tasks())
    assert "in_klingon" in detail(report, "honest_variants")


async def test_a_verifier_that_pays_a_claim_has_a_false_positive_rate() -> None:
    report = await validate(TrustsTheFinalMessage())
    fp = report.to_json()["error_rates"]["false_positive"]
    assert 0 < fp["wrong"] <= fp["judged"] and fp["rate"] == fp["wrong"] / fp["judged"]
    # partial reward below the pass is no false positive (the floor's checks judge that)
    assert (await validate(ConfidencePays())).error_rates["false_positive"]["wrong"] == 0
    sound = await validate(MathEnv(), example_tasks("math")[0])
    assert sound.to_json()["error_rates"]["false_positive"]["wrong"] == 0
    assert sound.to_json()["error_rates"]["false_negative"]["judged"] >= 8 * len(CLAIMABLE)
    assert "false negatives 0/" in sound.summary()


def test_the_forms_keep_what_the_message_states() -> None:
    text = "Working it out.\nAnswer: 12345"
    assert UNIVERSAL["surrounding_whitespace"](text) == f"\n  {text}  \n"
    assert UNIVERSAL["crlf_line_endings"]("no newline") is None
    assert CLAIMABLE["number_form"](text) == "Working it out.\nAnswer: 12,345"
    assert CLAIMABLE["number_form"]("Answer: 7") == "Answer: 7.0"
    assert CLAIMABLE["upper_case"]("so \\boxed{7}") == "SO \\boxed{7}"  # LaTeX keeps its case
    assert CLAIMABLE["markdown_bold"](text) == "Working it out.\n**Answer: 12345**"


def test_math_reads_an_answer_in_markdown_bold() -> None:
    # found by the honest variants: the trailing `**` was read as part of the number
    assert numeric_answer_check("Working.\n**Answer: 333**", 333.0).passed
    assert numeric_answer_check("__Final answer: 333__", 333.0).passed
    assert not numeric_answer_check("**Answer: 334**", 333.0).passed
