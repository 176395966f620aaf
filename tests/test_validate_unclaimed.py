"""A rule held only through the claim check (`search.unclaimed`), read off blind batch 05k
(sterile): a mutant that fails only because its final message claims success, where the
verifier's own reading of the state says the work is undone, is played again with a message
that claims nothing; where that pays, the rule binds only policies that say they succeeded.
The sound twin, which checks the rule on its own, is not accused."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.unclaimed import only_the_claim
from resources_servers.base import Environment, ToolError, tool
from resources_servers.sdk import final_message
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing


class Shop:
    """Panels in a paint shop: which are primed, which painted."""

    def __init__(self, panels: list[str]) -> None:
        self.panels = panels
        self.primed: set[str] = set()
        self.painted: list[str] = []
        self.primed_first: dict[str, bool] = {}


class PaintShop(Environment[Shop]):
    """Paint the panels the job names, each primed before it is painted."""

    name = "paintshop"

    def create_state(self, task: Task, workdir: Path | None) -> Shop:
        return Shop(list(task.task_data["panels"]))

    def instructions(self, task: Task) -> str:
        return "Prime each panel of the job, then paint it. Never paint an unprimed panel."

    @tool
    def prime(self, state: Shop, panel: str) -> str:
        """Prime a panel.

        Args:
            panel: the panel's id.
        """
        if panel not in state.panels:
            raise ToolError(f"no panel {panel!r}", "not_found")
        state.primed.add(panel)
        return f"{panel} primed."

    @tool
    def paint(self, state: Shop, panel: str) -> str:
        """Paint a panel.

        Args:
            panel: the panel's id.
        """
        if panel not in state.panels:
            raise ToolError(f"no panel {panel!r}", "not_found")
        state.primed_first[panel] = panel in state.primed
        state.painted.append(panel)
        return f"{panel} painted."

    def _checks(self, painted: bool, primed: bool, message: str) -> list[Check]:
        return [
            Check(name="painted", passed=painted),
            Check(name="primed_first", passed=primed),
            claim_check(message, painted and primed, words=("painted",)),
        ]

    def verify(self, state: Shop, task: Task, response: Response) -> VerifyResult:
        painted = sorted(state.painted) == sorted(task.task_data["panels"])
        primed = all(state.primed_first.values())
        return all_or_nothing(self._checks(painted, primed, final_message(response)))

    def controls(self, task: Task) -> list[Control]:
        panels = task.task_data["panels"]
        done = say("Every panel of the job is painted.")
        work = [t for p in panels for t in (call("prime", panel=p), call("paint", panel=p))]
        return [
            Control(name="reference", expect="pass", script=[*work, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(name="violation_short", expect="fail", script=[*work[2:], done]),
        ]


class PaintShopByClaim(PaintShop):
    """The plant: priming folded into the claim check alone."""

    def _checks(self, painted: bool, primed: bool, message: str) -> list[Check]:
        return [
            Check(name="painted", passed=painted),
            claim_check(message, painted and primed, words=("painted",)),
        ]


def _tasks() -> list[Task]:
    jobs = [["P-11", "P-12"], ["P-20", "P-21", "P-22"], ["P-31"], ["P-40", "P-44"]]
    return tasks(
        "paintshop",
        [(f"Job {n}: panels {', '.join(j)}.", {"panels": j}) for n, j in enumerate(jobs)],
    )


def test_only_the_claim_reads_the_failing_checks() -> None:
    claim = Check(name="c", passed=False, kind="claim", claimed=True)
    other = Check(name="o", passed=False)
    assert only_the_claim([claim, Check(name="ok", passed=True)])
    assert not only_the_claim([claim, other])
    assert not only_the_claim([Check(name="ok", passed=True)])


async def test_a_rule_checked_on_its_own_is_not_accused() -> None:
    report = await validate(PaintShop(), _tasks())
    assert "search" not in failed(report), pays(report)


async def test_a_rule_held_only_by_the_claim_is_accused() -> None:
    report = await validate(PaintShopByClaim(), _tasks())
    assert "search" in failed(report)
    assert any("held only through the claim" in why for _, why in pays(report)), pays(report)
