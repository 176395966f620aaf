"""`proofgym serve nemo-gym`: one proofgym environment as a NeMo Gym resources server.

NeMo Gym's `simple_agent` (0.7.0) drives it unchanged:
- `POST /seed_session` with the dataset row (legacy) answers `{}` and a session cookie; the new
  shape (`resources_session_id`, `episode_id`, `task_id`, `task_data`) answers
  `{"resources_session_id"}`;
- `POST /<tool>` with the call's arguments and the cookie answers proofgym's `ToolResult`
  (`{"output", "error"}`), also for errors the policy should see;
- `POST /verify` echoes the request (simple_agent validates `responses_create_params`,
  `response` and `reward` from it) with `reward`, `reward_components`, `checks`, `mask_sample`,
  `failure_kind` and `failure_reason`;
- `POST /close_session` is idempotent. The legacy flow never closes, so a session is closed a
  grace period after its verify (`close_after_verify_s`), and by the idle TTL in any case.

`X-Session-Id` works instead of the cookie, for proofgym's own clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import statistics
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from proofgym import VERSION
from proofgym.errors import ProofgymError
from proofgym.jsonlimits import loads_limited, scrub_surrogates
from proofgym.protocol import Task, VerifyRequest
from proofgym.service import install_common
from proofgym.settings import ResourcesSettings
from resources_servers.base.app import ResourcesHost
from resources_servers.base.environment import Environment

log = logging.getLogger("proofgym.nemo_gym")
COOKIE = "proofgym_session"
RESERVED = frozenset({"seed_session", "verify", "close_session", "aggregate_metrics", "health"})


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"kind": kind, "message": message}}, status)


def row_task(row: dict[str, Any], env: str) -> Task:
    """The proofgym task a NeMo row carries (its extras: task_id, env, task_data)."""
    data = dict(row)
    data["env"] = data.get("env") or env
    data["task_id"] = data.get("task_id") or f"{env}-{uuid.uuid4().hex[:12]}"
    return Task.from_row(data)


def create_app(
    env: Environment[Any],
    settings: ResourcesSettings | None = None,
    close_after_verify_s: float = 60.0,
) -> FastAPI:
    """The NeMo Gym resources server of one environment."""
    settings = settings or ResourcesSettings()
    host = ResourcesHost.in_own_folder({env.name: env}, settings, "nemo-gym")
    registry = host.registry(env.name)
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
    install_common(app, "nemo-gym", settings.token, settings.guard_limits())

    def session_of(request: Request) -> str | None:
        return request.headers.get("x-session-id") or request.cookies.get(COOKIE)

    async def body_of(request: Request) -> Any:
        raw = await request.body()
        try:
            return scrub_surrogates(loads_limited(raw)) if raw.strip() else {}
        except ValueError as exc:
            raise ProofgymError(f"not usable JSON: {exc}", kind="malformed_json") from None

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
            return _error(400, "invalid_request", "the seed body is a JSON object (the row)")
        new_shape = "resources_session_id" in body
        if new_shape:
            task_id = body.get("task_id") or {}
            row = {
                "responses_create_params": body.get("responses_create_params") or {"input": ""},
                "task_data": body.get("task_data") or {},
                "task_id": task_id.get("task_id") if isinstance(task_id, dict) else task_id,
            }
            sid = str(body["resources_session_id"])
        else:
            row, sid = body, session_of(request) or uuid.uuid4().hex
        try:
            task = row_task(row, env.name)
        except ValueError as exc:
            return _error(400, "invalid_task", str(exc))
        if task.env != env.name:
            return _error(400, "wrong_env", f"this server hosts {env.name}, not {task.env}")
        known = registry.sessions.get(sid) if not new_shape else None
        if known is not None and known.task_hash != task.content_hash():
            sid = uuid.uuid4().hex  # NeMo's servers re-seed freely: a fresh session
        await registry.seed(sid, task)
        answer: JSONResponse = JSONResponse({"resources_session_id": sid} if new_shape else {})
        answer.set_cookie(COOKIE, sid, httponly=True, samesite="lax", path="/")
        return answer

    @app.post("/verify", response_model=None)
    async def verify(request: Request) -> Any:
        body = await body_of(request)
        sid = session_of(request) or (
            body.get("resources_session_id") if isinstance(body, dict) else None
        )
        if not sid or not isinstance(body, dict):
            return _error(404, "unknown_session", "no session cookie: seed a session first")
        try:
            verify_request = VerifyRequest(session_id=sid, response=body.get("response"))
        except ValueError as exc:
            return _error(422, "invalid_request", f"response: {exc}"[:1000])
        verdict = await host.verify(env.name, verify_request)
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
        await registry.close(sid)

    @app.post("/close_session")
    async def close_session(request: Request) -> dict[str, Any]:
        body = await body_of(request)
        sid = session_of(request) or (
            body.get("resources_session_id") if isinstance(body, dict) else None
        )
        if sid:
            await registry.close(str(sid))
        return {"resources_session_id": sid} if isinstance(body, dict) and body else {}

    @app.post("/aggregate_metrics")
    async def aggregate_metrics(request: Request) -> dict[str, Any]:
        body = await body_of(request)
        rewards = [
            float(v.get("reward", 0.0))
            for v in (body.get("verify_responses") or [] if isinstance(body, dict) else [])
            if isinstance(v, dict)
        ]
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
        sid = session_of(request)
        if not sid or sid not in registry.sessions:
            return _error(404, "unknown_session", "no session: seed one first (the cookie)")
        if tool_name in RESERVED or tool_name not in env.tools():
            return _error(
                404, "unknown_tool", f"no tool {tool_name!r}; tools: {sorted(env.tools())}"
            )
        arguments = await body_of(request)
        result = await host.call_tool(env.name, sid, tool_name, arguments)
        return Response(result.model_dump_json(), media_type="application/json")

    return app
