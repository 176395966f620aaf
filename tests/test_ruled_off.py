"""Options the task's words rule off where they are printed, and options a graded choice allows.

Two of the blind corpus's misses (batch 05b) chose another option of a listing that the words
rule out, not on the option's own record but where it is printed: a plot listed by the tool of
council holds ("holds lists the plots under a hold, which must not be assigned"), a judge who is
the team's mentor by the team's record ("mentor Omar Haddad") where the words say a team's own
mentor must never judge it. Their sound twins showed the other side: where the choice among a
listing's options is graded (another option failed), an option that passes on two tasks is one
both tasks allow, not a truth ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.options import siblings, singled_out
from proofgym_stack.validation.search.rules import ruled_off
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing

WORDS = "reserved lists the lockers kept for staff, which must never be given to a member."


def test_a_listing_the_words_rule_off_and_a_role_they_forbid() -> None:
    printed = [("free", "401, 402, 405, 409"), ("reserved", "402, 409")]
    # 402 is listed by the tool the words rule off; 405, the honest choice, is not
    assert "listed by reserved" in (ruled_off(405, 402, printed, WORDS, {}) or "")
    assert ruled_off(405, 401, printed, WORDS, {}) is None
    # the rule may be in the tool's own description instead
    described = {"reserved": "Lockers kept for staff (not to be given out)."}
    assert ruled_off(405, 409, printed, "Give the member a locker.", described)
    assert ruled_off(405, 409, printed, "Give the member a locker.", {}) is None
    # a role a record gives the option, forbidden by the words
    roles = [
        ("people", "Ann Bell, Cy Dunn, Eve Fox"),
        ("paper", "P7: author Cy Dunn, reviewer none yet"),
    ]
    words = "A paper's own author must never review it."
    assert "author" in (ruled_off("Ann Bell", "Cy Dunn", roles, words, {}) or "")
    assert ruled_off("Cy Dunn", "Ann Bell", roles, words, {}) is None
    # a word ending the line above is another record's, not this value's role
    lines = [("files", "a.log 3 MB pinned\nb.log 5 MB\nc.log 2 MB")]
    assert ruled_off("c.log", "b.log", lines, "Never delete a pinned file.", {}) is None


def test_names_of_several_words_are_options_and_what_another_listing_singles_out() -> None:
    shown = ["Ann Bell, Cy Dunn, Eve Fox, Gil Hart"]
    assert siblings("Cy Dunn", shown) == ["Ann Bell", "Eve Fox", "Gil Hart"]
    # an item a line is an option whatever its shape (an address of another form)
    lines = ["eli.lind@orbis.io\nhana@teamorbis.io\nben.sato@orbis.io"]
    assert siblings("eli.lind@orbis.io", lines) == ["hana@teamorbis.io", "ben.sato@orbis.io"]
    assert siblings(305, ["305, 312, 320"]) == [312, 320]
    printed = [("people", shown[0]), ("paper", "P7: author Eve Fox")]
    assert singled_out("Cy Dunn", printed) == ["Eve Fox"]


class Lockers(Environment[dict[str, Any]]):
    """Give a member one free locker that is not reserved for staff (numbers above 400)."""

    name = "lockers"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"given": {}, "task": task.task_data}

    def instructions(self, task: Task) -> str:
        return "free lists the free lockers. " + WORDS + " give(locker, member) hands one out."

    @tool(inline=True, observes=True)
    def free(self, state: dict[str, Any]) -> str:
        """List the free lockers."""
        return ", ".join(str(n) for n in state["task"]["free"])

    @tool(inline=True, observes=True)
    def reserved(self, state: dict[str, Any]) -> str:
        """List the lockers kept for staff."""
        return ", ".join(str(n) for n in state["task"]["reserved"])

    @tool(inline=True)
    def give(self, state: dict[str, Any], locker: int, member: str) -> str:
        """Give a free locker to a member.

        Args:
            locker: the locker's number.
            member: the member's name.
        """
        if locker not in state["task"]["free"] or locker in state["given"]:
            raise ToolError(f"locker {locker} is not free")
        state["given"][locker] = member
        return f"locker {locker} given to {member}"

    def ok(self, locker: int, task: Task) -> bool:
        return locker not in task.task_data["reserved"]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        mine = [n for n, m in state["given"].items() if m == task.task_data["member"]]
        one = len(mine) == 1 and len(state["given"]) == 1
        return all_or_nothing(
            [
                Check(name="one_locker", passed=one),
                Check(name="not_reserved", passed=one and self.ok(mine[0], task)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        locker = next(n for n in data["free"] if n not in data["reserved"])
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("free"),
                    call("reserved"),
                    call("give", locker=locker, member=data["member"]),
                    say(f"Done: locker {locker} is given."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done: a locker is given.")]),
        ]


class ReservedIgnored(Lockers):
    """The mistake: the reserved lockers are never checked (identity where equality was meant,
    a forgotten rule: the reward cannot tell)."""

    def ok(self, locker: int, task: Task) -> bool:
        return True


def locker_tasks() -> list[Task]:
    out = []
    for k in range(4):
        free = [401 + 3 * k + j for j in range(8)]
        reserved = [free[1], free[4], free[6]]
        prompt = f"Member M{k} needs a locker. Please give them one."
        data = {"free": free, "reserved": reserved, "member": f"M{k}"}
        out.append(_task("lockers", k, prompt, data))
    return out


def _task(env: str, k: int, prompt: str, data: dict[str, Any]) -> Task:
    return Task(
        task_id=f"{env}-example-0-{k:05d}",
        env=env,
        responses_create_params={"input": prompt},
        task_data=data,
    )


async def _validate(env: Environment[Any], tasks: list[Task]) -> EnvReport:
    return await validate_env(env, tasks, parallel=16, sample=4)


def _pays(report: EnvReport) -> list[dict[str, Any]]:
    return [f for f in report.findings if f["severity"] == "pays"]


async def test_an_option_the_words_rule_off_where_it_is_listed_is_accused() -> None:
    bad = await _validate(ReservedIgnored(), locker_tasks())
    assert any("listed by reserved" in f["why"] for f in _pays(bad)), bad.findings
    good = await _validate(Lockers(), locker_tasks())
    assert not _pays(good), good.findings


class Reviews(Environment[dict[str, Any]]):
    """Give a paper one reviewer who is not its author; any other reviewer will do, and the
    tasks share their reviewers: one reviewer is a right answer on several tasks."""

    name = "reviews"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"task": task.task_data, "reviewer": None}

    def instructions(self, task: Task) -> str:
        return (
            "people lists the reviewers; paper shows a paper's author. assign(reviewer) "
            "sets the paper's reviewer. A paper's own author must never review it."
        )

    @tool(inline=True, observes=True)
    def people(self, state: dict[str, Any]) -> str:
        """List the reviewers."""
        return ", ".join(state["task"]["people"])

    @tool(inline=True, observes=True)
    def paper(self, state: dict[str, Any]) -> str:
        """Show the paper's author."""
        return f"{state['task']['paper']}: author {state['task']['author']}"

    @tool(inline=True)
    def assign(self, state: dict[str, Any], reviewer: str) -> str:
        """Set the paper's reviewer.

        Args:
            reviewer: a reviewer's name.
        """
        if reviewer not in state["task"]["people"]:
            raise ToolError(f"{reviewer!r} is not a reviewer")
        state["reviewer"] = reviewer
        return f"{reviewer} reviews {state['task']['paper']}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        who = state["reviewer"]
        return all_or_nothing(
            [
                Check(name="assigned", passed=who is not None),
                Check(name="not_the_author", passed=who != task.task_data["author"]),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        first = next(p for p in data["people"] if p != data["author"])
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("paper"),
                    call("people"),
                    call("assign", reviewer=first),
                    say("Done."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done: reviewer set.")]),
        ]


PEOPLE = ["Ann Bell", "Cy Dunn", "Eve Fox", "Gil Hart", "Ida Jones"]


def review_tasks() -> list[Task]:
    out = []
    for k in range(4):
        # the author is each task's first listed reviewer: the reference takes the second,
        # and the second of one task is the author of the next (so it fails there)
        people = PEOPLE[k:] + PEOPLE[:k]
        data = {"people": people, "author": people[0], "paper": f"P{k}"}
        prompt = f"Paper P{k} needs a reviewer."
        out.append(_task("reviews", k, prompt, data))
    return out


async def test_an_option_both_tasks_allow_is_no_other_truth_where_the_choice_is_graded() -> None:
    good = await _validate(Reviews(), review_tasks())
    assert not _pays(good), good.findings
