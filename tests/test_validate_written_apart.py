"""One thing entered as many (`across._written_apart`), read off blind batch 05k
(litterpick): the first call's name sprayed over every call, each written another way, is
accused where a verifier counting raw strings pays it; the sound twin, which counts people,
is not."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.across import across_calls_mutants
from proofgym_stack.validation.search.values import Pools
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_the_spray_writes_each_call_another_way() -> None:
    script = [call("sign_up", who="Ava Lee"), call("sign_up", who="Bo Kim"), say("Done.")]
    found = [m for m in across_calls_mutants(script, Pools()) if "another way" in m.what]
    assert len(found) == 1
    sent = [turn[0].get("arguments") for turn in found[0].script[:2]]
    assert sent == ['{"who": "Ava Lee"}', '{"who": "ava lee"}']


class Signed:
    """Who signed up, as typed."""

    def __init__(self, roster: list[str]) -> None:
        self.roster = roster
        self.signed: list[str] = []


class Volunteers(Environment[Signed]):
    """Sign up the number of different volunteers the prompt asks for."""

    name = "volunteers"
    #: the plant: different volunteers counted on the names as typed
    counts_people = True

    def create_state(self, task: Task, workdir: Path | None) -> Signed:
        return Signed(task.task_data["roster"])

    def instructions(self, task: Task) -> str:
        return "Sign up as many different volunteers from the roster as the prompt asks."

    @tool(observes=True)
    def roster(self, state: Signed) -> str:
        """The volunteers."""
        return "\n".join(state.roster)

    @tool
    def sign_up(self, state: Signed, who: str) -> str:
        """Sign up one volunteer.

        Args:
            who: the name as the roster shows it.
        """
        if who.strip().lower() not in {r.lower() for r in state.roster} or who in state.signed:
            raise ToolError(f"cannot sign up {who!r}", "invalid")
        state.signed.append(who)
        return f"{who} signed up."

    def verify(self, state: Signed, task: Task, response: Response) -> VerifyResult:
        people = (
            {w.strip().lower() for w in state.signed} if self.counts_people else set(state.signed)
        )
        return all_or_nothing(
            [Check(name="enough", passed=len(people) >= task.task_data["needed"])]
        )

    def controls(self, task: Task) -> list[Control]:
        picks = task.task_data["roster"][: task.task_data["needed"]]
        ups = [turn for p in picks for turn in [call("sign_up", who=p)]]
        return [
            Control(name="reference", expect="pass", script=[call("roster"), *ups, say("Done.")]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
            Control(name="violation_short", expect="fail", script=[*ups[1:], say("Done.")]),
        ]


def _tasks() -> list[Task]:
    rosters = [
        ["Ava Lee", "Bo Kim", "Cy Ng", "Di Roe"],
        ["Ed Fox", "Flo Hart", "Gus Orr"],
        ["Hal Ito", "Ivy Moss", "Jo Pike", "Kit Vale"],
        ["Lu Chen", "Mo Dahl", "Ned Shaw"],
    ]
    rows = [
        (f"Day {n}: we need {k} volunteers.", {"roster": r, "needed": k})
        for n, (r, k) in enumerate(zip(rosters, [3, 2, 4, 3], strict=True))
    ]
    return tasks("volunteers", rows)


async def test_a_verifier_counting_people_is_not_accused() -> None:
    report = await validate(Volunteers(), _tasks())
    assert "search" not in failed(report), pays(report)


class VolunteersAsTyped(Volunteers):
    counts_people = False


async def test_one_person_entered_as_many_is_accused() -> None:
    report = await validate(VolunteersAsTyped(), _tasks())
    assert any("another way" in what for what, _ in pays(report)), pays(report)
