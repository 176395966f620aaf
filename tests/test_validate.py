"""`proofgym validate` catches broken, leaky and random verifiers, and passes a sound one."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.protocol import Check, Task, VerifyResult
from proofgym.validation import EnvReport, validate_env
from resources_servers.file_edit.config import values_of
from resources_servers.file_edit.env import FileEditEnv, Workspace

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(tempfile.mkdtemp(prefix="leaky-"))  # module-level state: the bug under test


class ReadsOnlyTheTarget(FileEditEnv):
    """The classic trap: rewards the goal value, whatever else the run wrecked."""

    def verify(self, state: Workspace, task: Task, response: Response) -> VerifyResult:
        goal = task.task_data["goal"]
        target = state.real_root / goal["path"]
        ok = target.exists() and values_of(target.read_text(), goal["key"]) == [goal["value"]]
        return VerifyResult(reward=float(ok), checks=[Check(name="goal_set", passed=ok)])


class LeakyWorkspace(FileEditEnv):
    """Every session shares one folder."""

    def create_state(self, task: Task, workdir: Path | None) -> Workspace:
        for path, content in task.task_data["files"].items():
            (SHARED / path).parent.mkdir(parents=True, exist_ok=True)
            (SHARED / path).write_text(content)
        return Workspace(SHARED)


class NoisyVerifier(FileEditEnv):
    """Adds a random component: the same trajectory gets another reward each time."""

    def verify(self, state: Workspace, task: Task, response: Response) -> VerifyResult:
        base = super().verify(state, task, response)
        noise = random.random() * 1e-3
        return VerifyResult(
            reward=base.reward * (1 - 1e-3) + noise,
            reward_components={"task": base.reward * (1 - 1e-3), "noise": noise},
            checks=base.checks,
        )


def tasks(file_edit_tasks: list[dict[str, Any]]) -> list[Task]:
    return [Task.model_validate(t) for t in file_edit_tasks]


def failed(report: EnvReport) -> set[str]:
    return {v.name for v in report.verdicts if not v.passed}


async def test_the_shipped_file_edit_passes(file_edit_tasks: list[dict[str, Any]]) -> None:
    report = await validate_env(FileEditEnv(), tasks(file_edit_tasks), parallel=64, sample=2)
    assert report.passed, [v for v in report.verdicts if not v.passed]
    names = {v.name for v in report.verdicts}
    assert {
        "floor_gap",
        "determinism",
        "isolation_parallel",
        "isolation_probe",
        "no_ground_truth_leak",
        "reward_well_formed",
    } <= names


async def test_a_verifier_that_reads_only_the_target_is_caught(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(ReadsOnlyTheTarget(), tasks(file_edit_tasks), parallel=16, sample=2)
    assert {
        "control:violation_delete_others",
        "control:violation_touch_other",
        "floor_gap",
    } <= failed(report)
    assert "control:reference" not in failed(report)


async def test_module_level_state_is_caught_by_isolation(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(LeakyWorkspace(), tasks(file_edit_tasks), parallel=32, sample=2)
    assert {"isolation_parallel", "isolation_probe"} <= failed(report)


async def test_a_random_component_is_caught_by_determinism(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(NoisyVerifier(), tasks(file_edit_tasks), parallel=8, sample=1)
    assert "determinism" in failed(report)


async def test_secret_fields_shown_to_the_policy_are_caught(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    class GoalIsSecret(FileEditEnv):
        secret_fields = ("goal",)  # but the prompt states the goal: a leak

    report = await validate_env(GoalIsSecret(), tasks(file_edit_tasks), parallel=8, sample=1)
    assert failed(report) == {"no_ground_truth_leak"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proofgym.cli", "validate", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_exit_codes_and_json() -> None:
    ok = cli("file_edit", "--sample", "1", "--parallel", "16", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    report = json.loads(ok.stdout)
    assert report[0]["env"] == "file_edit" and report[0]["passed"] is True
    too_strict = cli("file_edit", "--sample", "1", "--parallel", "8", "--margin", "2")
    assert too_strict.returncode == 1 and "FAIL" in too_strict.stdout
    assert cli("nonexistent").returncode == 2
    assert cli("file_edit", "--tasks", "/no/such.jsonl").returncode == 2
