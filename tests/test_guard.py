"""The request guard and the common service answers: every bad request is a 4xx in our shape.

Admission (first come, first served; 503 `overloaded` beyond the queue), body limits (413,
408, 400), 405 with `Allow`, 401 with `WWW-Authenticate`, the OpenAPI error documents, and
/metrics naming every route.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from helpers import key_of, requests_by_route, session_headers

from proofgym.serving.guard import (
    Admission,
    BodyBudget,
    BodyRead,
    GuardLimits,
    RequestGuard,
    body_problem,
)
from proofgym.serving.service import install_common
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.jsonlimits import depth
from resources_servers.base.app import create_app as resources_app
from sdg.math import generate as math_tasks


def guarded_app(limits: GuardLimits, token: str | None = None) -> tuple[FastAPI, dict[str, Any]]:
    """An app behind the common middleware whose /work route waits until told to finish."""
    app = FastAPI()
    state: dict[str, Any] = {"order": [], "release": asyncio.Event()}
    install_common(app, "test", token, limits)

    @app.post("/work")
    async def work(request: Request) -> dict[str, Any]:
        body = await request.json()
        state["order"].append(body["n"])
        await state["release"].wait()
        return {"n": body["n"]}

    @app.post("/echo")
    async def echo(request: Request) -> Any:
        return await request.json()

    return app, state


def client_of(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://svc")


def assert_error(r: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["kind"] == kind and error["message"], error
    return dict(error)


async def test_admission_is_first_come_first_served_and_refuses_beyond_the_queue() -> None:
    app, state = guarded_app(GuardLimits(max_inflight=2, max_queue=3))
    async with client_of(app) as client:
        sent = []
        for n in range(5):  # 2 run, 3 wait, in this order
            sent.append(asyncio.create_task(client.post("/work", json={"n": n})))
            await asyncio.sleep(0.01)
        refused = await client.post("/work", json={"n": 99})
        error = assert_error(refused, 503, "overloaded")
        assert refused.headers["Retry-After"] == "1" and refused.headers["Connection"] == "close"
        assert "2 running" in error["message"]
        assert state["order"] == [0, 1]  # the queued three have not started
        assert (await client.get("/health")).status_code == 200  # health bypasses admission
        state["release"].set()
        answers = await asyncio.gather(*sent)
        assert [a.json()["n"] for a in answers] == [0, 1, 2, 3, 4]
        assert state["order"] == [0, 1, 2, 3, 4]  # admitted in arrival order
        # everything finished: the gate is empty again
        guard = next(m for m in _middlewares(app) if isinstance(m, RequestGuard))
        assert guard.admission.inflight == 0 and not guard.admission.waiting


def _middlewares(app: FastAPI) -> list[Any]:
    found = []
    layer: Any = app.middleware_stack
    while layer is not None:
        found.append(layer)
        layer = getattr(layer, "app", None)
    return found


async def test_a_waiter_that_goes_away_frees_its_place() -> None:
    gate = Admission(max_inflight=1, max_queue=2)
    assert gate.try_enter() is True
    first = gate.try_enter()
    second = gate.try_enter()
    assert isinstance(first, asyncio.Future) and isinstance(second, asyncio.Future)
    gate.abandon(first)  # cancelled while waiting
    gate.leave()  # the running one ends: the slot goes to `second`, not to the gone one
    assert second.done() and gate.inflight == 1
    gate.leave()
    assert gate.inflight == 0 and not gate.waiting
    # an admitted waiter that goes away before running passes its slot on
    assert gate.try_enter() is True
    third = gate.try_enter()
    assert isinstance(third, asyncio.Future)
    gate.leave()  # third admitted
    gate.abandon(third)
    assert gate.inflight == 0


async def test_bodies_over_the_limit_are_413_declared_or_streamed() -> None:
    app, _ = guarded_app(GuardLimits(max_body_bytes=1000))
    async with client_of(app) as client:
        r = await client.post("/echo", content=b"[" + b"1," * 600 + b"1]")
        assert_error(r, 413, "body_too_large")
        assert r.headers["Connection"] == "close"

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: streamed
            for _ in range(20):
                yield b" " * 100

        assert_error(await client.post("/echo", content=chunks()), 413, "body_too_large")
        assert (await client.post("/echo", json=[1] * 100)).json() == [1] * 100


async def test_a_body_that_does_not_arrive_in_time_is_408() -> None:
    sent: list[dict[str, Any]] = []
    never = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await never.wait()
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the handler must not run")

    guard = RequestGuard(app, GuardLimits(body_timeout_s=0.05))
    scope = {"type": "http", "path": "/echo", "method": "POST", "headers": []}
    await guard(scope, receive, send)
    assert sent[0]["status"] == 408
    assert json.loads(sent[1]["body"])["error"]["kind"] == "body_timeout"
    assert guard.admission.inflight == 0


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"a": "\xff\xfe"}', "UTF-8"),
        (b'{"a": "\\ud800"}', "surrogate"),
        (b'{"a": "\\udc00\\ud800"}', "surrogate"),
        (b"[" * 10_000 + b"]" * 10_000, "deeper"),
        (b'{"a": ' * 100 + b"1" + b"}" * 100, "deeper"),
    ],
    ids=["invalid_utf8", "lone_high", "reversed_pair", "deep_array", "deep_object"],
)
async def test_malformed_bodies_are_400_before_any_parser(body: bytes, why: str) -> None:
    app, _ = guarded_app(GuardLimits())
    async with client_of(app) as client:
        error = assert_error(await client.post("/echo", content=body), 400, "malformed_body")
        assert why in error["message"]


def test_what_is_not_malformed() -> None:
    fine = [
        json.dumps({"emoji": "\U0001f600", "text": "\\ud800 is text here"}).encode(),
        json.dumps({"s": "[" * 1000}).encode(),  # brackets inside strings do not nest
        '{"ü": "ö"}'.encode(),
        b"[" * 64 + b"]" * 64,
    ]
    assert [body_problem(b, 64) for b in fine] == [None] * 4


async def test_405_names_the_allowed_methods_and_401_says_how_to_authenticate() -> None:
    app, _ = guarded_app(GuardLimits(), token="s3cret")
    async with client_of(app) as client:
        r = await client.get("/echo", headers={"Authorization": "Bearer s3cret"})
        assert_error(r, 405, "method_not_allowed")
        assert r.headers["Allow"] == "POST"
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic s3cret"}):
            r = await client.post("/echo", json=1, headers=headers)
            assert_error(r, 401, "unauthorized")
            assert r.headers["WWW-Authenticate"].startswith("Bearer")
        for scheme in ("bearer", "BEARER", "Bearer"):  # RFC 7235: the scheme is case-blind
            r = await client.post("/echo", json=1, headers={"Authorization": f"{scheme} s3cret"})
            assert r.status_code == 200, scheme


async def test_openapi_documents_the_error_answers_of_every_operation() -> None:
    app = resources_app(ResourcesSettings())
    async with client_of(app) as client:
        schema = (await client.get("/openapi.json")).json()
    assert "ErrorBody" in schema["components"]["schemas"]
    operations = [op for item in schema["paths"].values() for op in item.values()]
    assert len(operations) >= 8
    for op in operations:
        for status in ("400", "401", "404", "413", "503"):
            ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith("/ErrorBody")
        assert "HTTPValidationError" not in json.dumps(op)
    # the tool route, a Starlette route that reads its body raw, is documented all the same
    tool = schema["paths"]["/{env}/tools/{tool_name}"]["post"]
    assert [p["name"] for p in tool["parameters"]] == ["env", "tool_name"]
    assert tool["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ToolResult"
    )


async def test_metrics_name_every_route_the_tool_route_included() -> None:
    app = resources_app(ResourcesSettings())
    task = math_tasks(1, seed=1)[0]
    sid = "metrics-session-0001"
    async with app.router.lifespan_context(app), client_of(app) as client:
        body = {"session_id": sid, "task": task, "session_key": key_of(sid)}
        await client.post("/math/seed_session", json=body)
        r = await client.post(
            "/math/tools/calculator", json={"expression": "1+1"}, headers=session_headers(sid)
        )
        assert r.status_code == 200
        await client.post(
            "/math/close_session", json={"session_id": sid}, headers=session_headers(sid)
        )
        metrics = (await client.get("/metrics")).text
    routes = set(requests_by_route(metrics))
    assert routes == {"/{env}/seed_session", "/{env}/tools/{tool_name}", "/{env}/close_session"}


async def test_a_trickling_body_holds_no_slot() -> None:
    # one slot; a caller whose body never finishes must not keep a guarded request waiting
    app, state = guarded_app(GuardLimits(max_inflight=1, max_queue=0, body_timeout_s=5))
    state["release"].set()
    stalled = asyncio.Event()

    async def trickle() -> AsyncIterator[bytes]:
        yield b'{"n": '
        await stalled.wait()  # the rest never comes while the other request runs
        yield b"1}"

    async with client_of(app) as client:
        slow = asyncio.create_task(client.post("/work", content=trickle()))
        await asyncio.sleep(0.05)
        quick = await asyncio.wait_for(client.post("/work", json={"n": 2}), 2)
        assert quick.status_code == 200 and quick.json() == {"n": 2}
        stalled.set()
        assert (await slow).status_code == 200


async def test_a_body_of_millions_of_objects_is_refused_before_any_parser() -> None:
    app, _ = guarded_app(GuardLimits())
    body = b"[" + b"{}," * 10_000_000 + b"{}]"  # 30 MB, under the byte limit
    async with client_of(app) as client:
        refused = await client.post("/echo", content=body)
        assert "objects and arrays" in assert_error(refused, 400, "malformed_body")["message"]
        assert (await client.get("/health")).status_code == 200
    assert body_problem(b'{"a": [1, 2, {"b": 3}]}', 64) is None


async def test_a_freed_slot_goes_to_the_clients_in_turn() -> None:
    # one slot; client A queues five requests, then B queues one: B runs second, not sixth
    app, state = guarded_app(GuardLimits(max_inflight=1, max_queue=10))
    async with client_of(app) as client:
        sent = []
        for n in range(5):
            sent.append(
                asyncio.create_task(
                    client.post("/work", json={"n": n}, headers={"X-Proofgym-Client": "a"})
                )
            )
            await asyncio.sleep(0.01)
        b = asyncio.create_task(
            client.post("/work", json={"n": 99}, headers={"X-Proofgym-Client": "b"})
        )
        await asyncio.sleep(0.01)
        state["release"].set()
        await asyncio.gather(b, *sent)
    assert state["order"] == [0, 99, 1, 2, 3, 4]


async def test_one_client_cannot_hold_every_slot() -> None:
    # 8 slots: one client holds at most 7 (all but an eighth); another still runs at once
    app, state = guarded_app(GuardLimits(max_inflight=8, max_queue=100))
    async with client_of(app) as client:
        greedy = [
            asyncio.create_task(
                client.post("/work", json={"n": n}, headers={"X-Proofgym-Client": "greedy"})
            )
            for n in range(20)
        ]
        await asyncio.sleep(0.05)
        assert len(state["order"]) == 7
        other = asyncio.create_task(
            client.post("/work", json={"n": 99}, headers={"X-Proofgym-Client": "other"})
        )
        await asyncio.sleep(0.05)
        assert state["order"][-1] == 99  # admitted while greedy's 13 wait
        state["release"].set()
        answers = await asyncio.gather(other, *greedy)
    assert all(a.status_code == 200 for a in answers)
    assert sorted(state["order"]) == [*range(20), 99]


async def test_the_per_client_share_is_work_conserving_for_its_waiters() -> None:
    # the share caps one client while others exist; alone, its waiters run as slots free
    gate = Admission(max_inflight=2, max_queue=10, per_client=1)
    assert gate.try_enter("a") is True
    waiting = gate.try_enter("a")
    assert isinstance(waiting, asyncio.Future) and not waiting.done()
    assert gate.try_enter("b") is True  # the slot a may not take goes to b
    gate.leave("a")
    assert waiting.done() and gate.inflight == 2
    gate.leave("a")
    gate.leave("b")
    assert gate.inflight == 0 and gate.queued == 0
    assert not gate.waiting and not gate.held and not gate.admitted


def test_one_object_of_millions_of_members_is_refused_before_any_parser() -> None:
    many_keys = b"{" + b",".join(b'"k%d": 0' % i for i in range(200_000)) + b"}"
    assert "object members" in (body_problem(many_keys, 64) or "")
    # colons and braces inside strings are text: a file full of them is a fine body
    code = json.dumps({"path": "a.py", "text": "d = {1: [2]}\n" * 100_000}).encode()
    assert body_problem(code, 64) is None
    escaped = json.dumps({"text": '\\" {: [' * 100_000}).encode()
    assert body_problem(escaped, 64) is None


async def test_routes_with_lower_body_limits_refuse_more_than_they_need() -> None:
    limits = GuardLimits(max_body_bytes=10_000, route_body_bytes=((r"/ec.o", 100),))
    app, state = guarded_app(limits)
    state["release"].set()
    async with client_of(app) as client:
        r = await client.post("/echo", json=[1] * 100)
        assert "limit of 100 bytes" in assert_error(r, 413, "body_too_large")["message"]
        r = await client.post("/work", json={"n": 1, "pad": "x" * 1000})  # the service limit
        assert r.status_code == 200


async def test_the_resources_server_limits_what_its_small_routes_take() -> None:
    app = resources_app(ResourcesSettings())
    async with app.router.lifespan_context(app), client_of(app) as client:
        body = {"session_id": "x" * 100_000}
        r = await client.post("/math/close_session", json=body)
        assert_error(r, 413, "body_too_large")
        # a /verify body may be as large as the service allows: this one fails later, in shape
        r = await client.post("/math/verify", json=body)
        assert r.status_code in (400, 404, 422), r.text


def _guard(app: FastAPI) -> RequestGuard:
    return next(m for m in _middlewares(app) if isinstance(m, RequestGuard))


async def test_bodies_held_at_once_stay_within_the_memory_budget() -> None:
    mb = 1024 * 1024
    limits = GuardLimits(max_body_bytes=4 * mb, max_body_memory_bytes=40 * mb)
    app, state = guarded_app(limits)
    body = json.dumps({"n": 0, "pad": "x" * (3 * mb)}).encode()  # 3 MB: 12 MB of the budget
    async with client_of(app) as client:
        sent = [asyncio.create_task(client.post("/work", content=body)) for _ in range(100)]
        await asyncio.sleep(0.3)
        guard = _guard(app)
        held = guard.bodies.held
        state["release"].set()
        answers = await asyncio.gather(*sent)
    statuses = [a.status_code for a in answers]
    assert statuses.count(200) == 3  # 3 x 12 MB fit in 40 MB; a fourth would not
    refused = [a for a in answers if a.status_code != 200]
    for r in refused:
        assert_error(r, 503, "overloaded")
        assert r.headers["Retry-After"] == "1" and r.headers["Connection"] == "close"
    assert held <= limits.max_body_memory_bytes and guard.bodies.peak <= 40 * mb
    assert guard.bodies.held == 0  # every body given back once answered


async def test_a_streamed_body_past_the_memory_budget_is_cut_and_one_largest_body_always_fits() -> (
    None
):
    mb = 1024 * 1024
    # a budget below one largest body is raised to fit one
    limits = GuardLimits(max_body_bytes=8 * mb, max_body_memory_bytes=mb)
    assert limits.body_memory() == 32 * mb
    app, state = guarded_app(limits)
    state["release"].set()

    async def chunks(n: int) -> AsyncIterator[bytes]:
        yield b'{"n": 1, "pad": "'
        for _ in range(n):
            yield b"y" * mb
        yield b'"}'

    async with client_of(app) as client:
        one = await client.post("/work", content=chunks(7))  # no Content-Length: streamed
        assert one.status_code == 200, one.text
        guard = _guard(app)
        guard.bodies.take(12 * mb)  # as if other bodies were being read: 7 MB x 4 won't fit
        cut = await client.post("/work", content=chunks(7))
        assert_error(cut, 503, "overloaded")
        guard.bodies.give(12 * mb)
        assert guard.bodies.held == 0


async def test_a_caller_stalling_bodies_is_refused_itself_and_others_are_read_as_if_alone() -> None:
    # The issue-44 attack, scaled down: one caller's stalled bodies fill the whole budget.
    mb = 1024 * 1024
    limits = GuardLimits(max_body_bytes=4 * mb, max_body_memory_bytes=32 * mb)
    app, state = guarded_app(limits)
    state["release"].set()
    stall = asyncio.Event()

    head = b'{"n": 1, "pad": "'

    async def stalled(size: int) -> AsyncIterator[bytes]:
        yield head
        while size > 0:
            yield b"y" * min(size, mb)
            size -= mb
        await stall.wait()  # the rest never comes until the test ends
        yield b'"}'

    attacker = {"X-Proofgym-Client": "attacker"}
    async with client_of(app) as client:
        assert (await client.post("/echo", json={})).status_code == 200  # builds the middleware
        guard = _guard(app)
        held = [
            asyncio.create_task(client.post("/work", content=stalled(n), headers=attacker))
            # 12 + 12 + 8 MB of the 32 MB budget, to the byte
            for n in (3 * mb, 3 * mb, 2 * mb - 3 * len(head))
        ]
        for _ in range(200):
            await asyncio.sleep(0.01)
            if guard.bodies.held >= 32 * mb:
                break
        assert guard.bodies.held == 32 * mb  # the budget is full of the attacker's bodies
        honest = [
            await client.post("/echo", json={"n": i}, headers={"X-Proofgym-Client": f"h{i}"})
            for i in range(20)
        ]
        assert [r.status_code for r in honest] == [200] * 20, honest[0].text
        stall.set()
        answers = await asyncio.gather(*held)
    cut = [a for a in answers if a.status_code == 503]
    assert cut and guard.bodies.cuts == len(cut)
    for r in cut:
        assert "more than its share" in assert_error(r, 503, "overloaded")["message"]
        assert r.headers["Connection"] == "close"
    assert guard.bodies.held == 0 and not guard.bodies.by_client and not guard.bodies.reads


async def test_the_body_budget_makes_room_only_for_a_caller_within_its_share() -> None:
    budget = BodyBudget(100)
    task = asyncio.create_task(asyncio.sleep(10))  # stands in for the stalled reads' task
    stalled = [BodyRead("a", task), BodyRead("a", task)]
    assert budget.take(60, "a", stalled[0]) and budget.take(40, "a", stalled[1])
    for read in stalled:
        read.reading = True
    assert not budget.take(1, "a")  # its own need takes nothing from itself
    assert budget.share("b") == 50 and budget.fits(50, "b") and not budget.fits(51, "b")
    assert budget.take(10, "b")  # the largest of a's reads is cut for b
    assert stalled[0].cut and not stalled[1].cut and budget.cuts == 1
    assert budget.held == 50 and budget.by_client == {"a": 40, "b": 10}
    budget.give(10, "b")
    budget.release(stalled[1])
    assert budget.held == 0 and not budget.by_client and not budget.reads
    with pytest.raises(asyncio.CancelledError):
        await task  # the cut cancelled it


def _depth_by_hand(raw: bytes) -> int:
    """Nesting depth the slow, obvious way: one byte at a time, strings skipped."""
    deepest = level = 0
    i = 0
    while i < len(raw):
        c = raw[i : i + 1]
        if c == b'"':
            end, closed = i + 1, False
            while end < len(raw):
                byte = raw[end : end + 1]
                if byte == b'"':
                    closed = True
                    break
                if byte == b"\\":  # an escape: the backslash and the byte after it
                    if raw[end + 1 : end + 2] in (b"", b"\n"):  # (a newline is none)
                        break
                    end += 2
                else:
                    end += 1
            if closed:
                i = end + 1
                continue
        elif c in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        elif c in (b"]", b"}"):
            level -= 1
        i += 1
    return deepest


def test_the_depth_scan_counts_brackets_outside_strings_only() -> None:
    rng = random.Random(7)
    alphabet = b'[]{}"\\a:,\n'
    for _ in range(20_000):
        raw = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert depth(raw) == _depth_by_hand(raw), raw
    assert depth(b'{"a": [1, {"b": "[[[["}]}') == 3
    assert depth(b'"\\"[[["') == 0
    assert depth(b"]]][") == 0  # closers first never go below the top
