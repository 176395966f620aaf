"""SkyRL plays proofgym environments: a `skyrl-gym` text environment over a resources server.

    import interop.skyrl_env  # registers "proofgym" with skyrl_gym (when it is installed)
    env = skyrl_gym.make("proofgym", env_config={"resources_url": URL}, extras=row)
    prompt, _ = env.init(row["prompt"])
    out = env.step(model_text)   # {observations, reward, done, metadata}

`init` seeds a proofgym session for the row's task (`extra_info.task`); each `step` reads the
model's text for `<tool_call>{"name", "arguments"}</tool_call>` blocks with the parser
proofgym's model interface uses, runs the tools, and answers their outputs as observations;
text with no tool call is the final answer: the trajectory is verified and `reward` is
proofgym's. SkyRL's reward is a float, so a masked verdict (an outage, never the policy's
doing) comes as reward 0.0 with `metadata["mask_sample"] = True`: drop those samples.
`rows` writes the dataset rows SkyRL's trainer reads (`skyrl_rows`, `proofgym skyrl-rows`).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import uuid
from typing import Any

import httpx

from model_interface.hermes import parse_hermes
from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import Task
from proofgym.wire.responses import (
    assistant_message,
    build_response,
    function_call,
    function_call_output,
    message_text,
    new_id,
    normalize_input,
)

ENV_CLASS = "proofgym"
CALL_FORMAT = (
    'To call a tool, write <tool_call>{"name": TOOL, "arguments": {...}}</tool_call>; the '
    "result comes back in the next message. When you are done, answer without a tool call: "
    "that answer is final."
)


def system_prompt(instructions: str | None, tools: list[dict[str, Any]]) -> str:
    """The system message: the environment's instructions, its tools, and the call format."""
    parts = [instructions] if instructions else []
    if tools:
        parts.append("Tools:\n" + "\n".join(json.dumps(t) for t in tools))
        parts.append(CALL_FORMAT)
    return "\n\n".join(parts)


def skyrl_row(task: Task, tools: list[dict[str, Any]], instructions: str | None) -> dict[str, Any]:
    """One SkyRL dataset row: the chat prompt, `env_class`, `reward_spec`, and the task."""
    items = normalize_input(task.responses_create_params.get("input", ""))
    prompt = [
        {"role": str(i.get("role", "user")), "content": message_text(i)}
        for i in items
        if i.get("type", "message") == "message"
    ]
    system = system_prompt(instructions, tools)
    if system:
        prompt.insert(0, {"role": "system", "content": system})
    return {
        "data_source": f"proofgym/{task.env}",
        "prompt": prompt,
        "env_class": ENV_CLASS,
        "reward_spec": {"method": "env", "ground_truth": None},
        # as JSON text: a Parquet struct column would give every row every other row's keys
        "extra_info": {"task": task.model_dump_json()},
    }


class RemoteEpisode:
    """A proofgym session on a resources server, played from model text."""

    def __init__(
        self, resources_url: str, task: Task, token: str | None = None, max_turns: int = 16
    ) -> None:
        self.base = f"{resources_url.rstrip('/')}/{task.env}"
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.Client(timeout=120.0, headers=headers)
        self.task = task
        self.session_id = uuid.uuid4().hex
        self.key = secrets.token_hex(16)  # the session is this episode's alone
        self.items: list[dict[str, Any]] = []
        self.turns = 0
        self.max_turns = max_turns
        self.closed = False

    def _post(self, path: str, body: Any, **kw: Any) -> Any:
        headers = {"X-Session-Id": self.session_id, "X-Session-Key": self.key}
        answer = self.client.post(f"{self.base}/{path}", json=body, headers=headers, **kw)
        if answer.status_code >= 300:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:300]}")
        return answer.json()

    def seed(self) -> dict[str, Any]:
        """Open the session; the seed answer (tools, instructions)."""
        body = {
            "session_id": self.session_id,
            "task": self.task.model_dump(mode="json"),
            "session_key": self.key,
        }
        return dict(self._post("seed_session", body))

    def step(self, text: str) -> dict[str, Any]:
        """One model turn: run its tool calls, or verify its final answer."""
        self.turns += 1
        parsed = parse_hermes(text)
        if not parsed.calls or self.turns >= self.max_turns:
            return self.finish(parsed.content if parsed.calls else text)
        observations = []
        for call in parsed.calls:
            call_id = new_id("call")
            self.items.append(function_call(call.name, call.arguments, call_id))
            output = self._tool(call.name, call.arguments)
            self.items.append(function_call_output(call_id, output))
            observations.append({"role": "user", "content": f"[{call.name}] {output}"})
        return {"observations": observations, "reward": 0.0, "done": False, "metadata": {}}

    def _tool(self, name: str, arguments: str) -> str:
        try:  # the model's text: parsed with limits, never a RecursionError out of step()
            args = loads_limited(arguments or "{}")
        except ValueError as exc:
            return f"Error: arguments are not valid JSON (or too deep or too large): {exc}"
        if not isinstance(args, dict):
            return "Error: arguments must be a JSON object"
        headers = {"X-Session-Id": self.session_id, "X-Session-Key": self.key}
        answer = self.client.post(f"{self.base}/tools/{name}", json=args, headers=headers)
        if answer.status_code == 404:
            return f"Error: no tool {name!r}"
        if answer.status_code >= 300:
            raise RuntimeError(f"tool {name}: {answer.status_code} {answer.text[:300]}")
        return str(answer.json().get("output", ""))

    def finish(self, answer: str) -> dict[str, Any]:
        """Verify with `answer` as the final message; close the session."""
        self.items.append(assistant_message(answer))
        response = build_response(self.items, model="skyrl")
        try:
            verdict = self._post(
                "verify",
                {"session_id": self.session_id, "response": response.model_dump(mode="json")},
            )
        except (RuntimeError, httpx.HTTPError) as exc:
            verdict = {"reward": 0.0, "mask_sample": True, "failure_reason": str(exc)}
        finally:
            self.close()
        masked = bool(verdict.get("mask_sample"))
        return {
            "observations": [],
            "reward": 0.0 if masked else float(verdict["reward"]),
            "done": True,
            "metadata": {"verify": verdict, "mask_sample": masked, "task_id": self.task.task_id},
        }

    def close(self) -> None:
        """Close the session (idempotent)."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(RuntimeError, httpx.HTTPError):  # else the TTL reaps it
                self._post("close_session", {"session_id": self.session_id})
            self.client.close()


def task_of(extras: dict[str, Any]) -> Task:
    """The task a SkyRL row carries (`extra_info.task`, or `task`)."""
    info = extras.get("extra_info") or {}
    row = info.get("task") if isinstance(info, dict) else None
    row = row or extras.get("task")
    if isinstance(row, str):
        row = json.loads(row)
    if not isinstance(row, dict):
        raise ValueError("the row has no proofgym task (extra_info.task): write it with skyrl-rows")
    return Task.from_row(row)


try:  # the SkyRL class exists only where skyrl-gym is installed (the `skyrl` extra)
    import skyrl_gym
    from skyrl_gym.envs.base_text_env import BaseTextEnv
except ImportError:  # pragma: no cover - exercised by the opt-in interop check
    skyrl_gym = None
else:

    class ProofgymTextEnv(BaseTextEnv):  # type: ignore[misc]
        """A proofgym environment as a SkyRL text environment (see the module docstring)."""

        def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None):
            super().__init__()
            config = dict(env_config or {})
            task = task_of(extras or {})
            self.max_turns = int(config.get("max_turns", 16))
            self.episode = RemoteEpisode(
                str(config["resources_url"]), task, config.get("token"), self.max_turns
            )

        def init(self, prompt: Any) -> tuple[Any, dict[str, Any]]:
            seed = self.episode.seed()
            return prompt, {"tools": seed.get("tools"), "session_id": self.episode.session_id}

        def step(self, action: str) -> Any:
            self.turns += 1
            return self.episode.step(action)

        def close(self) -> None:
            self.episode.close()

    if ENV_CLASS not in skyrl_gym.envs.registration.registry:
        skyrl_gym.register(id=ENV_CLASS, entry_point="interop.skyrl_env:ProofgymTextEnv")
