"""Every route of every door against hostile bodies: a 4xx in our shape, in bounded time and
memory, and nothing broken for the next caller. The doors: the three services, and the two
interop servers (`serve nemo-gym`, `serve openenv`), which sit behind the same guard.

The schema fuzzer (test_fuzz.py) explores what each OpenAPI document describes; this one
sends what no schema describes: bytes that are not JSON, lone surrogates, integers of
thousands of digits, NaN, nesting past the limit, valid bodies with one field replaced by
something hostile, and hostile path parameters. For each request: the status is below 500,
an error answer is `{"error": {"kind", "message"}}`, the request ends within a hang bound,
and the memory Python allocates while serving it stays under a bound. Derandomized, so a
failure reproduces.
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from helpers import FUZZ, key_of
from hypothesis import given
from hypothesis import strategies as st

from interop.nemo_rows import nemo_row
from interop.nemo_server import COOKIE, KEY_COOKIE
from interop.nemo_server import create_app as nemo_app
from interop.openenv_server import create_app as openenv_app
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task
from proofgym_stack.testing import InProcessStack, in_process_stack
from resources_servers.math import Env as MathEnv
from sdg.math import generate as math_tasks

HANG_S = 20.0  # a hang detector, not a speed test: one request never takes this long
MEMORY_MB = 48.0  # what serving one of these small bodies may allocate, at its peak
TASK = math_tasks(1, seed=5)[0]
SESSION = "hostile-session-0001"
ROW = nemo_row(Task.from_row(TASK), MathEnv())
EMPTY_RESPONSE = {"id": "r", "object": "response", "output": []}

# (method, URL, a valid body) for every route of the three services
ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "http://agent/run", {"task": TASK, "control": "reference"}),
    ("POST", "http://resources/math/seed_session", {"session_id": "s" * 16, "task": TASK}),
    ("POST", "http://resources/math/tools/calculator", {"expression": "1+1"}),
    (
        "POST",
        "http://resources/math/verify",
        {"session_id": SESSION, "response": {"id": "r", "object": "response", "output": []}},
    ),
    ("POST", "http://resources/math/close_session", {"session_id": "nobody-here-0001"}),
    (
        "POST",
        "http://resources/math/renew_sessions",
        {"sessions": [{"session_id": SESSION, "session_key": key_of(SESSION)}]},
    ),
    ("POST", "http://resources/math/controls", {"task": TASK}),
    ("GET", "http://resources/envs", None),
    ("GET", "http://resources/math/info", None),
    (
        "POST",
        "http://model/v1/responses",
        {"model": "scripted", "input": "hi", "script": [{"type": "text", "text": "ok"}]},
    ),
    (
        "POST",
        "http://model/v1/chat/completions",
        {"model": "scripted", "messages": [{"role": "user", "content": "hi"}]},
    ),
    ("GET", "http://model/v1/models", None),
    # serve nemo-gym
    ("POST", "http://nemo/seed_session", ROW),
    (
        "POST",
        "http://nemo/seed_session",
        {"resources_session_id": SESSION, "task_data": ROW["task_data"]},
    ),
    ("POST", "http://nemo/calculator", {"expression": "1+1"}),
    ("POST", "http://nemo/verify", {**ROW, "response": EMPTY_RESPONSE}),
    ("POST", "http://nemo/close_session", {"resources_session_id": SESSION}),
    ("POST", "http://nemo/aggregate_metrics", {"verify_responses": [{"reward": 1.0}]}),
    ("GET", "http://nemo/reverify_mode", None),
    # serve openenv
    (
        "POST",
        "http://openenv/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"session_id": SESSION}},
    ),
    ("POST", "http://openenv/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ("GET", "http://openenv/schema", None),
    ("GET", "http://openenv/metadata", None),
]
ROUTE_IDS = [f"{m} {u.split('//', 1)[1]}" for m, u, _ in ROUTES]

HOSTILE_TEXT: list[bytes] = [
    b"",
    b"not json",
    b"\xff\xfe\x00",
    b'{"a": "\\ud800"}',
    b"[" * 5000 + b"]" * 5000,
    b'{"n": ' + b"9" * 5000 + b"}",
    b'{"n": NaN, "m": Infinity}',
    b'{"a": 1, "a": 2}',
    b"null",
    b"[]",
    b'"just a string"',
    b"{" + b",".join(b'"k%d": 0' % i for i in range(2000)) + b"}",
]

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["", "\x00", "../../etc/passwd", "a" * 5000, "s\n", "math?x=1", "\ud800"]),
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in `value` a leaf or a subtree could be replaced."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def replaced(value: Any, where: tuple[Any, ...], new: Any) -> Any:
    """`value` with the subtree at `where` replaced by `new` (a copy; `value` is untouched)."""
    if not where:
        return new
    head, rest = where[0], where[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = replaced(value[head], rest, new)
    return copy


def encode(value: Any) -> bytes:
    """JSON text for `value`; lone surrogates escaped as any client would send them."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False).encode()


@st.composite
def hostile_bodies(draw: st.DrawFn, valid: Any) -> bytes:
    """Raw hostile text, or the route's valid body with one place replaced or removed."""
    kind = draw(st.sampled_from(["raw", "replace", "remove", "extra"]))
    if kind == "raw" or valid is None:
        return draw(st.sampled_from(HOSTILE_TEXT) | st.binary(max_size=64))
    where = draw(st.sampled_from(list(paths(valid))))
    if kind == "replace" or not where:
        return encode(replaced(valid, where, draw(JSON_VALUES)))
    parent = replaced(valid, (), valid)
    node = parent
    for step in where[:-1]:
        node = node[step]
    if kind == "remove" and isinstance(node, dict):
        return encode(
            replaced(valid, where[:-1], {k: v for k, v in node.items() if k != where[-1]})
        )
    return encode(replaced(valid, (), {**valid, "unexpected": draw(JSON_VALUES)}))


HOSTILE_HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "X-Session-Id": st.sampled_from([SESSION, "", "x" * 5000, "s\n", "../x", "/tmp"]),
        "X-Session-Key": st.sampled_from(["", "wrong", "k" * 300, key_of(SESSION)]),
        "Cookie": st.sampled_from(
            [
                f"{COOKIE}={SESSION}; {KEY_COOKIE}={key_of(SESSION)}",
                f"{COOKIE}=..; {KEY_COOKIE}=",
                f"{COOKIE}=/tmp",
                f"{COOKIE}={'c' * 5000}",
                "=; ;;",
            ]
        ),
        "X-Proofgym-Budget-S": st.sampled_from(["-1", "nan", "inf", "1e308", "x", "0", "0.2"]),
        "Content-Type": st.sampled_from(["text/plain", "application/json; charset=latin-1"]),
    },
)


def in_our_shape(r: httpx.Response) -> bool:
    if r.status_code < 400:
        return True
    try:
        error = r.json().get("error")
    except ValueError:
        return False
    return isinstance(error, dict) and all(
        isinstance(error.get(k), str) for k in ("kind", "message")
    )


async def send_measured(
    stack: InProcessStack, method: str, url: str, body: bytes, headers: dict[str, str]
) -> tuple[httpx.Response, float]:
    """The answer, and the peak megabytes Python allocated while it was served."""
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    r = await asyncio.wait_for(
        stack.client.request(
            method,
            url,
            content=body if method == "POST" else None,
            headers={"Content-Type": "application/json", **headers},
        ),
        HANG_S,
    )
    _, peak = tracemalloc.get_traced_memory()
    return r, (peak - before) / 2**20


def doors() -> dict[str, FastAPI]:
    """The interop servers, each hosting math, beside the services."""
    return {
        "nemo": nemo_app(MathEnv(), ResourcesSettings(), close_after_verify_s=0),
        "openenv": openenv_app(MathEnv(), ResourcesSettings(), [Task.from_row(TASK)]),
    }


async def seed_sessions(stack: InProcessStack) -> None:
    """A math session on the resources server and on serve nemo-gym, owned by `key_of`."""
    key = key_of(SESSION)
    body = {"session_id": SESSION, "task": TASK, "session_key": key}
    seeded = await stack.client.post("http://resources/math/seed_session", json=body)
    assert seeded.status_code == 200, seeded.text
    new_shape = {"resources_session_id": SESSION, "task_data": ROW["task_data"]}
    owned = {"Cookie": f"{KEY_COOKIE}={key}"}
    nemo = await stack.client.post("http://nemo/seed_session", json=new_shape, headers=owned)
    assert nemo.status_code == 200, nemo.text


@pytest.fixture(scope="module")
def loop_and_stack() -> Iterator[tuple[asyncio.AbstractEventLoop, InProcessStack]]:
    """One stack for every example (hypothesis drives a sync test; the stack runs on a loop
    of its own), the interop doors beside it, with a math session seeded for the routes that
    need one."""
    loop = asyncio.new_event_loop()
    extra = doors()
    manager = in_process_stack(extra_apps=extra)
    stack = loop.run_until_complete(manager.__aenter__())
    lifespans = [app.router.lifespan_context(app) for app in extra.values()]
    for lifespan in lifespans:
        loop.run_until_complete(lifespan.__aenter__())
    loop.run_until_complete(seed_sessions(stack))
    tracemalloc.start()
    try:
        yield loop, stack
    finally:
        tracemalloc.stop()
        for lifespan in lifespans:
            loop.run_until_complete(lifespan.__aexit__(None, None, None))
        loop.run_until_complete(manager.__aexit__(None, None, None))
        loop.close()


@pytest.mark.parametrize(("method", "url", "valid"), ROUTES, ids=ROUTE_IDS)
def test_every_route_answers_hostile_bodies_with_a_bounded_4xx(
    loop_and_stack: tuple[asyncio.AbstractEventLoop, InProcessStack],
    method: str,
    url: str,
    valid: Any,
) -> None:
    loop, stack = loop_and_stack

    @FUZZ
    @given(body=hostile_bodies(valid), headers=HOSTILE_HEADERS)
    def one(body: bytes, headers: dict[str, str]) -> None:
        r, megabytes = loop.run_until_complete(send_measured(stack, method, url, body, headers))
        assert r.status_code < 500, (body[:300], headers, r.text[:500])
        assert in_our_shape(r), r.text[:500]
        assert megabytes < MEMORY_MB, (body[:300], megabytes)

    one()
    # and the service still serves an honest caller on the same client afterwards
    service = url.split("/")[2]
    health = loop.run_until_complete(stack.client.get(f"http://{service}/health"))
    assert health.status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "http://resources/math?x=1/info",
        "http://resources/" + "m" * 5000 + "/info",
        "http://resources/MATH/seed_session",
        "http://resources/math/tools/" + "t" * 5000,
        "http://resources/math/tools/..%2F..%2Fetc",
        "http://resources/%00/verify",
    ],
)
def test_hostile_path_parameters_are_4xx_in_our_shape(
    loop_and_stack: tuple[asyncio.AbstractEventLoop, InProcessStack], url: str
) -> None:
    loop, stack = loop_and_stack
    r, _ = loop.run_until_complete(
        send_measured(stack, "POST", url, encode({"session_id": SESSION, "task": TASK}), {})
    )
    assert 400 <= r.status_code < 500 and in_our_shape(r), (r.status_code, r.text[:300])


BIG_HOSTILE = {
    "ten_million_objects": lambda: b"[" + b"{}," * 10_000_000 + b"{}]",
    "2.5M_keys": lambda: b"{" + b",".join(b'"k%d":0' % i for i in range(2_500_000)) + b"}",
    "200k_messages": lambda: (
        b'{"model":"m","input":[' + b",".join([b'{"role":"user","content":"hi"}'] * 200_000) + b"]}"
    ),
}


@pytest.mark.parametrize("shape", list(BIG_HOSTILE))
def test_a_body_of_millions_of_things_costs_a_service_under_100_mb(
    loop_and_stack: tuple[asyncio.AbstractEventLoop, InProcessStack], shape: str
) -> None:
    # measured on real processes in bench/hostile_callers.py; here, Python's own allocations
    loop, stack = loop_and_stack
    body = BIG_HOSTILE[shape]()
    for url in ("http://resources/math/verify", "http://model/v1/responses", "http://nemo/verify"):
        r, megabytes = loop.run_until_complete(send_measured(stack, "POST", url, body, {}))
        assert r.status_code == 400 and r.json()["error"]["kind"] == "malformed_body", r.text
        assert megabytes < 100, (url, megabytes)
