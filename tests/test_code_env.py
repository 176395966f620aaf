"""The code environment: controls through the real loop, and hostile submissions contained."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from proofgym_stack.testing import InProcessStack, in_process_stack
from resources_servers.code.env import CodeEnv
from resources_servers.code.sandbox import Sandbox
from sdg.code import generate

TASKS = generate(6, seed=21)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox(wall_s=4, cpu_s=2, memory_mb=256)
    yield box
    box.close()


@pytest.fixture
async def stack(sandbox: Sandbox) -> AsyncIterator[InProcessStack]:
    async with in_process_stack(envs={"code": CodeEnv(sandbox)}) as s:
        yield s


def submit(source: str, task: dict[str, Any]) -> dict[str, Any]:
    write = {
        "type": "function_call",
        "name": "write_file",
        "arguments": json.dumps({"path": "solution.py", "content": source}),
    }
    return {
        "task": task,
        "model_params": {
            "model": "scripted",
            "script": [
                [write],
                [{"type": "message", "content": "Done: implemented, all tests pass."}],
            ],
        },
    }


async def run(stack: InProcessStack, body: dict[str, Any]) -> dict[str, Any]:
    r = await stack.run(body)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize(
    "control,reward",
    [
        ("reference", 1.0),
        ("alternative", 1.0),
        ("violation_special_cases_visible", 0.0),
        ("noop_claim", 0.0),
        ("exploit_host_task_files", 0.0),
        ("exploit_host_secrets", 0.0),
        ("exploit_forged_result", 0.0),
        ("exploit_malformed_result", 0.0),
    ],
)
async def test_controls(stack: InProcessStack, control: str, reward: float) -> None:
    for task in TASKS[:3]:
        result = await run(stack, {"task": task, "control": control})
        assert not result["mask_sample"], result["failure_reason"]
        assert result["reward"] == reward, (control, result["checks"])


def fn(task: dict[str, Any], body: str) -> str:
    return (
        f"def {task['task_data']['function']}(*args):\n"
        + "\n".join("    " + line for line in body.splitlines())
        + "\n"
    )


HOSTILE = {
    "infinite_loop": "while True:\n    pass",
    "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
    "        pass",
    "memory_bomb": "x = []\nwhile True:\n    x.append(bytearray(10**7))",
    "huge_output": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
async def test_runaway_submissions_are_contained(stack: InProcessStack, name: str) -> None:
    task = TASKS[0]
    result = await run(stack, submit(fn(task, HOSTILE[name]), task))
    hidden = next(c for c in result["checks"] if c["name"] == "hidden_tests_pass")
    assert result["reward"] == 0.0 and not hidden["passed"] and not result["mask_sample"]
    assert (await stack.client.get("http://resources/health")).status_code == 200
    after = await run(stack, {"task": task, "control": "reference"})
    assert after["reward"] == 1.0  # the server is healthy and judges the next run right


async def test_no_write_outside_the_sandbox(
    stack: InProcessStack, tmp_path: Path, sandbox: Sandbox
) -> None:
    target = tmp_path / "pwned.txt"
    host_tmp = Path("/tmp") / f"proofgym-escape-{os.getpid()}"
    task = TASKS[0]
    body = f"for p in ({str(target)!r}, {str(host_tmp)!r}):\n    open(p, 'w').write('x')\nreturn 0"
    result = await run(stack, submit(fn(task, body), task))
    assert result["reward"] == 0.0 and not result["mask_sample"]
    assert not target.exists()
    assert not host_tmp.exists()  # /tmp inside the sandbox is its own, thrown away


async def test_no_reading_another_sessions_files(stack: InProcessStack) -> None:
    secret = "s3cret-" + os.urandom(6).hex()
    task = TASKS[0]
    write = {
        "type": "function_call",
        "name": "write_file",
        "arguments": json.dumps({"path": "secret.txt", "content": secret}),
    }
    victim_id = "victim-session-000001"
    host = stack.resources.state.host
    # the victim's session stays open while the thief runs
    seeded = await stack.client.post(
        "http://resources/code/seed_session", json={"session_id": victim_id, "task": task}
    )
    assert seeded.status_code == 200
    await stack.client.post(
        "http://resources/code/tools/write_file",
        json=json.loads(write["arguments"]),
        headers={"X-Session-Id": victim_id, "X-Session-Key": seeded.json()["session_key"]},
    )
    victim = host.registries["code"].sessions[victim_id]
    assert victim.workdir is not None
    victim_file = victim.workdir / "ws" / "secret.txt"
    assert victim_file.read_text() == secret
    body = f"return open({str(victim_file)!r}).read()"
    result = await run(stack, submit(fn(task, body), task))
    assert result["reward"] == 0.0
    assert secret not in json.dumps(result)


async def test_no_network(stack: InProcessStack) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(6)
    port = listener.getsockname()[1]
    accepted: list[Any] = []
    threading.Thread(target=lambda: accepted.append(_accept(listener)), daemon=True).start()
    task = TASKS[0]
    body = (
        f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\nreturn 0"
    )
    result = await run(stack, submit(fn(task, body), task))
    assert result["reward"] == 0.0
    hidden = next(c for c in result["checks"] if c["name"] == "hidden_tests_pass")
    assert "unreachable" in hidden["detail"].lower() or "refused" in hidden["detail"].lower()
    listener.close()
    assert accepted in ([], [None])


def _accept(listener: socket.socket) -> Any:
    try:
        return listener.accept()
    except OSError:
        return None


async def test_editing_or_deleting_the_tests_gains_nothing(stack: InProcessStack) -> None:
    task = TASKS[0]
    # a submission that deletes the cases it is run on, and a policy that edits the tests
    body = "import os\nfor f in os.listdir('.'):\n    os.remove(f)\nreturn None"
    edit = {
        "type": "function_call",
        "name": "write_file",
        "arguments": json.dumps({"path": "tests/visible_tests.json", "content": "[]"}),
    }
    request = submit(fn(task, body), task)
    request["model_params"]["script"].insert(0, [edit])
    result = await run(stack, request)
    checks = {c["name"]: c for c in result["checks"]}
    assert result["reward"] == 0.0
    assert not checks["no_test_edits"]["passed"] and checks["tests_untouched"]["passed"]
    outputs = [
        i["output"] for i in result["response"]["output"] if i["type"] == "function_call_output"
    ]
    assert "read-only" in outputs[0]


def test_unsafe_mode_still_judges_and_times_out() -> None:
    box = Sandbox(wall_s=2, cpu_s=1, mode="unsafe-no-isolation")
    ok = box.run("def f(a):\n    return a * 2\n", "f", [[2], [5]])
    assert ok.status == "ok" and [r["value"] for r in ok.results] == [4, 10]
    loop = box.run("def f(a):\n    while True:\n        pass\n", "f", [[1]])
    assert loop.status in {"timeout", "crashed"}
    box.close()
