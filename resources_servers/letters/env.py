"""letters: the learnability check's environment.

The reward is dense on purpose: the share of the answer's characters (spaces aside, the first
200) that are the task's letter, so that a tiny untrained model finds a learning signal in a
few hundred GRPO steps on a CPU (`proofgym learn`). An answer shorter than `min_chars` scores 0,
so the empty or one-letter answer is no shortcut. It has no tools and no secrets.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from resources_servers.letters.task import LettersTask
from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    Turn,
    VerifyResult,
    final_message,
    say,
)

CONSIDERED = 200


def letter_share(text: str, letter: str) -> tuple[float, int]:
    """The share of the first CONSIDERED non-space characters that are `letter` (any case),
    and how many characters were counted.

    Only the ASCII letter itself counts, as written: no case mapping or normalisation of the
    text (`str.lower` and NFC both turn U+212A KELVIN SIGN into `k`), so a look-alike (Cyrillic
    U+0430, fullwidth U+FF41, the Kelvin sign) is another character. A combining mark belongs to the
    character before it: `a` + U+0301 is one character, `á`, and not the letter."""
    wanted = {letter.lower(), letter.upper()}
    chars: list[bool] = []  # one per character: whether it is the letter
    for c in text:
        if unicodedata.combining(c):
            if chars:
                chars[-1] = False
            continue
        if c.isspace():
            continue
        if len(chars) == CONSIDERED:
            break
        chars.append(c in wanted)
    if not chars:
        return 0.0, 0
    return sum(chars) / len(chars), len(chars)


class LettersEnv(Environment[None, LettersTask]):
    """Answer with as much of one letter as possible."""

    name = "letters"
    description = "Write text made of one letter; reward is that letter's share (learnability)."
    reward_range = (0.0, 1.0)
    partial_credit = True  # the letter's share of the text
    honest_forms = ("upper_case", "lower_case")  # the letter in either case
    truth_fields = ("letter",)  # what is right; the minimum length only shapes the reference
    pass_threshold = 0.5
    task_data_model = LettersTask

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        letter, need = data.letter, data.min_chars
        share, counted = letter_share(final_message(response), letter)
        long_enough = counted >= need
        reward = share if long_enough else 0.0
        return VerifyResult(
            reward=reward,
            reward_components={"letter_share": reward},
            checks=[
                Check(name="long_enough", passed=long_enough, detail=f"{counted} characters"),
                Check(
                    name="mostly_the_letter",
                    passed=long_enough and share >= 0.5,
                    detail=f"{share:.0%} {letter!r}",
                ),
            ],
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        letter, need = data.letter, data.min_chars

        def answer(text: str) -> list[Turn]:
            return [say(text)]

        return [
            Control(name="reference", expect="pass", script=answer(letter * (need + 8))),
            Control(
                name="alternative",
                expect="pass",
                description="mixed case, spaced",
                script=answer(" ".join([letter.upper() + letter * 3] * (need // 2 + 2))),
            ),
            Control(
                name="violation_too_short",
                expect="fail",
                description="all the letter, but shorter than asked",
                script=answer(letter * max(1, need - 1)),
            ),
            Control(
                name="noop_claim",
                expect="fail",
                script=answer("Done: I wrote what you asked for."),
            ),
        ]
