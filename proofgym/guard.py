"""What a request must get past before a handler sees it: admission, size, time, valid text.

Every service runs behind `RequestGuard` (installed by `proofgym.service.install_common`):

- **Bodies first.** A request's body is read (within its size and time limits) before it
  asks for a slot, so a caller trickling a body waits on its own connection and never holds
  a slot another request needs.
- **Admission, first come first served.** At most `max_inflight` requests run at once; the
  next `max_queue` wait in arrival order. One more is refused at once with 503 `overloaded`,
  `Retry-After` and `Connection: close` (its descriptor is freed): the caller's retry is
  safe because nothing ran. Bounding the running set also keeps the
  work per request flat as load grows (bench/RESULTS.md, the hot path).
- **Bodies.** A declared or streamed body over `max_body_bytes` is 413; a body that does not
  arrive within `body_timeout_s` is 408; a body that is not UTF-8, that escapes a lone
  surrogate, that nests deeper than `max_json_depth`, or that holds more than
  `max_json_containers` objects and arrays is 400. Each answer is in the
  protocol's error shape, so a hostile body is never a 500 and never reaches a parser that
  could turn it into one.

Health and metrics bypass admission: an overloaded service still says it is alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from fastapi.responses import JSONResponse

from proofgym import deadline
from proofgym.jsonlimits import depth

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BUDGET_KEY = deadline.BUDGET_HEADER.lower().encode()
UNGUARDED = frozenset({"/health", "/metrics"})
# An escaped backslash, or a JSON escape of a UTF-16 surrogate (a lone one decodes to a str
# no UTF-8 body can carry); matching escaped backslashes too keeps `\\ud800` (text) apart.
_ESCAPES = re.compile(rb"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class GuardLimits:
    """The limits one service enforces (from its settings)."""

    max_inflight: int = 1024
    max_queue: int = 16384
    max_body_bytes: int = 32 * 1024 * 1024
    body_timeout_s: float = 30.0
    max_json_depth: int = 64
    max_json_containers: int = 262_144
    retry_after_s: int = 1


def error_answer(
    kind: str, message: str, status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The wire form of an error: `{"error": {"kind", "message"}}` with its status code."""
    return JSONResponse({"error": {"kind": kind, "message": message}}, status, headers=headers)


def body_problem(body: bytes, max_depth: int, max_containers: int = 262_144) -> str | None:
    """Why `body` cannot be a request body (not UTF-8, a lone surrogate, too deep, more
    objects and arrays than any request needs), or None.

    Cheap on the common body: ASCII needs no decoding, and the escape and depth scans run only
    when a byte count says they could matter. The container bound is counted at C speed
    before any parsing: a 31 MB body of `{}` would otherwise cost the parser gigabytes and
    hold the event loop for seconds."""
    containers = body.count(b"{") + body.count(b"[")
    if containers > max_containers:
        return (
            f"the body holds {containers} objects and arrays (braces counted), over the "
            f"limit of {max_containers}"
        )
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"the body is not valid UTF-8 (byte {exc.start})"
    if b"\\u" in body and has_lone_surrogate_escape(body):
        return "the body escapes a lone UTF-16 surrogate, which is not text"
    if containers > max_depth and depth(body) > max_depth:
        return f"the body nests JSON deeper than {max_depth} levels"
    return None


def has_lone_surrogate_escape(body: bytes) -> bool:
    """Whether JSON text `body` escapes a high surrogate not followed by a low one, or a low
    one not preceded by a high one."""
    pending_high_end = -1  # where a high surrogate escape ended, awaiting its low half
    for m in _ESCAPES.finditer(body):
        token = m.group()
        if token == b"\\\\":
            if pending_high_end >= 0:
                return True
            continue
        high = token[3:4].lower() in b"89ab"
        if pending_high_end >= 0:
            if high or m.start() != pending_high_end:
                return True
            pending_high_end = -1
        elif high:
            pending_high_end = m.end()
        else:
            return True
    return pending_high_end >= 0


class Admission:
    """A first-come-first-served gate: `max_inflight` pass, `max_queue` wait, others refused."""

    def __init__(self, max_inflight: int, max_queue: int) -> None:
        self.max_inflight = max_inflight
        self.max_queue = max_queue
        self.inflight = 0
        self.waiting: deque[asyncio.Future[None]] = deque()

    def try_enter(self) -> asyncio.Future[None] | bool:
        """True: admitted now. False: refused. A future: admitted when it resolves."""
        if self.inflight < self.max_inflight and not self.waiting:
            self.inflight += 1
            return True
        if len(self.waiting) >= self.max_queue:
            return False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        return future

    def abandon(self, future: asyncio.Future[None]) -> None:
        """A waiter gave up (its connection went away): drop it, or pass its turn on."""
        if future.done() and not future.cancelled():
            self.leave()  # it had been admitted: hand the slot to the next in line
        else:
            future.cancel()
            with contextlib.suppress(ValueError):
                self.waiting.remove(future)

    def leave(self) -> None:
        """One admitted request finished: admit the oldest waiter, if any."""
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_result(None)  # the slot passes on; inflight is unchanged
                return
        self.inflight -= 1


class RequestGuard:
    """Pure ASGI middleware enforcing `GuardLimits` (see the module docstring)."""

    def __init__(
        self, app: ASGIApp, limits: GuardLimits, on_refusal: Callable[[str], None] | None = None
    ) -> None:
        self.app = app
        self.limits = limits
        self.admission = Admission(limits.max_inflight, limits.max_queue)
        self.on_refusal = on_refusal or (lambda kind: None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in UNGUARDED:
            await self.app(scope, receive, send)
            return
        budget = declared = None
        for key, value in scope["headers"]:  # one pass: this runs for every request
            if key == b"content-length":
                declared = value
            elif key == BUDGET_KEY:
                budget = value
        try:
            seconds = deadline.parse_budget(budget)
        except deadline.BadBudget as exc:
            await self._refuse(scope, receive, send, "malformed_body", str(exc), 400)
            return
        # The caller's deadline starts counting on arrival, the wait for admission included.
        with deadline.within(seconds):
            await self._guarded(scope, receive, send, declared)

    async def _guarded(
        self, scope: Scope, receive: Receive, send: Send, declared: bytes | None
    ) -> None:
        # The body first, then a slot: a caller that trickles its body waits on its own
        # connection, never holding one of the `max_inflight` slots others need.
        body = await self._read_body(scope, receive, send, declared)
        if body is None:
            return  # answered (too large, too slow, malformed) or the caller went away
        entry = self.admission.try_enter()
        if entry is False:
            await self._refuse(
                scope,
                receive,
                send,
                "overloaded",
                f"the service is at capacity ({self.limits.max_inflight} running, "
                f"{self.limits.max_queue} waiting); retry after {self.limits.retry_after_s}s",
                503,
                {"Retry-After": str(self.limits.retry_after_s), "Connection": "close"},
            )
            return
        if entry is not True:
            try:
                await entry
            except BaseException:
                self.admission.abandon(entry)
                raise
        try:
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()  # after the body: only a disconnect can come

            await self.app(scope, replay, send)
        finally:
            self.admission.leave()

    async def _read_body(
        self, scope: Scope, receive: Receive, send: Send, declared: bytes | None
    ) -> bytes | None:
        """The whole body, within the size and time limits and of bounded content; None when
        it was refused (and answered) or the caller went away."""
        limit = self.limits.max_body_bytes
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._too_large(scope, receive, send, limit)
            return None
        chunks: list[bytes] = []
        size = 0
        more = True
        try:
            async with asyncio.timeout(self.limits.body_timeout_s):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None  # the caller went away: nothing to answer
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        await self._too_large(scope, receive, send, limit)
                        return None
                    chunks.append(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            await self._refuse(
                scope,
                receive,
                send,
                "body_timeout",
                f"the request body did not arrive within {self.limits.body_timeout_s}s",
                408,
                {"Connection": "close"},
            )
            return None
        body = b"".join(chunks)
        problem = (
            body_problem(body, self.limits.max_json_depth, self.limits.max_json_containers)
            if body
            else None
        )
        if problem is not None:
            await self._refuse(scope, receive, send, "malformed_body", problem, 400)
            return None
        return body

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        await self._refuse(
            scope,
            receive,
            send,
            "body_too_large",
            f"the request body is over this service's limit of {limit} bytes",
            413,
            {"Connection": "close"},  # the rest of the body is not read: drop the connection
        )

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        kind: str,
        message: str,
        status: int,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.on_refusal(kind)
        await error_answer(kind, message, status, headers)(scope, receive, send)
