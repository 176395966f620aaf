"""One episode of a proofgym environment driven by tool calls from outside the agent.

Peers' clients (OpenEnv, SkyRL, TRL) play an environment call by call and end with a final
answer; proofgym's verifier needs the whole trajectory as a Responses `Response`. An
`Episode` records each call as a `function_call` item and its `function_call_output`, ends with
an assistant message holding the final answer, and verifies through the same
`ResourcesHost.verify` the agent's `/verify` uses.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from proofgym.wire.protocol import Task, ToolResult, VerifyRequest, VerifyResult
from proofgym.wire.responses import (
    assistant_message,
    build_response,
    function_call,
    function_call_output,
    new_id,
)
from resources_servers.base.app import ResourcesHost

FINAL_ANSWER = "final_answer"


def final_answer_schema() -> dict[str, Any]:
    """The reserved tool that ends an episode with the agent's final message."""
    return {
        "type": "function",
        "name": FINAL_ANSWER,
        "description": "Give your final answer (or final message to the user). This ends the "
        "episode; the answer is then verified and the reward given.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "the final answer"}},
            "required": ["message"],
        },
    }


class Episode:
    """A proofgym session played call by call; `finish` verifies it."""

    def __init__(self, host: ResourcesHost, env: str, task: Task, max_steps: int) -> None:
        self.host, self.env, self.task = host, env, task
        self.session_id = uuid.uuid4().hex
        self.key: str | None = None  # the session's key, minted by the registry at seed
        self.items: list[dict[str, Any]] = []
        self.steps = 0
        self.max_steps = max_steps
        self.verdict: VerifyResult | None = None

    @property
    def done(self) -> bool:
        """Whether the episode was verified."""
        return self.verdict is not None

    async def seed(self) -> None:
        """Open the proofgym session (raises the registry's errors: capacity, bad task)."""
        session, _ = await self.host.registry(self.env).seed(self.session_id, self.task)
        self.key = session.key

    async def call(self, tool: str, arguments: Any) -> ToolResult:
        """Run one tool and record the call and its output."""
        result = await self.host.call_tool(self.env, self.session_id, tool, arguments, self.key)
        call_id = new_id("call")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        self.items.append(function_call(tool, text, call_id))
        self.items.append(function_call_output(call_id, result.output))
        self.steps += 1
        return result

    async def finish(self, message: str) -> VerifyResult:
        """End with `message` as the final answer and verify; idempotent."""
        if self.verdict is None:
            self.items.append(assistant_message(message))
            response = build_response(self.items, model="external")
            request = VerifyRequest(session_id=self.session_id, response=response)
            self.verdict = await self.host.verify(self.env, request, self.key)
        return self.verdict

    async def close(self) -> None:
        """Close the proofgym session (idempotent)."""
        await self.host.registry(self.env).close(self.session_id, self.key)
