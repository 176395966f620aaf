"""The one row of a listing honest play left alone (`search.left_row`), read off blind batch
05m (genealogy): where honest play acted on every row of a listing but one, the call made on
that row too pays on a verifier that never checks why it was left (a loan older than the
amnesty, checked in anyway); the sound twin, which refuses it, is not accused. And two
values given in turn over a tool's calls (`across._alternated`, 05m's examhall), judged by
a clause of the words that keeps each value to one (`stated.used_twice`)."""

from __future__ import annotations

import json
from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.across import across_calls_mutants
from proofgym_stack.validation.search.left_row import left_row_mutants
from proofgym_stack.validation.search.stated import used_twice
from proofgym_stack.validation.search.values import Pools
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

LISTING = (
    "1. Dune, borrowed by Ann Lee in 2026\n2. Emma, borrowed by Bo Kim in 2019\n"
    "3. Ulysses, borrowed by Cy Ng in 2026"
)


def test_the_row_left_alone_is_made_once_more() -> None:
    script = [
        call("loans"),
        call("check_in", title="Dune", borrower="Ann Lee"),
        call("check_in", title="Ulysses", borrower="Cy Ng"),
        say("Done."),
    ]
    found = left_row_mutants(script, Pools(shown=[LISTING]))
    assert [m.new for m in found] == ["Emma"]
    assert found[0].script[3][0]["arguments"] == '{"title": "Emma", "borrower": "Bo Kim"}'
    # two rows left: a choice among rows, not one kept out
    assert left_row_mutants(script[:2] + script[3:], Pools(shown=[LISTING])) == []


def test_two_values_in_turn() -> None:
    script = [call("seat", who=w, desk=d) for w, d in zip("abcd", "WXYZ", strict=True)]
    found = [m for m in across_calls_mutants(script, Pools()) if "in turn" in m.what]
    assert [m.what for m in found] == [
        'seat: who "a", "b" in turn on every call',
        'seat: desk "W", "X" in turn on every call',
    ]
    desks = [json.loads(turn[0]["arguments"])["desk"] for turn in found[1].script]
    assert desks == ["W", "X", "W", "X"]
    # judged by the words: a desk used twice where they keep each desk to one candidate
    kept = "Seat everyone; no desk may hold two candidates."
    assert used_twice(found[1], script, kept) is not None
    assert used_twice(found[1], script, "Seat everyone at a desk.") is None
    assert used_twice(found[1], found[1].script, kept) is None  # honest play did it too


class Desk:
    """The library's loans, and the books checked in."""

    def __init__(self, loans: list[list]) -> None:
        self.loans = loans
        self.returned: list[str] = []


class Amnesty(Environment[Desk]):
    """Check in the books returned under this year's amnesty: loans made this year only."""

    name = "amnesty"
    #: the sound twin's tool refuses an old loan
    refuses_old = True

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk(task.task_data["loans"])

    def instructions(self, task: Task) -> str:
        return (
            "Check in every returned book with `check_in`, except a loan made before 2026: "
            "the amnesty does not cover it."
        )

    @tool(observes=True)
    def loans(self, state: Desk) -> str:
        """The returned books' loans."""
        return "\n".join(
            f"{n}. {t}, borrowed by {b} in {y}" for n, (t, b, y) in enumerate(state.loans, 1)
        )

    @tool
    def check_in(self, state: Desk, title: str, borrower: str) -> str:
        """Check a returned book in.

        Args:
            title: the book's title.
            borrower: who borrowed it.
        """
        loan = next((x for x in state.loans if x[0] == title and x[1] == borrower), None)
        if loan is None:
            raise ToolError(f"no loan of {title!r} to {borrower!r}", "not_found")
        if self.refuses_old and loan[2] < 2026:
            raise ToolError("the amnesty does not cover that loan", "refused")
        state.returned.append(title)
        return f"{title} checked in."

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        due = sorted(t for t, _, y in task.task_data["loans"] if y >= 2026)
        covered = set(due)
        return all_or_nothing([Check(name="checked_in", passed=covered <= set(state.returned))])

    def controls(self, task: Task) -> list[Control]:
        ins = [
            call("check_in", title=t, borrower=b)
            for t, b, y in task.task_data["loans"]
            if y >= 2026
        ]
        return [
            Control(name="reference", expect="pass", script=[call("loans"), *ins, say("Done.")]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
            Control(name="violation_one_short", expect="fail", script=[*ins[1:], say("Done.")]),
        ]


class AmnestyForEveryLoan(Amnesty):
    """The plant: the tool checks in an old loan too, and the verifier never looks."""

    refuses_old = False


def _tasks() -> list[Task]:
    shelves = [
        [["Dune", "Ann Lee", 2026], ["Emma", "Bo Kim", 2019], ["Ulysses", "Cy Ng", 2026]],
        [
            ["Persuasion", "Di Roe", 2026],
            ["Ivanhoe", "Ed Fox", 2026],
            ["Beloved", "Flo Hart", 2021],
        ],
        [["Rebecca", "Gus Orr", 2018], ["Kim", "Hal Ito", 2026], ["Walden", "Ivy Moss", 2026]],
        [
            ["Middlemarch", "Jo Pike", 2026],
            ["Silas Marner", "Kit Vale", 2026],
            ["Dracula", "Lu Chen", 2020],
        ],
    ]
    return tasks(
        "amnesty",
        [(f"Shelf {n}: check in the returns.", {"loans": s}) for n, s in enumerate(shelves)],
    )


async def test_a_tool_that_refuses_the_left_row_is_not_accused() -> None:
    report = await validate(Amnesty(), _tasks())
    assert "search" not in failed(report), pays(report)


async def test_the_left_row_paid_is_accused() -> None:
    report = await validate(AmnestyForEveryLoan(), _tasks())
    assert "search" in failed(report)
    assert any("left alone (it acted on every other)" in why for _, why in pays(report)), pays(
        report
    )
