"""A step a rule needs only in its scope (`validation/scope.py`): not accused where the
reference treats the thing another way; accused where every thing is treated alike."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_unseen import call, detail, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.scope import fate, scoped
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

LIMIT = 10


class Wells:
    """Each well's test result (None: not tested) and its use."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = dict(counts)
        self.result: dict[str, int | None] = {n: None for n in counts}
        self.use: dict[str, str] = {}


class WellTesting(Environment[Wells]):
    """Test each well; mark the clean ones `drink` and the others `closed`. A well may be
    marked `drink` only with a test at or below the limit."""

    name = "wells"

    def create_state(self, task: Task, workdir: Path | None) -> Wells:
        return Wells(task.task_data["counts"])

    @tool(inline=True)
    def sample_well(self, state: Wells, well: str) -> str:
        """Test a well's water.

        Args:
            well: the well's name.
        """
        if well not in state.result:
            raise ToolError(f"no well {well!r}")
        state.result[well] = state.counts[well]
        return f"{well}: {state.result[well]} per ml"

    @tool(inline=True)
    def mark(self, state: Wells, well: str, use: str) -> str:
        """Mark a well `drink` or `closed`.

        Args:
            well: the well's name.
            use: drink or closed.
        """
        if well not in state.result or use not in ("drink", "closed"):
            raise ToolError("unknown well or use")
        state.use[well] = use
        return f"{well} marked {use}"

    def clean_on_record(self, result: int | None) -> bool:
        return result is not None and result <= LIMIT

    def verify(self, state: Wells, task: Task, response: Response) -> VerifyResult:
        counts = task.task_data["counts"]
        unsafe = [
            w
            for w, u in state.use.items()
            if u == "drink" and not self.clean_on_record(state.result[w])
        ]
        missed = [w for w, c in counts.items() if c <= LIMIT and state.use.get(w) != "drink"]
        undecided = [w for w in counts if w not in state.use]
        return all_or_nothing(
            [
                Check(name="drink_only_clean_on_record", passed=not unsafe),
                Check(name="clean_wells_drink", passed=not missed),
                Check(name="every_well_decided", passed=not undecided),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        counts = task.task_data["counts"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    *[call("sample_well", well=w) for w in counts],
                    *[
                        call("mark", well=w, use="drink" if c <= LIMIT else "closed")
                        for w, c in counts.items()
                    ],
                    say("Marked."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("All marked.")]),
        ]


class UntestedCountsAsClean(WellTesting):
    """The plant: an untested well reads as clean, so no test is ever needed."""

    def clean_on_record(self, result: int | None) -> bool:
        return (result or 0) <= LIMIT


def well_tasks() -> list[Task]:
    out = []
    for i in range(4):
        counts = {"North": 3 + i, "Mill": 40 + i, "Church": 2 * i, "Ford": 25 + i}
        out.append(
            Task(
                task_id=f"wells-{i}",
                env="wells",
                responses_create_params={"input": "Test the wells and mark each one."},
                task_data={"counts": counts},
            )
        )
    return out


async def test_a_step_needed_only_in_its_rule_s_scope_is_not_accused() -> None:
    sound = await validate(WellTesting(), well_tasks())
    assert "steps:each_needed" not in failed(sound), detail(sound, "steps:each_needed")
    assert "only in their rule's scope" in detail(sound, "steps:each_needed")
    assert "search" not in failed(sound), detail(sound, "search")
    plant = await validate(UntestedCountsAsClean(), well_tasks())
    assert "steps:each_needed" in failed(plant)


def test_the_fate_of_a_call_is_what_the_script_then_does_to_its_things() -> None:
    calls = [
        call("sample", beach="A")[0],
        call("sample", beach="B")[0],
        call("set", beach="A", status="open")[0],
        call("set", beach="B", status="closed")[0],
    ]
    assert fate(calls, 0) == {'set:{"beach": "*", "status": "open"}'}
    assert scoped(calls, [1], [0]) == {1}
    # the same fate for both: a guard on the first only, accused
    alike = [
        *calls[:2],
        call("set", beach="A", status="open")[0],
        call("set", beach="B", status="open")[0],
    ]
    assert scoped(alike, [1], [0]) == set()
    assert scoped(calls, [1], []) == set()
