"""Blocking tool calls are fair between sessions, and a flood ends as tool errors, never a mask."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import key_of, session_headers
from openai.types.responses import Response

from proofgym.serving import deadline
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Check, Task, VerifyResult
from resources_servers.base import Environment, tool
from resources_servers.base.app import create_app
from resources_servers.base.executor import CallRefused, FairExecutor, OthersLoad


async def test_a_session_with_many_calls_does_not_starve_another() -> None:
    executor = FairExecutor(workers=2, max_wait_s=30, call_timeout_s=30)
    # the flood's calls hold until the end: the honest call must finish while every one of
    # them still runs or waits (no race between the two on when each is released)
    release_flood = threading.Event()
    order: list[str] = []

    def blocked(name: str, until: threading.Event) -> str:
        until.wait(10)
        order.append(name)
        return name

    free = threading.Event()
    free.set()
    flood = [
        asyncio.create_task(executor.run("hostile", lambda i=i: blocked(f"h{i}", release_flood)))
        for i in range(20)
    ]
    await asyncio.sleep(0.05)
    honest = executor.run("honest", lambda: blocked("honest", free))
    assert await asyncio.wait_for(honest, 10) == "honest"
    # one hostile call at a time: the honest call ran beside the flood, not after it
    assert order == ["honest"]
    assert executor.pending() > 0  # the flood is still queued behind its own session
    release_flood.set()
    await asyncio.gather(*flood)
    assert len(order) == 21
    executor.shutdown()


async def test_a_call_that_waits_too_long_behind_its_own_session_is_refused_unrun() -> None:
    executor = FairExecutor(workers=4, max_wait_s=0.2, call_timeout_s=5)
    release = threading.Event()
    ran: list[int] = []

    def first() -> int:
        release.wait(5)
        ran.append(1)
        return 1

    one = asyncio.create_task(executor.run("s", first))
    two = asyncio.create_task(executor.run("s", lambda: ran.append(2)))
    await asyncio.sleep(0.4)
    release.set()
    assert await one == 1
    try:
        await two
        raise AssertionError("the second call should have been refused")
    except CallRefused as exc:
        assert exc.kind == "queue_timeout"
    assert ran == [1]
    executor.shutdown()


HOSTILE, HONEST = "hostile-session-0001", "honest-session-00001"


class Slow(Environment[None]):
    """A tool that blocks."""

    name = "slow"

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    @tool
    def wait(self, state: None, seconds: float) -> str:
        """Block.

        Args:
            seconds: how long.
        """
        time.sleep(min(seconds, 2))
        return "waited"

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        return VerifyResult(reward=0.0, checks=[Check(name="none", passed=False)])


async def test_a_flood_of_slow_calls_ends_in_tool_errors_and_seeding_goes_on() -> None:
    settings = ResourcesSettings(tool_workers=2, tool_queue_wait_s=0.5, tool_call_timeout_s=5)
    app = create_app(settings, envs={"slow": Slow()})
    task = {"task_id": "t", "env": "slow", "responses_create_params": {"input": "x"}}
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://r") as client,
    ):
        for sid in (HOSTILE, HONEST):
            body = {"session_id": sid, "task": task, "session_key": key_of(sid)}
            r = await client.post("/slow/seed_session", json=body)
            assert r.status_code == 200

        async def call(sid: str) -> Any:
            r = await client.post(
                "/slow/tools/wait", json={"seconds": 0.3}, headers=session_headers(sid)
            )
            assert r.status_code == 200, r.text
            return r.json()

        flood = [asyncio.create_task(call(HOSTILE)) for _ in range(40)]
        await asyncio.sleep(0.1)
        # seeding uses no tool thread: it answers while the flood holds them
        r = await client.post(
            "/slow/seed_session", json={"session_id": "late-session-0001", "task": task}
        )
        assert r.status_code == 200
        honest = await call(HONEST)
        assert honest["output"] == "waited"
        results = await asyncio.gather(*flood)
    kinds = [(r.get("error") or {}).get("kind") for r in results]
    assert kinds.count(None) >= 1  # some ran
    assert kinds.count("queue_timeout") >= 30  # the rest were answered, unrun, as tool errors


async def test_the_agent_runs_at_most_the_cap_of_calls_of_one_turn(
    file_edit_tasks: list[dict[str, Any]],
) -> None:
    from proofgym.serving.settings import AgentSettings
    from proofgym_stack.testing import in_process_stack

    flood = [{"type": "function_call", "name": "list_files", "arguments": "{}"}] * 40
    body = {
        "task": file_edit_tasks[0],
        "model_params": {
            "model": "scripted",
            "script": [flood, [{"type": "message", "content": "Done."}]],
        },
    }
    settings = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", max_tool_calls_per_turn=8
    )
    async with in_process_stack(agent_settings=settings) as s:
        r = await s.client.post("http://agent/run", json=body)
    result = r.json()
    assert r.status_code == 200 and result["mask_sample"] is False  # scored, never masked
    outputs = [
        i["output"] for i in result["response"]["output"] if i["type"] == "function_call_output"
    ]
    refused = [o for o in outputs if "too many tool calls in one turn" in o]
    assert len(outputs) == 40 and len(refused) == 32


class SlowVerdict(Slow):
    """A verifier that blocks (as the code environment's hidden tests do) and pays a wait."""

    name = "slowverdict"
    done: list[str] = []

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        time.sleep(0.4)
        self.done.append(task.task_id)
        return VerifyResult(reward=1.0, checks=[Check(name="waited", passed=True)])


class QuickBlocking(Slow):
    """Another environment on the same server whose verify also runs off the loop."""

    name = "quick"
    finished_at: list[int] = []

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        self.finished_at.append(len(SlowVerdict.done))
        return VerifyResult(reward=1.0, checks=[Check(name="quick", passed=True)])


def rollout(env: str, n: int, script: list[Any]) -> dict[str, Any]:
    task = {"task_id": f"{env}-{n}", "env": env, "responses_create_params": {"input": "x"}}
    return {"task": task, "model_params": {"model": "scripted", "script": script}}


async def test_slow_verifies_in_a_batch_mask_nothing_and_hold_no_other_environment() -> None:
    from proofgym.serving.settings import AgentSettings
    from proofgym_stack.testing import in_process_stack

    SlowVerdict.done.clear()
    QuickBlocking.finished_at.clear()
    # 84 verifies of 0.4 s on 8 threads take ~4 s: none may mask, each is judged once, and
    # another environment's verify is not queued behind them. (In-process, no attempt times
    # out; the timed-out attempt and its retry are the real-socket tests below.)
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        request_timeout_s=1.0,
        max_retries=8,
        backoff_base_s=0.05,
    )
    envs = {"slowverdict": SlowVerdict(), "quick": QuickBlocking()}
    say = [[{"type": "message", "content": "done"}]]
    async with in_process_stack(agent_settings=agent, envs=envs) as s:
        batch = [asyncio.create_task(s.run(rollout("slowverdict", n, say))) for n in range(84)]
        await asyncio.sleep(0.2)
        honest = [(await s.run(rollout("quick", n, say))).json() for n in range(3)]
        results = [(await r).json() for r in batch]
    assert [r["mask_sample"] for r in results] == [False] * 84, [
        r["failure_reason"] for r in results if r["mask_sample"]
    ][:3]
    assert all(r["reward"] == 1.0 for r in results)
    assert len(SlowVerdict.done) == 84  # each judged once: a retry waited for its verdict
    assert all(r["reward"] == 1.0 and not r["mask_sample"] for r in honest)
    # the other environment's verifies ran on its own threads, not after the slow batch
    assert QuickBlocking.finished_at[0] < 84 // 2


async def run_over_sockets(
    env: Environment[None], n: int, settings: ResourcesSettings
) -> list[dict[str, Any]]:
    """`n` rollouts of `env` at once through an agent with a 1 s request timeout, no retries
    and a 60 s rollout budget, to a resources server and a model over real sockets (an
    in-process transport enforces no timeout): their results."""
    from helpers import serve_in_thread

    from agent_server.app import create_app as agent_app
    from model_interface.app import build_backend
    from model_interface.app import create_app as model_app
    from proofgym.serving.settings import AgentSettings, ModelSettings

    resources = create_app(settings, envs={env.name: env})
    model_settings = ModelSettings()
    model = model_app(model_settings, build_backend(model_settings))
    say = [[{"type": "message", "content": "done"}]]
    with serve_in_thread(resources) as resources_url, serve_in_thread(model) as model_url:
        agent_settings = AgentSettings(
            resources_urls=[resources_url],
            model_url=model_url,
            request_timeout_s=1.0,
            max_retries=0,
            rollout_timeout_s=60.0,
            proofs_dir=None,
        )
        agent = agent_app(agent_settings)
        transport = httpx.ASGITransport(app=agent)
        async with (
            agent.router.lifespan_context(agent),
            httpx.AsyncClient(transport=transport, base_url="http://agent", timeout=60) as c,
        ):
            batch = [c.post("/run", json=rollout(env.name, i, say)) for i in range(n)]
            return [r.json() for r in await asyncio.gather(*batch)]


async def test_a_verify_queued_past_the_request_timeout_waits_within_the_rollouts_budget() -> None:
    # issue 44: with PROOFGYM_REQUEST_TIMEOUT_S shorter than the queue of other sessions'
    # verifies, the agent's attempt timed out and the rollout came back masked. With no
    # retries, only waiting within the rollout's own budget can bring back each verdict.
    SlowVerdict.done.clear()
    results = await run_over_sockets(SlowVerdict(), 48, ResourcesSettings())
    masked = [r["failure_reason"] for r in results if r["mask_sample"]]
    assert masked == [], (len(masked), masked[:2])
    assert [r["reward"] for r in results] == [1.0] * 48
    assert len(SlowVerdict.done) == 48  # each judged once
    # the queue really outlasted one request timeout: 48 verifies of 0.4 s on the pool's threads
    assert max(r["timings"]["verify"] for r in results) > 1.5


class SlowSeed(SlowVerdict):
    """An environment whose state is built off the loop, slowly (a sandbox brought up)."""

    name = "slowseed"
    blocking_state = True

    def create_state(self, task: Task, workdir: Path | None) -> None:
        time.sleep(0.4)


async def test_a_seed_queued_past_the_request_timeout_waits_within_the_rollouts_budget() -> None:
    # A seed, like a verify, shares its environment's pool (two threads here) with other
    # sessions' work and is never refused there: 12 seeds of 0.4 s queue for about 2.4 s,
    # past the agent's 1 s request timeout, and each must still come back, unmasked.
    SlowVerdict.done.clear()
    results = await run_over_sockets(SlowSeed(), 12, ResourcesSettings(tool_workers=2))
    masked = [r["failure_reason"] for r in results if r["mask_sample"]]
    assert masked == [], (len(masked), masked[:2])
    assert [r["reward"] for r in results] == [1.0] * 12
    # the queue really outlasted one request timeout
    assert max(r["timings"]["total"] - r["timings"]["verify"] for r in results) > 1.5


async def test_tool_calls_that_would_outlast_the_caller_come_back_as_tool_errors() -> None:
    from proofgym.serving.settings import AgentSettings
    from proofgym_stack.testing import in_process_stack

    # 36 slow calls of one session in one turn run one at a time (0.5 s each): past the
    # agent's 3 s attempt, the rest must come back before it as errors the policy sees
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        request_timeout_s=3.0,
        max_tool_calls_per_turn=64,
    )
    calls = [{"type": "function_call", "name": "wait", "arguments": '{"seconds": 0.5}'}] * 36
    script = [calls, [{"type": "message", "content": "done"}]]
    async with in_process_stack(agent_settings=agent, envs={"slow": Slow()}) as s:
        result = (await s.run(rollout("slow", 0, script))).json()
    assert result["mask_sample"] is False, result["failure_reason"]
    outputs = [
        i["output"] for i in result["response"]["output"] if i["type"] == "function_call_output"
    ]
    late = [o for o in outputs if "caller's deadline" in o]
    assert outputs.count("waited") >= 2 and len(late) >= 20, outputs[:8]


def test_a_verify_retried_after_its_answer_was_lost_gets_the_verdict() -> None:
    # over real sockets: the first attempt's caller gives up, the server judges on and closes
    # the session with the verdict; the caller's retry must get that verdict, not a 404
    from helpers import serve_in_thread

    from proofgym.wire.protocol import CLOSE_HEADER, CLOSED_HEADER

    SlowVerdict.done.clear()
    app = create_app(ResourcesSettings(), envs={"slowverdict": SlowVerdict()})
    task = {"task_id": "t", "env": "slowverdict", "responses_create_params": {"input": "x"}}
    sid = "lost-answer-session-01"
    response = {
        "id": "resp_lost", "object": "response", "created_at": 0, "model": "m", "output": [],
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    }  # fmt: skip
    body = {"session_id": sid, "response": response}
    owner = {**session_headers(sid), CLOSE_HEADER: "1"}
    with serve_in_thread(app) as url, httpx.Client(base_url=url) as client:
        seeded = client.post(
            "/slowverdict/seed_session",
            json={"session_id": sid, "task": task, "session_key": key_of(sid)},
        )
        assert seeded.status_code == 200
        with pytest.raises(httpx.TimeoutException):
            client.post("/slowverdict/verify", json=body, headers=owner, timeout=0.1)
        retry = client.post("/slowverdict/verify", json=body, headers=owner, timeout=10)
        assert retry.status_code == 200 and retry.json()["reward"] == 1.0, retry.text
        assert retry.headers[CLOSED_HEADER] == "1"
        time.sleep(0.5)
        late = client.post("/slowverdict/verify", json=body, headers=owner, timeout=10)
        assert late.status_code == 200 and late.json() == retry.json()
    assert len(SlowVerdict.done) == 1  # judged once


async def test_a_wait_for_workers_other_sessions_hold_is_never_the_policys_tool_error() -> None:
    # issue 44: with every worker held by other sessions, a call "waited 30s behind this
    # session's earlier calls" and the policy was scored on it
    executor = FairExecutor(workers=2, max_wait_s=0.2, call_timeout_s=5)
    release = threading.Event()
    others = [
        asyncio.create_task(executor.run(f"other-{i}", lambda: release.wait(5))) for i in range(2)
    ]
    await asyncio.sleep(0.05)
    # past max_wait_s, but waiting only for workers: it runs once one is free, not refused
    waiting = asyncio.create_task(executor.run("mine", lambda: "ran"))
    await asyncio.sleep(0.4)
    release.set()
    assert await waiting == "ran"
    await asyncio.gather(*others)
    # and when it cannot start within its caller's deadline, it is their load, not a tool error
    release.clear()
    others = [
        asyncio.create_task(executor.run(f"other-{i}", lambda: release.wait(5))) for i in range(2)
    ]
    await asyncio.sleep(0.05)
    with deadline.within(1.3), pytest.raises(OthersLoad) as refused:
        await executor.run("mine", lambda: "ran")
    assert refused.value.kind == "others_load" and refused.value.status == 503
    assert "other sessions" in str(refused.value)
    release.set()
    await asyncio.gather(*others)
    executor.shutdown()
