"""`proofgym up` forks its services from one process that loaded their shared imports once
(proofgym_stack.forkstart): they must behave as spawned ones do. Each is the supervisor's own
child, serves its own settings, dies with a killed supervisor, and is restarted when it dies;
where forking fails, the services are spawned as before."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
import uuid
from pathlib import Path

import pytest
from helpers import alive, patience

from proofgym_stack import forkstart
from proofgym_stack.entry import prestarts
from proofgym_stack.forkstart import Adopted
from proofgym_stack.up import Stack, free_port, health


def small_stack(**options: object) -> Stack:
    return Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        **options,  # type: ignore[arg-type]
    )


def service_pids(supervisor: subprocess.Popen[str]) -> list[int]:
    """The pids a supervisor prints (`NAME  URL  pid N` lines) until it says ready."""
    assert supervisor.stdout is not None
    pids = []
    for line in supervisor.stdout:
        if line.startswith("ready"):
            break
        pids.append(int(line.split("pid")[1]))
    return pids


def parent_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("PPid:")[1].split()[0])


def test_forked_services_are_our_children_each_with_its_own_settings() -> None:
    stack = small_stack(env={"PROOFGYM_LOG_LEVEL": "warning"})
    with stack.running(patience(60)):
        assert [type(s.process) for s in stack.processes] == [Adopted] * 3
        assert {parent_of(s.process.pid) for s in stack.processes} == {os.getpid()}
        for svc in stack.processes:  # its own port and the stack's instance: its own settings
            answer = health(svc.url)
            assert answer is not None and answer["instance"] == stack.instance
        # a service that dies is started again, the plain way
        victim = stack.processes[0]
        os.kill(victim.process.pid, signal.SIGKILL)
        assert victim.process.wait(patience(10)) == -signal.SIGKILL
        assert [s.name for s in stack.restart_dead()] == ["resources"]
        assert isinstance(victim.process, subprocess.Popen)
        stack.wait_healthy(patience(60))
        pids = [s.process.pid for s in stack.processes]
    assert not any(alive(pid) for pid in pids)


@pytest.mark.parametrize("fork", [True, False])
def test_services_die_with_a_killed_supervisor(fork: bool) -> None:
    spec = {
        "stack": {
            "agent_port": free_port(),
            "resources_ports": [free_port()],
            "model_port": free_port(),
            "fork": fork,
        },
        "start_timeout": patience(60),
    }
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "proofgym_stack.supervisor", json.dumps(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    pids = service_pids(supervisor)
    assert len(pids) == 3
    assert {parent_of(pid) for pid in pids} == {supervisor.pid}
    supervisor.kill()
    supervisor.wait()
    deadline = time.monotonic() + patience(20)
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids), "a service outlived its killed supervisor"


def test_where_forking_fails_the_services_are_spawned(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = [sys.executable, "-c", "import sys; sys.exit(3)"]
    monkeypatch.setattr(forkstart, "ARGS", broken)
    assert forkstart.start_forked([("agent", dict(os.environ))], None) is None
    stack = small_stack()
    with stack.running(patience(60)):
        assert all(isinstance(s.process, subprocess.Popen) for s in stack.processes)
        assert all(health(s.url) is not None for s in stack.processes)


def test_a_forked_service_that_cannot_start_says_so() -> None:
    stack = small_stack(env={"PROOFGYM_LOG_LEVEL": "not-a-level"})
    with pytest.raises(RuntimeError, match="exited with 2"):
        stack.start(patience(60))
    assert stack.processes == []


def test_adopted_waits_as_popen_does() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    handle = Adopted(child.pid, ["sleeper"])
    assert handle.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        handle.wait(0.05)
    handle.terminate()
    assert handle.wait(patience(10)) == -signal.SIGTERM
    handle.kill()  # reaped: signals nothing, raises nothing
    assert handle.poll() == -signal.SIGTERM


def test_services_that_would_import_different_code_are_not_forked_together() -> None:
    base = {"PATH": "/bin", "PROOFGYM_PORT": "1"}
    assert forkstart.forker_env([base, {**base, "PROOFGYM_PORT": "2"}]) == base
    other = {**base, "PYTHONPATH": "/elsewhere"}
    assert forkstart.forker_env([base, other]) is None
    assert forkstart.start_forked([("agent", base), ("model", other)], None) is None
    assert forkstart.forker_env([]) is None


ROOT = Path(__file__).resolve().parent.parent
UP = [sys.executable, "-m", "proofgym_stack.cli", "up"]  # through main(), as the console script


def marked(mark: str) -> set[int]:
    """The live processes started with `mark` in their environment."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if mark.encode() in environ and alive(int(entry.name)):
                found.add(int(entry.name))
    return found


def test_up_hands_its_early_forking_process_to_the_supervisor() -> None:
    mark = f"PROOFGYM_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    ports = [str(free_port()) for _ in range(3)]
    up = subprocess.Popen(
        [*UP, "--agent-port", ports[0], "--resources-port", ports[1], "--model-port", ports[2]],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        pids = service_pids(up)
        # the supervisor and its three forked services; the forking process is gone
        assert marked(mark) == {up.pid, *pids}
        assert {parent_of(pid) for pid in pids} == {up.pid}
    finally:
        up.terminate()
        up.wait(30)


def test_up_that_stops_at_its_options_leaves_no_forking_process() -> None:
    mark = f"PROOFGYM_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    port = str(free_port())
    done = subprocess.run(
        [*UP, "--agent-port", port, "--resources-port", port],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "given to more than one service" in done.stderr
    deadline = time.monotonic() + patience(10)
    while marked(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked(mark) == set()


def test_a_handover_that_is_not_ours_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    for bogus in ("not json", "[1, 2]", "[999999, 998, 997, 996]"):
        monkeypatch.setenv(forkstart.HANDOVER_ENV, bogus)
        forkstart.take_prestarted()
        assert forkstart.HANDOVER_ENV not in os.environ
        assert forkstart._prestarted is None


def test_a_prestart_that_is_not_used_leaves_nothing() -> None:
    forkstart.prestart()
    pid = json.loads(os.environ[forkstart.HANDOVER_ENV])[0]
    assert alive(pid)
    forkstart.cancel_prestart()  # as `up --ray` does
    assert forkstart.HANDOVER_ENV not in os.environ
    assert not alive(pid)


def test_only_a_local_up_starts_anything_early() -> None:
    assert prestarts(["proofgym", "up"])
    assert prestarts(["proofgym", "up", "--agent-port", "9000"])
    others = ["", "rollout up", "up --help", "up --ray auto", "up --ray=auto"]
    for argv in (["proofgym", *line.split()] for line in others):
        assert not prestarts(argv), argv
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["proofgym"] == "proofgym_stack.entry:main"  # what users run starts early
