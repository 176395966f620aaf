"""`proofgym up` says "ready" only for its own services: ports checked free first, each /health
answered by the process just started; `up --model` checked before anything starts; and
`proofgym rollout --timeout` is the budget each rollout carries."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from helpers import serve_in_thread
from typer.testing import CliRunner

from proofgym_stack import up
from proofgym_stack.cli import app
from proofgym_stack.up import ServiceProcess, Stack, free_port, port_free, restart_delay


def test_a_port_in_use_is_named_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        assert not port_free("127.0.0.1", busy)
        stack = Stack(agent_port=busy, resources_ports=[free_port()], model_port=free_port())
        with pytest.raises(RuntimeError, match=f"port {busy} on 127.0.0.1 already in use"):
            stack.start(timeout=5)
        assert stack.processes == []  # nothing was started


def test_a_port_given_to_two_services_is_refused_before_anything_starts() -> None:
    port = free_port()
    stack = Stack(agent_port=port, resources_ports=[free_port(), port], model_port=free_port())
    with pytest.raises(RuntimeError, match=f"port {port} given to more than one service"):
        stack.start(timeout=5)
    assert stack.processes == []


def test_a_service_that_dies_as_it_starts_is_restarted_less_and_less_often() -> None:
    assert [restart_delay(n) for n in range(9)] == [0, 0, 0.5, 1, 2, 4, 8, 16, 30]
    dying = [sys.executable, "-c", "raise SystemExit(3)"]
    stack = Stack()
    stack.processes.append(
        ServiceProcess("agent", "http://127.0.0.1:9", subprocess.Popen(dying), dying, {})
    )
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        stack.restart_dead()
        time.sleep(0.02)
    svc = stack.processes[0]
    # each death comes at once: restarts at 0, 0.5 and 1.5 s, not one per tick
    assert 2 <= svc.restarts <= 3, svc.restarts
    svc.process.wait()


def test_health_from_another_process_on_the_port_is_not_ready() -> None:
    other = FastAPI()

    @other.get("/health")
    async def health() -> dict[str, Any]:  # another stack's agent: healthy, but not ours
        return {"status": "ok", "service": "agent", "version": "0", "instance": "someone-else"}

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with serve_in_thread(other) as url:
            stack = Stack()
            stack.processes.append(ServiceProcess("agent", url, sleeper, [], {}))
            with pytest.raises(RuntimeError, match="not as the agent just started"):
                stack.wait_healthy(10)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_chosen_port_taken_before_the_service_binds_it_is_chosen_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = FastAPI()

    @other.get("/health")
    async def health() -> dict[str, Any]:  # whoever took the port first: healthy, not ours
        return {"status": "ok", "service": "resources", "instance": "someone-else"}

    with serve_in_thread(other) as url:
        taken = int(url.rsplit(":", 1)[1])
        chosen = iter([taken, free_port()])
        monkeypatch.setattr(up, "free_port", lambda host="127.0.0.1": next(chosen))
        svc = up.spawn_healthy("resources", "127.0.0.1", None, {}, timeout=60)
        try:
            assert not svc.url.endswith(f":{taken}")
            assert up.health(svc.url) is not None
        finally:
            svc.process.kill()
            svc.process.wait()
        # a port the caller named is not silently replaced
        with pytest.raises(RuntimeError, match="another process holds the port"):
            up.spawn_healthy("resources", "127.0.0.1", taken, {}, timeout=60)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--model", "/no/such/folder"], "no such folder"),
        (["--backend", "local"], "--backend local needs --model DIR"),
        (["--backend", "nonsense"], "unknown backend"),
    ],
)
def test_up_model_options_are_checked_before_anything_starts(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["up", *args])
    assert result.exit_code == 2 and says in result.output, result.output


def test_up_with_a_model_folder_serves_it_with_the_local_backend(tmp_path: Path) -> None:
    from proofgym_stack.cli_services import model_environment

    (tmp_path / "config.json").write_text("{}")
    env = model_environment(str(tmp_path), None)
    assert env == {
        "PROOFGYM_BACKEND": "local",
        "PROOFGYM_MODEL": str(tmp_path.resolve()),
        "PROOFGYM_DEFAULT_MAX_TOKENS": "192",  # fitted to a CPU, unless the user set one
    }


def test_rollout_timeout_is_the_budget_each_rollout_carries(tmp_path: Path) -> None:
    seen: list[str] = []
    agent = FastAPI()

    @agent.post("/run")
    async def run(request: Request) -> JSONResponse:
        seen.append(request.headers.get("x-proofgym-budget-s", ""))
        return JSONResponse({"error": {"kind": "invalid_task", "message": "no"}}, 400)

    tasks = tmp_path / "tasks.jsonl"
    from sdg.math import generate

    tasks.write_text(json.dumps(generate(1, seed=1)[0]) + "\n")
    with serve_in_thread(agent) as url:
        result = CliRunner().invoke(
            app,
            ["rollout", str(tasks), "--db", str(tmp_path / "r.db"), "--agent-url", url,
             "--timeout", "7"],
        )  # fmt: skip
    assert result.exit_code == 1  # the task was refused: not collected
    assert len(seen) == 1 and 6.5 <= float(seen[0]) < 7.0


def test_rollout_takes_several_task_files(tmp_path: Path) -> None:
    seen: list[str] = []
    agent = FastAPI()

    @agent.post("/run")
    async def run(request: Request) -> JSONResponse:
        seen.append((await request.json())["task"]["env"])
        return JSONResponse({"error": {"kind": "invalid_task", "message": "no"}}, 400)

    from sdg.letters import generate as letters
    from sdg.math import generate as math

    files = []
    for name, rows in (("math", math(2, seed=1)), ("letters", letters(1, seed=1))):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        files.append(str(path))
    with serve_in_thread(agent) as url:
        result = CliRunner().invoke(
            app, ["rollout", *files, "--db", str(tmp_path / "r.db"), "--agent-url", url]
        )
    assert result.exit_code == 1
    assert sorted(seen) == ["letters", "math", "math"]


def test_the_supervisor_loads_no_command_line_and_no_http_library() -> None:
    code = (
        "import sys\n"
        "import proofgym_stack.supervisor\n"
        "print(sorted(m for m in ('typer', 'rich', 'httpx', 'pydantic', 'aiohttp', 'fastapi') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize("argv", [[], ["not json"], ['{"stack": 5}'], ["[]"]])
def test_the_supervisor_refuses_a_spec_it_cannot_use(argv: list[str]) -> None:
    from proofgym_stack.supervisor import main

    assert main(argv) == 2


def test_the_supervisor_says_why_the_services_did_not_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        spec = {"stack": {"agent_port": port, "resources_ports": [free_port()]}, "start_timeout": 5}
        done = subprocess.run(
            [sys.executable, "-m", "proofgym_stack.supervisor", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr.startswith("error: the services did not start: port"), done.stderr
    assert "already in use" in done.stderr
