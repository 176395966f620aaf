"""The resources server: hosts environments under `/<env>` (PROTOCOL.md, Resources server)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import shutil
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request, Response
from starlette.routing import Route

from proofgym import VERSION
from proofgym.serving.fastroute import add_fast_route, fast_post
from proofgym.serving.service import APP_OPTIONS, document_raw_route, install_common
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.errors import BadRequest, InvalidRequest, NotFound
from proofgym.wire.jsonlimits import MAX_BYTES, loads_limited, scrub_surrogates
from proofgym.wire.protocol import (
    CLOSE_HEADER,
    CLOSED_HEADER,
    CloseRequest,
    CloseResponse,
    ControlsRequest,
    ControlsResponse,
    EnvInfo,
    ErrorDetail,
    RenewRequest,
    RenewResponse,
    RewardInputs,
    SeedRequest,
    SeedResponse,
    Task,
    ToolResult,
    VerifyRequest,
    VerifyResult,
)
from resources_servers.base.environment import Environment, ToolError
from resources_servers.base.executor import CallRefused, FairExecutor
from resources_servers.base.registry import discover
from resources_servers.base.scratch import private_dir
from resources_servers.base.sessions import SessionRegistry, task_fault
from resources_servers.base.verdicts import ClosedVerdicts

log = logging.getLogger("proofgym.resources")
T = TypeVar("T")

MB = 1024 * 1024
#: Lower body limits where a route never needs the service's whole `max_body_mb`: a task or
#: tool arguments fit in the parser's own limit; closing and renewing carry ids. `/verify`
#: carries a whole rollout and keeps the service limit.
ROUTE_BODY_BYTES = (
    (r"/[^/]+/tools/[^/]+", MAX_BYTES),
    (r"/[^/]+/(?:seed_session|controls)", MAX_BYTES),
    (r"/[^/]+/renew_sessions", 4 * MB),
    (r"/[^/]+/close_session", 64 * 1024),
)


class ResourcesHost:
    """The environments of one process and their session registries. Plain class: tests call it."""

    def __init__(
        self, envs: Mapping[str, Environment[Any]], settings: ResourcesSettings, root: Path
    ) -> None:
        self.envs = dict(envs)
        self.settings = settings
        self.root = root
        self._inputs: dict[str, RewardInputs] = {}
        self.own_root = False  # whether the root is this host's to remove
        # each environment's blocking work on a pool of its own: one environment's slow tools
        # or verifier never hold another's threads (resources_servers.base.executor)
        self.lanes = {
            name: FairExecutor(
                workers=settings.tool_workers,
                max_wait_s=settings.tool_queue_wait_s,
                call_timeout_s=settings.tool_call_timeout_s,
                name=name,
            )
            for name in self.envs
        }
        self.registries = {
            name: SessionRegistry(
                env,
                root / name,
                settings.session_ttl_s,
                settings.max_sessions,
                run_blocking=functools.partial(self._bookkeeping, name),
            )
            for name, env in self.envs.items()
        }
        self.closed_verdicts = {name: ClosedVerdicts() for name in self.envs}
        self._verifying: dict[tuple[str, str], asyncio.Task[VerifyResult]] = {}

    async def _bookkeeping(self, name: str, session_id: str, step: Callable[[], T]) -> T:
        """A seed's or close's blocking step, on the environment's pool, never refused."""
        result: T = await self.lanes[name].run(session_id, step, limited=False)
        return result

    def env(self, name: str) -> Environment[Any]:
        """The environment called `name`, or NotFound."""
        try:
            return self.envs[name]
        except KeyError:
            raise NotFound(
                f"no environment {name!r} here; hosted: {sorted(self.envs)}", kind="unknown_env"
            ) from None

    def reward_inputs(self, name: str) -> RewardInputs:
        """What decides environment `name`'s rewards beside its version (its judge and its
        declared settings' values), as every seed names it: read once, at the first seed."""
        found = self._inputs.get(name)
        if found is None:
            found = self._inputs[name] = self.env(name).reward_inputs()
        return found

    def registry(self, name: str) -> SessionRegistry:
        """The session registry of environment `name`, or NotFound."""
        self.env(name)
        return self.registries[name]

    def info(self, name: str) -> EnvInfo:
        """What `/info` answers for environment `name`."""
        env = self.env(name)
        return EnvInfo(
            name=env.name,
            version=env.version(),
            description=env.description,
            tools=env.tool_schemas(),
            reward_range=env.reward_range,
            max_sessions=self.settings.max_sessions,
            sandbox=env.sandbox_mode(),
            task_data_schema=env.task_data_schema(),
        )

    async def call_tool(
        self, name: str, session_id: str, tool_name: str, arguments: Any, key: str | None = None
    ) -> ToolResult:
        """Run one tool in one session (an owned session needs its `key`). Policy-visible
        failures are a ToolResult with error."""
        env = self.env(name)
        session = self.registry(name).get(session_id, key)
        spec = env.tools().get(tool_name)
        if spec is None and env.external_tools:
            return await self._call_external(
                env, name, session_id, session.state, tool_name, arguments
            )
        if spec is None:
            raise NotFound(
                f"no tool {tool_name!r} in {name}; tools: {sorted(env.tools())}",
                kind="unknown_tool",
            )
        try:
            kwargs = spec.parse(arguments)
        except ValueError as exc:
            return ToolResult(
                output=f"Error: {exc}",
                error=ErrorDetail(kind="invalid_arguments", message=str(exc)),
            )
        try:
            if spec.is_async:
                result = await spec.fn(env, session.state, **kwargs)
            elif spec.inline:
                result = spec.fn(env, session.state, **kwargs)
            else:
                call = functools.partial(spec.fn, env, session.state, **kwargs)
                result = await self.lanes[name].run(session_id, call)
        except (ToolError, CallRefused) as exc:
            return ToolResult(
                output=f"Error: {exc}", error=ErrorDetail(kind=exc.kind, message=str(exc))
            )
        except Exception as exc:  # a tool that raises is a policy-visible outcome, not a 500
            log.info("tool %s.%s raised %r", name, tool_name, exc)
            message = f"{type(exc).__name__}: {exc}"
            return ToolResult(
                output=f"Error: {message}",
                error=ErrorDetail(kind="tool_exception", message=message),
            )
        output = result if isinstance(result, str) else json.dumps(result)
        return ToolResult(output=output)

    async def _call_external(
        self,
        env: Environment[Any],
        name: str,
        session_id: str,
        state: Any,
        tool_name: str,
        arguments: Any,
    ) -> ToolResult:
        """A tool the environment runs itself (a bridge's peer): tool errors are the policy's
        to see; a ProofgymError (the peer is down) propagates and masks the rollout."""
        if not isinstance(arguments, dict):
            message = "arguments must be a JSON object"
            return ToolResult(
                output=f"Error: {message}",
                error=ErrorDetail(kind="invalid_arguments", message=message),
            )
        call = functools.partial(env.call_external, state, tool_name, arguments)
        try:
            output = await self.lanes[name].run(session_id, call)
        except (ToolError, CallRefused) as exc:
            return ToolResult(
                output=f"Error: {exc}", error=ErrorDetail(kind=exc.kind, message=str(exc))
            )
        return ToolResult(output=str(output))

    async def verify(
        self, name: str, request: VerifyRequest, key: str | None = None
    ) -> VerifyResult:
        """Judge a session's rollout; the session stays open (closing is separate)."""
        verdict, _ = await self.verify_and_close(name, request, key, close=False)
        return verdict

    async def verify_and_close(
        self, name: str, request: VerifyRequest, key: str | None, *, close: bool
    ) -> tuple[VerifyResult, bool]:
        """Judge a session's rollout and, when asked, close the session with its verdict;
        the verdict and whether the session is closed now.

        A verifier that blocks runs on the environment's pool, never refused. The same
        verify sent again while the first still runs (a caller's retry after its attempt
        timed out) waits for that one's verdict instead of judging twice; sent again after
        the first closed the session, it gets the verdict the session closed with. Either
        way the owner's retry is answered, never a 404 that would mask a judged rollout."""
        env = self.env(name)
        registry = self.registry(name)
        kept = self.closed_verdicts[name]
        if request.session_id not in registry.sessions:
            earlier = kept.get(request.session_id, key, request.response)
            if earlier is not None:
                return earlier, True
        session = registry.get(request.session_id, key)
        slot = (name, request.session_id)
        running = self._verifying.get(slot)
        if running is not None and not running.done():
            verdict = await asyncio.shield(running)
        elif env.inline_verify:
            verdict = env.verify(session.state, session.task, request.response)
        else:
            judge = functools.partial(env.verify, session.state, session.task, request.response)
            lane = self.lanes[name]
            work = asyncio.create_task(lane.run(session.session_id, judge, limited=False))
            self._verifying[slot] = work
            work.add_done_callback(functools.partial(self._forget_verify, slot))
            verdict = await asyncio.shield(work)
        if not close:
            return verdict, False
        if await registry.close(session.session_id, key):
            kept.keep(session.session_id, session.key, request.response, verdict)
            return verdict, True
        return verdict, kept.get(session.session_id, key, request.response) is not None

    def _forget_verify(self, slot: tuple[str, str], work: asyncio.Future[VerifyResult]) -> None:
        if self._verifying.get(slot) is work:
            del self._verifying[slot]

    @classmethod
    def in_own_folder(
        cls, envs: Mapping[str, Environment[Any]], settings: ResourcesSettings, kind: str
    ) -> ResourcesHost:
        """A host whose sessions live under `settings.workdir`, or else under a private
        folder of its own (`kind`), removed when it stops or is garbage-collected."""
        own = settings.workdir is None
        root = private_dir(kind, memory_tmpdir()) if own else settings.workdir
        assert root is not None
        host = cls(envs, settings, root)
        if own:
            host.own_root = True
            weakref.finalize(host, shutil.rmtree, root, True)
        return host

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While serving: reap idle sessions; on the way out close every session, shut the
        environments and the tool pool down, and remove an own folder."""
        reaper = asyncio.create_task(self.reap_forever())
        try:
            yield
        finally:
            reaper.cancel()
            for registry in self.registries.values():
                await registry.close_all()
            for env in self.envs.values():
                env.shutdown()
            for lane in self.lanes.values():
                lane.shutdown()
            if self.own_root:
                shutil.rmtree(self.root, ignore_errors=True)

    async def reap_forever(self) -> None:
        """Reap idle sessions of every environment, every `reap_interval_s`."""
        while True:
            await asyncio.sleep(self.settings.reap_interval_s)
            for registry in self.registries.values():
                try:
                    reaped = await registry.reap()
                except Exception:
                    log.exception("reaping %s failed", registry.env.name)
                    continue
                if reaped:
                    log.info("reaped %d idle sessions of %s", len(reaped), registry.env.name)


def unlisted_tools(env: Environment[Any], task: Task) -> list[dict[str, Any]]:
    """The tools a seed announces: those the policy has on `task` that the task's own create
    params do not already list (a bridged NeMo Gym row lists its tools; a peer whose rows
    list none has them announced here), so no tool reaches the policy twice."""
    tools = env.task_tool_schemas(task)
    listed = task.responses_create_params.get("tools")
    if not listed:
        return tools
    names = {t.get("name") for t in listed if isinstance(t, dict)}
    return [t for t in tools if t.get("name") not in names]


def memory_tmpdir(min_free: int = 1 << 30) -> str | None:
    """/dev/shm when it is a writable tmpfs with `min_free` bytes free, else None (the system
    temp dir). Session workspaces are many small short-lived files: on this machine's ext4
    creating one took 3.9 ms against 0.15 ms on tmpfs, and the server spent most of its time
    there (bench/RESULTS.md). Containers often have a 64 MB /dev/shm: then the size check
    falls back to disk."""
    shm = "/dev/shm"
    try:
        stat = os.statvfs(shm)
    except OSError:
        return None
    if os.access(shm, os.W_OK) and stat.f_bavail * stat.f_frsize >= min_free:
        return shm
    return None


def create_app(
    settings: ResourcesSettings | None = None, envs: Mapping[str, Environment[Any]] | None = None
) -> FastAPI:
    """The resources server app hosting `envs` (default: every shipped environment, or the
    ones `settings.envs` names). Long on purpose: every route is a closure over the one host,
    and reading them in one place is reading the whole wire contract of the server."""
    settings = settings or ResourcesSettings()
    if envs is None:
        available = discover()
        wanted = settings.envs or sorted(available)
        unknown = [n for n in wanted if n not in available]
        if unknown:
            raise ValueError(f"unknown environments {unknown}; available: {sorted(available)}")
        envs = {n: available[n].from_settings(settings) for n in wanted}
    host = ResourcesHost.in_own_folder(envs, settings, "sessions")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with host.running():
            yield

    app = FastAPI(
        title="proofgym resources server", version=VERSION, lifespan=lifespan, **APP_OPTIONS
    )
    app.state.host = host
    metrics = install_common(
        app, "resources", settings.token, settings.guard_limits(ROUTE_BODY_BYTES), settings.instance
    )
    for name, registry in host.registries.items():
        metrics.open_sessions.labels("resources", name).set_function(
            lambda r=registry: len(r)  # type: ignore[misc]
        )

    @app.get("/envs")
    def list_envs() -> list[EnvInfo]:  # in a thread: a sandbox's start probe may be running
        return [host.info(n) for n in host.envs]

    @app.get("/{env}/info")
    def info(env: str) -> EnvInfo:  # in a thread, as list_envs
        return host.info(env)

    @fast_post(app, "/{env}/seed_session")
    async def seed_session(env: str, body: SeedRequest) -> SeedResponse:
        environment = host.env(env)
        inputs = host.reward_inputs(env)
        session, _ = await host.registry(env).seed(
            body.session_id, body.task, body.lease_s, key=body.session_key
        )
        return SeedResponse(
            session_id=session.session_id,
            session_key=session.key,
            tools=unlisted_tools(environment, session.task),
            instructions=environment.instructions(session.task),
            env_version=environment.version(),
            judge=inputs.judge,
            settings_digest=inputs.settings_digest(),
        )

    async def call_tool(env: str, tool_name: str, raw: bytes, request: Request) -> Response:
        """POST /{env}/tools/{tool_name}: the arguments are the body, any JSON object."""
        session_id = request.headers.get("x-session-id")
        if not session_id:
            raise InvalidRequest("the X-Session-Id header is required", kind="missing_session")
        try:
            arguments = scrub_surrogates(loads_limited(raw)) if raw.strip() else {}
        except ValueError as exc:
            raise InvalidRequest(
                f"tool arguments are not usable JSON: {exc}", kind="malformed_json"
            ) from None
        key = request.headers.get("x-session-key")
        result = await host.call_tool(env, session_id, tool_name, arguments, key)
        return Response(result.model_dump_json(), media_type="application/json")

    async def call_tool_route(request: Request) -> Response:  # the same, through Starlette
        params = request.path_params
        return await call_tool(params["env"], params["tool_name"], await request.body(), request)

    # First in the route table: FastAPI's `/{env}/...` routes must not claim the path.
    tool_path = "/{env}/tools/{tool_name}"
    tool_route = Route(tool_path, call_tool_route, methods=["POST"])
    app.router.routes.insert(0, tool_route)
    add_fast_route(app, tool_path, call_tool, tool_route)
    document_raw_route(
        app,
        tool_path,
        "Call one tool in a session (headers X-Session-Id, and X-Session-Key when owned)",
        {"type": "object", "description": "the tool's arguments (its schema: GET /{env}/info)"},
        ToolResult,
    )

    @fast_post(app, "/{env}/verify", response_model=VerifyResult)
    async def verify(env: str, body: VerifyRequest, request: Request) -> Response:
        key = request.headers.get("x-session-key")
        asked = request.headers.get(CLOSE_HEADER) == "1"  # closed with its verdict, if open
        result, closed = await host.verify_and_close(env, body, key, close=asked)
        headers = {CLOSED_HEADER: "1"} if closed else None
        return Response(result.model_dump_json(), media_type="application/json", headers=headers)

    @fast_post(app, "/{env}/close_session")
    async def close_session(env: str, body: CloseRequest, request: Request) -> CloseResponse:
        key = request.headers.get("x-session-key")
        return CloseResponse(closed=await host.registry(env).close(body.session_id, key))

    @app.post("/{env}/renew_sessions")
    async def renew_sessions(env: str, body: RenewRequest) -> RenewResponse:
        pairs = [(ref.session_id, ref.session_key) for ref in body.sessions]
        unknown = host.registry(env).renew(pairs)
        return RenewResponse(renewed=len(pairs) - len(unknown), unknown=unknown)

    @app.post("/{env}/controls")
    async def controls(env: str, body: ControlsRequest) -> ControlsResponse:
        environment = host.env(env)
        try:  # a task the environment refuses is the caller's to fix, not a 500
            environment.validate_task(body.task)
        except ValueError as exc:
            raise BadRequest(f"task {body.task.task_id}: {exc}", kind="invalid_task") from None
        try:
            return ControlsResponse(controls=environment.controls(body.task))
        except Exception as exc:
            if not task_fault(environment, exc):
                raise  # checked data, and the environment failed on it: its bug, a 500
            raise BadRequest(
                f"task {body.task.task_id}: {type(exc).__name__}: {str(exc)[:300]}",
                kind="invalid_task",
            ) from None

    return app
