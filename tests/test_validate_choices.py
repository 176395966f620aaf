"""A calibration read off blind batch 05k (stagepower's twin): another task's combination of
closed choices that satisfies this task too (`choices`). A sound twin whose tasks accept many
combinations of circuits is not accused; a plant that never reads the circuit is."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.choices import differing_choices, vocabulary
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

CAP = 19


def test_a_vocabulary_is_a_few_repeated_words_not_names() -> None:
    one = [call("put", rig="R1", circuit="A"), call("put", rig="R2", circuit="B")]
    two = [call("put", rig="R1", circuit="B"), call("put", rig="R2", circuit="B")]
    three = [call("put", rig="R3", circuit="A"), call("put", rig="R4", circuit="A")]
    words = vocabulary([one, two, three])
    assert words == {("put", ("circuit",)): {"A", "B"}}  # the rig ids are names
    assert differing_choices(two, one, words) == [(0, ("circuit",), "A", "B")]
    assert differing_choices(three, one, words) is None  # other rigs: other things acted on
    assert differing_choices(one, one, words) == []
    # a weekday several tasks go on is a choice too; a thing acted on again: the last stands
    week = [call("plan", task="T1", day=2), call("plan", task="T2", day=2)]
    moved = [*week, call("plan", task="T2", day=4)]
    other = [call("plan", task="T1", day=1), call("plan", task="T2", day=1)]
    days = vocabulary([week, other, [*other, call("plan", task="T3", day=2)]])
    assert days == {("plan", ("day",)): {1, 2}}
    assert differing_choices(moved, week, days) == [(1, ("day",), 2, 4)]
    # the same call made twice is two calls (a tool that adds), not one moved
    assert differing_choices([*week, week[1]], week, days) is None
    # a task's own cart, repeated within it, is no vocabulary: each is sent in one task only
    carts = [[call("add", cart=c, item="apple"), call("add", cart=c, item="pear")] for c in "XYZ"]
    assert vocabulary(carts) == {}


class Board:
    """Which circuit each rig is on."""

    def __init__(self, amps: dict[str, int]) -> None:
        self.amps = amps
        self.on: dict[str, str] = {}


class Circuits(Environment[Board]):
    """Put every rig on circuit A or B, neither over its rating: many right answers."""

    name = "circuits"
    #: the plant: only that every rig is on some circuit, never the loads
    reads_loads = True

    def create_state(self, task: Task, workdir: Path | None) -> Board:
        return Board(task.task_data["amps"])

    def instructions(self, task: Task) -> str:
        return f"Put every rig on circuit A or B so that neither carries more than {CAP} A."

    @tool
    def put(self, state: Board, rig: str, circuit: str) -> str:
        """Put a rig on a circuit.

        Args:
            rig: the rig id.
            circuit: A or B.
        """
        if rig not in state.amps:
            raise ToolError(f"no rig {rig}", "not_found")
        if circuit not in ("A", "B"):
            raise ToolError("circuit must be A or B", "invalid")
        state.on[rig] = circuit
        return f"{rig} on {circuit}"

    def verify(self, state: Board, task: Task, response: Response) -> VerifyResult:
        amps: dict[str, int] = task.task_data["amps"]
        loads = {c: sum(a for r, a in amps.items() if state.on.get(r) == c) for c in "AB"}
        within = all(x <= CAP for x in loads.values()) or not self.reads_loads
        return all_or_nothing(
            [
                Check(name="every_rig", passed=set(state.on) == set(amps)),
                Check(name="within", passed=within, detail=str(loads)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        plan: dict[str, str] = task.task_data["plan"]
        puts = [turn for r, c in plan.items() for turn in [call("put", rig=r, circuit=c)]]
        return [
            Control(name="reference", expect="pass", script=[*puts, say("Every rig is on.")]),
            Control(name="noop_claim", expect="fail", script=[say("Every rig is on.")]),
            Control(name="violation_rig_left", expect="fail", script=[*puts[1:], say("On.")]),
        ]


#: the first task's plan fits the third task too (18 A and 11 A), not the other way round
ROWS = [
    ({"R1": 10, "R2": 10, "R3": 8, "R4": 6}, {"R1": "A", "R2": "B", "R3": "A", "R4": "B"}),
    ({"R1": 12, "R2": 8, "R3": 8}, {"R1": "A", "R2": "B", "R3": "B"}),
    ({"R1": 9, "R2": 9, "R3": 9, "R4": 2}, {"R1": "A", "R2": "A", "R3": "B", "R4": "B"}),
    ({"R1": 15, "R2": 4, "R3": 6}, {"R1": "A", "R2": "B", "R3": "B"}),
]


def _tasks() -> list[Task]:
    return tasks(
        "circuits",
        [
            (f"Stage {n}: rigs {amps}.", {"amps": amps, "plan": plan})
            for n, (amps, plan) in enumerate(ROWS)
        ],
    )


async def test_another_combination_the_task_accepts_is_not_another_truth() -> None:
    report = await validate(Circuits(), _tasks())
    assert "replay:cross_task" not in failed(report), report.verdicts
    assert not [p for p in pays(report) if "another task" in p[1] or "truth" in p[1]], pays(report)


class CircuitsNeverRead(Circuits):
    reads_loads = False


async def test_choices_the_verifier_never_reads_are_still_accused() -> None:
    report = await validate(CircuitsNeverRead(), _tasks())
    assert "search" in failed(report), report.verdicts
    assert any("another world" in why for _, why in pays(report)), pays(report)
