"""The request body memory of one service, shared fairly between its callers.

The guard (`proofgym.serving.guard`) reads a request's body before admitting it, so the
bytes of bodies being read or held at once are what one service's memory must bound. One
pool for every caller let a single caller stall the rest: bodies it declared and never
finished filled the pool, and every other caller's requests were refused until the body
timeout (issue 44). Here the pool is shared by equal shares among the callers holding
bodies, taken only when it is full (see `BodyBudget`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

__all__ = ["BodyBudget", "BodyRead"]


class BodyRead:
    """One body being read (or, once read, held until its request is answered) by `client`:
    what it holds of the budget, and whether another caller's need cut it off."""

    __slots__ = ("client", "cut", "held", "reading", "task")

    def __init__(self, client: str, task: asyncio.Task[Any] | None) -> None:
        self.client = client
        self.task = task
        self.held = 0
        self.reading = False  # waiting for its next chunk: the only point it may be cut
        self.cut = False


class BodyBudget:
    """The bytes of request bodies one service holds at once, against a limit, shared fairly
    between callers.

    Any caller may use what is free. When the budget is full, a caller that holds less than an
    equal share (the limit over the callers holding bodies, itself included) still gets room:
    the reads of callers holding more than that share, largest first, are cut off (answered
    503 `overloaded`; nothing ran, so their retry is safe). A caller past its share gets no
    room taken from others. So one caller's bodies, stalled or not, never refuse another's
    small body: past its share, only that caller waits or is refused."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0
        self.peak = 0  # the most ever held at once (for tests and benches)
        self.by_client: Counter[str] = Counter()  # only callers holding bytes
        self.reads: dict[str, set[BodyRead]] = {}  # callers' reads that hold bytes
        self.cuts = 0  # reads cut off for another caller's room (for tests and benches)

    def share(self, client: str = "") -> int:
        """A caller's equal share now: the limit over the callers holding bodies and it."""
        return self.limit // (len(self.by_client) + (client not in self.by_client))

    def fits(self, n: int, client: str = "") -> bool:
        """Whether `n` more bytes for `client` would fit now, if need be by cutting off
        reads of callers past their share."""
        return self._victims(n, client) is not None

    def take(self, n: int, client: str = "", read: BodyRead | None = None) -> bool:
        """Hold `n` more bytes for `client` (counted in `read`, if given) if they fit, cutting
        off reads of callers past their share to make room; whether they did."""
        victims = self._victims(n, client)
        if victims is None:
            return False
        for victim in victims:
            self._cut(victim)
        self.held += n
        self.peak = max(self.peak, self.held)
        self.by_client[client] += n
        if read is not None:
            if not read.held:
                self.reads.setdefault(client, set()).add(read)
            read.held += n
        return True

    def give(self, n: int, client: str = "") -> None:
        """Release `n` bytes taken before for `client` (without a read)."""
        self.held -= n
        left = self.by_client[client] - n
        if left > 0:
            self.by_client[client] = left
        else:
            del self.by_client[client]

    def release(self, read: BodyRead) -> None:
        """Release what `read` holds (its request was answered, refused or cut)."""
        if read.held:
            self.give(read.held, read.client)
            read.held = 0
            reads = self.reads.get(read.client)
            if reads is not None:
                reads.discard(read)
                if not reads:
                    del self.reads[read.client]

    def _victims(self, n: int, client: str) -> list[BodyRead] | None:
        """The reads to cut off so that `n` more bytes for `client` fit ([] when they fit as
        it is), or None when they cannot be made to fit fairly."""
        over = self.held + n - self.limit
        if over <= 0:
            return []
        share = self.share(client)
        if self.by_client[client] + n > share:
            return None  # past its own share: no room is taken from anyone else for it
        candidates = sorted(
            (
                r
                for c, reads in self.reads.items()
                if self.by_client[c] > share
                for r in reads
                if r.reading and r.task is not None
            ),
            key=lambda r: -r.held,
        )
        chosen: list[BodyRead] = []
        for read in candidates:
            if over <= 0:
                break
            chosen.append(read)
            over -= read.held
        return chosen if over <= 0 else None

    def _cut(self, read: BodyRead) -> None:
        # Its bytes count as free at once (its task drops them at its next step, before this
        # loop reads anything more), so the caller that needed them proceeds now.
        read.cut = True
        self.release(read)
        self.cuts += 1
        if read.task is not None:
            read.task.cancel()
