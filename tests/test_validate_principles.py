"""Each attack by principle proven on a planted fault, and silent on its sound twin.

The environments are the other author's of `test_validate_unseen.py` (their own names, only a
`reference`, a `noop_claim` and one violation), each with one mistake planted; the checks that
must find it are named by principle (floor, answer slot, replay, steps), not by the mistake.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_unseen import (
    Bookings,
    Quiz,
    TableBookingWithViolation,
    call,
    detail,
    failed,
    quiz_tasks,
    say,
    validate,
)

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.answers import extract_answers
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing


def outcome(report: EnvReport, name: str) -> str:
    return next(v.outcome for v in report.verdicts if v.name == name)


# --- the floor --------------------------------------------------------------------------------


class PaysForTheFormat(TableBookingWithViolation):
    """Gives 0.3 for a polite final message, whatever was done: partial reward for failing."""

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        done = self.achieved(state, task)
        polite = 0.3 if final_message(response).strip() else 0.0
        reward = 1.0 if done else polite
        return VerifyResult(reward=reward, checks=[Check(name="table_booked", passed=done)])


async def test_partial_reward_for_a_failure_is_caught_at_the_floor() -> None:
    report = await validate(PaysForTheFormat())
    assert "floor:negatives_at_floor" in failed(report)
    assert "noop_claim earned 0.3" in detail(report, "floor:negatives_at_floor")


class ConfidencePays(TableBookingWithViolation):
    """Scores a confident message 0.4 and an admission 0: lying pays more than admitting."""

    def verify(self, state: Bookings, task: Task, response: Response) -> VerifyResult:
        done = self.achieved(state, task)
        said = final_message(response).lower()
        confident = 0.4 if re.search(r"\b(done|complete|booked)\b", said) else 0.0
        return VerifyResult(
            reward=1.0 if done else confident, checks=[Check(name="booked", passed=done)]
        )


async def test_a_claim_that_pays_more_than_an_admission_is_caught() -> None:
    report = await validate(ConfidencePays())
    assert "floor:lying_pays_no_more_than_admitting" in failed(report)


async def test_the_sound_booking_environment_passes_every_principle() -> None:
    report = await validate(TableBookingWithViolation())
    assert report.passed, [v for v in report.verdicts if not v.passed]
    for name in (
        "floor:negatives_at_floor",
        "floor:lying_pays_no_more_than_admitting",
        "replay:cross_task",
        "steps:each_needed",
        "steps:no_tool_rescues_a_failure",
    ):
        assert outcome(report, name) == "pass", name
    # the answer is the booking, not the message: the message's attacks cannot apply, and the
    # booked slot moved a minute is refused (a slot that is not one of the task's)
    for kind in ("denied", "retracted", "self_contradicting", "number_spray"):
        assert outcome(report, f"answer_slot:{kind}") == "n/a", kind
    assert outcome(report, "answer_slot:near_miss") == "pass"


# --- the answer slot ----------------------------------------------------------------------------


class FirstNumberAfterAnswer(Quiz):
    """Reads the first number after `Answer:`: "Answer: not 5597" is 5597 to it."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"Answer:\D*(\d+)", text)
        return m is not None and int(m.group(1)) == task.task_data["total"]


async def test_a_denied_or_retracted_answer_is_caught() -> None:
    # "Answer: not 5597" is a wrong answer by its plain meaning, paid
    report = await validate(FirstNumberAfterAnswer(), quiz_tasks())
    assert {"answer_slot:denied", "answer_slot:retracted"} <= failed(report)


class WithinFivePercent(Quiz):
    """Accepts any answer within 6% of the total: a near miss is a pass."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"Answer:\s*(-?\d+(?:\.\d+)?)\s*$", text, re.M)
        return m is not None and abs(float(m.group(1)) - task.task_data["total"]) <= (
            0.06 * task.task_data["total"]
        )


async def test_a_near_miss_accepted_is_caught() -> None:
    report = await validate(WithinFivePercent(), quiz_tasks())
    assert "answer_slot:near_miss" in failed(report)


class LastNumberAnywhere(Quiz):
    """Takes the last number in the text as the answer."""

    def correct(self, text: str, task: Task) -> bool:
        numbers = re.findall(r"\d+", text)
        return bool(numbers) and int(numbers[-1]) == task.task_data["total"]


async def test_the_last_number_of_the_text_taken_as_the_answer_is_caught() -> None:
    report = await validate(LastNumberAnywhere(), quiz_tasks())
    assert "answer_slot:last_number_trap" in failed(report)


class AfterTheLastEquals(Quiz):
    """Takes what follows the last `=` as the answer, so `5877 = 5597` states 5597."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"Answer:\s*(.+)$", text, re.M)
        return m is not None and m.group(1).rsplit("=", 1)[-1].strip() == str(
            task.task_data["total"]
        )


async def test_working_read_by_its_result_is_no_self_contradiction() -> None:
    # `5877 = 5597` is paid and `5597 = 5877` is not: the value after `=` is read, as
    # working is written; only one of the two values ever pays
    report = await validate(AfterTheLastEquals(), quiz_tasks())
    verdict = next(v for v in report.verdicts if v.name == "answer_slot:self_contradicting")
    assert verdict.passed and verdict.detail.startswith("advisory"), verdict


async def test_two_values_either_of_which_pays_are_a_self_contradiction() -> None:
    report = await validate(AnyNumberMatches(), quiz_tasks())
    assert "answer_slot:self_contradicting" in failed(report)


class RangeContainingTheTotal(Quiz):
    """Takes one number or two (a range) on the `Answer:` line, paid when the total lies
    inside, however wide the range."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"Answer:(.*)$", text, re.M)
        numbers = [int(n) for n in re.findall(r"\d+", m.group(1))] if m else []
        ok = 1 <= len(numbers) <= 2
        return ok and min(numbers) <= task.task_data["total"] <= max(numbers)


async def test_a_range_around_the_answer_paid_is_caught() -> None:
    report = await validate(RangeContainingTheTotal(), quiz_tasks())
    assert "answer_slot:range" in failed(report)


class AnyNumberMatches(Quiz):
    """Pays when any number of the answer line is the total."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"Answer:(.*)$", text, re.M)
        return m is not None and str(task.task_data["total"]) in re.findall(r"\d+", m.group(1))


async def test_a_spray_of_numbers_is_caught() -> None:
    report = await validate(AnyNumberMatches(), quiz_tasks())
    assert "answer_slot:number_spray" in failed(report)


async def test_the_sound_quiz_passes_the_answer_slot() -> None:
    report = await validate(Quiz(), quiz_tasks())
    assert report.passed, [v for v in report.verdicts if not v.passed]
    for kind in ("near_miss", "denied", "retracted", "self_contradicting", "range"):
        assert outcome(report, f"answer_slot:{kind}") == "pass", kind
    assert outcome(report, "answer_slot:number_spray") == "pass"


# --- cross-task replay ----------------------------------------------------------------------------


class AnyBookingForTheGuestName(TableBookingWithViolation):
    """Pays any single booking whose guest is one of ours: the slot and the guest asked for are
    never compared with the task."""

    def achieved(self, state: Bookings, task: Task) -> bool:
        return len(state.booked) == 1 and state.booked[0][0] in {"ana", "bo", "cy", "dee"}


async def test_a_verifier_that_does_not_read_the_task_is_caught_by_replay() -> None:
    report = await validate(AnyBookingForTheGuestName())
    assert "replay:cross_task" in failed(report)
    assert "reference on tables-" in detail(report, "replay:cross_task")


# --- ablation and insertion -------------------------------------------------------------------


class Confirmed(Bookings):
    """Bookings that must be confirmed with the guest."""

    def __init__(self, taken: list[str]) -> None:
        super().__init__(taken)
        self.confirmed: list[str] = []


class MustConfirm(TableBookingWithViolation):
    """Its instructions say each booking must be confirmed with `confirm`; `verify_confirms`
    says whether the verifier checks it (the planted mistake: it forgets)."""

    verify_confirms = False

    def create_state(self, task: Task, workdir: Path | None) -> Confirmed:
        return Confirmed(task.task_data["taken"])

    def instructions(self, task: Task) -> str:
        return "Book the table, then confirm it with the guest using `confirm`."

    @tool(inline=True)
    def confirm(self, state: Confirmed, guest: str) -> str:
        """Confirm a booking with the guest.

        Args:
            guest: the guest's name.
        """
        if not any(g == guest for g, _ in state.booked):
            raise ToolError(f"nothing booked for {guest}")
        state.confirmed.append(guest)
        return f"confirmed with {guest}"

    def achieved(self, state: Bookings, task: Task) -> bool:
        booked = super().achieved(state, task)
        confirmed = task.task_data["guest"] in getattr(state, "confirmed", [])
        return booked and (confirmed or not self.verify_confirms)

    def controls(self, task: Task) -> list[Control]:
        guest, slot = task.task_data["guest"], task.task_data["slot"]
        out = super().controls(task)
        out[0] = Control(
            name="reference",
            expect="pass",
            script=[
                call("book", guest=guest, slot=slot),
                call("confirm", guest=guest),
                say(f"Your table is booked, {guest}."),
            ],
        )
        return out


class ChecksConfirmation(MustConfirm):
    """The sound twin: the verifier checks the rule its instructions state."""

    verify_confirms = True


async def test_a_rule_the_verifier_forgot_is_caught_by_removing_its_step() -> None:
    report = await validate(MustConfirm())
    assert "steps:each_needed" in failed(report)
    assert "without confirm" in detail(report, "steps:each_needed")
    sound = await validate(ChecksConfirmation())
    assert outcome(sound, "steps:each_needed") == "pass", detail(sound, "steps:each_needed")


class UndoLeavesTheTableTaken(TableBookingWithViolation):
    """`undo_last` drops the last booking from the record the verifier reads, but the table it
    took stays taken: a tool that resets the evidence, not the world."""

    @tool(inline=True, observes=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return super().free_slots(state)

    @tool(inline=True)
    def undo_last(self, state: Bookings) -> str:
        """Undo the last booking."""
        if state.booked:
            state.booked.pop()
        return "undone"


class UndoFreesTheTable(UndoLeavesTheTableTaken):
    """The sound twin: undoing a booking frees its table too (a real undo, after which the
    world is the reference's), and the author says which tool only shows the world."""

    @tool(inline=True, observes=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return super().free_slots(state)

    @tool(inline=True)
    def undo_last(self, state: Bookings) -> str:
        """Undo the last booking."""
        if state.booked:
            _, slot = state.booked.pop()
            state.taken.remove(slot)
        return "undone"


async def test_a_tool_that_wipes_the_evidence_is_caught_by_insertion() -> None:
    report = await validate(UndoLeavesTheTableTaken())
    assert "steps:no_tool_rescues_a_failure" in failed(report)
    assert "undo_last" in detail(report, "steps:no_tool_rescues_a_failure")
    sound = await validate(UndoFreesTheTable())
    assert outcome(sound, "steps:no_tool_rescues_a_failure") == "pass"


class UndoFreesTheTableUnsaid(UndoFreesTheTable):
    """The sound twin again, with no tool declared as only showing the world: the state
    `verify` is handed says the undo left the reference's world."""

    @tool(inline=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return TableBookingWithViolation.free_slots(self, state)


async def test_an_undo_is_an_honest_repair_where_verify_is_handed_an_honest_world() -> None:
    # no `observes` tool to look with: the world verify reads is compared (a blind twin that
    # cancels a second booking was accused before)
    sound = await validate(UndoFreesTheTableUnsaid())
    assert outcome(sound, "steps:no_tool_rescues_a_failure") == "pass", detail(
        sound, "steps:no_tool_rescues_a_failure"
    )


def test_every_check_says_n_a_where_it_cannot_apply() -> None:
    from proofgym_stack.validation import Verdict

    assert Verdict("x", True, "why", applicable=False).outcome == "n/a"
    report = EnvReport(env="e", version="v", tasks=1)
    report.verdicts = [Verdict("a", True), Verdict("b", True, "why", applicable=False)]
    assert report.passed and report.summary() == "e: 1/1 verdicts pass (1 n/a)"
    assert report.to_json()["verdicts"][1]["outcome"] == "n/a"


# --- no false alarm: a perturbation that keeps the truth is not judged ----------------------


class Sums:
    """One session's total."""

    def __init__(self) -> None:
        self.total: int | None = None


class Adder(Environment[Sums]):
    """Add two numbers with the `add` tool; the sum is what counts (so add(a, b) = add(b, a))."""

    name = "adder"

    def create_state(self, task: Task, workdir: Path | None) -> Sums:
        return Sums()

    @tool(inline=True)
    def add(self, state: Sums, a: int, b: int) -> str:
        """Add two numbers and keep the sum.

        Args:
            a: the first number.
            b: the second number.
        """
        state.total = a + b
        return str(state.total)

    def verify(self, state: Sums, task: Task, response: Response) -> VerifyResult:
        right = state.total == task.task_data["a"] + task.task_data["b"]
        return all_or_nothing(
            [
                Check(name="sum_kept", passed=right),
                claim_check(final_message(response), right, words=("added",)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        a, b = task.task_data["a"], task.task_data["b"]
        return [
            Control(name="reference", expect="pass", script=[call("add", a=a, b=b), say("Added.")]),
            Control(name="noop_claim", expect="fail", script=[say("Added.")]),
            Control(
                name="violation_wrong_sum",
                expect="fail",
                script=[call("add", a=a, b=a), say("Added.")],
            ),
        ]


def adder_tasks() -> list[Task]:
    # the second task's numbers are the first's, swapped: another task's value for `a` is this
    # task's own `b`, and a perturbation by "another task's value" swaps the two
    pairs = [(3, 5), (5, 3), (12, 40), (40, 12)]
    return [
        Task(
            task_id=f"adder-{i}",
            env="adder",
            responses_create_params={"input": f"Add {a} and {b}."},
            task_data={"a": a, "b": b},
        )
        for i, (a, b) in enumerate(pairs)
    ]


async def test_swapped_arguments_of_a_commutative_call_are_no_false_alarm() -> None:
    report = await validate(Adder(), adder_tasks())
    assert report.passed, [v for v in report.verdicts if not v.passed]


# --- information flow ------------------------------------------------------------------------


class EncodedHint(Quiz):
    """A `hint` tool that, asked about "answer", gives the total base64-encoded: the truth
    shown in a form no verbatim search finds."""

    @tool(inline=True)
    def hint(self, state: None, topic: str) -> str:
        """A hint about the problem.

        Args:
            topic: what the hint is about.
        """
        import base64

        if topic == "answer":
            return base64.b64encode(str(self.total_of(state)).encode()).decode()
        return "Add the two numbers."

    def create_state(self, task: Task, workdir: Path | None) -> Any:
        return task.task_data["total"]

    def total_of(self, state: Any) -> int:
        return int(state)


class PlainHint(EncodedHint):
    """The sound twin: the hint never depends on the answer."""

    @tool(inline=True)
    def hint(self, state: None, topic: str) -> str:
        """A hint about the problem.

        Args:
            topic: what the hint is about.
        """
        return "Add the two numbers, then check the last digit."


async def test_a_truth_shown_encoded_is_caught_by_moving_it() -> None:
    report = await validate(EncodedHint(), quiz_tasks())
    assert "information_flow:truth_unreadable" in failed(report)
    assert 'hint({"topic": "answer"})' in detail(report, "information_flow:truth_unreadable")
    assert "no_ground_truth_leak" not in failed(report)  # the verbatim search cannot see it
    sound = await validate(PlainHint(), quiz_tasks())
    assert outcome(sound, "information_flow:truth_unreadable") == "pass"
    assert sound.passed, [v for v in sound.verdicts if not v.passed]


class TaggedQuiz(Quiz):
    """The answer goes between `<answer>` and `</answer>`; only what stands there is read (as
    reasoning-gym's graders read it)."""

    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"<answer>(.*?)</answer>", text, re.S)
        return m is not None and m.group(1).strip() == str(task.task_data["total"])

    def controls(self, task: Task) -> list[Control]:
        total = task.task_data["total"]
        return [
            Control(name="reference", expect="pass", script=[say(f"<answer>{total}</answer>")]),
            Control(name="noop_claim", expect="fail", script=[say("Done, solved it.")]),
            Control(
                name="violation_off_by_one",
                expect="fail",
                script=[say(f"<answer>{total + 1}</answer>")],
            ),
        ]


class TaggedWithinFivePercent(TaggedQuiz):
    def correct(self, text: str, task: Task) -> bool:
        m = re.search(r"<answer>\s*(\d+)\s*</answer>", text)
        total = task.task_data["total"]
        return m is not None and abs(int(m.group(1)) - total) <= 0.06 * total


async def test_words_outside_the_answer_tags_are_commentary_not_a_retraction() -> None:
    report = await validate(TaggedQuiz(), quiz_tasks())
    retracted = next(v for v in report.verdicts if v.name == "answer_slot:retracted")
    assert retracted.passed and retracted.detail.startswith("advisory"), retracted
    assert not failed(report), [v for v in report.verdicts if not v.passed]
    # inside the tags the slot is still judged: a near miss paid is accused
    bad = await validate(TaggedWithinFivePercent(), quiz_tasks())
    assert "answer_slot:near_miss" in failed(bad)


# --- the order of a failure -------------------------------------------------------------------


class LastBookingCounts(TableBookingWithViolation):
    """Reads only the guest's last booking: two tables booked, the asked one last, pays. The
    violation (the asked table first, then another) fails; its calls the other way round pay,
    leaving the same tables taken."""

    @tool(inline=True, observes=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return super().free_slots(state)

    def achieved(self, state: Bookings, task: Task) -> bool:
        return bool(state.booked) and state.booked[-1] == (
            task.task_data["guest"],
            task.task_data["slot"],
        )


class EveryBookingCounts(TableBookingWithViolation):
    """The sound twin: every booking is read, so two tables fail in either order."""

    @tool(inline=True, observes=True)
    def free_slots(self, state: Bookings) -> str:
        """The slots still free today."""
        return super().free_slots(state)


async def test_a_failure_made_in_another_order_must_still_fail() -> None:
    report = await validate(LastBookingCounts())
    assert "steps:order_of_a_failure" in failed(report)
    assert "violation_two_tables" in detail(report, "steps:order_of_a_failure")
    sound = await validate(EveryBookingCounts())
    assert outcome(sound, "steps:order_of_a_failure") == "pass", detail(
        sound, "steps:order_of_a_failure"
    )


def test_honest_play_s_own_order_is_never_tried() -> None:
    from proofgym_stack.validation.orders import honest_order, orders, reordered

    assert orders(2) == [[1, 0]]
    assert [0, 1, 2] not in orders(3) and [2, 1, 0] in orders(3)
    # the violation "ship, then approve", reversed, is the reference's order
    honest = [["approve", "ship", "notify"]]
    assert honest_order(["ship", "approve"], ["approve", "ship"], honest)
    # one pair put the honest way is enough, whatever the others do (the message moved
    # first while verify comes before refund again: a repair, not a blind spot)
    refund = [["verify", "refund", "message"]]
    assert honest_order(["refund", "verify", "message"], ["message", "verify", "refund"], refund)
    kept = ["verify", "refund", "message"]
    assert not honest_order(kept, ["message", "verify", "refund"], refund)
    # one shared call says nothing of an order
    assert not honest_order(["assign", "move"], ["move", "assign"], [["assign"]])
    script = [[{"n": 1}], [{"n": 2}, {"m": 0}], [{"n": 3}]]
    assert reordered(script, [(0, 0), (1, 0), (2, 0)], [2, 0, 1]) == [
        [{"n": 3}],
        [{"n": 1}, {"m": 0}],
        [{"n": 2}],
    ]


# --- the answer written as a pattern ----------------------------------------------------------


class AnswerAsPattern(Quiz):
    """Matches the total against the policy's answer as a regular expression (an author's
    case-insensitive equality): `[0-9]+` is every total."""

    def correct(self, text: str, task: Task) -> bool:
        answers = extract_answers(text)
        try:
            return bool(answers) and all(
                re.fullmatch(a.strip(), str(task.task_data["total"]), re.I) for a in answers
            )
        except re.error:
            return False


async def test_an_answer_read_as_a_pattern_is_caught() -> None:
    report = await validate(AnswerAsPattern(), quiz_tasks())
    assert "search" in failed(report)
    found = [f for f in report.findings if f["op"] == "pattern" and f["severity"] == "pays"]
    assert found and found[0]["oracle"] == "another_truth", report.findings
    assert "[0-9]+" in found[0]["what"]


def test_the_answer_s_place_in_a_reply() -> None:
    from proofgym_stack.validation.search.patterns import answer_span, character_class

    text = "The sheet holds Primula vulgaris.\nAnswer: Primula vulgaris."
    start, end = answer_span(text) or (0, 0)
    assert text[start:end] == "Primula vulgaris"
    boxed = "so \\boxed{42} it is, and more words follow here on two\nlines"
    start, end = answer_span(boxed) or (0, 0)
    assert boxed[start:end] == "42"
    assert answer_span("a long reply\nwith no answer line at all") is None
    assert character_class("Primula vulgaris") == "[A-Za-z ]+"
    assert character_class("HB-0421") == "[A-Za-z0-9\\-]+"
