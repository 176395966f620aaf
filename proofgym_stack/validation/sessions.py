"""A resources-server session played by hand (seed, tool calls, verify, close), as the
validation's checks that step outside the agent play one: replays, colliding sessions, the
leak scan of what a seed shows."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import httpx

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import Task
from proofgym.wire.responses import function_calls, output_items

if TYPE_CHECKING:
    from openai.types.responses import Response


class HandSession:
    """One session of `base` (`http://resources/<env>`), owned by its key: the seed mints it
    and every later call sends it, as any client of the protocol must."""

    def __init__(self, client: httpx.AsyncClient, base: str, task: Task, prefix: str) -> None:
        self.client, self.base, self.task = client, base, task
        self.sid = f"{prefix}-{uuid.uuid4().hex}"
        self.key = ""
        self.seeded: dict[str, Any] = {}

    def headers(self) -> dict[str, str]:
        """The headers that name and unlock this session."""
        return {"X-Session-Id": self.sid, "X-Session-Key": self.key}

    async def post(self, route: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        """POST to a route of the environment; the JSON answer, or RuntimeError for any
        answer but 200."""
        r = await self.client.post(f"{self.base}/{route}", json=body, headers=headers)
        if r.status_code != 200:
            raise RuntimeError(f"{self.base}/{route} answered {r.status_code}: {r.text[:300]}")
        return r.json()

    async def seed(self) -> bool:
        """Open the session; False when the server refused it (the answer is not kept)."""
        body = {"session_id": self.sid, "task": self.task.model_dump(mode="json")}
        r = await self.client.post(f"{self.base}/seed_session", json=body)
        if r.status_code != 200:
            return False
        self.seeded = r.json()
        self.key = str(self.seeded["session_key"])
        return True

    async def call(self, name: str, args: Any) -> dict[str, Any]:
        """One tool call; the ToolResult as JSON."""
        return dict(await self.post(f"tools/{name}", args, self.headers()))

    async def verify(self, response: Any) -> dict[str, Any]:
        """The verdict of `response` (a Response as JSON) in this session."""
        body = {"session_id": self.sid, "response": response}
        return dict(await self.post("verify", body, self.headers()))

    async def close(self) -> None:
        """Close the session (idempotent)."""
        await self.post("close_session", {"session_id": self.sid}, self.headers())


async def replay_calls(
    session: HandSession, response: Response, tool_names: set[str]
) -> list[tuple[str, Any, Any]]:
    """Make each tool call of a recorded `response` again in `session`, in order: (tool name,
    what it answers now, what it answered then) per call. Calls that never reached a server
    (arguments that are not a JSON object, a tool the task does not offer: the agent answered
    those itself) are not made."""
    recorded = {
        i["call_id"]: i.get("output")
        for i in output_items(response)
        if i.get("type") == "function_call_output"
    }
    made = []
    for call in function_calls(response):
        try:
            args = loads_limited(call.get("arguments") or "{}")
        except ValueError:
            continue
        if not isinstance(args, dict) or call.get("name") not in tool_names:
            continue
        answer = await session.call(call["name"], args)
        made.append((str(call["name"]), answer["output"], recorded.get(call.get("call_id"))))
    return made
