"""`proofgym serve nemo-gym`: one proofgym environment as a NeMo Gym resources server.

NeMo Gym's `simple_agent` (0.7.0) drives it unchanged:
- `POST /seed_session` with the dataset row (legacy) answers `{}` and two cookies: the session
  the server named and the key that owns it; the new shape (`resources_session_id`,
  `episode_id`, `task_id`, `task_data`) keeps the caller's id (a URL-safe id of 16 to 128
  characters, else 400) and answers `{"resources_session_id"}`, with the key's cookie;
- `POST /<tool>` with the call's arguments and the cookies answers proofgym's `ToolResult`
  (`{"output", "error"}`), also for errors the policy should see;
- `POST /verify` echoes the request (simple_agent validates `responses_create_params`,
  `response` and `reward` from it) with `reward`, `reward_components`, `checks`, `mask_sample`,
  `failure_kind` and `failure_reason`;
- `POST /close_session` is idempotent, and an id it closed (or never saw) cannot be seeded
  again. The legacy flow never closes, so a session is closed a grace period after its verify
  (`close_after_verify_s`), and by the idle TTL in any case.

Every session belongs to who seeded it: tools, verify and close need its key (the cookie, or
`X-Session-Key` beside `X-Session-Id` for proofgym's own clients); without it the session is
404 and a close does nothing. Ids reach the filesystem nowhere: sessions live in the
resources registry, whose workspaces the server names.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import statistics
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from proofgym import VERSION
from proofgym.serving.service import install_common
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.errors import BadRequest, Conflict, InvalidRequest, NotFound
from proofgym.wire.jsonlimits import MAX_BYTES, loads_limited, scrub_surrogates
from proofgym.wire.protocol import Task, VerifyRequest
from resources_servers.base.app import ResourcesHost
from resources_servers.base.environment import Environment
from resources_servers.base.expiring import Expiring
from resources_servers.base.sessions import checked_id

log = logging.getLogger("proofgym.nemo_gym")
COOKIE = "proofgym_session"
KEY_COOKIE = "proofgym_session_key"
RESERVED = frozenset({"seed_session", "verify", "close_session", "aggregate_metrics", "health"})
#: ids closed (or closed before any seed) that a later seed may not bring back, at most this many
MAX_CLOSED_IDS = 65_536
#: the body limits below the service's own: a row or a tool's arguments fit the JSON parser's
#: limit; a close carries ids; `/verify` and `/aggregate_metrics` keep the service limit
ROUTE_BODY_BYTES = (
    (r"/(?:seed_session|close_session)", MAX_BYTES),
    (r"/(?!verify$|aggregate_metrics$)[^/]+", MAX_BYTES),
)


def row_task(row: dict[str, Any], env: str) -> Task:
    """The proofgym task a NeMo row carries (its extras: task_id, env, task_data). A row
    without a task id gets one from its content, so the same row is the same task (a
    repeated seed of it is the same session)."""
    data = dict(row)
    data["env"] = data.get("env") or env
    if not data.get("task_id"):
        digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode())
        data["task_id"] = f"{env}-{digest.hexdigest()[:12]}"
    return Task.from_row(data)


#: the largest reward `aggregate_metrics` takes: its sum and squares stay finite for any
#: body the guard lets in
MAX_ABS_REWARD = 1e12


def _rewards(body: Any) -> list[float]:
    """The rewards of an `aggregate_metrics` body; InvalidRequest names the first unusable one."""
    responses = body.get("verify_responses") if isinstance(body, dict) else None
    if responses is None:
        return []
    if not isinstance(responses, list):
        raise InvalidRequest("verify_responses is a list of verify answers")
    rewards = []
    for n, answer in enumerate(responses):
        if not isinstance(answer, dict):
            continue
        value = answer.get("reward", 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidRequest(f"verify_responses[{n}].reward is not a number")
        if abs(value) > MAX_ABS_REWARD or not math.isfinite(value):  # ints first: 10**400
            # past this the mean and spread overflow (1e308 twice summed is inf): a 422, not a 500
            raise InvalidRequest(
                f"verify_responses[{n}].reward is not a finite number within ±{MAX_ABS_REWARD:g}"
            )
        rewards.append(float(value))
    return rewards


def create_app(
    env: Environment[Any],
    settings: ResourcesSettings | None = None,
    close_after_verify_s: float = 60.0,
) -> FastAPI:
    """The NeMo Gym resources server of one environment. Long on purpose: its routes are
    closures over one host and one session table, NeMo Gym's contract read in one place."""
    settings = settings or ResourcesSettings()
    host = ResourcesHost.in_own_folder({env.name: env}, settings, "nemo-gym")
    registry = host.registry(env.name)
    # NeMo Gym's contract: a seed that arrives after its session closed (or after a close of an
    # id never seeded) must not create it again; remembered for the idle TTL, bounded
    closed: Expiring[str, bool] = Expiring(settings.session_ttl_s, MAX_CLOSED_IDS)
    closers: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with host.running():
            try:
                yield
            finally:
                for closer in closers:
                    closer.cancel()

    app = FastAPI(title=f"proofgym {env.name} (NeMo Gym)", version=VERSION, lifespan=lifespan)
    install_common(app, "nemo-gym", settings.token, settings.guard_limits(ROUTE_BODY_BYTES))

    def session_of(request: Request, body: Any = None) -> tuple[str, str | None]:
        """The session a request names (the body's `resources_session_id`, else the header,
        else the cookie) and the key it shows; NotFound when it names none."""
        named = body.get("resources_session_id") if isinstance(body, dict) else None
        sid = named or request.headers.get("x-session-id") or request.cookies.get(COOKIE)
        if not sid:
            raise NotFound("no session: seed one first (the cookie)", kind="unknown_session")
        key = request.headers.get("x-session-key") or request.cookies.get(KEY_COOKIE)
        return checked_id(sid), key

    async def body_of(request: Request) -> Any:
        raw = await request.body()
        try:
            return scrub_surrogates(loads_limited(raw)) if raw.strip() else {}
        except ValueError as exc:
            raise InvalidRequest(f"not usable JSON: {exc}", kind="malformed_json") from None

    @app.get("/")
    async def root_ok() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/reverify_mode")
    async def reverify_mode() -> str:
        return "deterministic"  # proofgym verifiers are pure functions of state and trajectory

    @app.post("/seed_session", response_model=None)
    async def seed_session(request: Request) -> Any:
        body = await body_of(request)
        if not isinstance(body, dict):
            raise InvalidRequest("the seed body is a JSON object (the row)")
        new_shape = "resources_session_id" in body
        key = None
        if new_shape:
            task_id = body.get("task_id") or {}
            row = {
                "responses_create_params": body.get("responses_create_params") or {"input": ""},
                "task_data": body.get("task_data") or {},
                "task_id": task_id.get("task_id") if isinstance(task_id, dict) else task_id,
            }
            sid = checked_id(body["resources_session_id"])
            if sid in closed:
                raise Conflict(f"session {sid} was closed", kind="session_exists")
            # a repeated seed is the same session only for its owner
            key = request.headers.get("x-session-key") or request.cookies.get(KEY_COOKIE)
        else:
            row, sid = body, uuid.uuid4().hex  # named by the server, never by the caller
        try:
            task = row_task(row, env.name)
        except ValueError as exc:
            raise BadRequest(str(exc)[:1000], kind="invalid_task") from None
        if task.env != env.name:
            raise BadRequest(f"this server hosts {env.name}, not {task.env}", kind="wrong_env")
        session, _ = await registry.seed(sid, task, key=key)
        answer = JSONResponse({"resources_session_id": sid} if new_shape else {})
        answer.set_cookie(COOKIE, sid, httponly=True, samesite="lax", path="/")
        answer.set_cookie(KEY_COOKIE, session.key, httponly=True, samesite="lax", path="/")
        return answer

    @app.post("/verify", response_model=None)
    async def verify(request: Request) -> Any:
        body = await body_of(request)
        if not isinstance(body, dict):
            raise InvalidRequest("the verify body is a JSON object")
        sid, key = session_of(request, body)
        try:
            verify_request = VerifyRequest(session_id=sid, response=body.get("response"))
        except ValueError as exc:
            raise InvalidRequest(f"response: {exc}"[:1000]) from None
        verdict = await host.verify(env.name, verify_request, key)
        if close_after_verify_s > 0:
            closer = asyncio.create_task(_close_later(sid, close_after_verify_s))
            closers.add(closer)
            closer.add_done_callback(closers.discard)
        return {
            **body,
            "reward": verdict.reward,
            "reward_components": verdict.reward_components,
            "checks": [c.model_dump(mode="json") for c in verdict.checks],
            "mask_sample": verdict.mask_sample,
            "failure_kind": verdict.failure_kind,
            "failure_reason": verdict.failure_reason,
        }

    async def _close_later(sid: str, delay: float) -> None:
        await asyncio.sleep(delay)
        await registry.close(sid, force=True)  # the server's own timer, after the owner verified

    @app.post("/close_session")
    async def close_session(request: Request) -> dict[str, Any]:
        body = await body_of(request)
        sid, key = session_of(request, body)
        if sid not in registry.sessions:
            closed.put(sid, True)  # never seeded: a racing seed must not create it later
        elif await registry.close(sid, key):
            closed.put(sid, True)
        return {"resources_session_id": sid} if isinstance(body, dict) and body else {}

    @app.post("/aggregate_metrics")
    async def aggregate_metrics(request: Request) -> dict[str, Any]:
        rewards = _rewards(await body_of(request))
        if not rewards:
            return {"count": 0}
        return {
            "count": len(rewards),
            "mean/reward": statistics.fmean(rewards),
            "max/reward": max(rewards),
            "min/reward": min(rewards),
            "median/reward": statistics.median(rewards),
            "std/reward": statistics.pstdev(rewards),
        }

    @app.post("/{tool_name}", response_model=None)
    async def call_tool(tool_name: str, request: Request) -> Any:
        sid, key = session_of(request)
        registry.get(sid, key)  # 404 before the tool's name is told to a stranger
        if tool_name in RESERVED or tool_name not in env.tools():
            raise NotFound(
                f"no tool {tool_name[:100]!r}; tools: {sorted(env.tools())}", kind="unknown_tool"
            )
        arguments = await body_of(request)
        result = await host.call_tool(env.name, sid, tool_name, arguments, key)
        return Response(result.model_dump_json(), media_type="application/json")

    return app
