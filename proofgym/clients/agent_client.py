"""A client of the agent server for trainers and notebooks.

`await client.run(task)` and `await client.run_many(tasks, repeats=4)` from async code;
`client.run_batch(tasks)` from plain code, also inside a notebook whose event loop is already
running (the batch then runs on a loop thread of the client's own). At most `concurrency`
rollouts are in flight. A call is retried only when it never reached the agent (a refused
connection, a 429): a rollout that may have started is never run twice by the client.
Infrastructure faults inside a rollout come back as masked RunResults; a task the agent refuses
raises RolloutRefused.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from proofgym.clients.http import CallFailed, ServiceClient, Transport
from proofgym.serving.settings import ClientSettings
from proofgym.wire.protocol import RunResult, Task

T = TypeVar("T")


class RolloutRefused(Exception):
    """The agent answered no RunResult: the task was refused (4xx), or the agent is gone."""

    def __init__(self, message: str, status: int | None) -> None:
        super().__init__(message)
        self.status = status


def run_request_body(
    task: Task,
    *,
    rollout_id: str | None = None,
    model_params: dict[str, Any] | None = None,
    control: str | None = None,
    max_steps: int | None = None,
) -> dict[str, Any]:
    """The body of `POST /run` (a fresh rollout id unless one is given)."""
    body: dict[str, Any] = {
        "task": task.model_dump(mode="json"),
        "rollout_id": rollout_id or uuid.uuid4().hex,
        "model_params": model_params or {},
    }
    if control:
        body["control"] = control
    if max_steps:
        body["max_steps"] = max_steps
    return body


class AgentClient:
    """Rollouts from an agent server at `url` (see the module docstring)."""

    def __init__(
        self,
        url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        concurrency: int = 64,
        settings: ClientSettings | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.concurrency = concurrency
        base = settings or ClientSettings(max_retries=3)
        # one pooled connection per rollout in flight: a rollout never waits for a connection
        self.settings = base.model_copy(
            update={"pool_per_upstream": max(base.pool_per_upstream, concurrency)}
        )
        self._transport = transport
        self._clients: dict[int, ServiceClient] = {}  # one per event loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _client(self) -> ServiceClient:
        key = id(asyncio.get_running_loop())
        if key not in self._clients:
            self._clients[key] = ServiceClient(self.settings, self._transport, token=self.token)
        return self._clients[key]

    async def run(self, task: Task, **options: Any) -> RunResult:
        """One rollout of `task`; options are those of `run_request_body`."""
        body = run_request_body(task, **options)
        try:
            answer = await self._client().post_json(f"{self.url}/run", body, idempotent=False)
        except CallFailed as exc:
            raise RolloutRefused(str(exc), exc.status) from None
        return RunResult.model_validate(answer)

    async def run_many(
        self, tasks: Sequence[Task], repeats: int = 1, **options: Any
    ) -> list[RunResult]:
        """`repeats` rollouts of each task, in task order, at most `concurrency` at once."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(task: Task) -> RunResult:
            async with gate:
                return await self.run(task, **options)

        jobs = [one(t) for t in tasks for _ in range(repeats)]
        return list(await asyncio.gather(*jobs))

    def run_batch(self, tasks: Sequence[Task], repeats: int = 1, **options: Any) -> list[RunResult]:
        """`run_many` for synchronous callers, a running event loop (a notebook) included."""
        return self._sync(self.run_many(tasks, repeats, **options))

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="proofgym-agent-client", daemon=True
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def aclose(self) -> None:
        """Close the connections of the calling loop (and the client's own loop, if any)."""
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.aclose()
        self.close()

    def close(self) -> None:
        """Close the client's own loop thread and its connections."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        own = self._clients.pop(id(loop), None)
        if own is not None:
            asyncio.run_coroutine_threadsafe(own.aclose(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        loop.close()
