"""Each reasoning-gym dataset as a proofgym environment, `rg_<dataset>`.

A task is one entry of the dataset's generator (its question, answer and metadata) with the
config that made it; the policy sees the question and the answer format, and answers between
`<answer>` tags in its final message. The verifier is the dataset's own: reasoning-gym's
`extract_answer` (the last `<answer>...</answer>`, stripped) and then `score_answer`, run in a
grading worker (`grader.py`) and wrapped: the message is bounded, the reward must be a number in
[0, 1], and a grader that raises, hangs or crashes scores 0 with a check that names the grader
as the culprit, never a masked sample.

No tools, no state: the environment is what reasoning-gym's users train on, proven.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from interop.reasoning_gym.datasets import dataset_names, env_name, release_digest
from interop.reasoning_gym.grader import GraderFailed, GraderPool, GraderUnavailable
from resources_servers.base.identity import source_hash
from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    VerifyResult,
    final_message,
    length_guard,
    say,
)

#: longest final message graded: reasoning-gym's longest answers (ARC grids, Hanoi move lists)
#: are a few thousand characters; past this the reward is 0 and no grader runs
MAX_MESSAGE_CHARS = 20_000
#: what the policy is told about the answer format, after the question
ANSWER_FORMAT = (
    "Think it through, then give your final answer between <answer> and </answer> tags, in "
    "the form the question asks for, and nothing else inside the tags. Only the last "
    "<answer>...</answer> in your reply is read."
)
WORKING = "Let me work this out step by step."
#: what the retraction control ends with instead of the right answer
RETRACTED = "I am not sure, I cannot tell"


class RGEntry(BaseModel):
    """One entry of a reasoning-gym dataset, as its generator made it (JSON round-tripped:
    the grader is checked on it in that form when the task is generated)."""

    model_config = ConfigDict(extra="forbid")

    question: str
    answer: str | None = Field(description="the dataset's answer; None when several are right")
    metadata: dict[str, Any] = Field(default_factory=dict)


class RGTask(BaseModel):
    """`task_data` of an `rg_*` environment."""

    model_config = ConfigDict(extra="forbid")

    dataset: str = Field(description="the reasoning-gym dataset")
    config: dict[str, Any] = Field(
        default_factory=dict,
        description="the dataset's config (its difficulty knobs), `seed` and `size` left out",
    )
    rg_seed: int = Field(ge=0, lt=2**32, description="the generator's seed for this entry")
    entry: RGEntry
    reference: str = Field(description="one right answer: the entry's, or its metadata's")


class NoState:
    """Nothing to keep: the answer is in the final message."""

    __slots__ = ()


_POOL_LOCK = threading.Lock()
_POOL: list[GraderPool] = []


def grader_pool() -> GraderPool:
    """The grading workers every `rg_*` environment of this process shares."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(GraderPool())
        return _POOL[0]


class ReasoningGymEnv(Environment[NoState, RGTask]):
    """A reasoning-gym dataset (one subclass per dataset: `environment_classes`)."""

    dataset: ClassVar[str] = ""
    name = "rg_base"
    task_data_model = RGTask
    description = "a reasoning-gym dataset"
    reward_range = (0.0, 1.0)
    #: reasoning-gym's graders give partial credit (a share of the answer, 0.01 for a
    #: malformed one): a pass is 1.0, a failure anything below it
    partial_credit = True
    secret_fields = ("entry.answer", "reference")
    honest_forms = ("preamble", "closing")

    @classmethod
    def version(cls) -> str:
        """The project's source closure (this wrapper, the worker, the base) with the installed
        reasoning-gym's release and wheel digest and the dataset's name: a new release, a
        rebuilt wheel or an edit of the wrapper moves it. A task's config is task data (in the
        certificate's tasks digest), not the version."""
        if "_version" not in cls.__dict__:
            inputs = f"{_wrapper_hash()}\0{release_digest()}\0{cls.dataset}"
            cls._version = hashlib.sha256(inputs.encode()).hexdigest()[:16]
        return cls._version

    def validate_task(self, task: Task) -> None:
        super().validate_task(task)
        if task.task_data.get("dataset") != self.dataset:
            raise ValueError(f"task_data.dataset: this environment serves {self.dataset!r}")

    def create_state(self, task: Task, workdir: Path | None) -> NoState:
        return NoState()

    def verify(self, state: NoState, task: Task, response: Response) -> VerifyResult:
        text = final_message(response)
        if len(text) > MAX_MESSAGE_CHARS:
            return VerifyResult(reward=0.0, checks=[length_guard(text, MAX_MESSAGE_CHARS)])
        data = self.data(task)
        entry = data.entry.model_dump(mode="json")
        try:
            graded = grader_pool().score(self.dataset, data.config, entry, text)
        except GraderFailed as exc:
            return VerifyResult(
                reward=0.0,
                checks=[
                    Check(
                        name="grader_ran",
                        passed=False,
                        detail=f"the reasoning-gym grader's fault ({exc.kind}): {exc.detail}",
                    )
                ],
            )
        except GraderUnavailable as exc:
            return VerifyResult(
                reward=0.0, mask_sample=True, failure_kind="verify_error", failure_reason=str(exc)
            )
        reward = graded.reward
        if not (math.isfinite(reward) and 0.0 <= reward <= 1.0):
            return VerifyResult(
                reward=0.0,
                checks=[
                    Check(
                        name="grader_reward_in_range",
                        passed=False,
                        detail=f"the reasoning-gym grader's fault: it answered {reward!r}, "
                        "outside [0, 1]",
                    )
                ],
            )
        shown = "none" if graded.answer is None else repr(graded.answer[:200])
        return VerifyResult(
            reward=reward,
            checks=[
                Check(name="answer_tagged", passed=graded.answer is not None, detail=shown),
                Check(name="grader_ran", passed=True),
                Check(name="score_answer", passed=reward >= 1.0, detail=f"{reward:g}"),
            ],
        )

    def honest_variants(self, task: Task, message: str) -> dict[str, str]:
        """The answer tags on their own lines (reasoning-gym's extraction strips the answer),
        and the right answer inside the tags in the other forms a person writes and reads as
        the same answer (`answer_forms`): the wrong 0s issue 45 asks `validate` to find."""
        reference = self.data(task).reference
        variants = {"tags_on_own_lines": f"{WORKING}\n<answer>\n{reference}\n</answer>"}
        for name, form in answer_forms(reference).items():
            variants[name] = f"{WORKING}\n<answer>{form}</answer>"
        return variants

    def controls(self, task: Task) -> list[Control]:
        reference = self.data(task).reference
        return [
            Control(
                name="reference",
                expect="pass",
                description="the dataset's own answer, between the tags",
                script=[say(f"{WORKING}\n<answer>{reference}</answer>")],
            ),
            Control(
                name="violation_answer_retracted",
                expect="fail",
                description="the right answer, then another: only the last tags count",
                script=[
                    say(
                        f"<answer>{reference}</answer>\nNo, that is wrong.\n"
                        f"<answer>{RETRACTED}</answer>"
                    )
                ],
            ),
            Control(
                name="noop_claim",
                expect="fail",
                description="claims, answers nothing",
                script=[say("Done: I solved the problem.")],
            ),
        ]

    def shutdown(self) -> None:
        grader_pool().close()


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SENTENCE_END = re.compile(r"[A-Za-z]$")


def answer_forms(reference: str) -> dict[str, str]:
    """The reference in other forms a person calls the same answer, each where it is one:
    - `answer_bold`: a one-line answer in Markdown bold (`**6**`), as chat models write it;
    - `answer_full_stop`: a full stop closing a number or a sentence (`6.`, `Zoey is a
      knight.`): not after a one-word string, where the stop could be part of what is asked;
    - `answer_number_form`: a number in another form of the same value (`6.0`, `1.50`, and
      `76,972,082` from five digits on), as `validate`'s own `number_form` writes it.
    Multi-line answers (grids, lists of moves) get none: their lines are the answer's form."""
    text = reference.strip()
    if not text or "\n" in text or "*" in text:
        return {}
    forms = {"answer_bold": f"**{text}**"}
    number = _NUMBER.fullmatch(text)
    if number or (" " in text and _SENTENCE_END.search(text)):
        forms["answer_full_stop"] = f"{text}."
    if number:
        sign, _, rest = text.rpartition("-")
        whole, _, fraction = rest.partition(".")
        if fraction:
            forms["answer_number_form"] = f"{text}0"
        elif len(whole) >= 5:
            forms["answer_number_form"] = f"{sign}{int(whole):,}"
        else:
            forms["answer_number_form"] = f"{text}.0"
    return forms


@functools.cache
def _wrapper_hash() -> str:
    """The source closure of the wrapper: the same for every dataset's class (they add no code)."""
    return source_hash(ReasoningGymEnv)


def _env_class(dataset: str) -> type[ReasoningGymEnv]:
    return type(
        f"ReasoningGym_{dataset}",
        (ReasoningGymEnv,),
        {
            "__module__": __name__,
            "__doc__": f"reasoning-gym's {dataset} dataset.",
            "dataset": dataset,
            "name": env_name(dataset),
            "description": f"reasoning-gym {dataset}: its generator's questions, its grader",
        },
    )


@functools.cache
def environment_classes() -> dict[str, type[ReasoningGymEnv]]:
    """One environment class per dataset of the installed reasoning-gym, by environment name
    (empty when the `rg` extra is not installed); the same classes on every call."""
    return {env_name(d): _env_class(d) for d in dataset_names()}
