"""Blocking tool calls on a bounded pool, fair between sessions.

Tools that block (a sandboxed test run, a slow query) used to share asyncio's default thread
pool with seeding and verifying: one session's flood of slow calls held every thread, and an
honest session of any environment waited behind it, long enough for the agent to give up and
mask the rollout. Here:
- the pool is the tools' own (`workers` threads): seeding and verifying never wait behind it;
- a session runs one call at a time, and sessions with work take turns (round robin), so a
  flood from one session delays only that session;
- a call that waits in its own session's queue longer than `max_wait_s`, or that has run for
  `call_timeout_s`, is answered at once as a tool error (`CallRefused`): the policy's own
  failure, scored, never an outage that masks the rollout. A call past its time keeps its
  thread until it returns (a thread cannot be killed), and its session's later calls wait.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any


class CallRefused(Exception):
    """A call the executor answered without running it to the end: `kind` says why."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class _Job:
    fn: Callable[[], Any]
    future: asyncio.Future[Any]
    queued_at: float = field(default_factory=time.monotonic)


class FairExecutor:
    """Runs blocking calls keyed by session: one at a time per session, sessions in turn."""

    def __init__(
        self,
        workers: int = 8,
        max_wait_s: float = 30.0,
        call_timeout_s: float = 60.0,
        max_pending: int = 64,
    ) -> None:
        self.workers = workers
        self.max_wait_s = max_wait_s
        self.call_timeout_s = call_timeout_s
        self.max_pending = max_pending
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="proofgym-tool")
        self._queues: dict[str, collections.deque[_Job]] = {}
        self._ready: collections.deque[str] = collections.deque()  # sessions with work, in turn
        self._running: set[str] = set()

    async def run(self, key: str, fn: Callable[[], Any]) -> Any:
        """Run `fn` for the session `key`; its result, its exception, or CallRefused."""
        queue = self._queues.setdefault(key, collections.deque())
        if len(queue) >= self.max_pending:
            raise CallRefused(
                f"{len(queue)} earlier calls of this session are still waiting; this one was "
                "not run",
                "too_many_waiting",
            )
        job = _Job(fn, asyncio.get_running_loop().create_future())
        queue.append(job)
        if key not in self._running and key not in self._ready:
            self._ready.append(key)
        self._dispatch()
        try:
            return await asyncio.wait_for(
                asyncio.shield(job.future), self.max_wait_s + self.call_timeout_s
            )
        except TimeoutError:
            raise CallRefused(
                f"the call did not finish within {self.call_timeout_s:g}s", "call_timeout"
            ) from None

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self._ready and len(self._running) < self.workers:
            key = self._ready.popleft()
            queue = self._queues.get(key)
            job = None
            while queue:
                candidate = queue.popleft()
                waited = time.monotonic() - candidate.queued_at
                if candidate.future.done():
                    continue
                if waited > self.max_wait_s:
                    candidate.future.set_exception(
                        CallRefused(
                            f"the call waited {waited:.0f}s behind this session's earlier "
                            "calls and was not run",
                            "queue_timeout",
                        )
                    )
                    continue
                job = candidate
                break
            if job is None:
                self._queues.pop(key, None)
                continue
            self._running.add(key)
            work = loop.run_in_executor(self._pool, job.fn)
            work.add_done_callback(functools.partial(self._finished, key, job))

    def _finished(self, key: str, job: _Job, done: asyncio.Future[Any]) -> None:
        self._running.discard(key)
        if not job.future.done():
            if done.cancelled():
                job.future.cancel()
            elif done.exception() is not None:
                job.future.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                job.future.set_result(done.result())
        elif not done.cancelled():
            done.exception()  # retrieved, so asyncio does not log it as unhandled
        if self._queues.get(key):
            self._ready.append(key)
        else:
            self._queues.pop(key, None)
        self._dispatch()

    def pending(self) -> int:
        """Calls waiting, over every session."""
        return sum(len(q) for q in self._queues.values())

    def shutdown(self) -> None:
        """Stop taking work; running calls finish in their threads."""
        self._pool.shutdown(wait=False, cancel_futures=True)
