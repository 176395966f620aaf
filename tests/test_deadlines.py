"""One retry budget, one deadline, and sessions that outlive no one.

- A call carries what is left of its caller's deadline; nothing retries past it.
- One model step costs at most `max_retries + 1` upstream calls, however many layers.
- A request the backend refuses (4xx) is the caller's error, not a masked sample.
- Sessions seeded with a lease are closed soon after their renewals stop.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from proofgym.clients.http import CallFailed, HttpAnswer, ServiceClient
from proofgym.serving import deadline
from proofgym.serving.guard import GuardLimits
from proofgym.serving.service import install_common
from proofgym.serving.settings import (
    AgentSettings,
    ClientSettings,
    ModelSettings,
    ResourcesSettings,
)
from proofgym.wire.protocol import Task
from proofgym_stack.testing import in_process_stack
from resources_servers.base.registry import discover
from resources_servers.base.sessions import SessionRegistry
from sdg.math import generate as math_tasks


class Scripted:
    """A transport answering from a list, recording each request's headers."""

    def __init__(self, answers: list[HttpAnswer]) -> None:
        self.answers = answers
        self.seen: list[dict[str, str]] = []

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer:
        self.seen.append(dict(headers))
        return self.answers[min(len(self.seen) - 1, len(self.answers) - 1)]

    async def aclose(self) -> None:
        return None


def answer(status: int, kind: str | None = None, retry_after: str | None = None) -> HttpAnswer:
    body = {"error": {"kind": kind, "message": "x"}} if kind else {"ok": True}
    headers = {"Retry-After": retry_after} if retry_after else {}
    return HttpAnswer(status, headers, body, "")


async def test_calls_send_their_budget_and_never_wait_past_it() -> None:
    transport = Scripted([answer(503, "unavailable", retry_after="5")])
    client = ServiceClient(ClientSettings(max_retries=4), transport)
    start = time.monotonic()
    with deadline.within(1.0):
        try:
            await client.call("POST", "http://svc/x", {})
        except CallFailed as exc:
            assert "deadline" in str(exc)
    # Retry-After 5 s would outlast the 1 s deadline: it fails now instead of sleeping
    assert time.monotonic() - start < 0.5 and len(transport.seen) == 1
    assert 0 < float(transport.seen[0]["X-Proofgym-Budget-S"]) <= 1.0


async def test_refused_unrun_is_retried_for_any_call_without_spending_retries() -> None:
    transport = Scripted([answer(503, "overloaded", "0")] * 3 + [answer(200)])
    client = ServiceClient(ClientSettings(max_retries=0, backoff_base_s=0.001), transport)
    got = await client.call("POST", "http://svc/run", {}, idempotent=False)
    assert got.status == 200 and len(transport.seen) == 4
    # a 503 that is not a refusal is not retried for a call that is not idempotent
    other = Scripted([answer(503, "unavailable"), answer(200)])
    got = await ServiceClient(ClientSettings(max_retries=3), other).call(
        "POST", "http://svc/run", {}, idempotent=False
    )
    assert got.status == 503 and len(other.seen) == 1


async def test_a_service_works_under_the_budget_its_caller_sent() -> None:
    app = FastAPI()
    install_common(app, "test", None, GuardLimits())

    @app.post("/left")
    async def left() -> dict[str, Any]:
        return {"left": deadline.remaining()}

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://svc") as client:
        r = await client.post("/left", json={}, headers={"X-Proofgym-Budget-S": "2.5"})
        assert 2.0 < r.json()["left"] <= 2.5
        assert (await client.post("/left", json={})).json()["left"] is None


def counting_upstream(status: int, calls: list[int]) -> FastAPI:
    """An OpenAI-compatible upstream that always answers `status`, counting calls."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        calls.append(1)
        return JSONResponse({"error": {"message": f"upstream says {status}"}}, status)

    return app


def stack_over(upstream: FastAPI, **agent: Any) -> Any:
    model = ModelSettings(
        backend="openai", base_urls=["http://upstream/v1"], max_retries=2, backoff_base_s=0.001
    )
    agent_settings = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=3,
        backoff_base_s=0.001,
        **agent,
    )
    return in_process_stack(
        model_settings=model, agent_settings=agent_settings, extra_apps={"upstream": upstream}
    )


async def test_one_model_step_costs_at_most_max_retries_plus_one_upstream_calls() -> None:
    calls: list[int] = []
    task = math_tasks(1, seed=2)[0]
    async with stack_over(counting_upstream(503, calls)) as stack:
        r = await stack.run({"task": task})
    result = r.json()
    assert result["mask_sample"] and result["failure_kind"] == "model_error"
    # the model interface's 3 attempts, and no agent retry on top (it was 4 x 5 = 20 before)
    assert len(calls) == 3


async def test_a_request_the_backend_refuses_is_the_callers_error_not_a_masked_sample() -> None:
    calls: list[int] = []
    task = math_tasks(1, seed=2)[0]
    async with stack_over(counting_upstream(400, calls)) as stack:
        r = await stack.run({"task": task})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["kind"] == "model_refused" and "upstream says 400" in error["message"]
        assert len(calls) == 1  # refusals are not retried
        # the example: a sampling value the model interface itself refuses
        bad = await stack.run({"task": task, "model_params": {"max_output_tokens": -1}})
        assert bad.status_code == 400 and "max_output_tokens" in bad.json()["error"]["message"]
        # the session was closed: nothing left open by a refused rollout
        assert len(stack.resources.state.host.registries["math"]) == 0


async def test_a_rollout_that_outlives_its_lease_is_renewed_while_it_runs(tmp_path: Path) -> None:
    """The upstream takes 0.6 s a turn; the lease is 0.3 s and the server reaps every 0.05 s:
    only the agent's renewals keep the session open."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def slow(request: Request) -> dict[str, Any]:
        await asyncio.sleep(0.6)
        message = {"role": "assistant", "content": "The answer is 4."}
        return {"choices": [{"message": message, "finish_reason": "stop"}], "model": "m"}

    model = ModelSettings(backend="openai", base_urls=["http://upstream/v1"])
    agent = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", session_lease_s=0.3
    )
    resources = ResourcesSettings(reap_interval_s=0.05)
    task = math_tasks(1, seed=2)[0]
    async with in_process_stack(
        resources_settings=resources,
        agent_settings=agent,
        model_settings=model,
        extra_apps={"upstream": app},
    ) as stack:
        r = await stack.run({"task": task})
    assert r.status_code == 200 and not r.json()["mask_sample"], r.json().get("failure_reason")


async def test_an_unrenewed_lease_is_reaped_and_a_renewed_one_is_not(tmp_path: Path) -> None:
    env = discover()["math"].from_settings(ResourcesSettings())
    registry = SessionRegistry(env, tmp_path, ttl_s=900, max_sessions=10)
    task = Task.model_validate(math_tasks(1, seed=2)[0])
    await registry.seed("orphaned-session-01", task, lease_s=1.0)
    renewed, _ = await registry.seed("renewed-session-001", task, lease_s=1.0)
    await registry.seed("no-lease-session-01", task)
    now = time.monotonic()
    assert await registry.reap(now=now + 0.5) == []
    renewing = [("renewed-session-001", renewed.key), ("gone-session-0001", "k" * 16)]
    assert registry.renew(renewing, now=now + 0.8) == ["gone-session-0001"]
    # renewing another's session without its key renews nothing (and tells nothing)
    assert registry.renew([("orphaned-session-01", "k" * 16)], now=now + 0.8) == [
        "orphaned-session-01"
    ]
    # 1.5 s in, the orphan's caller (a dead agent) renewed nothing: only its lease ran out
    reaped = await registry.reap(now=now + 1.5)
    assert reaped == ["orphaned-session-01"]
    assert sorted(registry.sessions) == ["no-lease-session-01", "renewed-session-001"]


async def test_each_attempt_sends_its_own_limit_as_the_next_hop_s_budget() -> None:
    # a caller with 30 s left and a 2 s per-try limit: the hop behind it gets 2 s, so its own
    # retries end when this attempt is abandoned, not 28 s later for nobody
    transport = Scripted([answer(200)])
    client = ServiceClient(ClientSettings(request_timeout_s=2.0), transport)
    with deadline.within(30.0):
        await client.call("POST", "http://svc/x", {})
    assert 1.85 <= float(transport.seen[0]["X-Proofgym-Budget-S"]) < 2.0
    # with no deadline at all, the per-try limit is still the next hop's budget
    await client.call("POST", "http://svc/x", {})
    assert 1.85 <= float(transport.seen[1]["X-Proofgym-Budget-S"]) < 2.0


def slow_refusing_upstream(calls: list[int], then_hang_after: int = 10**6) -> FastAPI:
    """An upstream that answers 429 (with its own words) a little slowly, and from call
    `then_hang_after` on, never answers."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        calls.append(1)
        await asyncio.sleep(0.05 if len(calls) <= then_hang_after else 60)
        return JSONResponse({"error": {"message": "upstream says: rate limit"}}, 429)

    return app


@pytest.mark.parametrize("hang_after", [10**6, 2], ids=["refuses", "refuses_then_hangs"])
async def test_a_timed_out_rollout_names_the_upstream_s_answer(hang_after: int) -> None:
    calls: list[int] = []
    task = math_tasks(1, seed=2)[0]
    model = ModelSettings(
        backend="openai", base_urls=["http://upstream/v1"], max_retries=20, backoff_base_s=0.05
    )
    agent_settings = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", rollout_timeout_s=1.0
    )
    async with in_process_stack(
        model_settings=model,
        agent_settings=agent_settings,
        extra_apps={"upstream": slow_refusing_upstream(calls, hang_after)},
    ) as stack:
        result = (await stack.run({"task": task})).json()
        assert result["mask_sample"], result
        reason = result["failure_reason"]
        assert "429" in reason and "rate limit" in reason, reason
        # a caller's shorter budget is named as such
        short = await stack.run({"task": task}, headers={"X-Proofgym-Budget-S": "0.5"})
        reason = short.json()["failure_reason"]
        if hang_after > len(calls):
            assert "rate limit" in reason, reason
        else:  # nothing but silence from the upstream this time: the limit that fired
            assert "the caller's budget of 0.5s" in reason, reason
    assert len(calls) >= 2
