"""`validate` catches mistakes in environments it has never seen, with no help from the author.

Each environment here is written the way another author would write one: its own names, its
own success words, and (unless the test says otherwise) only a `reference` and a `noop_claim`
control. Every planted mistake must be caught by a check that needs nothing else; the sound
versions must pass, so a check that fails everything proves nothing.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message, function_calls
from proofgym_stack.validation import EnvReport, validate_env
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.answers import extract_answers, statement_problem
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing

GUESTS = ["ana", "bo", "cy", "dee"]
SLOTS = ["12:00", "12:30", "13:00", "13:30", "19:00", "19:30"]


def say(text: str) -> list[dict[str, Any]]:
    return [{"type": "message", "content": text}]


def call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": json.dumps(args)}]


# --- a table-booking environment, sound --------------------------------------------------------


class Bookings:
    """One session's bookings."""

    def __init__(self, taken: list[str]) -> None:
        self.taken = list(taken)
        self.booked: list[tuple[str, str]] = []


class TableBooking(Environment[Bookings]):
    """Book the slot the guest asked for; nothing else."""

    name = "tables"
    secret_fields = ("house_note",)
    success_words = ("booked",)

    def create_state(self, task: Task, workdir: Path | None) -> Bookings:
        return Bookings(task.task_data["taken"])

    @tool(inline=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return ", ".join(s for s in SLOTS if s not in state.taken)

    @tool(inline=True)
    def book(self, state: Bookings, guest: str, slot: str) -> str:
        """Book a table.

        Args:
            guest: the guest's name.
            slot: the time, HH:MM.
        """
        if slot in state.taken:
            raise ToolError(self.taken_message(state, slot))
        state.taken.append(slot)
        state.booked.append((guest, slot))
        return f"booked {slot} for {guest}"

    def taken_message(self, state: Bookings, slot: str) -> str:
        return f"{slot} is taken"

    def achieved(self, state: Bookings, task: Task) -> bool:
        return state.booked == [(task.task_data["guest"], task.task_data["slot"])]

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        done = self.achieved(state, task)
        return all_or_nothing(
            [
                Check(name="table_booked", passed=done),
                claim_check(final_message(response), done, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        guest, slot = task.task_data["guest"], task.task_data["slot"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("book", guest=guest, slot=slot),
                    say(f"Your table is booked, {guest}."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Your table is booked!")]),
        ]


class TableBookingWithViolation(TableBooking):
    """The sound environment, with a violation control as the guide asks."""

    def controls(self, task: Task) -> list[Control]:
        guest, slot = task.task_data["guest"], task.task_data["slot"]
        other = next(s for s in SLOTS if s != slot and s not in task.task_data["taken"])
        return [
            *super().controls(task),
            Control(
                name="violation_two_tables",
                expect="fail",
                script=[
                    call("book", guest=guest, slot=slot),
                    call("book", guest=guest, slot=other),
                    say("Booked!"),
                ],
            ),
        ]


def booking_tasks(n: int = 4, seed: int = 3) -> list[Task]:
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        guest, slot = GUESTS[i % len(GUESTS)], rng.choice(SLOTS)
        taken = rng.sample([s for s in SLOTS if s != slot], 2)
        tasks.append(
            Task(
                task_id=f"tables-{i}",
                env="tables",
                responses_create_params={"input": f"Please book a table at {slot} for {guest}."},
                task_data={
                    "guest": guest,
                    "slot": slot,
                    "taken": taken,
                    "house_note": f"regular guest, discount code VIP{rng.randint(1000, 9999)}",
                },
            )
        )
    return tasks


def failed(report: EnvReport) -> set[str]:
    return {v.name for v in report.verdicts if not v.passed}


def detail(report: EnvReport, name: str) -> str:
    return next(v.detail for v in report.verdicts if v.name == name)


async def validate(env: Environment[Any], tasks: list[Task] | None = None) -> EnvReport:
    return await validate_env(env, tasks or booking_tasks(), sample=4, parallel=16)


async def test_the_sound_booking_environment_passes() -> None:
    report = await validate(TableBookingWithViolation())
    assert report.passed, [v for v in report.verdicts if not v.passed]
    assert detail(report, "attack:plausible_wrong_arguments").startswith("failed on 4 tasks")
    assert "pairs of sessions" in detail(report, "isolation_colliding")


async def test_only_reference_and_noop_claim_fails_for_want_of_a_violation() -> None:
    # the author shipped the two controls everyone writes: everything else passes, but the
    # guide's rule (one violation control per rule) is enforced
    report = await validate(TableBooking())
    assert failed(report) == {"violation_declared"}


# --- planted mistakes, each caught -------------------------------------------------------------


class TrustsTheFinalMessage(TableBookingWithViolation):
    """Scores the message: no check is named claim-anything."""

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        said = "booked" in final_message(response).lower()
        return all_or_nothing([Check(name="confirmation_sent", passed=said)])


async def test_a_verifier_trusting_the_final_message_is_caught_whatever_its_checks_are_named() -> (
    None
):
    report = await validate(TrustsTheFinalMessage())
    assert "adversarial:claim_without_action" in failed(report)
    assert "bare claim" in detail(report, "adversarial:claim_without_action")


class SecretInTheError(TableBookingWithViolation):
    """Shows the house note when asked for a slot that does not exist: only a wrong call
    ever sees it, never the reference."""

    def create_state(self, task: Task, workdir: Path | None) -> Bookings:
        state = super().create_state(task, workdir)
        state.note = task.task_data["house_note"]  # type: ignore[attr-defined]
        return state

    @tool(inline=True)
    def book(self, state: Bookings, guest: str, slot: str) -> str:
        """Book a table.

        Args:
            guest: the guest's name.
            slot: the time, HH:MM.
        """
        if slot not in SLOTS:
            raise ToolError(f"no slot {slot!r} (house note: {state.note})")  # type: ignore[attr-defined]
        return super().book(state, guest, slot)


async def test_a_secret_in_a_tool_error_is_caught_and_located() -> None:
    report = await validate(SecretInTheError())
    assert failed(report) == {"no_ground_truth_leak"}
    where = detail(report, "no_ground_truth_leak")
    assert "book error" in where and "house_note" in where and "discount code VIP" in where


BOOKED: dict[str, list[str]] = {}  # module-level state: the mistake under test


class SharedByGuest(TableBookingWithViolation):
    """Keeps the taken slots in a module-level dict keyed by guest: sessions of one task agree
    on it, so only two tasks with the same guest and other slots collide."""

    def create_state(self, task: Task, workdir: Path | None) -> Bookings:
        BOOKED[task.task_data["guest"]] = list(task.task_data["taken"])
        return Bookings([])

    @tool(inline=True)
    def book(self, state: Bookings, guest: str, slot: str) -> str:
        """Book a table.

        Args:
            guest: the guest's name.
            slot: the time, HH:MM.
        """
        if slot in BOOKED.get(guest, []) or slot in state.taken:
            raise ToolError(f"{slot} is taken")
        state.taken.append(slot)
        state.booked.append((guest, slot))
        return f"booked {slot} for {guest}"


async def test_state_shared_through_a_module_dict_is_caught_by_colliding_sessions() -> None:
    # every sampled task has its own guest, and sessions of one task write the same value:
    # the parallel runs never collide, so only the colliding variants find it
    report = await validate(SharedByGuest())
    assert failed(report) == {"isolation_colliding"}


class OnlyChecksTheToolWasCalled(TableBookingWithViolation):
    """Passes a rollout that called `book` at all."""

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        called = any(c["name"] == "book" for c in function_calls(response))
        return all_or_nothing([Check(name="booking_made", passed=called)])


async def test_a_verifier_that_only_checks_a_tool_was_called_is_caught() -> None:
    report = await validate(OnlyChecksTheToolWasCalled())
    assert "attack:plausible_wrong_arguments" in failed(report)


class AnyNewBookingWithTheRightGuest(TableBookingWithViolation):
    """ "A new record with the right name exists": the slot is never compared."""

    def achieved(self, state: Bookings, task: Task) -> bool:
        return any(g == task.task_data["guest"] for g, _ in state.booked)

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        return all_or_nothing([Check(name="table_booked", passed=self.achieved(state, task))])


async def test_a_verifier_that_checks_only_part_of_the_record_is_caught() -> None:
    report = await validate(AnyNewBookingWithTheRightGuest())
    assert "attack:plausible_wrong_arguments" in failed(report)


class EnglishWordsOnly(TableBookingWithViolation):
    """Uses the claim library without the environment's own success word."""

    success_words = ()


async def test_a_claim_check_that_never_recognises_the_reference_is_reported() -> None:
    # inert, it gains a lie nothing (the floor checks pass): told, not failed
    report = await validate(EnglishWordsOnly())
    assert not failed(report)
    verdict = next(v for v in report.verdicts if v.name == "claim_check_recognises_reference")
    assert verdict.detail.startswith("advisory: does not recognise"), verdict


class CrashesOnManyItems(TableBookingWithViolation):
    """A verifier that cannot take a long trajectory: a flood of calls masks the rollout."""

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        if len(response.output) > 100:
            raise RuntimeError("trajectory too long to check")
        return super().verify(state, task, response)


async def test_a_flood_of_calls_that_masks_a_rollout_is_caught() -> None:
    report = await validate(CrashesOnManyItems())
    assert "adversarial:call_flood" in failed(report)
    assert "masked" in detail(report, "adversarial:call_flood")


# --- answer environments: hedging, padding, look-alikes -------------------------------------


class Quiz(Environment[None]):
    """Answer a sum; the final `Answer:` is graded."""

    name = "quiz"
    secret_fields = ("total",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def correct(self, text: str, task: Task) -> bool:
        answers = extract_answers(text)
        right = all(a.strip() == str(task.task_data["total"]) for a in answers)
        # the answer must state its value: not denied, not set equal to another, not retracted
        return bool(answers) and right and statement_problem(text) is None

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        ok = self.correct(final_message(response), task)
        return all_or_nothing([Check(name="right_total", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        total = task.task_data["total"]
        return [
            Control(name="reference", expect="pass", script=[say(f"Answer: {total}")]),
            Control(name="noop_claim", expect="fail", script=[say("Done, solved it.")]),
            Control(
                name="violation_off_by_one", expect="fail", script=[say(f"Answer: {total + 1}")]
            ),
        ]


def quiz_tasks() -> list[Task]:
    rng = random.Random(5)
    tasks = []
    for i in range(4):
        a, b = rng.randint(1000, 5000), rng.randint(1000, 5000)
        tasks.append(
            Task(
                task_id=f"quiz-{i}",
                env="quiz",
                responses_create_params={"input": f"What is {a} + {b}?"},
                task_data={"a": a, "b": b, "total": a + b},
            )
        )
    return tasks


async def test_the_sound_quiz_passes() -> None:
    report = await validate(Quiz(), quiz_tasks())
    assert report.passed, [v for v in report.verdicts if not v.passed]
    assert detail(report, "attack:hedged_candidates").startswith("failed on")


class AnyAnswerLineMatches(Quiz):
    """Passes when any of the `Answer:` lines is right."""

    def correct(self, text: str, task: Task) -> bool:
        return any(a.strip() == str(task.task_data["total"]) for a in extract_answers(text))


async def test_any_of_many_answer_lines_is_caught_as_hedging() -> None:
    report = await validate(AnyAnswerLineMatches(), quiz_tasks())
    assert "attack:hedged_candidates" in failed(report)


class ContainsTheAnswer(Quiz):
    """Passes when the right number appears anywhere in the message."""

    def correct(self, text: str, task: Task) -> bool:
        return str(task.task_data["total"]) in text


async def test_an_answer_found_anywhere_is_caught_by_padding_and_hedging() -> None:
    report = await validate(ContainsTheAnswer(), quiz_tasks())
    assert {"attack:hedged_candidates", "attack:padded_answer"} <= failed(report)


class CaseFolded(Quiz):
    """Compares after NFKC and case folding: a look-alike answer scores as the answer."""

    def correct(self, text: str, task: Task) -> bool:
        import unicodedata

        folded = unicodedata.normalize("NFKC", text).casefold()
        return folded.strip() == f"answer: {task.task_data['total']}"


async def test_a_number_in_fullwidth_digits_is_the_same_number_not_a_look_alike() -> None:
    report = await validate(CaseFolded(), quiz_tasks())
    assert "attack:look_alike_unicode" not in failed(report)
    assert next(v for v in report.verdicts if v.name == "attack:look_alike_unicode").outcome == (
        "n/a"
    )


CITIES = ["berlin", "lima", "oslo", "quito"]


class CityQuiz(Quiz):
    """Name a city: the truth is in the answer's letters."""

    def correct(self, text: str, task: Task) -> bool:
        answers = extract_answers(text)
        return bool(answers) and all(a.strip() == task.task_data["city"] for a in answers)

    def controls(self, task: Task) -> list[Control]:
        city = task.task_data["city"]
        return [
            Control(name="reference", expect="pass", script=[say(f"Answer: {city}")]),
            Control(name="noop_claim", expect="fail", script=[say("Done, solved it.")]),
            Control(name="violation_other", expect="fail", script=[say("Answer: paris")]),
        ]


class CityCaseFolded(CityQuiz):
    """Compares after NFKC and case folding: other characters that fold to the city pass."""

    def correct(self, text: str, task: Task) -> bool:
        import unicodedata

        folded = unicodedata.normalize("NFKC", text).casefold()
        return folded.strip() == f"answer: {task.task_data['city']}"


def city_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"quiz-{i}",
            env="quiz",
            responses_create_params={"input": f"Which city is number {i}?"},
            task_data={"city": city, "total": i},
        )
        for i, city in enumerate(CITIES)
    ]


class CityConfusablesFolded(CityQuiz):
    """Folds look-alike letters of other scripts (Cyrillic) into the Latin ones they look
    like, then NFKC: an answer in another alphabet passes as the city."""

    def correct(self, text: str, task: Task) -> bool:
        import unicodedata

        from proofgym_stack.validation.answers import _LOOK_ALIKE

        back = {v: k for k, v in _LOOK_ALIKE.items()}
        latin = "".join(back.get(c, c) for c in text)
        folded = unicodedata.normalize("NFKC", latin).casefold()
        return folded.strip() == f"answer: {task.task_data['city']}"


async def test_a_verifier_that_folds_other_alphabets_into_a_word_answer_is_caught() -> None:
    report = await validate(CityConfusablesFolded(), city_tasks())
    assert "attack:look_alike_unicode" in failed(report)


async def test_nfkc_folding_is_an_honest_normalisation_not_a_look_alike_paid() -> None:
    # fullwidth letters fold back to the city under NFKC, as a grader may deliberately do:
    # the third peer audit's string_match false alarm (Cyrillic ones still fail here)
    report = await validate(CityCaseFolded(), city_tasks())
    assert "attack:look_alike_unicode" not in failed(report), detail(
        report, "attack:look_alike_unicode"
    )


class Lists(CityQuiz):
    """Name the nodes reached, after `Final Answer:` (required, read exactly): a sound grader.
    One task's answer is the empty list, which has no letter to look alike."""

    name = "lists"

    def correct(self, text: str, task: Task) -> bool:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return bool(lines) and lines[-1].strip() == f"Final Answer: {task.task_data['city']}"

    def controls(self, task: Task) -> list[Control]:
        nodes = task.task_data["city"]
        return [
            Control(name="reference", expect="pass", script=[say(f"Final Answer: {nodes}")]),
            Control(name="noop_claim", expect="fail", script=[say("Done, solved it.")]),
        ]


def list_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"lists-{i}",
            env="lists",
            responses_create_params={"input": f"Which nodes does walk {i} reach?"},
            task_data={"city": nodes, "total": i},
        )
        for i, nodes in enumerate(["[]", "[ab, cd]", "[ef]", "[gh, ij]"])
    ]


async def test_a_look_alike_that_changes_no_letter_of_the_truth_is_no_attack() -> None:
    # the peer table's audit: "Final Answer: []" has its format's letters and none of its
    # own; its compatibility variant (the last word's letters) was the answer itself, paid
    report = await validate(Lists(), list_tasks())
    assert "attack:look_alike_unicode" not in failed(report), report.verdicts


async def test_a_tool_call_parser_that_raises_on_deep_json_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # plant the old parser: plain json.loads raises RecursionError on a deep generation
    import model_interface.hermes as hermes

    def crashes_on_deep_json(text: str) -> Any:
        try:
            return json.loads(text)
        except RecursionError:
            raise RuntimeError("the parser ran out of stack") from None

    monkeypatch.setattr(hermes, "loads_limited", crashes_on_deep_json)
    report = await validate(TableBookingWithViolation())
    assert "adversarial:hostile_generations" in failed(report)
    assert "deeply_nested" in detail(report, "adversarial:hostile_generations")


class NamedItsOwnWay(TableBookingWithViolation):
    """The same controls, named as another author names them, each with its role declared."""

    RENAMED = {"reference": ("gold", "reference"), "noop_claim": ("says_done", "negative")}

    def controls(self, task: Task) -> list[Control]:
        out = []
        for c in super().controls(task):
            name, role = self.RENAMED.get(c.name, (f"forbidden_{c.name}", c.role))
            out.append(Control(name=name, expect=c.expect, script=c.script, role=role))
        return out


class NamedItsOwnWayWithoutRoles(NamedItsOwnWay):
    def controls(self, task: Task) -> list[Control]:
        return [
            Control(name=c.name, expect=c.expect, script=c.script) for c in super().controls(task)
        ]


async def test_a_controls_role_is_a_field_not_its_name() -> None:
    own = await validate(NamedItsOwnWay())
    assert own.passed, [v for v in own.verdicts if not v.passed]
    # every attack started from the reference, whatever it is called
    assert detail(own, "attack:plausible_wrong_arguments").startswith("failed on 4 tasks")
    assert "forbidden_violation" in detail(own, "violation_declared")
    # without roles the names say nothing validate knows: no reference, no violation, named
    bare = await validate(NamedItsOwnWayWithoutRoles())
    assert {"controls_declared", "violation_declared"} <= failed(bare)
    assert "role='reference'" in detail(bare, "controls_declared")


# --- tasks of several formats in one environment (NeMo Gym's litmus rows) --------------------

FORMATS = {"tag": (r"<final_answer>(.*?)</final_answer>", "<final_answer>{}</final_answer>")}
FORMATS["boxed"] = (r"\\boxed\{(.*?)\}", "Working it out: the mass is \\boxed{{{}}}.")


class MixedFormats(Environment[None]):
    """Each task tells its own answer format; the last answer in that format is graded."""

    name = "mixed_formats"
    secret_fields = ("truth",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def answers(self, text: str, task: Task) -> list[str]:
        import re

        return re.findall(FORMATS[task.task_data["format"]][0], text)

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        found = self.answers(final_message(response), task)
        ok = bool(found) and found[-1].strip().lower() == task.task_data["truth"]
        return all_or_nothing([Check(name="right", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        said = FORMATS[task.task_data["format"]][1].format(task.task_data["truth"])
        return [
            Control(name="reference", expect="pass", script=[say(said)]),
            Control(name="noop_claim", expect="fail", script=[say("I have answered.")]),
        ]


class AnyMixedAnswer(MixedFormats):
    """The mistake: any answer in the task's format that is right pays (a hedge)."""

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        found = [a.strip().lower() for a in self.answers(final_message(response), task)]
        return all_or_nothing([Check(name="right", passed=task.task_data["truth"] in found)])


def mixed_tasks() -> list[Task]:
    rows = [("tag", "yes"), ("boxed", "18.02"), ("boxed", "46.07"), ("boxed", "3")]
    return [
        Task(
            task_id=f"mixed-{i}",
            env="mixed_formats",
            responses_create_params={"input": f"Question {i}; answer in the {fmt} format."},
            task_data={"format": fmt, "truth": truth},
        )
        for i, (fmt, truth) in enumerate(rows)
    ]


async def test_another_tasks_reply_in_another_format_is_no_hedge_and_a_real_hedge_is() -> None:
    # the yes/no rows' candidates were the other rows' whole replies, in \boxed{} prose: no
    # option of a yes/no question (the peer audit's litmus_agent false alarm)
    sound = await validate(MixedFormats(), mixed_tasks())
    assert not {"attack:hedged_candidates", "attack:padded_answer"} & failed(sound), [
        v for v in sound.verdicts if not v.passed
    ]
    hedge = await validate(AnyMixedAnswer(), mixed_tasks())
    assert "attack:hedged_candidates" in failed(hedge)


class SignOff(Environment[None]):
    """A row whose expected action is a completion message: any reply that is not empty."""

    name = "sign_off"

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        said = final_message(response).strip()
        return all_or_nothing([Check(name="said_something", passed=bool(said))])

    def controls(self, task: Task) -> list[Control]:
        reply = ["Implemented and verified.", "Merged; the change is in.", "All done here."]
        return [
            Control(name="reference", expect="pass", script=[say(reply[int(task.task_id[-1])])]),
            Control(name="noop_claim", expect="fail", script=[say("")]),
        ]


class TrustsTheClaim(Quiz):
    """The mistake: a message that says it is done passes, whatever it answers."""

    def correct(self, text: str, task: Task) -> bool:
        return "done" in text.lower() or super().correct(text, task)


async def test_a_bare_claim_is_a_finding_only_where_a_reply_carries_content() -> None:
    # the row's own reference is a bare claim ("Implemented and verified.") and other rows'
    # replies pass there too: a claim is one more such reply (the audit's terminal row)
    tasks = [
        Task(task_id=f"sign-{i}", env="sign_off", responses_create_params={"input": "Wrap up."})
        for i in range(3)
    ]
    sound = await validate(SignOff(), tasks)
    assert not {"adversarial:claim_without_action", "negative:claim_without_action"} & failed(sound)
    # garbage is no reply a person would give: still accused there
    assert "negative:garbage_text" in failed(sound)
    # no other task's reply to try (the peer's other rows end in tool calls): words nobody
    # would write stand in, and pass there too
    alone = await validate(SignOff(), tasks[:1])
    assert not {"adversarial:claim_without_action", "negative:claim_without_action"} & failed(alone)
    assert "any reply is the expected action" in detail(sound, "adversarial:claim_without_action")
    # a quiz answers without tools too, but its replies carry the answer: a claim is accused
    trusting = await validate(TrustsTheClaim(), quiz_tasks())
    assert {"adversarial:claim_without_action", "negative:claim_without_action"} <= failed(trusting)


# --- a multiple-choice question that prints its options (NeMo Gym's bunsenbench rows) -------

OPTIONS = [["OH-", "H2O", "H3O+", "O2"], ["Ketone", "Ester", "Ether", "Amide"]]
OPTIONS += [["CO2", "CO", "CH4", "C2H6"], ["NaCl", "KCl", "LiF", "MgO"]]


class ChoiceQuiz(Environment[None]):
    """Pick one of the printed options in `<choice>..</choice>`; tags that name no option of
    this question are skipped, the last one that does is read."""

    name = "choice_quiz"
    secret_fields = ("truth",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def chosen(self, text: str, task: Task) -> list[str]:
        import re

        tags = [t.strip() for t in re.findall(r"<choice>(.*?)</choice>", text)]
        return [t for t in tags if t in task.task_data["options"]]

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        picked = self.chosen(final_message(response), task)
        ok = bool(picked) and picked[-1] == task.task_data["truth"]
        return all_or_nothing([Check(name="right", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        truth = task.task_data["truth"]
        return [
            Control(name="reference", expect="pass", script=[say(f"<choice>{truth}</choice>")]),
            Control(name="noop_claim", expect="fail", script=[say("I have chosen.")]),
        ]


class AnyChoice(ChoiceQuiz):
    """The mistake: any tag naming the right option pays (several choices are a hedge)."""

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        picked = self.chosen(final_message(response), task)
        return all_or_nothing([Check(name="right", passed=task.task_data["truth"] in picked)])


def choice_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"choice-{i}",
            env="choice_quiz",
            responses_create_params={
                "input": f"Question {i}. Options: {', '.join(opts)}. Answer in <choice></choice>."
            },
            task_data={"options": opts, "truth": opts[(i + 1) % 4]},
        )
        for i, opts in enumerate(OPTIONS)
    ]


async def test_hedged_choices_are_this_questions_own_options_not_other_tasks_answers() -> None:
    # other tasks' answers name no option of this question: the grader skips them (the peer
    # audit's bunsenbench item); the other printed options are the hedge
    sound = await validate(ChoiceQuiz(), choice_tasks())
    assert not {"attack:hedged_candidates", "attack:padded_answer"} & failed(sound), [
        v for v in sound.verdicts if not v.passed
    ]
    hedge = await validate(AnyChoice(), choice_tasks())
    assert "attack:hedged_candidates" in failed(hedge), detail(hedge, "attack:hedged_candidates")


class Doorbell(Environment[dict[str, int]]):
    """Ring the bell 10 to 40 times: a flood's calls that ran are a fair way to do it."""

    name = "doorbell"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, int]:
        return {"rings": 0}

    @tool(inline=True)
    def ring(self, state: dict[str, int]) -> str:
        """Ring the bell once."""
        state["rings"] += 1
        return f"ring {state['rings']}"

    def verify(self, state: dict[str, int], task: Task, response: Response) -> VerifyResult:
        return all_or_nothing([Check(name="rang", passed=10 <= state["rings"] <= 40)])

    def controls(self, task: Task) -> list[Control]:
        rings = [call("ring") for _ in range(12)]
        return [
            Control(name="reference", expect="pass", script=[*rings, say("Rang it.")]),
            Control(name="noop_claim", expect="fail", script=[say("Rang it.")]),
        ]


async def test_a_flood_whose_calls_that_ran_solve_the_task_is_no_finding() -> None:
    tasks = [
        Task(task_id=f"bell-{i}", env="doorbell", responses_create_params={"input": "Ring."})
        for i in range(2)
    ]
    report = await validate(Doorbell(), tasks)
    assert "adversarial:call_flood" not in failed(report)
    assert "random calls solved the task" in detail(report, "adversarial:call_flood")


class Forecast(Environment[None]):
    """Relay the forecast tool's sentence for the asked city, as it printed it."""

    name = "forecast"

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    @tool(inline=True, observes=True)
    def get_forecast(self, state: None, city: str) -> str:
        """Tomorrow's forecast.

        Args:
            city: the city.
        """
        sentences = {"Lima": "Cloudy, 19 C in Lima.", "Oslo": "Snow, -4 C in Oslo."}
        return json.dumps({"city": city, "forecast": sentences.get(city, "No data.")})

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        ok = task.task_data["sentence"] in final_message(response)
        calls = [c for c in function_calls(response) if c["name"] == "get_forecast"]
        return all_or_nothing([Check(name="relayed", passed=ok and bool(calls))])

    def controls(self, task: Task) -> list[Control]:
        city = task.task_data["city"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("get_forecast", city=city), say(task.task_data["sentence"])],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Here is the forecast.")]),
        ]


async def test_a_tool_sentence_relayed_is_the_answer_not_an_echoed_dump() -> None:
    # the task is to pass on what the tool printed (the third peer audit's weather row)
    rows = [("Lima", "Cloudy, 19 C in Lima."), ("Oslo", "Snow, -4 C in Oslo.")]
    tasks = [
        Task(
            task_id=f"fc-{i}",
            env="forecast",
            responses_create_params={"input": f"What is tomorrow's weather in {city}?"},
            task_data={"city": city, "sentence": sentence},
        )
        for i, (city, sentence) in enumerate(rows)
    ]
    report = await validate(Forecast(), tasks)
    assert "control:reference" not in failed(report)
    assert "attack:echoed_observations" not in failed(report)


async def test_each_paid_rollout_is_kept_whole_where_the_verdict_shows_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the third peer audit read each paid message through a verdict's 60-character tail
    report = await validate(AnyAnswerLineMatches(), quiz_tasks())
    hedges = [p for p in report.paid if p["label"].startswith("attack hedged_candidates")]
    assert hedges and all(p["reward"] == 1.0 for p in hedges)
    said = hedges[0]["script"][-1][-1]["content"]
    total = next(t for t in quiz_tasks() if t.task_id == hedges[0]["task_id"]).task_data["total"]
    assert f"Answer: {total}" in said and said.count("\n") >= 1  # every line, not its tail
    assert "paid" in report.to_json()
    from proofgym_stack.cli_envs import _keep_paid

    monkeypatch.chdir(tmp_path)
    _keep_paid(report)
    kept = json.loads((tmp_path / "runs" / "findings" / "quiz" / f"{report.version}.paid.json")
                      .read_text())  # fmt: skip
    assert kept == report.paid
