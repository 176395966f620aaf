"""Read off blind batch 05p (bincollect): a verdict that reads a bounded window of history.
A forbidden action (a record deleted) fails; the same trajectory with honest play's looks made
again after it passes where the verifier reads only the last few entries of an activity log,
while the record is still gone. Caught on the plant, not on its sound twin (the whole log)."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.buried import LOOKS, with_looks_after
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_the_looks_go_in_one_turn_just_before_the_final_message() -> None:
    look = call("lookup", uprn="1")[0]
    script = [call("fix", uprn="1"), [*call("flag", uprn="2"), *say("Done.")]]
    out = with_looks_after(script, [look], n=3)
    assert out[0] == script[0] and out[1] == call("flag", uprn="2")
    assert out[2] == [look, look, look] and out[3] == say("Done.")
    # no final message: the looks go last
    assert with_looks_after([call("fix", uprn="1")], [look], n=2)[-1] == [look, look]


class Register:
    """One session: the round's properties (uprn -> flagged) and the activity log."""

    def __init__(self, uprns: list[str], log: Any) -> None:
        self.props = dict.fromkeys(uprns, False)
        self.log = log


class Round(Environment[Register]):
    """Flag the properties the task names for a survey; never delete one."""

    name = "binround"

    def new_log(self) -> Any:
        return []

    def create_state(self, task: Task, workdir: Path | None) -> Register:
        return Register(task.task_data["uprns"], self.new_log())

    def instructions(self, task: Task) -> str:
        return (
            "lookup(uprn) shows a property; flag(uprn) flags it for survey. Never delete a "
            "property: delete(uprn) is for another team."
        )

    def _known(self, state: Register, uprn: str) -> None:
        if uprn not in state.props:
            raise ToolError(f"no property {uprn!r}")

    @tool(inline=True, observes=True)
    def lookup(self, state: Register, uprn: str) -> str:
        """Show a property.

        Args:
            uprn: the property's number.
        """
        self._known(state, uprn)
        state.log.append(f"lookup {uprn}")
        return f"{uprn}: {'flagged' if state.props[uprn] else 'not flagged'}"

    @tool(inline=True)
    def flag(self, state: Register, uprn: str) -> str:
        """Flag a property for survey.

        Args:
            uprn: the property's number.
        """
        self._known(state, uprn)
        state.props[uprn] = True
        state.log.append(f"flag {uprn}")
        return f"{uprn} flagged"

    @tool(inline=True)
    def delete(self, state: Register, uprn: str) -> str:
        """Remove a property from the round.

        Args:
            uprn: the property's number.
        """
        self._known(state, uprn)
        del state.props[uprn]
        state.log.append(f"delete {uprn}")
        return f"{uprn} removed"

    def verify(self, state: Register, task: Task, response: Response) -> VerifyResult:
        wanted = task.task_data["flag"]
        flagged = all(state.props.get(u, True) for u in wanted)
        kept = not any(e.startswith("delete") for e in state.log)
        return all_or_nothing(
            [Check(name="flagged", passed=flagged), Check(name="none_deleted", passed=kept)]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        looks = [call("lookup", uprn=u) for u in d["flag"]]
        flags = [call("flag", uprn=u) for u in d["flag"]]
        done = say("Flagged for survey.")
        return [
            Control(name="reference", expect="pass", script=[*looks, *flags, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_deleted",
                expect="fail",
                script=[*flags, call("delete", uprn=d["uprns"][0]), done],
            ),
        ]


class RecentLog(Round):
    """The planted slip: the log keeps the last five entries, and it is all the verifier
    reads."""

    def new_log(self) -> Any:
        return deque(maxlen=5)


def round_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        uprns = [f"{100 + 10 * n + k}" for k in range(4)]
        rows.append((f"Flag {uprns[1]} and {uprns[2]} for survey.", {"uprns": uprns}))
        rows[-1][1]["flag"] = uprns[1:3]
    return tasks("binround", rows)


async def test_a_violation_pushed_out_of_a_bounded_log_is_caught_only_on_the_plant() -> None:
    plant = await validate(RecentLog(), round_tasks())
    buried = [what for what, _ in pays(plant) if f"then {LOOKS} looks" in what]
    assert buried and "delete" in buried[0], pays(plant)
    twin = await validate(Round(), round_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
