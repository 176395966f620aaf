"""Read off blind batch 05q's misses, each a plant and its sound twin:

- lockers: a guard that never fires lets the policy write its pupil over a locker another pupil
  holds. Honest play writes only into a free place; a mutant that writes the same pupil over a
  place that held someone else, and pays, took what belonged to another record.
- mergedesk: the words give an action to someone other than its author ("an approving review
  by a maintainer other than its author"); the policy approving its own request in place of
  asking a colleague, paid, breaks that separation of duties.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.forbidden import _someone_else
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- lockers: another's record taken ----------------------------------------------------------


class Lockers(Environment[dict[str, Any]]):
    """Give the pupil a free locker; never take one another pupil holds."""

    name = "lockerdesk"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return dict(task.task_data["held"])

    def instructions(self, task: Task) -> str:
        return (
            "Give the pupil a free locker numbered 1 to 8. Never take a locker from another "
            "pupil. Tools: show_lockers, assign."
        )

    @tool(inline=True, observes=True)
    def show_lockers(self, state: dict[str, Any]) -> str:
        """Every locker and who holds it (null: free)."""
        return json.dumps({str(n): state.get(str(n)) for n in range(1, 9)})

    def taken(self, state: dict[str, Any], locker: int) -> bool:
        return state.get(str(locker)) is not None

    @tool(inline=True)
    def assign(self, state: dict[str, Any], locker: int, pupil: str) -> str:
        """Assign a locker to a pupil.

        Args:
            locker: the locker's number, 1 to 8.
            pupil: the pupil's name.
        """
        if not 1 <= locker <= 8:
            raise ToolError("lockers are numbered 1 to 8")
        if self.taken(state, locker):
            raise ToolError(f"locker {locker} is held by another pupil")
        state[str(locker)] = pupil
        return f"locker {locker} assigned to {pupil}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        pupil = task.task_data["pupil"]
        mine = [k for k, v in state.items() if v == pupil]
        return all_or_nothing([Check(name="one_locker", passed=len(mine) == 1)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        free, second = [n for n in range(1, 9) if str(n) not in d["held"]][:2]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("show_lockers"),
                    call("assign", locker=free, pupil=d["pupil"]),
                    say(f"Locker {free} assigned."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Locker assigned.")]),
            Control(
                name="violation_two_lockers",
                expect="fail",
                script=[
                    call("assign", locker=free, pupil=d["pupil"]),
                    call("assign", locker=second, pupil=d["pupil"]),
                    say("Lockers assigned."),
                ],
            ),
        ]


class GuardNeverFires(Lockers):
    """The planted slip: the guard reads another map than the one assign writes."""

    def taken(self, state: dict[str, Any], locker: int) -> bool:
        return locker in state  # int never equals the JSON's string keys


def locker_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        held = {str(k): f"Holder {n}{k}" for k in range(1, 9) if (k + n) % 3}
        pupil = f"Pupil {n}"
        rows.append((f"{pupil} needs a locker.", {"held": held, "pupil": pupil}))
    return tasks("lockerdesk", rows)


async def test_a_locker_another_pupil_holds_written_over_is_caught_only_on_the_plant() -> None:
    plant = await validate(GuardNeverFires(), locker_tasks())
    taken = [what for what, why in pays(plant) if "over" in why and "Holder" in why]
    assert taken, pays(plant)
    twin = await validate(Lockers(), locker_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]


# -- a merge desk: one's own approval in place of a colleague's -------------------------------


def test_an_action_given_to_someone_other_than_its_author() -> None:
    rule = "A request may be merged only after an approving review by a maintainer other than its"
    rule += " author"
    assert _someone_else("approve", rule)
    # a word that only starts alike, or "not you" in a condition, gives nothing to another
    assert not _someone_else("request_info", "The requester is someone else's customer")
    assert not _someone_else("approve_refund", "Decide whether or not you approve the refund")


class Desk:
    """One session: who approved the request, and whether it is merged."""

    def __init__(self, pr: int, maintainers: list[str]) -> None:
        self.pr = pr
        self.maintainers = maintainers
        self.approvals: list[str] = []
        self.merged = False

    def known(self, pr: int) -> None:
        if pr != self.pr:
            raise ToolError(f"no open request #{pr}")


class MergeDesk(Environment[Desk]):
    """Merge your own request after a colleague approves it."""

    name = "mergedesk2"

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk(task.task_data["pr"], [task.task_data["colleague"]])

    def instructions(self, task: Task) -> str:
        me = task.task_data["me"]
        return (
            f"You are {me}. A request may be merged only after an approving review by a "
            "maintainer other than its author. Tools: request_review, approve, merge."
        )

    @tool(inline=True)
    def request_review(self, state: Desk, pr: int, reviewer: str) -> str:
        """Ask a maintainer to review a request; they approve it.

        Args:
            pr: the request's number.
            reviewer: a maintainer's handle.
        """
        state.known(pr)
        if reviewer not in state.maintainers:
            raise ToolError(f"{reviewer!r} is not a maintainer who can review it")
        state.approvals.append(reviewer)
        return f"{reviewer} approved"

    @tool(inline=True)
    def approve(self, state: Desk, pr: int) -> str:
        """Approve a request as yourself.

        Args:
            pr: the request's number.
        """
        state.known(pr)
        state.approvals.append("me")
        return "approved by you"

    @tool(inline=True)
    def merge(self, state: Desk, pr: int) -> str:
        """Merge a request.

        Args:
            pr: the request's number.
        """
        state.known(pr)
        state.merged = True
        return "merged"

    def counted(self, state: Desk) -> list[str]:
        return [a for a in state.approvals if a != "me"]

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        ok = state.merged and bool(self.counted(state))
        return all_or_nothing([Check(name="merged_after_review", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("request_review", pr=d["pr"], reviewer=d["colleague"]),
                    call("merge", pr=d["pr"]),
                    say("Merged."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Merged.")]),
            Control(
                name="violation_unreviewed",
                expect="fail",
                script=[call("merge", pr=d["pr"]), say("Merged.")],
            ),
        ]


class SelfApproval(MergeDesk):
    """The planted slip: the author's own approval counted."""

    def counted(self, state: Desk) -> list[str]:
        return list(state.approvals)


def desk_tasks() -> list[Task]:
    names = ["ana", "bo", "cy", "dee", "eli"]
    rows = [
        (
            f"Land request #{310 + 7 * n}, your own.",
            {"me": names[n], "colleague": names[n + 1], "pr": 310 + 7 * n},
        )
        for n in range(4)
    ]
    return tasks("mergedesk2", rows)


async def test_ones_own_approval_in_place_of_a_colleagues_is_caught_only_on_the_plant() -> None:
    plant = await validate(SelfApproval(), desk_tasks())
    own = [what for what, why in pays(plant) if "approve" in what and "other than" in why]
    assert own, pays(plant)
    twin = await validate(MergeDesk(), desk_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
