"""A needed step whose refusal, told in words, still counts (`Search.judge`), read off blind
batch 05k (pwreset): where leaving a call out fails but the same call with another argument,
answered "... not ..." by its tool, still pays, the verifier counts the step and not its
outcome; the sound twin, whose tool refuses with a tool error the trajectory rule discounts,
is not accused."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing
from resources_servers.verifiers.trajectory import required_before


class Counter:
    """A pharmacy counter: the prescriptions on file, and what was handed over."""

    def __init__(self, codes: dict[str, str]) -> None:
        self.codes = codes
        self.dispensed: list[str] = []


class Pharmacy(Environment[Counter]):
    """Hand a patient their medicine, once the prescription code they give checks out."""

    name = "pharmacy"

    def create_state(self, task: Task, workdir: Path | None) -> Counter:
        return Counter(dict(task.task_data["codes"]))

    def instructions(self, task: Task) -> str:
        return (
            "Check the patient's prescription code with `check_code`, then `dispense` their "
            "medicine. Never dispense before the code checks out."
        )

    def _wrong(self, message: str) -> str:
        raise ToolError(message, "refused")

    @tool
    def check_code(self, state: Counter, patient: str, code: str) -> str:
        """Check a prescription code against the patient's file.

        Args:
            patient: the patient's name.
            code: the code the patient gave.
        """
        if patient not in state.codes:
            raise ToolError(f"no patient {patient!r}", "not_found")
        if code.strip() != state.codes[patient]:
            return self._wrong("Code not valid for this patient.")
        return f"Code accepted for {patient}."

    @tool
    def dispense(self, state: Counter, patient: str) -> str:
        """Hand the patient their medicine.

        Args:
            patient: the patient's name.
        """
        if patient not in state.codes:
            raise ToolError(f"no patient {patient!r}", "not_found")
        state.dispensed.append(patient)
        return f"Medicine handed to {patient}."

    def verify(self, state: Counter, task: Task, response: Response) -> VerifyResult:
        who = task.task_data["patient"]
        return all_or_nothing(
            [
                Check(name="dispensed", passed=state.dispensed == [who]),
                required_before(
                    response, "check_code", {"dispense"}, key=lambda a: a.get("patient")
                ),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        who = task.task_data["patient"]
        code = task.task_data["codes"][who]
        done = say(f"Medicine handed to {who}.")
        honest = [call("check_code", patient=who, code=code), call("dispense", patient=who)]
        return [
            Control(name="reference", expect="pass", script=[*honest, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_unchecked",
                expect="fail",
                script=[call("dispense", patient=who), done],
            ),
        ]


class PharmacyToldNo(Pharmacy):
    """The plant: a wrong code answered as plain text, which the trajectory rule counts."""

    def _wrong(self, message: str) -> str:
        return message


def _tasks() -> list[Task]:
    rows = [
        ("Ana Diaz is at the counter; her code is 4471-KX.", "Ana Diaz", "4471-KX"),
        ("Ben Ott is at the counter; his code is 9020-PL.", "Ben Ott", "9020-PL"),
        ("Cai Wu is at the counter; her code is 1187-QR.", "Cai Wu", "1187-QR"),
        ("Dev Rao is at the counter; his code is 5532-MN.", "Dev Rao", "5532-MN"),
    ]
    return tasks(
        "pharmacy",
        [
            (text, {"patient": who, "codes": {who: code, "Eli Sato": "0000-AA"}})
            for text, who, code in rows
        ],
    )


async def test_a_refusal_the_rule_discounts_is_not_accused() -> None:
    report = await validate(Pharmacy(), _tasks())
    assert "search" not in failed(report), pays(report)


async def test_a_refusal_told_in_words_and_counted_is_accused() -> None:
    report = await validate(PharmacyToldNo(), _tasks())
    assert "search" in failed(report)
    assert any("the step is counted, not its outcome" in why for _, why in pays(report)), pays(
        report
    )
