"""`timeout(seconds)`: `asyncio.timeout` for the hot path, at a fraction of its cost for long
limits.

A rollout crosses a dozen timeouts (each service's body read, each call between services, the
rollout itself), and `asyncio.timeout` arms an event-loop timer for each: with uvloop a
libuv timer started and stopped, about 5 microseconds a use. Most of these limits are
seconds or minutes long and almost never fire.

A limit of `COARSE_FROM_S` or more is instead filed in a bucket of its event loop's timer
wheel, which a single timer sweeps every `TICK_S` while anything is filed: entering and
leaving is a dict insert and delete. It fires at the first sweep at or after its time: never
early, at most `TICK_S` late. Shorter limits go to `asyncio.timeout` unchanged, so that the
lateness stays small against the limit (and below the margin by which a hop's budget is
shorter than its caller's, `proofgym.clients.http.next_hop_budget`: the inner limit still fires
first).

Behaviour is `asyncio.timeout`'s (Python 3.11): on expiry the task is cancelled, and the
`async with` block raises TimeoutError (from the CancelledError) unless the task was also
cancelled by someone else, whose CancelledError then passes through.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import threading
from contextlib import AbstractAsyncContextManager
from types import TracebackType

#: how often a loop's wheel is swept while a coarse limit is filed (the most one fires late)
TICK_S = 0.05
#: limits at least this long are coarse; shorter ones use asyncio.timeout
COARSE_FROM_S = 2.0

_local = threading.local()


class _Wheel:
    """The coarse limits of one event loop, in buckets of `TICK_S` by expiry time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.buckets: dict[int, dict[int, _CoarseTimeout]] = {}
        self.slots: list[int] = []  # a heap of the buckets' numbers: the next due first
        self.live = 0  # entries filed and not yet left or expired
        self.sweeper: asyncio.TimerHandle | None = None

    def add(self, entry: _CoarseTimeout) -> None:
        """File `entry` in the bucket of the first sweep at or after its time."""
        slot = entry.slot = math.ceil(entry.when / TICK_S)
        bucket = self.buckets.get(slot)
        if bucket is None:
            bucket = self.buckets[slot] = {}
            heapq.heappush(self.slots, slot)
        bucket[id(entry)] = entry
        self.live += 1
        if self.sweeper is None:
            self.sweeper = self.loop.call_later(TICK_S, self.sweep)

    def remove(self, entry: _CoarseTimeout) -> None:
        """Take `entry` out (it left its block). An emptied bucket stays until it is due:
        deleting it would let a busy loop push the same bucket's number once per request."""
        bucket = self.buckets.get(entry.slot)
        if bucket is not None and bucket.pop(id(entry), None) is not None:
            self.live -= 1

    def sweep(self) -> None:
        """Fire every entry whose time has come; sweep again while any entry is filed."""
        self.sweeper = None
        now = self.loop.time()
        while self.slots and self.slots[0] * TICK_S <= now:
            due = self.buckets.pop(heapq.heappop(self.slots))
            self.live -= len(due)
            for entry in due.values():
                entry.expire()
        if self.live:
            self.sweeper = self.loop.call_later(TICK_S, self.sweep)
        else:  # nothing filed: no sweeps until the next entry
            self.buckets.clear()
            self.slots.clear()


def _wheel(loop: asyncio.AbstractEventLoop) -> _Wheel:
    wheel: _Wheel | None = getattr(_local, "wheel", None)
    if wheel is None or wheel.loop is not loop:
        wheel = _local.wheel = _Wheel(loop)
    return wheel


class _CoarseTimeout:
    """One coarse limit (see the module): asyncio.timeout's behaviour, filed in a wheel."""

    __slots__ = ("cancelling", "expired", "slot", "task", "wheel", "when")

    def __init__(self, seconds: float) -> None:
        self.when = seconds  # made absolute on entering
        self.slot = 0  # its bucket in the wheel, once filed
        self.expired = False

    async def __aenter__(self) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("timeout() must be used inside a task")
        self.task = task
        self.cancelling = task.cancelling()
        loop = asyncio.get_running_loop()
        self.when += loop.time()
        self.wheel = _wheel(loop)
        self.wheel.add(self)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.wheel.remove(self)
        # uncancel() whenever it expired (as asyncio.timeout does), whatever the block raised
        if (
            self.expired
            and self.task.uncancel() <= self.cancelling
            and exc_type is asyncio.CancelledError
        ):
            raise TimeoutError from exc

    def expire(self) -> None:
        """The limit has passed: cancel the task (the block then raises TimeoutError)."""
        self.expired = True
        self.task.cancel()


def timeout(seconds: float) -> AbstractAsyncContextManager[object]:
    """An `async with` block limited to `seconds`: TimeoutError when they pass first (see
    the module for how long limits are kept cheaply)."""
    if seconds >= COARSE_FROM_S and math.isfinite(seconds):
        return _CoarseTimeout(seconds)
    return asyncio.timeout(seconds)
