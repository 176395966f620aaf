"""`proofgym validate` catches broken, leaky and random verifiers, and passes a sound one."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import patience
from openai.types.responses import Response

from proofgym.wire.canary import ENV_VAR
from proofgym.wire.protocol import Check, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport, validate_env
from resources_servers.base import tool
from resources_servers.file_edit.config import values_of
from resources_servers.file_edit.env import FileEditEnv, Workspace
from resources_servers.verifiers.compose import all_or_nothing

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(tempfile.mkdtemp(prefix="leaky-"))  # module-level state: the bug under test


@pytest.fixture(scope="module", autouse=True)
def _remove_shared() -> Iterator[None]:
    yield
    shutil.rmtree(SHARED, ignore_errors=True)  # leave no leaky-* folder behind


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
    # budget 0 here and below: what is asserted comes before the search, which adds minutes
    report = await validate_env(
        ReadsOnlyTheTarget(), tasks(file_edit_tasks), parallel=16, sample=2, budget=0
    )
    assert {
        "control:violation_delete_others",
        "control:violation_touch_other",
        "floor_gap",
    } <= failed(report)
    assert "control:reference" not in failed(report)


async def test_module_level_state_is_caught_by_isolation(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(
        LeakyWorkspace(), tasks(file_edit_tasks), parallel=32, sample=2, budget=0
    )
    assert {"isolation_parallel", "isolation_probe"} <= failed(report)


async def test_a_random_component_is_caught_by_determinism(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(
        NoisyVerifier(), tasks(file_edit_tasks), parallel=8, sample=1, budget=0
    )
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
        [sys.executable, "-m", "proofgym_stack.cli", "validate", *args],
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


# --- the adversarial stage: each planted fault is caught ----------------------------------


class CrashesOnDeepArguments(FileEditEnv):
    """A verifier that parses arguments with plain json: a deep payload crashes it (500), and
    the rollout would come back masked, a way out of negative reward."""

    def verify(self, state: Workspace, task: Task, response: Response) -> VerifyResult:
        for item in response.output:
            if getattr(item, "type", "") == "function_call":
                with contextlib.suppress(ValueError):
                    json.loads(item.arguments)  # type: ignore[union-attr]
        return super().verify(state, task, response)


class ShowsTheHostEnvironment(FileEditEnv):
    """A tool that lets host secrets through (here: the whole process environment)."""

    @tool(inline=True)
    def list_files(self, state: Workspace) -> str:
        """List every file in the workspace, and some debugging output."""
        return "\n".join(state.snapshot()) + "\n" + " ".join(os.environ.values())


class TrustsClaims(FileEditEnv):
    """Believes whatever the final message says."""

    def verify(self, state: Workspace, task: Task, response: Response) -> VerifyResult:
        said = final_message(response).startswith("Done")
        return all_or_nothing([Check(name="claim_matches_state", passed=said)])


async def test_hostile_arguments_that_crash_a_verifier_are_caught(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(
        CrashesOnDeepArguments(), tasks(file_edit_tasks), sample=1, parallel=4, budget=0
    )
    assert {"adversarial:hostile_arguments", "reward_well_formed"} <= failed(report)


async def test_a_tool_that_shows_host_secrets_is_caught(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    def canaries() -> set[Path]:
        # this process's own: another validate on this machine may hold one of its own now
        return set(Path(tempfile.gettempdir()).glob(f"proofgym-canary-{os.getpid()}-*"))

    before = canaries()
    report = await validate_env(
        ShowsTheHostEnvironment(), tasks(file_edit_tasks), sample=1, parallel=4, budget=0
    )
    assert "adversarial:no_host_secret_revealed" in failed(report)
    assert ENV_VAR not in os.environ  # the canary is gone afterwards
    assert not canaries() - before


async def test_a_verifier_that_trusts_claims_is_caught(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    report = await validate_env(
        TrustsClaims(), tasks(file_edit_tasks), sample=1, parallel=4, budget=0
    )
    assert {"adversarial:claim_without_action", "control:noop_claim"} <= failed(report)


async def test_short_secrets_are_found_next_to_their_name() -> None:
    from resources_servers.workflow.env import WorkflowEnv
    from sdg.workflow import generate

    class SaysTheDecision(WorkflowEnv):
        def instructions(self, task: Task) -> str:
            return super().instructions(task) + f" (decision: {task.task_data['goal']['decision']})"

    workflow = [Task.model_validate(t) for t in generate(2, seed=4)]
    report = await validate_env(SaysTheDecision(), workflow, sample=1, parallel=4)
    assert failed(report) == {"no_ground_truth_leak"}
    assert "goal.decision" in next(v.detail for v in report.verdicts if not v.passed)


async def test_an_unisolated_code_sandbox_fails_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    # The exploit controls find the planted canary once the sandbox stops isolating: the
    # validation that CI runs would refuse to call such an environment done.
    from proofgym_stack.validation import runner
    from resources_servers.code.env import CodeEnv
    from resources_servers.code.sandbox import Sandbox

    rows = (ROOT / "tasks" / "code" / "example.jsonl").read_text().splitlines()
    code_tasks = [Task.model_validate(json.loads(r)) for r in rows[:1]]
    box = Sandbox(mode="unsafe-no-isolation", wall_s=30)  # room for a loaded machine
    # another validation's canary on this host (another test worker's), found first: a host
    # secret all the same
    other = Path(tempfile.gettempdir()) / f"proofgym-canary-{os.getpid()}-other"
    other.write_text("pgcanary-0000000000000000 " * 4)
    try:
        # the controls and the canary's own checks find it; the other checks add minutes here
        canary = {"canary", "adversarial:no_host_secret_revealed"}
        monkeypatch.setattr(runner, "QUICK", runner.QUICK | canary)
        report = await validate_env(CodeEnv(box), code_tasks, sample=1, parallel=4, quick=True)
    finally:
        box.close()
        other.unlink(missing_ok=True)
    assert {
        "control:exploit_host_task_files",  # scored 1 from the host's task file
        "adversarial:no_host_secret_revealed",  # the secrets exploit returned the canary
    } <= failed(report)


def test_exploit_controls_must_expect_the_floor() -> None:
    # the validator's rule, read off the code env's controls: every exploit expects "fail"
    from resources_servers.code.env import CodeEnv
    from resources_servers.code.sandbox import Sandbox

    rows = (ROOT / "tasks" / "code" / "example.jsonl").read_text().splitlines()
    box = Sandbox(mode="unsafe-no-isolation")
    controls = CodeEnv(box).controls(Task.model_validate(json.loads(rows[0])))
    box.close()
    exploits = [c for c in controls if c.name.startswith("exploit_")]
    assert len(exploits) >= 4 and all(c.expect == "fail" for c in exploits)


def test_cli_closes_with_one_line_per_environment_and_quick_runs_the_edit_loop_checks() -> None:
    quick = cli("math", "--quick")
    assert quick.returncode == 0, quick.stdout + quick.stderr
    last = [line for line in quick.stdout.splitlines() if line.strip()]
    assert any(line.startswith("math: ") and "verdicts pass" in line for line in last[-3:])
    assert "isolation_parallel" not in quick.stdout  # the quick subset only
    assert "math: controls ..." in quick.stderr  # progress as it goes
    failing = cli("file_edit", "--quick", "--margin", "2")
    assert failing.returncode == 1
    assert "file_edit: FAILED 1/" in failing.stdout and "floor_gap" in failing.stdout


def test_canaries_go_with_a_terminated_validation_and_stale_ones_are_swept(
    tmp_path: Path,
) -> None:
    import signal
    import time

    from proofgym_stack.validation.adversarial import sweep_stale_canaries

    def mine(pid: int) -> list[Path]:
        return list(Path(tempfile.gettempdir()).glob(f"proofgym-canary-{pid}-*"))

    proc = subprocess.Popen(
        [sys.executable, "-m", "proofgym_stack.cli", "validate", "code", "--sample", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + patience(120)
    while not mine(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert mine(proc.pid), "the validation never planted its canary"
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    assert not mine(proc.pid)
    # a canary of a process that is gone (SIGKILL leaves one behind) is swept
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"proofgym-canary-{dead.pid}-pgcanary-0"
    live = tmp_path / f"proofgym-canary-{os.getpid()}-pgcanary-1"
    stale.write_text("x")
    live.write_text("x")
    assert sweep_stale_canaries(tmp_path) == [stale]
    assert live.exists() and not stale.exists()
