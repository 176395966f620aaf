"""A request's deadline, carried from call to call so no layer works past its caller.

The agent sets one per rollout; every call made inside it sends what is left in the
`X-Proofgym-Budget-S` header (seconds, relative, so clocks need not agree); the receiving
service's request guard turns the header back into a deadline of its own, under which its
own outbound calls run. `proofgym.clients.http.ServiceClient` caps each attempt's timeout at what is
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


class BadBudget(ValueError):
    """An `X-Proofgym-Budget-S` header that is not a finite number of seconds above 0."""


def parse_budget(value: bytes | str | None) -> float | None:
    """The seconds an `X-Proofgym-Budget-S` header grants (None when absent); BadBudget for
    a value that is not a finite number above 0: the caller's error, not a rollout to run
    with no time and mask."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise BadBudget(f"{BUDGET_HEADER} is not a number of seconds") from None
    if not (seconds == seconds and 0 < seconds != float("inf")):
        raise BadBudget(
            f"{BUDGET_HEADER} must be a finite number of seconds above 0: "
            "a request with no time left cannot run"
        )
    return seconds
