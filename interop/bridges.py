"""Other frameworks' servers as proofgym environments: played, stored and validated like ours.

`PROOFGYM_BRIDGES='{"echo": "openenv+http://H:P", "weather": "nemo-gym+http://H:P"}'` adds an
environment per entry next to the shipped ones (`serve resources`, `up`, `validate`, `envs`).

- `openenv+URL`: an OpenEnv server. One WebSocket per proofgym session (`/ws`); the peer's
  action schema is one tool, `step` (or, for an MCP `CallToolAction` schema, one tool per
  entry of the peer's tool list); the reward is the peer's (`task_data.reward`: `last`, `sum`
  or `max` of the observations' rewards). A peer at capacity is a 429; a broken socket masks.
- `nemo-gym+URL`: a NeMo Gym resources server, over HTTP with its session cookie. Tools come
  with each task (`responses_create_params.tools`: NeMo has no route that lists them);
  `/verify`'s reward is the reward. A peer that fails (5xx, unreachable) masks, never a 0.

Neither peer ships controls: a task's `task_data.controls` (proofgym `Control` dicts) are its
controls, `task_data.secret_fields` its secrets, and `task_data.observes` the peer's tools that
only show something (validate lets an honest trajectory leave them out). Those keys, and
`reward`, `require_done`, `reward_range`, are proofgym's and never sent to the peer (`reset`
is sent as reset kwargs).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import httpx
from openai.types.responses import Response
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.errors import AtCapacity, UpstreamError
from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from resources_servers.base.environment import Environment, ToolError

if TYPE_CHECKING:
    from typing import Self

PROOFGYM_KEYS = frozenset(
    {"controls", "secret_fields", "reward", "require_done", "reward_range", "reset", "observes"}
)


def declared_observing(task: Task) -> frozenset[str]:
    """The peer's tools a task row says only show something (`task_data.observes`)."""
    names = task.task_data.get("observes") or []
    return (
        frozenset(n for n in names if isinstance(n, str))
        if isinstance(names, list)
        else frozenset()
    )


TIMEOUT_S = 60.0


class BridgeError(ValueError):
    """A bridge setting that cannot work (unknown kind, name taken)."""


def _get_json(url: str, peer: str) -> Any:
    """A peer's JSON document; UpstreamError naming the peer when it cannot be read."""
    try:
        return httpx.get(url, timeout=TIMEOUT_S).json()
    except (httpx.HTTPError, ValueError) as exc:
        raise UpstreamError(f"the {peer} peer cannot be read at {url}: {exc}") from None


def peer_reward(
    value: float, task: Task, declared: tuple[float, float], peer: str
) -> VerifyResult | None:
    """None when a peer's reward is a finite number in the task's declared range
    (`task_data.reward_range`, else the bridge's); else the peer's error, named: a masked
    verdict that says which peer answered what. A peer never decides what a reward is (1e12
    passed on), nor makes a mask of its own that nobody can read (NaN on the wire)."""
    low, high = task.task_data.get("reward_range") or declared
    if math.isfinite(value) and low - 1e-9 <= value <= high + 1e-9:
        return None
    return _masked(
        "verify_error",
        f"the {peer} peer answered reward {value!r}, outside this task's range [{low}, {high}]"
        + ("" if math.isfinite(value) else " (not a finite number)"),
    )


def _calls_tools(schema: Any) -> bool:
    """Whether a peer's actions are MCP tool calls (OpenEnv's `CallToolAction`)."""
    action = schema.get("action") if isinstance(schema, dict) else None
    props = (action or {}).get("properties") or {}
    return "tool_name" in props and "arguments" in props


def _mcp_tools(url: str) -> list[dict[str, Any]]:
    """The tools an MCP peer lists on its `/mcp` (JSON-RPC `tools/list`)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    try:
        answer = httpx.post(f"{url}/mcp", json=call, timeout=TIMEOUT_S).json()
        tools = answer["result"]["tools"]
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        raise UpstreamError(
            f"the OpenEnv peer's tools cannot be listed at {url}/mcp: {exc}"
        ) from None
    return [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []


def _controls(task: Task) -> list[Control]:
    return [Control.model_validate(c) for c in task.task_data.get("controls") or []]


def _masked(kind: str, reason: str) -> VerifyResult:
    return VerifyResult(
        reward=0.0,
        mask_sample=True,
        failure_kind=kind,
        failure_reason=reason[:1000],  # type: ignore[arg-type]
    )


# --- OpenEnv -------------------------------------------------------------------------------


class OpenEnvEpisode:
    """One session's socket to the peer and what it observed."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.rewards: list[float] = []
        self.done = False
        self.errors = 0
        self.broken: str | None = None

    def exchange(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Send one frame, read one; a broken socket is an outage (UpstreamError)."""
        # a peer at capacity answers before it reads (and closes): its frame is still queued
        with contextlib.suppress(OSError, WebSocketException):
            self.socket.send(json.dumps(frame))
        try:
            answer = json.loads(self.socket.recv(timeout=TIMEOUT_S))
        except (OSError, TimeoutError, WebSocketException, ValueError) as exc:
            self.broken = f"the OpenEnv peer broke off: {type(exc).__name__}: {exc}"
            raise UpstreamError(self.broken) from None
        return dict(answer)

    def observe(self, data: dict[str, Any]) -> None:
        """Record an observation's reward and done."""
        if isinstance(data.get("reward"), int | float) and not isinstance(data["reward"], bool):
            self.rewards.append(float(data["reward"]))
        self.done = self.done or bool(data.get("done"))


class OpenEnvBridge(Environment[OpenEnvEpisode]):
    """An OpenEnv server as a proofgym environment (one subclass per bridge: `bridge_class`)."""

    def observing_tools(self, task: Task) -> frozenset[str]:
        return declared_observing(task)

    url: ClassVar[str] = ""
    external_tools = True
    blocking_state = True  # a socket to the peer: opened off the event loop
    _peer: ClassVar[dict[str, Any] | None] = None

    @classmethod
    def peer(cls) -> dict[str, Any]:
        """The peer's `/schema` and `/metadata`, read once (at start, or off the event loop
        by the first seed; see `from_settings`); for a peer whose actions are MCP tool calls,
        its tools too (`tools/list` on its `/mcp`)."""
        if cls._peer is None:
            schema = _get_json(f"{cls.url}/schema", "OpenEnv")
            metadata = _get_json(f"{cls.url}/metadata", "OpenEnv")
            peer: dict[str, Any] = {"schema": schema, "metadata": metadata, "tools": None}
            if _calls_tools(schema):
                peer["tools"] = _mcp_tools(cls.url)
            cls._peer = peer
        return cls._peer

    @classmethod
    def from_settings(cls, settings: ResourcesSettings) -> Self:
        """The bridge, its peer's documents read now when the peer is up: later reads
        (`/info`, a seed's tool schemas) then never wait on the network in the event loop."""
        with contextlib.suppress(UpstreamError):
            cls.peer()
        return cls()

    @classmethod
    def version(cls) -> str:
        """`openenv:` the peer's version and a hash of its schema: a changed peer changes it."""
        peer = cls.peer()
        digest = hashlib.sha256(json.dumps(peer["schema"], sort_keys=True).encode()).hexdigest()
        return f"openenv:{peer['metadata'].get('version')}:{digest[:12]}"

    @classmethod
    def action_schema(cls) -> dict[str, Any]:
        """The peer's action schema without `metadata`, `$defs` inlined one level."""
        action = dict(cls.peer()["schema"].get("action") or {})
        defs = action.pop("$defs", {})
        props = {
            k: (defs.get(v["$ref"].rsplit("/", 1)[-1], v) if "$ref" in v else v)
            for k, v in (action.get("properties") or {}).items()
            if k != "metadata"
        }
        required = [r for r in action.get("required") or [] if r in props]
        return {"type": "object", "properties": props, "required": required}

    @classmethod
    def tool_schemas(cls) -> list[dict[str, Any]]:
        tools = cls.peer().get("tools")
        if tools is not None:  # an MCP peer: its tools, one by one
            return [
                {
                    "type": "function",
                    "name": str(t["name"]),
                    "description": str(t.get("description") or ""),
                    "parameters": t.get("input_schema")
                    or t.get("inputSchema")
                    or {"type": "object"},
                    "strict": False,
                }
                for t in tools
                if isinstance(t, dict) and isinstance(t.get("name"), str)
            ]
        params = cls.action_schema()
        return [
            {
                "type": "function",
                "name": "step",
                "description": str(
                    cls.peer()["metadata"].get("description") or "act in the environment"
                ),
                "parameters": params,
                "strict": False,
            }
        ]

    def create_state(self, task: Task, workdir: Path | None) -> OpenEnvEpisode:
        self.peer()  # read here, in a worker thread, if the start could not
        url = self.url.replace("http://", "ws://").replace("https://", "wss://")
        try:
            socket = connect(f"{url}/ws", max_size=100 * 1024 * 1024, open_timeout=TIMEOUT_S)
            socket.__enter__()  # what `with connect(...)` does; closed in close_state
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise UpstreamError(f"the OpenEnv peer at {self.url} is unreachable: {exc}") from None
        episode = OpenEnvEpisode(socket)
        answer = episode.exchange({"type": "reset", "data": task.task_data.get("reset") or {}})
        if answer.get("type") == "error":
            data = answer.get("data") or {}
            socket.close()
            if data.get("code") == "CAPACITY_REACHED":
                raise AtCapacity(f"the OpenEnv peer is at capacity: {data.get('message')}")
            raise UpstreamError(f"the OpenEnv peer refused reset: {data.get('message')}")
        episode.observe(answer.get("data") or {})
        return episode

    def call_external(
        self, state: OpenEnvEpisode, tool_name: str, arguments: dict[str, Any]
    ) -> str:
        names = [t["name"] for t in self.tool_schemas()]
        if tool_name not in names:
            raise ToolError(f"no tool {tool_name!r}; tools: {names}", "unknown_tool")
        if state.done:
            raise ToolError("the episode is over", "refused")
        mcp = self.peer().get("tools") is not None
        action = (
            {"type": "call_tool", "tool_name": tool_name, "arguments": arguments}
            if mcp
            else arguments
        )
        answer = state.exchange({"type": "step", "data": action})
        data = answer.get("data") or {}
        if answer.get("type") == "error":
            state.errors += 1
            detail = data.get("errors") or data.get("message")
            if data.get("code") == "VALIDATION_ERROR":
                raise ToolError(f"invalid action: {json.dumps(detail)[:2000]}", "invalid_arguments")
            raise ToolError(str(data.get("message"))[:2000], "tool_exception")
        state.observe(data)
        observation = data.get("observation")
        if mcp and isinstance(observation, dict):
            error = observation.get("error")
            if isinstance(error, dict) and error:  # the tool's own error: the policy's to see
                raise ToolError(str(error.get("message") or error)[:2000], "tool_exception")
            result = observation.get("result")
            return result if isinstance(result, str) else json.dumps(result)
        return json.dumps(observation)

    def verify(self, state: OpenEnvEpisode, task: Task, response: Response) -> VerifyResult:
        if state.broken:
            return _masked("resources_error", state.broken)
        rule = task.task_data.get("reward", "last")
        rewards = state.rewards
        reward = (
            0.0
            if not rewards
            else sum(rewards)
            if rule == "sum"
            else max(rewards)
            if rule == "max"
            else rewards[-1]
        )
        wrong = peer_reward(reward, task, self.reward_range, "OpenEnv")
        if wrong is not None:
            return wrong
        gate = bool(task.task_data.get("require_done"))
        checks = [
            Check(name="reached_done", passed=state.done or not gate, detail=f"done={state.done}"),
            Check(name="no_step_errors", passed=state.errors == 0, detail=f"{state.errors} errors"),
            Check(name="reward", passed=True, detail=f"the peer's reward ({rule}): {reward:g}"),
        ]
        if gate and not state.done:
            reward = 0.0
        return VerifyResult(reward=reward, checks=checks)

    def close_state(self, state: OpenEnvEpisode) -> None:
        with contextlib.suppress(OSError, WebSocketException):
            state.socket.send(json.dumps({"type": "close"}))
        state.socket.close()

    def controls(self, task: Task) -> list[Control]:
        return _controls(task)


# --- NeMo Gym ------------------------------------------------------------------------------


#: the routes of NeMo Gym's resources-server contract: every other POST route is a tool
NEMO_CONTRACT = frozenset(
    {"seed_session", "verify", "close_session", "aggregate_metrics", "reverify_mode"}
)


def _resolved(schema: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """`schema` with its `#/components/schemas/...` references inlined (to a bounded depth:
    a recursive model ends as an open object), titles dropped."""
    if isinstance(schema, list):
        return [_resolved(s, components, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = components.get(ref.rsplit("/", 1)[-1])
        if depth >= 8 or not isinstance(target, dict):
            return {"type": "object"}
        return _resolved(target, components, depth + 1)
    return {k: _resolved(v, components, depth) for k, v in schema.items() if k != "title"}


def openapi_tools(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A NeMo Gym server's tools as Responses function tools, read from its OpenAPI document:
    each POST route of one segment outside the contract, its JSON body as the parameters."""
    components = (doc.get("components") or {}).get("schemas") or {}
    tools = []
    for path, ops in sorted((doc.get("paths") or {}).items()):
        name = path.strip("/")
        post = ops.get("post") if isinstance(ops, dict) else None
        if not isinstance(post, dict) or "/" in name or not name or name in NEMO_CONTRACT:
            continue
        body = (post.get("requestBody") or {}).get("content", {}).get("application/json", {})
        parameters = _resolved(body.get("schema") or {"type": "object"}, components)
        tools.append(
            {
                "type": "function",
                "name": name,
                "description": str(post.get("description") or post.get("summary") or name),
                "parameters": parameters,
            }
        )
    return tools


class NemoSession:
    """One session's HTTP client (its cookie jar is the NeMo session) and row."""

    def __init__(self, client: httpx.Client, row: dict[str, Any]) -> None:
        self.client = client
        self.row = row


class NemoGymBridge(Environment[NemoSession]):
    """A NeMo Gym resources server as a proofgym environment (per bridge: `bridge_class`)."""

    def observing_tools(self, task: Task) -> frozenset[str]:
        return declared_observing(task)

    url: ClassVar[str] = ""
    external_tools = True
    blocking_state = True  # an HTTP seed at the peer: off the event loop
    _openapi: ClassVar[dict[str, Any] | None] = None

    @classmethod
    def openapi(cls) -> dict[str, Any]:
        """The peer's OpenAPI document, read once (at start, or off the event loop by the
        first seed)."""
        if cls._openapi is None:
            cls._openapi = dict(_get_json(f"{cls.url}/openapi.json", "NeMo Gym"))
        return cls._openapi

    @classmethod
    def from_settings(cls, settings: ResourcesSettings) -> Self:
        """The bridge, its peer's document read now when the peer is up."""
        with contextlib.suppress(UpstreamError):
            cls.openapi()
        return cls()

    @classmethod
    def version(cls) -> str:
        """`nemo-gym:` the peer's title and version, and a hash of its routes."""
        doc = cls.openapi()
        info = doc.get("info") or {}
        paths = hashlib.sha256(json.dumps(sorted(doc.get("paths") or {})).encode()).hexdigest()
        return f"nemo-gym:{info.get('title')}:{info.get('version')}:{paths[:12]}"

    @classmethod
    def tool_schemas(cls) -> list[dict[str, Any]]:
        return []  # the task's own tools reach the policy with the task; never twice

    def task_tool_schemas(self, task: Task) -> list[dict[str, Any]]:
        """The task's own tools; where it lists none, the peer's (its OpenAPI routes): NeMo
        Gym servers that expose their tools over MCP ship rows with `tools: []`."""
        listed = [t for t in task.responses_create_params.get("tools") or [] if isinstance(t, dict)]
        if listed:
            return listed
        # the document as read at start or by a seed (off the event loop): this is called on
        # it, so it never fetches; a peer never read has announced no tools yet
        doc = type(self)._openapi
        return openapi_tools(doc) if doc is not None else []

    def create_state(self, task: Task, workdir: Path | None) -> NemoSession:
        with contextlib.suppress(UpstreamError):  # only names the version: not needed to play
            self.openapi()  # read here, in a worker thread, if the start could not
        extras = {k: v for k, v in task.task_data.items() if k not in PROOFGYM_KEYS}
        row = {"responses_create_params": task.responses_create_params, **extras}
        client = httpx.Client(base_url=self.url, timeout=TIMEOUT_S)
        try:
            answer = client.post("/seed_session", json=row)
        except httpx.HTTPError as exc:
            client.close()
            raise UpstreamError(f"the NeMo Gym peer is unreachable: {exc}") from None
        if answer.status_code >= 300:
            client.close()
            raise UpstreamError(
                f"the NeMo Gym peer refused the seed: {answer.status_code} {answer.text[:300]}"
            )
        return NemoSession(client, row)

    def call_external(self, state: NemoSession, tool_name: str, arguments: dict[str, Any]) -> str:
        try:
            answer = state.client.post(f"/{tool_name}", json=arguments)
        except httpx.HTTPError as exc:
            raise UpstreamError(f"the NeMo Gym peer is unreachable: {exc}") from None
        if answer.status_code < 300:
            return answer.text
        if answer.status_code == 422:
            raise ToolError(f"invalid arguments: {answer.text[:2000]}", "invalid_arguments")
        if answer.status_code == 404:
            raise ToolError(f"the server has no tool {tool_name!r}", "unknown_tool")
        raise ToolError(f"{answer.status_code}: {answer.text[:2000]}", "tool_exception")

    def verify(self, state: NemoSession, task: Task, response: Response) -> VerifyResult:
        body = {**state.row, "response": response.model_dump(mode="json")}
        try:
            answer = state.client.post("/verify", json=body)
            data = answer.json() if answer.status_code < 500 else None
        except (httpx.HTTPError, ValueError) as exc:
            return _masked("verify_error", f"the NeMo Gym peer's verify failed: {exc}")
        if not isinstance(data, dict) or not isinstance(data.get("reward"), int | float):
            return _masked(
                "verify_error",
                f"the NeMo Gym peer's verify answered {answer.status_code}: {answer.text[:300]}",
            )
        if data.get("mask_sample"):
            kind = data.get("failure_kind")
            return _masked(
                "verify_error", f"the peer masked it ({kind}): {data.get('failure_reason')}"
            )
        reward = float(data["reward"])
        wrong = peer_reward(reward, task, self.reward_range, "NeMo Gym")
        if wrong is not None:
            return wrong
        checks = [
            Check(name="nemo_reward", passed=reward >= self.passing_reward(), detail=f"{reward:g}")
        ]
        checks += [
            Check(name=k, passed=v)
            for k, v in data.items()
            if isinstance(v, bool) and k not in body and k != "mask_sample"
        ]
        components = data.get("reward_components")
        if isinstance(components, dict) and abs(sum(components.values()) - reward) < 1e-9:
            return VerifyResult(reward=reward, reward_components=components, checks=checks)
        return VerifyResult(reward=reward, checks=checks)

    def close_state(self, state: NemoSession) -> None:
        state.client.close()  # the legacy flow never closes: the peer's session ends with it

    def controls(self, task: Task) -> list[Control]:
        return _controls(task)


KINDS: dict[str, type[Environment[Any]]] = {"openenv": OpenEnvBridge, "nemo-gym": NemoGymBridge}


def bridge_class(name: str, spec: str) -> type[Environment[Any]]:
    """The environment class of one bridge setting entry (`openenv+http://H:P`)."""
    kind, sep, url = spec.partition("+")
    if not sep or kind not in KINDS or not url.startswith(("http://", "https://")):
        raise BridgeError(
            f"bridge {name}: {spec!r} is not KIND+URL with KIND one of {sorted(KINDS)} "
            "(e.g. openenv+http://127.0.0.1:8123)"
        )
    base = KINDS[kind]
    return type(
        f"{base.__name__}_{name}",
        (base,),
        {
            "name": name,
            "url": url.rstrip("/"),
            "description": f"{kind} server at {url} (bridged)",
            "_peer": None,
            "_openapi": None,
        },
    )


def bridged(bridges: dict[str, str], taken: set[str]) -> dict[str, type[Environment[Any]]]:
    """The classes of every bridge; a name of a shipped environment is refused."""
    out = {}
    for name, spec in bridges.items():
        if name in taken:
            raise BridgeError(f"bridge {name!r} has the name of a shipped environment")
        out[name] = bridge_class(name, spec)
    return out
