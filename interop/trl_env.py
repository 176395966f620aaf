"""A TRL `environment_factory` class over `proofgym serve openenv`.

TRL's GRPOTrainer (1.16) builds one instance per rollout, calls `reset(**dataset_row)`, offers
every other public method as a tool (its schema from `transformers.utils.get_json_schema`:
type hints and a docstring with `Args:`), and asks `get_reward()` at the end. TRL never shows
the environment the model's final message, so the final answer is a tool: `final_answer`.

    EnvClass = trl_env_class("http://127.0.0.1:8004")
    trainer = GRPOTrainer(..., environment_factory=EnvClass)

`OpenEnvSession` is the small synchronous client underneath: OpenEnv's `/ws` frames, nothing
else (OpenEnv's own `GenericEnvClient` works the same; this keeps `openenv` optional).
"""

from __future__ import annotations

import contextlib
import inspect
import json
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


class OpenEnvSession:
    """One socket to an OpenEnv server: `reset`, `step`, `close`; each returns the frame's
    data (an error frame raises RuntimeError with its message)."""

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 60.0) -> None:
        url = base_url.rstrip("/").replace("http://", "ws://").replace("https://", "wss://")
        headers = {"Authorization": f"Bearer {token}"} if token else None
        self.timeout_s = timeout_s
        self._open = contextlib.ExitStack()
        self.socket: ClientConnection = self._open.enter_context(
            connect(f"{url}/ws", additional_headers=headers, max_size=100 * 1024 * 1024)
        )

    def send(self, kind: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one frame, return the data of the answer."""
        self.socket.send(json.dumps({"type": kind, "data": data or {}}))
        answer = json.loads(self.socket.recv(timeout=self.timeout_s))
        if answer.get("type") == "error":
            raise RuntimeError(f"{answer['data'].get('code')}: {answer['data'].get('message')}")
        return dict(answer["data"])

    def reset(self, **kwargs: Any) -> dict[str, Any]:
        """Start an episode (`task`, `task_id` or `seed`)."""
        return self.send("reset", kwargs)

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Call one tool; the observation with `reward` and `done`."""
        return self.send("step", {"type": "call_tool", "tool_name": tool, "arguments": arguments})

    def close(self) -> None:
        """End the session (the server closes the proofgym session)."""
        try:
            self.socket.send(json.dumps({"type": "close"}))
        finally:
            self._open.close()


def tool_schemas(base_url: str, token: str | None = None) -> list[dict[str, Any]]:
    """The server's tools (MCP `tools/list`), `final_answer` included."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = {"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 1}
    answer = httpx.post(f"{base_url.rstrip('/')}/mcp", json=body, headers=headers, timeout=30)
    answer.raise_for_status()
    return list(answer.json()["result"]["tools"])


def _method(name: str, schema: dict[str, Any]) -> Any:
    """A method `name(self, **args) -> str` whose signature and docstring say `schema`."""
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or props)

    def method(self, **kwargs):  # type: ignore[no-untyped-def]
        return str(self._call(name, kwargs))

    # `self` without an annotation: get_json_schema skips it as the receiver
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    lines = []
    for arg, spec in props.items():
        kind = _TYPES.get(str(spec.get("type")), str)
        annotations[arg] = kind
        default = inspect.Parameter.empty if arg in required else None
        params.append(
            inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        )
        lines.append(f"    {arg}: {spec.get('description') or arg}")
    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__doc__ = (schema.get("_description") or name) + (
        "\n\nArgs:\n" + "\n".join(lines) if lines else ""
    )
    return method


class ProofgymEnvBase:
    """What every generated class shares: the episode over one socket, and its reward."""

    base_url: str = ""
    token: str | None = None

    def __init__(self) -> None:
        self.session = OpenEnvSession(self.base_url, self.token)
        self.reward: float | None = None
        self.masked = False

    def reset(self, **row: Any) -> str:
        """Start an episode on the dataset row's task (`task_id`, or a whole `task`)."""
        self.reward, self.masked = None, False
        if isinstance(row.get("task"), dict):
            obs = self.session.reset(task=row["task"])
        else:
            obs = self.session.reset(task_id=row["task_id"])
        return str(obs["observation"].get("instructions") or "")

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        frame = self.session.call(name, **arguments)
        obs = frame["observation"]
        if frame.get("done"):
            self.reward = frame.get("reward")
            self.masked = self.reward is None
        error = obs.get("error")
        text = obs.get("result")
        if error:
            return f"Error: {error.get('message')}"
        return text if isinstance(text, str) else json.dumps(text)

    def final_answer(self, message: str) -> str:
        """Give your final answer; this ends the episode and it is then verified.

        Args:
            message: the final answer
        """
        self._call("final_answer", {"message": message})
        return "answer recorded"

    def get_reward(self) -> float:
        """proofgym's verified reward of the finished episode (0.0 if never finished)."""
        if self.masked:
            raise RuntimeError("the verdict was masked (an infrastructure fault): not a reward")
        return float(self.reward or 0.0)


def trl_env_class(base_url: str, token: str | None = None) -> type[ProofgymEnvBase]:
    """A class TRL's `environment_factory` takes: `reset(**row)` starts an episode on the
    row's `task_id` (or `task`), one method per environment tool, `final_answer(message)`,
    and `get_reward()`, proofgym's verified reward (a masked verdict raises, so it never
    trains as a 0)."""
    namespace: dict[str, Any] = {"base_url": base_url, "token": token}
    for tool in tool_schemas(base_url, token):
        if tool["name"] == "final_answer":
            continue
        schema = dict(tool.get("input_schema") or {"type": "object"})
        schema["_description"] = tool.get("description") or tool["name"]
        namespace[tool["name"]] = _method(tool["name"], schema)
    namespace["__doc__"] = "A proofgym environment over OpenEnv, for TRL's environment_factory."
    return type("ProofgymEnv", (ProofgymEnvBase,), namespace)
