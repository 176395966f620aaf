"""Blocking work on a bounded pool, fair between sessions: one pool per environment.

Tools that block (a sandboxed test run, a slow query), and the seeds, verifies and closes of
environments whose state lives on disk or in a sandbox, used to share asyncio's default
thread pool: one session's flood of slow calls held every thread, and an honest session of any
environment waited behind it, long enough for the agent to give up and mask the rollout.
Here, each environment has a pool of its own (`workers` threads), so one environment's slow
work never holds another's, and within it:
- a session runs one job at a time, and sessions with work take turns (round robin), so a
  flood from one session delays only that session;
- a tool call (`limited=True`) that waits behind its own session's earlier calls longer than
  `max_wait_s`, that has run for `call_timeout_s`, or that could not end before its caller's
  deadline (`proofgym.serving.deadline`, less a margin for the answer to travel back) because
  of its own session's calls, is answered at once as a tool error (`CallRefused`): the
  policy's own failure, scored, never an outage that masks the rollout. A call past its time
  keeps its thread until it returns (a thread cannot be killed), and its session's later
  calls wait;
- a tool call whose session has nothing else running, waiting only for a worker other
  sessions hold, is not refused for it: it waits within its caller's deadline, and when it
  cannot start in time it is answered `OthersLoad` (503 `others_load`): an infrastructure
  failure the agent masks as `others_load`, never a tool error in the policy's observation;
- a seed, verify or close (`limited=False`) is never refused: it is the rollout's own
  bookkeeping, and refusing it would turn the policy's slowness into a masked sample.
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

from proofgym.serving import deadline
from proofgym.wire.errors import ErrorKind, Unavailable

#: what a call keeps back of its caller's deadline for the answer to travel back
DEADLINE_MARGIN_S = 1.0


class CallRefused(Exception):
    """A call the executor answered without running it to the end: `kind` says why."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class OthersLoad(Unavailable):
    """A call that could not start in time because other sessions held every worker: their
    load, not this session's doing (an outage to mask, never a tool error to score)."""

    kind: ErrorKind = "others_load"


@dataclass
class _Job:
    fn: Callable[[], Any]
    future: asyncio.Future[Any]
    max_wait_s: float | None
    queued_at: float = field(default_factory=time.monotonic)
    #: when nothing of its own session was ahead of it any more (from then on, it waits only
    #: for a worker other sessions hold); None while it waits behind its session's calls
    ready_at: float | None = None
    started: bool = False


def _no_stop(fn: Callable[[], Any]) -> Any:
    """`fn()`, with a `StopIteration` out of it (a `next()` without a default in a tool or a
    verifier) raised as a RuntimeError: a future cannot hold a StopIteration, so the job would
    never finish and its caller would wait forever."""
    try:
        return fn()
    except (StopIteration, StopAsyncIteration) as exc:
        raise RuntimeError(f"{type(exc).__name__} escaped: {exc!r}") from exc


class FairExecutor:
    """Runs blocking calls keyed by session: one at a time per session, sessions in turn."""

    def __init__(
        self,
        workers: int = 8,
        max_wait_s: float = 30.0,
        call_timeout_s: float = 60.0,
        max_pending: int = 64,
        name: str = "tool",
    ) -> None:
        self.workers = workers
        self.max_wait_s = max_wait_s
        self.call_timeout_s = call_timeout_s
        self.max_pending = max_pending
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=f"proofgym-{name}")
        self._queues: dict[str, collections.deque[_Job]] = {}
        self._ready: collections.deque[str] = collections.deque()  # sessions with work, in turn
        self._running: set[str] = set()

    async def run(self, key: str, fn: Callable[[], Any], *, limited: bool = True) -> Any:
        """Run `fn` for the session `key`; its result, its exception, or (`limited`: a tool
        call) CallRefused."""
        queue = self._queues.setdefault(key, collections.deque())
        if limited and len(queue) >= self.max_pending:
            raise CallRefused(
                f"{len(queue)} earlier calls of this session are still waiting; this one was "
                "not run",
                "too_many_waiting",
            )
        wait = self.max_wait_s if limited else None
        job = _Job(fn, asyncio.get_running_loop().create_future(), wait)
        if key not in self._running and not any(not j.future.done() for j in queue):
            job.ready_at = job.queued_at
        queue.append(job)
        if key not in self._running and key not in self._ready:
            self._ready.append(key)
        self._dispatch()
        if not limited:
            return await asyncio.shield(job.future)
        left = deadline.remaining()
        bound = self.max_wait_s + self.call_timeout_s
        if left is not None and left - DEADLINE_MARGIN_S < bound:
            bound = max(0.0, left - DEADLINE_MARGIN_S)
            why = (
                "the call could not finish before its caller's deadline and was answered "
                "before it passed"
            )
            kind = "caller_deadline"
        else:
            why, kind = f"the call did not finish within {self.call_timeout_s:g}s", "call_timeout"
        try:
            return await asyncio.wait_for(asyncio.shield(job.future), bound)
        except TimeoutError:
            job.future.cancel()  # still queued: it never runs; running: its result is dropped
            if not job.started and job.ready_at is not None:
                waited = time.monotonic() - job.ready_at
                raise OthersLoad(
                    f"the call waited {waited:.0f}s for a worker of this environment, all held "
                    "by other sessions' calls, and could not start before its caller's "
                    "deadline; nothing ran"
                ) from None
            raise CallRefused(why, kind) from None

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self._ready and len(self._running) < self.workers:
            key = self._ready.popleft()
            queue = self._queues.get(key)
            job = None
            while queue:
                candidate = queue.popleft()
                now = time.monotonic()
                if candidate.future.done():
                    continue
                # only the wait behind its own session's calls is its own: the wait for a
                # worker other sessions hold is theirs (bounded by the caller's deadline)
                waited = (candidate.ready_at or now) - candidate.queued_at
                if candidate.max_wait_s is not None and waited > candidate.max_wait_s:
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
            job.started = True
            self._running.add(key)
            work = loop.run_in_executor(self._pool, functools.partial(_no_stop, job.fn))
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
        queue = self._queues.get(key)
        if queue:
            now = time.monotonic()
            for waiting in queue:  # the next of its own: from now on it waits for a worker
                if not waiting.future.done():
                    waiting.ready_at = waiting.ready_at or now
                    break
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
