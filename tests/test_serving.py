"""How a service process runs: its open-files limit, admission fitted to it, slow headers cut.

These start real processes: descriptor limits and uvicorn's connection handling exist only
there. The 16,384-rollout run under a soft limit of 1,024 is in bench/hot_path.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from helpers import patience

from proofgym.serving.lean_imports import reexports
from proofgym_stack.up import free_port

ROOT = Path(__file__).resolve().parent.parent


def run_limited(code: str, soft: int, hard: int) -> tuple[str, str]:
    """Run Python `code` in a process started with these open-files limits; its output."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    done = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=limit,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    return done.stdout, done.stderr


def test_a_low_soft_limit_is_raised_to_the_hard_one() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    code = "from proofgym.serving.server import raise_nofile; print(raise_nofile())"
    out, _ = run_limited(code, 256, min(hard, 4096))
    assert out.strip() == str((min(hard, 4096), min(hard, 4096)))


def test_admission_shrinks_to_the_descriptors_a_low_hard_limit_leaves() -> None:
    code = (
        "from proofgym.serving.server import fit_to_descriptors\n"
        "from proofgym.serving.settings import AgentSettings\n"
        "s = fit_to_descriptors(AgentSettings(pool_per_upstream=16))\n"
        "print(s.max_inflight, s.max_queue)\n"
    )
    out, said = run_limited(code, 512, 512)
    inflight, queue = map(int, out.split())
    # 512 descriptors, less 128 spare and 4 pools of 16: 320 admitted in all, not 17,408
    assert (inflight, queue) == (320, 0)
    assert "only 512 open files allowed" in said and "503 overloaded" in said


@pytest.fixture
def resources_server() -> Iterator[str]:
    yield from _resources_server(
        {"PROOFGYM_HEADER_TIMEOUT_S": "0.5", "PROOFGYM_IDLE_TIMEOUT_S": "1.0"}
    )


@pytest.fixture
def small_body_budget_server() -> Iterator[str]:
    yield from _resources_server({"PROOFGYM_MAX_BODY_MB": "4", "PROOFGYM_MAX_BODY_MEMORY_MB": "32"})


def _resources_server(settings: dict[str, str]) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        **settings,
        "PROOFGYM_PORT": str(port),
        "PROOFGYM_ENVS": json.dumps(["math"]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "proofgym_stack.cli", "serve", "resources"], env=env, cwd=ROOT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False


def test_one_caller_stalling_bodies_over_the_whole_budget_delays_no_other(
    small_body_budget_server: str,
) -> None:
    # issue 44: stalled bodies of one caller filled the body budget, and every other caller's
    # requests were 503 until the body timeout; now only the staller's own bodies are cut
    port = int(small_body_budget_server.rsplit(":", 1)[1])
    mb = 1024 * 1024
    stalled = []
    for declared, sent in ((4 * mb - 1, 3 * mb), (4 * mb - 1, 3 * mb), (2 * mb, 2 * mb - 1)):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(
            b"POST /math/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"X-Proofgym-Client: attacker\r\nContent-Length: %d\r\n\r\n" % declared
        )
        sock.sendall(b"[" + b"1," * ((sent - 1) // 2))  # 32 MB of the budget in all, held
        stalled.append(sock)
    time.sleep(1.0)  # the server has read what was sent
    try:
        with httpx.Client(base_url=small_body_budget_server, timeout=5) as client:
            for i in range(10):
                r = client.post(
                    "/math/verify",
                    json={"session_id": f"s{i}", "response": {}},
                    headers={"X-Proofgym-Client": f"honest-{i}"},
                )
                assert r.status_code != 503, r.text[:300]
        cut = []
        for sock in stalled:
            sock.settimeout(0.5)
            with contextlib.suppress(TimeoutError):
                cut.append(sock.recv(4096))
        assert cut and all(b" 503 " in a and b"more than its share" in a for a in cut), cut
    finally:
        for sock in stalled:
            sock.close()


def test_headers_that_trickle_in_are_cut_off(resources_server: str) -> None:
    port = int(resources_server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as idle:  # says nothing at all
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"GET /math/info HTTP/1.1\r\nHost: x\r\n")  # never ends its headers
            assert closed_within(slow, 3.0)
        assert closed_within(idle, 3.0)
    # a whole request is served, on a connection that then stays usable
    with httpx.Client(base_url=resources_server) as client:
        assert client.get("/math/info").status_code == 200
        time.sleep(0.8)  # idle between requests: keep-alive, not the header timeout, applies
        assert client.get("/math/info").status_code == 200


class FakeTransport:
    """What the protocol asks of its transport: the socket, closing, close."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.closed = False

    def get_extra_info(self, name: str) -> object:
        return self.sock if name == "socket" else None

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def test_a_client_that_sent_is_not_cut_off_when_the_server_is_behind() -> None:
    """When the header timer fires with the client's bytes still unread in the kernel, the
    event loop is behind, not the client: the timer is re-armed, the connection kept."""
    import asyncio

    from proofgym.serving.server import HeaderTimeoutProtocol

    ours, theirs = socket.socketpair()
    with ours, theirs:
        protocol = HeaderTimeoutProtocol.__new__(HeaderTimeoutProtocol)
        transport = FakeTransport(ours)
        protocol.transport = transport  # type: ignore[assignment]
        protocol.loop = asyncio.get_running_loop()
        theirs.sendall(b"POST /run HTTP/1.1\r\nHost: agent\r\n\r\n")
        time.sleep(0.05)
        protocol._too_slow()
        assert not transport.closed and protocol._header_timer is not None
        protocol._disarm()
        ours.recv(1024)  # read: nothing pending any more, and no headers came
        protocol._too_slow()
        assert transport.closed


SLOW_MODEL = """
import asyncio, sys
from aiohttp import web

async def chat(request):
    await asyncio.sleep(60)
    return web.json_response({})

app = web.Application()
app.router.add_post("/v1/chat/completions", chat)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None)
"""


def open_sessions(resources_url: str) -> float:
    metrics = httpx.get(f"{resources_url}/metrics", timeout=5).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith("proofgym_open_sessions{")
    )


def test_the_sessions_of_a_killed_agent_are_closed_within_their_lease() -> None:
    """A real stack; the agent is SIGKILLed mid-rollout (its model call hangs), so it never
    closes its session: the resources server closes it once the lease runs out."""
    from proofgym_stack.up import Stack
    from sdg.math import generate

    fake_port = free_port()
    fake = subprocess.Popen([sys.executable, "-c", SLOW_MODEL, str(fake_port)])
    ports = [free_port() for _ in range(3)]
    stack = Stack(
        agent_port=ports[0],
        resources_ports=[ports[1]],
        model_port=ports[2],
        env={
            "PROOFGYM_ENVS": '["math"]',
            "PROOFGYM_SESSION_LEASE_S": "1.5",  # the agent's lease, renewed every 0.5 s
            "PROOFGYM_REAP_INTERVAL_S": "0.25",
            "PROOFGYM_SESSION_TTL_S": "900",  # without leases: 15 minutes
        },
        model_env={
            "PROOFGYM_BACKEND": "openai",
            "PROOFGYM_BASE_URLS": json.dumps([f"http://127.0.0.1:{fake_port}/v1"]),
        },
    )
    resources = f"http://127.0.0.1:{ports[1]}"
    try:
        with stack.running():
            task = generate(1, seed=1)[0]

            def run() -> None:
                with contextlib.suppress(httpx.HTTPError):  # the agent dies under it
                    httpx.post(f"{stack.agent_url}/run", json={"task": task}, timeout=90)

            rollout = threading.Thread(target=run, daemon=True)
            rollout.start()
            deadline = time.monotonic() + patience(20)
            while open_sessions(resources) < 1 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert open_sessions(resources) == 1
            time.sleep(3)  # longer than the lease: renewals keep it open while the agent lives
            assert open_sessions(resources) == 1
            agent = next(s for s in stack.processes if s.name == "agent")
            agent.process.kill()
            killed = time.monotonic()
            while open_sessions(resources) > 0 and time.monotonic() - killed < patience(20):
                time.sleep(0.1)
            closed_after = time.monotonic() - killed
            assert open_sessions(resources) == 0
            assert closed_after < 1.5 + 0.25 + 1.5, closed_after  # lease + reap + slack
    finally:
        fake.kill()  # its handlers hang on purpose: no graceful stop
        fake.wait(10)


@pytest.mark.parametrize(
    ("argv", "env", "said"),
    [
        (["bogus"], {}, "usage: python -m proofgym_stack.service_main agent|resources|model"),
        (["agent"], {"PROOFGYM_MAX_STEPS": "zero"}, "error: "),
        (["agent"], {"PROOFGYM_HOST": "0.0.0.0"}, "error: refusing to serve on 0.0.0.0"),
    ],
)
def test_a_service_started_without_the_cli_refuses_bad_input_clearly(
    argv: list[str], env: dict[str, str], said: str
) -> None:
    # how `proofgym up` and Ray's actors start services: no Typer, the same checks
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PROOFGYM_")}
    done = subprocess.run(
        [sys.executable, "-m", "proofgym_stack.service_main", *argv],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    if "MAX_STEPS" in str(env):
        assert "max_steps" in done.stderr


def test_openai_types_load_without_the_client_and_the_rest_comes_when_asked() -> None:
    code = (
        "import sys\n"
        "from proofgym.serving.lean_imports import openai_types_only\n"
        "assert openai_types_only()\n"
        "from openai.types.responses import Response\n"
        "r = Response.model_validate({'id': 'r', 'object': 'response', 'created_at': 0,\n"
        "    'model': 'm', 'parallel_tool_calls': True, 'tool_choice': 'auto', 'tools': [],\n"
        "    'output': [{'type': 'function_call', 'call_id': 'c', 'name': 'f',\n"
        "                'arguments': '{}'}]})\n"
        "print(type(r.output[0]).__name__, 'openai._client' in sys.modules,\n"
        "      'openai.types.responses.response_stream_event' in sys.modules)\n"
        "import openai\n"
        "print(openai.__version__ == openai.version.VERSION, 'openai._client' in sys.modules)\n"
        "from openai import AsyncOpenAI\n"
        "from openai.types import CompletionUsage\n"
        "print(AsyncOpenAI.__name__, CompletionUsage.__name__, openai_types_only())\n"
        "print(openai.AssistantEventHandler.__name__)\n"  # the package's own lazy names
        "from openai.types.responses import ResponseStreamEvent, ResponseInputItemParam\n"
        "import openai.types.responses as package\n"
        "print(package.Response is Response, bool(ResponseStreamEvent), "
        "bool(ResponseInputItemParam))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == [
        "ResponseFunctionToolCall False False",
        "True True",
        "AsyncOpenAI CompletionUsage False",
        "AssistantEventHandler",
        "True True True",
    ], out.stdout + out.stderr


def test_only_a_pure_reexport_init_is_skipped() -> None:
    assert reexports(
        '"""doc"""\nfrom __future__ import annotations\nfrom .a import B as C\n'
        "from . import sub\nfrom .d import (E,\n F)\n"
    ) == {
        "C": ("a", "B"),
        "sub": ("sub", ""),
        "E": ("d", "E"),
        "F": ("d", "F"),
    }
    for busy in (
        "from .a import B\nX = 1\n",
        "import os\n",
        "from .a import *\n",
        "from pkg.a import B\n",
        "if True:\n    from .a import B\n",
    ):
        assert reexports(busy) is None, busy


def test_a_service_process_does_not_load_the_command_line() -> None:
    code = (
        "import sys\n"
        "from proofgym_stack.service_main import build\n"
        "for name in ('agent', 'resources', 'model'):\n"
        "    build(name, {})\n"
        "print(sorted(m for m in ('typer', 'proofgym_stack.cli', 'openai._client', 'aiohttp', "
        "'openai.types.responses.response_stream_event', 'openai.types.evals', 'httpx') "
        "if m in sys.modules))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PROOFGYM_")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=clean
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
