"""Every environment declares its task_data: seeding checks it (400 naming the field) and
/info publishes its JSON schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from proofgym.wire.protocol import Control, Task
from proofgym_stack.testing import InProcessStack, in_process_stack
from resources_servers.math.env import MathEnv, MathState

ROOT = Path(__file__).resolve().parent.parent
ENVS = ["file_edit", "math", "code", "workflow", "game", "letters", "support"]


def example(env: str) -> dict[str, Any]:
    line = (ROOT / "tasks" / env / "example.jsonl").read_text().splitlines()[0]
    return dict(json.loads(line))


@pytest.mark.parametrize("env", ENVS)
async def test_info_publishes_the_task_data_schema(stack: InProcessStack, env: str) -> None:
    info = (await stack.client.get(f"http://resources/{env}/info")).json()
    schema = info["task_data_schema"]
    assert schema["type"] == "object" and schema["properties"]
    assert set(example(env)["task_data"]) <= set(schema["properties"])


BROKEN = [
    ("file_edit", lambda d: d["goal"].pop("key"), "task_data.goal.key"),
    ("file_edit", lambda d: d["goal"].update(path="../../etc/passwd"), "task_data.goal.path"),
    ("file_edit", lambda d: d["files"].update({"a\u0000b": "x"}), "task_data.files"),
    ("math", lambda d: d.update(answer="forty-two"), "task_data.answer"),
    ("code", lambda d: d.update(hidden_tests=[]), "task_data.hidden_tests"),
    ("code", lambda d: d.update(function="not a name"), "task_data.function"),
    ("workflow", lambda d: d["goal"].update(decision="maybe"), "task_data.goal.decision"),
    ("game", lambda d: d.update(hands=0), "task_data.hands"),
    ("game", lambda d: d.update(shoe=["A"]), "task_data.shoe"),  # an unknown field
    ("letters", lambda d: d.update(letter="ab"), "task_data.letter"),
    ("support", lambda d: d.update(question_id="free-money"), "task_data.question_id"),
]


@pytest.mark.parametrize(("env", "breaks", "field"), BROKEN, ids=[f for _, _, f in BROKEN])
async def test_a_bad_field_is_a_400_that_names_it(
    stack: InProcessStack, env: str, breaks: Any, field: str
) -> None:
    task = copy.deepcopy(example(env))
    breaks(task["task_data"])
    r = await stack.client.post(
        f"http://resources/{env}/seed_session",
        content=json.dumps({"session_id": "typed-task-session-01", "task": task}),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["kind"] == "invalid_task" and field in error["message"], error
    # and through the agent: the caller's input to fix, not a masked outage
    run = await stack.run({"task": task, "control": "reference"})
    assert run.status_code == 400 and field in run.json()["error"]["message"]


class ReadsAFieldItNeverDeclared(MathEnv):
    """Its data passed its model, then its own code reads a key the model does not hold."""

    def create_state(self, task: Task, workdir: Path | None) -> MathState:
        task.task_data["units"]
        return MathState()

    def controls(self, task: Task) -> list[Control]:
        return [
            Control(
                name="reference", expect="pass", script=[[]], description=task.task_data["units"]
            )
        ]


class Untyped(ReadsAFieldItNeverDeclared):
    task_data_model = None  # nothing checked: a missing key is the task's to fix


async def test_an_environments_own_bug_is_a_500_not_the_callers_invalid_task(
    caplog: pytest.LogCaptureFixture,
) -> None:
    task = example("math")
    for env, status in ((ReadsAFieldItNeverDeclared(), 500), (Untyped(), 400)):
        async with in_process_stack(envs={"math": env}) as stack:
            seeded = await stack.client.post(
                "http://resources/math/seed_session",
                json={"session_id": "typed-task-bug-0001", "task": task},
            )
            controls = await stack.client.post(
                "http://resources/math/controls", json={"task": task}
            )
        for r in (seeded, controls):
            assert r.status_code == status, r.text
            kind = r.json()["error"]["kind"]
            assert kind == ("invalid_task" if status == 400 else "internal"), kind
    assert "KeyError" in caplog.text  # the 500 is logged with its cause
