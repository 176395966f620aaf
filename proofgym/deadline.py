"""A request's deadline, carried from call to call so no layer works past its caller.

The agent sets one per rollout; every call made inside it sends what is left in the
`X-Proofgym-Budget-S` header (seconds, relative, so clocks need not agree); the receiving
service's request guard turns the header back into a deadline of its own, under which its
own outbound calls run. `proofgym.http.ServiceClient` caps each attempt's timeout at what is
left and never starts a retry (or its backoff) past it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

BUDGET_HEADER = "X-Proofgym-Budget-S"
_DEADLINE: ContextVar[float | None] = ContextVar("proofgym_deadline", default=None)


def remaining() -> float | None:
    """Seconds left before the current deadline (may be <= 0), or None when there is none."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


@contextlib.contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Run the block under a deadline `seconds` from now, or the enclosing one if sooner."""
    current = _DEADLINE.get()
    if seconds is None:
        yield
        return
    mine = time.monotonic() + seconds
    token = _DEADLINE.set(mine if current is None else min(current, mine))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


@contextlib.contextmanager
def lifted() -> Iterator[None]:
    """Run the block with no deadline (clean-up that must happen after the deadline passed)."""
    token = _DEADLINE.set(None)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def parse_budget(value: bytes | str | None) -> float | None:
    """The seconds an `X-Proofgym-Budget-S` header grants, or None when absent or unusable."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds == seconds and seconds != float("inf") else None
