"""`proofgym new-env NAME`: a working environment to start from, proven as generated.

It writes, in a proofgym checkout: `resources_servers/NAME/` (the environment with its typed
task_data and its controls), `sdg/NAME.py` (a deterministic generator that checks each task),
`tasks/NAME/example.jsonl` and `tests/test_NAME.py`. The skeleton is a counter: reach a target
with `add`, never going past it on the way. It shows each part a verifier combines: state
matching (the value), a trajectory rule (never past the target), a claim check, and controls
for each (reference, alternative, a violation, a no-op claim).
"""

from __future__ import annotations

import contextlib
import keyword
import re
import subprocess
import sys
from pathlib import Path

NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
#: names under resources_servers/ that are the library, not environments
RESERVED = ("base", "verifiers", "sdk")

INIT = '''"""REWRITE: {name}: reach a target with `add`, never going past it (a skeleton)."""

from resources_servers.{name}.env import {cls} as Env

__all__ = ["Env"]
'''


ENV = '''"""REWRITE: {name}: a counter per session; reach the target with `add`, never past it.

Replace the counter with your environment's state and tools; keep the shape: typed tools,
state per session, a verifier that combines state, trajectory and claim checks, and controls.
Every docstring marked REWRITE is the skeleton's, not yet yours.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

# the authors' face, the stable API: an environment imports proofgym only from here
from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)

MAX_STEP = 100


class {task_cls}(BaseModel):
    """REWRITE: what a {name} task carries in `task_data` (checked at seeding; /info
    publishes it)."""

    model_config = ConfigDict(extra="forbid")

    start: int = Field(ge=0, le=1000, description="the counter's value at the start")
    target: int = Field(ge=0, le=1000, description="the value to reach")


class Counter:
    """REWRITE: one session's state: the value, and the highest value it ever had."""

    __slots__ = ("highest", "value")

    def __init__(self, start: int) -> None:
        self.value = start
        self.highest = start


class {cls}(Environment[Counter, {task_cls}]):
    """REWRITE: reach `target` from `start` with `add`, never exceeding the target."""

    name = "{name}"
    description = "Reach a target value with add(amount), never going past it."
    reward_range = (0.0, 1.0)
    task_data_model = {task_cls}

    def create_state(self, task: Task, workdir: Path | None) -> Counter:
        return Counter(self.data(task).start)

    def instructions(self, task: Task) -> str:
        return "Use add to change the counter; read shows it. Never go past the target."

    @tool(inline=True)
    def read(self, state: Counter) -> str:
        """REWRITE: show the counter's value."""
        return str(state.value)

    @tool(inline=True)
    def add(self, state: Counter, amount: int) -> str:
        """REWRITE: add `amount` (negative subtracts) to the counter.

        Args:
            amount: between -100 and 100.
        """
        if not -MAX_STEP <= amount <= MAX_STEP:
            raise ToolError(f"amount must be within {{MAX_STEP}} of 0", "too_large")
        state.value += amount
        state.highest = max(state.highest, state.value)
        return f"the counter is now {{state.value}}"

    def verify(self, state: Counter, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)  # task_data as {task_cls}: typed fields
        target = data.target
        reached = state.value == target
        return all_or_nothing(
            [
                Check(name="target_reached", passed=reached, detail=f"value {{state.value}}"),
                Check(
                    name="never_past_target",
                    passed=state.highest <= max(target, data.start),
                    detail=f"highest value {{state.highest}}",
                ),
                claim_check(final_message(response), achieved=reached, words=self.success_words),
            ]
        )

    # A state that can hold text should also define `isolation_probe` (write a marker, read
    # it back): `proofgym validate` then checks no marker crosses sessions. A counter holds
    # no text; the parallel check (each session gets what it gets alone) proves it here.

    def controls(self, task: Task) -> list[Control]:
        start, target = self.data(task).start, self.data(task).target
        gap = target - start
        done = say(f"Done: the counter is at {{target}}.")
        steps = [call("add", amount=10)] * (gap // 10)
        steps += [call("add", amount=gap % 10)] if gap % 10 else []
        return [
            Control(name="reference", expect="pass", script=[*steps, done]),
            Control(
                name="alternative",
                expect="pass",
                description="reads first, then one jump",
                script=[call("read"), call("add", amount=gap), done],
            ),
            Control(
                name="violation_overshoot",
                expect="fail",
                description="goes past the target, then back",
                script=[call("add", amount=gap + 5), call("add", amount=-5), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]
'''

SDG = '''"""REWRITE: {name} tasks: a start and a larger target, the same for the same seed."""

from __future__ import annotations

import random
from typing import Any

from sdg.rows import task_row


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """REWRITE: `n` tasks; each is checked: the target is reachable and above the start."""
    rng = random.Random(f"{name}:{{seed}}")
    rows = []
    for i in range(n):
        start = rng.randint(0, 50)
        target = start + rng.randint(1, 60)
        assert 0 <= start < target <= 1000  # self-check: a task the controls can solve
        rows.append(
            task_row(
                "{name}",
                f"{name}-{{split}}-{{seed}}-{{i:05d}}",  # the form every generator uses
                split,
                f"The counter starts at {{start}}. Bring it to exactly {{target}}.",
                {{"start": start, "target": target}},
            )
        )
    return rows
'''

TEST = '''"""{name}: proven by the same validation CI runs on every environment."""

from __future__ import annotations

from proofgym_stack.validation import validate_env
from resources_servers.sdk import Task
from resources_servers.{name} import Env
from sdg.{name} import generate


async def test_{name}_passes_validation() -> None:
    tasks = [Task.model_validate(row) for row in generate(4, seed=0)]
    report = await validate_env(Env(), tasks, parallel=32, sample=2)
    assert report.passed, [v for v in report.verdicts if not v.passed]
'''


class ScaffoldError(Exception):
    """The name is unusable, or the folder is not a proofgym checkout, or the env exists."""


def check_name(name: str) -> None:
    """Raise ScaffoldError unless `name` can name an environment package."""
    if not NAME.match(name) or keyword.iskeyword(name) or name in RESERVED:
        raise ScaffoldError(
            f"{name!r} cannot name an environment: use 2 to 31 lower-case letters, digits or "
            "underscores, starting with a letter (not base, verifiers or sdk)"
        )


def class_name(name: str) -> str:
    """`counter` -> `CounterEnv`, `my_env` -> `MyEnv`."""
    base = "".join(part.capitalize() for part in name.split("_"))
    return base if base.endswith("Env") else base + "Env"


def task_class_name(name: str) -> str:
    """`counter` -> `CounterTask`, `my_env` -> `MyEnvTask`: the guide's `<Name>Task`."""
    return "".join(part.capitalize() for part in name.split("_")) + "Task"


def write(root: Path, name: str) -> list[Path]:
    """Write the skeleton of environment `name` into the checkout at `root`; the files."""
    check_name(name)
    if not (root / "resources_servers" / "base").is_dir() or not (root / "sdg").is_dir():
        raise ScaffoldError(f"{root} is not a proofgym checkout (no resources_servers/base, sdg)")
    folder = root / "resources_servers" / name
    if folder.exists() or (root / "sdg" / f"{name}.py").exists():
        raise ScaffoldError(f"an environment {name!r} exists already")
    values = {"name": name, "cls": class_name(name), "task_cls": task_class_name(name)}
    files = {
        folder / "__init__.py": INIT,
        folder / "env.py": ENV,
        root / "sdg" / f"{name}.py": SDG,
        root / "tests" / f"test_{name}.py": TEST,
    }
    folder.mkdir(parents=True)
    (root / "tests").mkdir(exist_ok=True)
    for path, template in files.items():
        path.write_text(template.format(**values))
    _tidy(root, list(files))
    return list(files)


def _tidy(root: Path, paths: list[Path]) -> None:
    """Sort imports and format the new files the way the checkout's ruff would (the order of
    first-party imports depends on the name), when ruff is installed."""
    for args in (["check", "--fix", "--select", "I", "-q"], ["format", "-q"]):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                [sys.executable, "-m", "ruff", *args, *map(str, paths)],
                cwd=root,
                capture_output=True,
                timeout=60,
            )
