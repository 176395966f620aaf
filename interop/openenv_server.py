"""`proofgym serve openenv`: one proofgym environment behind OpenEnv's protocol.

OpenEnv's clients (`GenericEnvClient`, `MCPToolClient`, and TRL's `environment_factory` classes
built on them) play it unchanged:
- `GET /health`, `/metadata`, `/schema`;
- `WS /ws`: one proofgym session per socket. `reset` picks a task (`task`, `task_id` of the
  `--tasks` file, or `seed`); a `call_tool` step runs an environment tool; the reserved
  `final_answer` tool ends the episode with proofgym's verified reward (`reward` is null on
  every frame before `done`, and on a masked verdict: never a fake 0). `?session_id=` attaches
  the socket to a session made over `/mcp`;
- `POST /mcp`: JSON-RPC `openenv/session/create`, `openenv/session/close`, `tools/list`,
  `tools/call` (what `MCPToolClient` needs).

Every door is guarded as the services are (`proofgym.serving.service.install_common`): bearer auth
(any case of `Bearer`, compared in constant time, on the WebSocket too), the request guard's
admission, body size, time and memory limits, and the protocol's error shape on every HTTP
error (JSON-RPC errors stay JSON-RPC). An MCP session belongs to whoever created it, as a
seeded session does on the other doors: `openenv/session/create` answers its id and a
`session_key` (192 random bits), and `tools/call`, `openenv/session/close` and a WebSocket's
`?session_id=` attach act on it only with that key (`params.session_key`, `?session_key=` or
the `X-Session-Key` header); without it the session is as unknown as one that never existed.
MCP sessions idle past the TTL are reaped, so abandoned ones never fill `max_sessions`. A
WebSocket silent past the TTL is closed; past twice `max_sessions` open sockets, another is
answered `CAPACITY_REACHED` and closed.

The wire format follows OpenEnv 0.10.0 (`openenv.core.env_server`): frames `{"type": "reset" |
"step" | "state" | "close", "data": ...}` in, `{"type": "observation" | "state" | "error",
"data": ...}` out, observations serialized as `{observation, reward, done, metadata}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect

from interop.episode import FINAL_ANSWER, Episode, final_answer_schema
from proofgym import VERSION
from proofgym.serving.service import install_common, token_accepted
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.errors import AtCapacity, ProofgymError
from proofgym.wire.jsonlimits import MAX_BYTES, loads_limited
from proofgym.wire.protocol import Task
from proofgym.wire.responses import message_text, normalize_input
from resources_servers.base.app import ResourcesHost
from resources_servers.base.environment import Environment
from resources_servers.base.sessions import mint_key, same_key

log = logging.getLogger("proofgym.openenv")

#: `/mcp` carries one JSON-RPC call: the JSON parser's own limit
ROUTE_BODY_BYTES = ((r"/mcp", MAX_BYTES),)
#: WebSocket close code for a server with no room for another socket (RFC 6455: try later)
TRY_AGAIN_LATER = 1013

# what proofgym's tool-error kinds are called in OpenEnv's ToolErrorType
ERROR_TYPES = {"invalid_arguments": "invalid_args", "unknown_tool": "tool_not_found"}


def _schema(title: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"title": title, "type": "object", "properties": properties, "required": required}


OBSERVATION_FIELDS = {
    "done": {"type": "boolean", "default": False},
    "reward": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None},
    "metadata": {"type": "object", "default": {}},
}
SCHEMA = {
    "action": _schema(
        "CallToolAction",
        {
            "type": {"const": "call_tool", "default": "call_tool"},
            "tool_name": {"type": "string"},
            "arguments": {"type": "object", "default": {}},
            "metadata": {"type": "object", "default": {}},
        },
        ["tool_name"],
    ),
    "observation": _schema(
        "CallToolObservation",
        {
            **OBSERVATION_FIELDS,
            "tool_name": {"type": "string"},
            "result": {},
            "error": {"anyOf": [{"type": "object"}, {"type": "null"}], "default": None},
        },
        ["tool_name"],
    ),
    "reset_observation": _schema(
        "ResetObservation",
        {
            **OBSERVATION_FIELDS,
            "prompt": {"type": "string"},
            "input": {},
            "instructions": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "tool_schemas": {"type": "array", "items": {"type": "object"}},
            "task_id": {"type": "string"},
            "env": {"type": "string"},
        },
        ["prompt", "task_id", "env"],
    ),
    "state": _schema(
        "State",
        {
            "episode_id": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "step_count": {"type": "integer"},
        },
        [],
    ),
}


class FrameError(Exception):
    """A request the server answers with an error frame: `code` is OpenEnv's WSErrorCode."""

    def __init__(self, message: str, code: str = "EXECUTION_ERROR", **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.extra = extra


def observation(
    fields: dict[str, Any], *, done: bool = False, reward: float | None = None, **meta: Any
) -> dict[str, Any]:
    """An observation serialized as OpenEnv's `serialize_observation` does."""
    body: dict[str, Any] = {"observation": {**fields, "metadata": meta}, "reward": reward}
    body["done"] = done
    if meta:
        body["metadata"] = meta
    return body


class Player:
    """One OpenEnv session: at most one proofgym episode at a time."""

    def __init__(self, server: OpenEnvServer) -> None:
        self.server = server
        self.episode: Episode | None = None
        self.episode_id: str | None = None
        self.last_used = time.monotonic()
        self.key = ""  # its creator's capability (MCP sessions): set when created

    async def reset(self, data: dict[str, Any]) -> dict[str, Any]:
        """Close any episode, seed a new one on the task `data` names."""
        task = self.server.pick_task(data)
        await self.close()
        episode = Episode(self.server.host, self.server.env.name, task, self.server.max_steps)
        try:
            await episode.seed()
        except AtCapacity as exc:
            raise FrameError(
                str(exc), "CAPACITY_REACHED", max_sessions=self.server.settings.max_sessions
            ) from None
        except ProofgymError as exc:
            raise FrameError(f"{exc.kind}: {exc}") from None
        self.episode = episode
        self.episode_id = str(data.get("episode_id") or uuid.uuid4().hex)
        env = self.server.env
        items = normalize_input(task.responses_create_params.get("input", ""))
        prompt = "\n".join(message_text(i) for i in items if i.get("type", "message") == "message")
        return observation(
            {
                "prompt": prompt,
                "input": task.responses_create_params.get("input"),
                "instructions": env.instructions(task),
                "tool_schemas": self.server.tool_schemas(),
                "task_id": task.task_id,
                "env": env.name,
            }
        )

    async def step(self, action: Any) -> dict[str, Any]:
        """Run one MCP-style action: `list_tools`, or `call_tool` (an environment tool, or
        `final_answer`, which ends the episode)."""
        if not isinstance(action, dict) or action.get("type") not in ("list_tools", "call_tool"):
            raise FrameError(
                "an action is {'type': 'list_tools'} or {'type': 'call_tool', 'tool_name': "
                "..., 'arguments': {...}}",
                "VALIDATION_ERROR",
            )
        if action["type"] == "list_tools":
            return observation({"tools": self.server.mcp_tools()})
        name = action.get("tool_name")
        arguments = action.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise FrameError(
                "call_tool needs a string tool_name and an object of arguments", "VALIDATION_ERROR"
            )
        episode = self.episode
        if episode is None:
            raise FrameError("no episode: reset first")
        if episode.done:
            return self._refused(name, "episode is over; reset")
        if name == FINAL_ANSWER:
            return await self._finish(name, str(arguments.get("message", "")))
        result = await episode.call(name, arguments)
        if episode.steps >= episode.max_steps:  # the step limit: verified with no final answer
            return await self._finish(name, "", tool_output=result.output)
        error = None
        if result.error is not None:
            kind = result.error.kind
            error = {
                "error_type": ERROR_TYPES.get(kind, "execution_error"),
                "message": f"{kind}: {result.error.message}",
            }
        return observation({"tool_name": name, "result": result.output, "error": error})

    def _refused(self, name: str, message: str) -> dict[str, Any]:
        error = {"error_type": "execution_error", "message": message}
        return observation({"tool_name": name, "result": None, "error": error}, done=True)

    async def _finish(
        self, name: str, message: str, tool_output: str | None = None
    ) -> dict[str, Any]:
        assert self.episode is not None
        verdict = await self.episode.finish(message)
        summary = verdict.model_dump(mode="json")
        result: Any = summary if tool_output is None else tool_output
        reward = None if verdict.mask_sample else verdict.reward  # a masked sample is no 0
        return observation(
            {"tool_name": name, "result": result, "error": None},
            done=True,
            reward=reward,
            verify=summary,
            checks=summary["checks"],
            session_id=self.episode.session_id,
            task_id=self.episode.task.task_id,
            env=self.episode.env,
        )

    def state(self) -> dict[str, Any]:
        """OpenEnv's `State`, with proofgym's ids."""
        episode = self.episode
        return {
            "episode_id": self.episode_id,
            "step_count": episode.steps if episode else 0,
            "task_id": episode.task.task_id if episode else None,
            "session_id": episode.session_id if episode else None,
        }

    async def close(self) -> None:
        """Close the episode's proofgym session, if any."""
        if self.episode is not None:
            await self.episode.close()
            self.episode = None


class OpenEnvServer:
    """The environment, its task file, and the sessions of OpenEnv clients."""

    def __init__(
        self, env: Environment[Any], settings: ResourcesSettings, tasks: list[Task], max_steps: int
    ) -> None:
        self.env = env
        self.settings = settings
        self.tasks = tasks
        self.by_id = {t.task_id: t for t in tasks}
        self.max_steps = max_steps
        self.host = ResourcesHost.in_own_folder({env.name: env}, settings, "openenv")
        self.players: dict[str, Player] = {}  # MCP sessions by id
        self.attached: set[str] = set()
        self.sockets = 0  # WebSockets open now

    def player(self, sid: Any, key: Any) -> Player | None:
        """The MCP session `sid` names, touched, when `key` is its key; None when there is none
        or the key is not its own (the two are not told apart)."""
        found = self.players.get(sid) if isinstance(sid, str) else None
        if found is None or not isinstance(key, str) or not same_key(found.key, key):
            return None
        found.last_used = time.monotonic()
        return found

    async def reap(self, now: float | None = None) -> list[str]:
        """Close the MCP sessions nothing used for the idle TTL (none with a WebSocket
        attached); return their ids."""
        now = time.monotonic() if now is None else now
        ttl = self.settings.session_ttl_s
        idle = [
            sid
            for sid, p in self.players.items()
            if sid not in self.attached and now - p.last_used > ttl
        ]
        for sid in idle:
            player = self.players.pop(sid, None)
            if player is not None:
                await player.close()
        return idle

    async def reap_forever(self) -> None:
        """Reap idle MCP sessions every `reap_interval_s`, until cancelled."""
        while True:
            await asyncio.sleep(self.settings.reap_interval_s)
            try:
                reaped = await self.reap()
            except Exception:
                log.exception("reaping MCP sessions failed")
                continue
            if reaped:
                log.info("reaped %d idle MCP sessions", len(reaped))

    def pick_task(self, data: dict[str, Any]) -> Task:
        """The task a reset names: a whole row, a task id of the task file, or a seed."""
        if isinstance(data.get("task"), dict):
            try:
                task = Task.from_row(data["task"])
            except ValueError as exc:
                raise FrameError(f"invalid_task: {exc}") from None
        elif data.get("task_id") is not None:
            if not self.tasks:
                raise FrameError("task_id needs a task file: start with --tasks FILE")
            found = self.by_id.get(str(data["task_id"]))
            if found is None:
                raise FrameError(f"no task {data['task_id']!r} in the task file")
            task = found
        elif self.tasks:
            seed = data.get("seed")
            index = seed if isinstance(seed, int) else random.randrange(len(self.tasks))
            task = self.tasks[index % len(self.tasks)]
        else:
            raise FrameError("reset needs a task (a row), a task_id or a seed with --tasks FILE")
        if task.env != self.env.name:
            raise FrameError(f"wrong_env: task {task.task_id} is for {task.env}")
        return task

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function tools: the environment's and `final_answer`."""
        return [*self.env.tool_schemas(), final_answer_schema()]

    def mcp_tools(self) -> list[dict[str, Any]]:
        """The tools as MCP lists them: name, description, input schema."""
        return [
            {
                "name": t["name"],
                "description": t.get("description", ""),
                "input_schema": t.get("parameters", {"type": "object"}),
            }
            for t in self.tool_schemas()
        ]

    def authorized(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether an ASGI scope's headers carry the bearer token (always, with none set)."""
        token = self.settings.token
        return token_accepted(headers, token.encode() if token else None)

    async def frame(self, player: Player, raw: str) -> dict[str, Any] | None:
        """The answer to one frame, or None for `close`."""
        try:
            message = loads_limited(raw)
        except ValueError as exc:
            return _error(f"Invalid JSON: {exc}", "INVALID_JSON")
        if not isinstance(message, dict):
            return _error("a frame is a JSON object", "VALIDATION_ERROR")
        kind = message.get("type")
        data = message.get("data", {})
        try:
            if kind == "reset":
                if not isinstance(data, dict):
                    raise FrameError("reset data is an object", "VALIDATION_ERROR")
                return {"type": "observation", "data": await player.reset(data)}
            if kind == "step":
                return {"type": "observation", "data": await player.step(data)}
            if kind == "state":
                return {"type": "state", "data": player.state()}
            if kind == "close":
                return None
            return _error(f"Unknown message type: {kind}", "UNKNOWN_TYPE")
        except FrameError as exc:
            return _error(str(exc), exc.code, **exc.extra)
        except ProofgymError as exc:
            return _error(f"{exc.kind}: {exc}", "EXECUTION_ERROR")


def _error(message: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}


def create_app(
    env: Environment[Any],
    settings: ResourcesSettings | None = None,
    tasks: list[Task] | None = None,
    max_steps: int = 16,
) -> FastAPI:
    """The OpenEnv server of one environment (`tasks`: the rows `task_id` and `seed` pick).
    Long on purpose: its routes (HTTP, WebSocket, MCP) are closures over one host and its
    episodes, OpenEnv's contract read in one place."""
    settings = settings or ResourcesSettings()
    server = OpenEnvServer(env, settings, tasks or [], max_steps)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with server.host.running():
            reaper = asyncio.create_task(server.reap_forever())
            try:
                yield
            finally:
                reaper.cancel()
                for player in list(server.players.values()):
                    await player.close()
                server.players.clear()

    app = FastAPI(title=f"proofgym {env.name} (OpenEnv)", version=VERSION, lifespan=lifespan)
    app.state.server = server
    install_common(
        app, "openenv", settings.token, settings.guard_limits(ROUTE_BODY_BYTES), health=False
    )

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "healthy"}  # OpenEnv's HealthStatus

    @app.get("/metadata")
    async def metadata() -> dict[str, Any]:
        return {
            "name": env.name,
            "description": env.description,
            "version": env.version(),
            "readme_content": None,
            "author": None,
            "documentation_url": None,
        }

    @app.get("/schema", response_model=None)
    async def schema() -> Any:
        return SCHEMA

    @app.post("/mcp", response_model=None)
    async def mcp(request: Request) -> Any:
        try:
            body = loads_limited(await request.body())
        except ValueError as exc:
            return _rpc_error(None, -32700, f"parse error: {exc}")
        if not isinstance(body, dict):
            return _rpc_error(None, -32600, "a JSON-RPC request is an object")
        return await _mcp(server, body, request.headers.get("x-session-key"))

    @app.websocket("/ws")
    async def ws(socket: WebSocket) -> None:
        if not server.authorized(socket.scope["headers"]):
            await socket.close(code=1008)
            return
        if server.sockets >= 2 * settings.max_sessions:  # one own, one attached, per session
            await socket.accept()
            full = _error("at capacity", "CAPACITY_REACHED", max_sessions=settings.max_sessions)
            await socket.send_text(json.dumps(full))
            await socket.close(code=TRY_AGAIN_LATER)
            return
        server.sockets += 1
        try:
            await _play(socket)
        finally:
            server.sockets -= 1

    async def _play(socket: WebSocket) -> None:
        await socket.accept()
        attach = socket.query_params.get("session_id")
        key = socket.query_params.get("session_key") or socket.headers.get("x-session-key")
        player: Player
        if attach:
            found = server.player(attach, key)
            if found is None or attach in server.attached:
                why = "already has an attached WebSocket" if found else "is unknown"
                shown = attach[:64]
                await socket.send_text(
                    json.dumps(_error(f"session {shown} {why}", "SESSION_ERROR"))
                )
                await socket.close()
                return
            server.attached.add(attach)
            player = found
        else:
            player = Player(server)
        try:
            while True:
                # a socket silent past the idle TTL is closed, as an idle session is reaped
                async with asyncio.timeout(settings.session_ttl_s):
                    raw = await socket.receive_text()
                answer = await server.frame(player, raw)
                if answer is None:
                    break
                await socket.send_text(json.dumps(answer))
        except (WebSocketDisconnect, TimeoutError):
            pass
        finally:
            if attach:
                server.attached.discard(attach)
                player.last_used = time.monotonic()
            else:
                await player.close()
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):  # already gone
                await socket.close()

    return app


def _rpc_error(rid: Any, code: int, message: str, **data: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data:
        error["data"] = data
    return {"jsonrpc": "2.0", "error": error, "id": rid}


async def _mcp(
    server: OpenEnvServer, body: dict[str, Any], header_key: str | None = None
) -> dict[str, Any]:
    rid, method = body.get("id"), body.get("method")
    params = body.get("params") or {}
    if not isinstance(params, dict):
        return _rpc_error(rid, -32602, "params is an object")
    if method == "openenv/session/create":
        if len(server.players) >= server.settings.max_sessions:
            return _rpc_error(
                rid,
                -32000,
                "at capacity",
                active_sessions=len(server.players),
                max_sessions=server.settings.max_sessions,
            )
        minted = secrets.token_hex(16)  # 128 random bits: an id, not the capability
        player = Player(server)
        player.key = mint_key()  # the capability: only its creator holds it
        server.players[minted] = player
        result = {"session_id": minted, "session_key": player.key}
        return {"jsonrpc": "2.0", "result": result, "id": rid}
    sid: Any = params.get("session_id")
    found = server.player(sid, params.get("session_key") or header_key)
    if method == "openenv/session/close":
        if found is not None:
            await found.close()
            server.players.pop(sid, None)
        return {"jsonrpc": "2.0", "result": {"closed": found is not None}, "id": rid}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "result": {"tools": server.mcp_tools()}, "id": rid}
    if method == "tools/call":
        if found is None:
            return _rpc_error(
                rid,
                -32602,
                "tools/call needs the session_id and session_key of a session this caller "
                "created (openenv/session/create answers both)",
            )
        action = {
            "type": "call_tool",
            "tool_name": params.get("name"),
            "arguments": params.get("arguments") or {},
        }
        try:
            return {"jsonrpc": "2.0", "result": await found.step(action), "id": rid}
        except FrameError as exc:
            return _rpc_error(rid, -32000, str(exc))
    return _rpc_error(rid, -32601, f"unknown method {method!r}")
