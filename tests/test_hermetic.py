"""Only the entry points read PROOFGYM_* variables: with hostile ones set in the shell, the
in-process services, the suite and validate behave exactly as without them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "proofgym_stack.cli"]
HOSTILE = {
    "PROOFGYM_TOKEN": "a-token-no-in-process-client-sends",
    "PROOFGYM_MAX_STEPS": "1",
    "PROOFGYM_RESOURCES_URLS": '["http://127.0.0.1:9"]',
    "PROOFGYM_MODEL_URL": "http://127.0.0.1:9",
    "PROOFGYM_BACKEND": "openai",
    "PROOFGYM_ENVS": '["math"]',
    "PROOFGYM_MAX_SESSIONS": "1",
    "PROOFGYM_CODE_SANDBOX": "unsafe-no-isolation",
    "PROOFGYM_MAX_RETRIES": "0",
}
IN_PROCESS_SUITE = [
    "tests/test_agent_loop.py",
    "tests/test_policy_content.py",
    "tests/test_verifier_integrity.py",
    "tests/test_file_edit_controls.py",
    "tests/test_environments.py",
    "tests/test_code_sandbox.py",
]

#: the sandbox's own limits on the host (cgroups, forks, uid ranges, every stdlib module):
#: they build a Sandbox directly and read no variable; the suite runs them once already
HOST_LIMITS = "not forks and not cgroup and not uid_range and not swept and not every_standard"


def test_the_in_process_suite_passes_with_hostile_variables_set() -> None:
    env = {**os.environ, **HOSTILE, "PROOFGYM_TEST_KEEP_ENV": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-k",
            HOST_LIMITS,
            *IN_PROCESS_SUITE,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout


def test_validate_ignores_them_too() -> None:
    env = {**os.environ, **HOSTILE}
    run = subprocess.run(
        [*CLI, "validate", "file_edit", "--sample", "1", "--parallel", "8"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:]


def test_entry_points_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in HOSTILE.items():
        monkeypatch.setenv(key, value)
    agent = AgentSettings.from_env(port=1234)
    assert (agent.token, agent.max_steps, agent.port) == (HOSTILE["PROOFGYM_TOKEN"], 1, 1234)
    assert ModelSettings.from_env().backend == "openai"
    assert ResourcesSettings.from_env().envs == ["math"]
    # and nothing else does
    assert AgentSettings().token is None and AgentSettings().max_steps == 16
    assert ResourcesSettings().envs == [] and ModelSettings().backend == "scripted"


def test_tests_that_start_real_services_ignore_the_callers_shell() -> None:
    # the services a module fixture starts read PROOFGYM_TOKEN; the test's client does not
    # send one: with the variable left in, every rollout was a 401
    env = {**os.environ, "PROOFGYM_TOKEN": "from-the-developers-shell"}
    env.pop("PROOFGYM_TEST_KEEP_ENV", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_agent_client.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
