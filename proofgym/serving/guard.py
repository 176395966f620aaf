"""What a request must get past before a handler sees it: admission, size, time, valid text.

Every service runs behind `RequestGuard` (installed by `proofgym.serving.service.install_common`):

- **Bodies first.** A request's body is read (within its size and time limits) before it
  asks for a slot, so a caller trickling a body waits on its own connection and never holds
  a slot another request needs.
- **Admission, fair between clients.** At most `max_inflight` requests run at once and no one
  client holds more than `max_inflight_per_client` of them (by default all but an eighth, so
  another client always finds a slot free). The next `max_queue` wait; each client's waiters
  keep their arrival order, and a freed slot goes to the waiting client that holds the
  fewest, so one client's thousand queued requests delay another's by one turn, not a
  thousand. One more is refused at once with 503 `overloaded`, `Retry-After` and
  `Connection: close` (its descriptor is freed): the caller's retry is safe because nothing
  ran. Bounding the running set also
  keeps the work per request flat as load grows (bench/RESULTS.md, the hot path).
  A client is the `X-Proofgym-Client` header its requests carry (proofgym's own clients send
  one per process), else its address.
- **Body memory, bounded however many arrive.** Bodies are read before admission, so the
  bytes of bodies being read or held at once are counted against `max_body_memory_bytes`
  (each byte four times: the bytes, their parse, and what validating it makes). A body that
  would pass the budget, by its declared length or as it streams in, is refused with 503
  `overloaded`, `Retry-After` and `Connection: close`, unread or no further read: nothing
  ran, so a retry is safe. The budget always fits one body of the service's largest size.
  It is shared fairly between clients (`BodyBudget`): a client may use what is free, but when
  the budget is full, one that holds less than an equal share still gets room, by cutting
  off (the same 503) the bodies still being read of clients past their share. So a client
  that stalls bodies or fills the budget is refused itself; every other client's bodies
  are read as if it were not there.
- **Bodies.** A declared or streamed body over its route's limit (`route_body_bytes`, never
  more than `max_body_bytes`) is 413; a body that does not arrive within `body_timeout_s` is
  408; a body that is not UTF-8, that escapes a lone surrogate, that nests deeper than
  `max_json_depth`, or that holds more than `max_json_containers` objects and arrays or more
  than `max_json_members` object members is 400. Those bounds are what keeps the parsers'
  time and memory per request small (bench/hostile_callers.py): they are counted at C speed,
  and off the event loop for a large body, so `/health` never waits behind a hostile one.
  Each answer is in the protocol's error shape, so a hostile body is never a 500 and never
  reaches a parser that could turn it into one.

Health and metrics bypass admission: an overloaded service still says it is alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import Counter, deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from fastapi.responses import JSONResponse

from proofgym.serving import deadline, timeouts
from proofgym.serving.bodybudget import BodyBudget, BodyRead
from proofgym.wire.jsonlimits import depth

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BUDGET_KEY = deadline.BUDGET_HEADER.lower().encode()
CLIENT_HEADER = "X-Proofgym-Client"
CLIENT_KEY = CLIENT_HEADER.lower().encode()
#: the scope key under which the guard leaves the body it read and checked
BODY_KEY = "proofgym.body"
#: bodies over this are checked in a worker thread, so the event loop keeps answering
OFFLOAD_BYTES = 1 << 20
UNGUARDED = frozenset({"/health", "/metrics"})
#: what a body's byte costs the memory budget: the bytes, the text parsing them makes, and what
#: validating that text makes (measured: a 31 MB body of one JSON string costs a route 124 MB,
#: bench/HOSTILE_CALLERS.md)
BODY_COST = 4
# An escaped backslash, or a JSON escape of a UTF-16 surrogate (a lone one decodes to a str
# no UTF-8 body can carry); matching escaped backslashes too keeps `\\ud800` (text) apart.
_ESCAPES = re.compile(rb"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# A JSON string (written so the regex engine runs through it without backtracking), or a
# character that opens an object or array or separates a member's key from its value.
_STRUCTURE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{\[:]')


@dataclass(frozen=True)
class GuardLimits:
    """The limits one service enforces (from its settings)."""

    max_inflight: int = 1024
    max_queue: int = 16384
    max_body_bytes: int = 32 * 1024 * 1024
    body_timeout_s: float = 30.0
    max_json_depth: int = 64
    max_json_containers: int = 65_536
    max_json_members: int = 131_072
    retry_after_s: int = 1
    #: lower body limits per route: (a regular expression the whole path matches, bytes)
    route_body_bytes: tuple[tuple[str, int], ...] = ()
    #: slots one client may hold; None: all but an eighth of `max_inflight`
    max_inflight_per_client: int | None = None
    #: bytes of bodies read or held at once, each counted BODY_COST times (the module docstring);
    #: never less than what one body of `max_body_bytes` needs
    max_body_memory_bytes: int = 256 * 1024 * 1024

    def content_problem(self, body: bytes) -> str | None:
        """Why these limits refuse `body`'s content (see `body_problem`), or None. The agent
        asks it of a policy's tool arguments before sending them: what the guard would refuse
        is the policy's error to score, not an outage to mask."""
        return body_problem(
            body, self.max_json_depth, self.max_json_containers, self.max_json_members
        )

    def body_memory(self) -> int:
        """The body memory budget in force: the configured one, or one largest body's worth."""
        return max(self.max_body_memory_bytes, BODY_COST * self.max_body_bytes)

    def per_client(self) -> int:
        """How many requests one client may have running at once."""
        if self.max_inflight_per_client is not None:
            return max(1, min(self.max_inflight_per_client, self.max_inflight))
        return max(1, self.max_inflight - self.max_inflight // 8)


def error_answer(
    kind: str, message: str, status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The wire form of an error: `{"error": {"kind", "message"}}` with its status code."""
    return JSONResponse({"error": {"kind": kind, "message": message}}, status, headers=headers)


def body_problem(
    body: bytes,
    max_depth: int,
    max_containers: int = 65_536,
    max_members: int = 131_072,
) -> str | None:
    """Why `body` cannot be a request body (not UTF-8, a lone surrogate, too deep, more
    objects and arrays or more object members than any request needs), or None.

    Cheap on the common body: ASCII needs no decoding, and the escape and depth scans run only
    when a byte count says they could matter. The structure bounds are counted at C speed
    before any parsing: a 31 MB body of `{}`, or one object of 2.5 million keys, would
    otherwise cost the parser gigabytes and hold the event loop for seconds."""
    containers, members = structure_counts(body, max_containers, max_members)
    if containers > max_containers:
        return f"the body holds more objects and arrays than the limit of {max_containers}"
    if members > max_members:
        return f"the body holds more object members than the limit of {max_members}"
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


def structure_counts(body: bytes, max_containers: int, max_members: int) -> tuple[int, int]:
    """How many objects and arrays, and how many object members, JSON text `body` holds,
    counted exactly up to one past each bound (enough to refuse).

    Counted over the raw bytes first, at C speed (an upper bound: braces and colons inside
    strings count too). Only a body over a bound is scanned token by token, strings skipped,
    stopping as soon as a bound is passed: text full of braces is not refused for them, and
    a hostile body costs the scan a bound's worth of tokens, not its millions."""
    containers = body.count(b"{") + body.count(b"[")
    members = body.count(b":")
    if containers <= max_containers and members <= max_members:
        return containers, members
    containers = members = 0
    for m in _STRUCTURE.finditer(body):
        token = m.group()
        if token == b":":
            members += 1
            if members > max_members:
                break
        elif token in (b"{", b"["):
            containers += 1
            if containers > max_containers:
                break
    return containers, members


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
    """A gate fair between clients: `max_inflight` pass (at most `per_client` of them from one
    client), `max_queue` wait, others are refused. A freed slot goes to the waiting client
    that holds the fewest (in turn among equals), each client's own requests in arrival
    order."""

    def __init__(self, max_inflight: int, max_queue: int, per_client: int | None = None) -> None:
        self.max_inflight = max_inflight
        self.max_queue = max_queue
        self.per_client = per_client or max_inflight
        self.inflight = 0
        self.held: Counter[str] = Counter()
        self.admitted: dict[str, int] = {}  # client -> when it last got a slot (a tick)
        self.ticks = 0
        # client -> its waiters, oldest first; the dict's order is the turn order
        self.waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self.queued = 0

    def try_enter(self, client: str = "") -> asyncio.Future[None] | bool:
        """True: admitted now. False: refused. A future: admitted when it resolves."""
        if (
            self.inflight < self.max_inflight
            and self.held[client] < self.per_client
            and client not in self.waiting
        ):
            self._admit(client)
            return True
        if self.queued >= self.max_queue:
            return False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(client, deque()).append(future)
        self.queued += 1
        return future

    def abandon(self, future: asyncio.Future[None], client: str = "") -> None:
        """A waiter gave up (its connection went away): drop it, or pass its turn on."""
        if future.done() and not future.cancelled():
            self.leave(client)  # it had been admitted: hand the slot to the next in line
            return
        future.cancel()
        line = self.waiting.get(client)
        if line is not None:
            with contextlib.suppress(ValueError):
                line.remove(future)
                self.queued -= 1
            if not line:
                del self.waiting[client]
                if not self.held[client]:
                    self.admitted.pop(client, None)

    def leave(self, client: str = "") -> None:
        """One admitted request of `client` finished: admit waiters that may now run."""
        self.inflight -= 1
        self.held[client] -= 1
        if self.held[client] <= 0:
            del self.held[client]
            if client not in self.waiting:
                self.admitted.pop(client, None)  # remembered only while it holds or waits
        self._dispatch()

    def _admit(self, client: str) -> None:
        self.inflight += 1
        self.held[client] += 1
        self.ticks += 1
        self.admitted[client] = self.ticks

    def _dispatch(self) -> None:
        while self.inflight < self.max_inflight and self.waiting:
            # the waiting client holding the fewest slots; among equals, the least recently
            # admitted
            client = min(self.waiting, key=lambda c: (self.held[c], self.admitted.get(c, -1)))
            if self.held[client] >= self.per_client:
                return  # every waiting client holds its share: the free slots wait for others
            line = self.waiting.pop(client)
            while line:
                future = line.popleft()
                self.queued -= 1
                if not future.done():
                    self._admit(client)
                    future.set_result(None)
                    break
            if line:
                self.waiting[client] = line  # back of the turn order


class RequestGuard:
    """Pure ASGI middleware enforcing `GuardLimits` (see the module docstring)."""

    def __init__(
        self, app: ASGIApp, limits: GuardLimits, on_refusal: Callable[[str], None] | None = None
    ) -> None:
        self.app = app
        self.limits = limits
        self.admission = Admission(limits.max_inflight, limits.max_queue, limits.per_client())
        self.bodies = BodyBudget(limits.body_memory())
        self.on_refusal = on_refusal or (lambda kind: None)
        self.route_limits = [
            (re.compile(pattern), min(size, limits.max_body_bytes))
            for pattern, size in limits.route_body_bytes
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in UNGUARDED:
            await self.app(scope, receive, send)
            return
        budget = declared = client = None
        for key, value in scope["headers"]:  # one pass: this runs for every request
            if key == b"content-length":
                declared = value
            elif key == BUDGET_KEY:
                budget = value
            elif key == CLIENT_KEY:
                client = value
        try:
            seconds = deadline.parse_budget(budget)
        except deadline.BadBudget as exc:
            await self._refuse(scope, receive, send, "malformed_body", str(exc), 400)
            return
        # The caller's deadline starts counting on arrival, the wait for admission included.
        who = client.decode("latin-1")[:128] if client else _address(scope)
        with deadline.within(seconds):
            await self._guarded(scope, receive, send, declared, who)

    async def _guarded(
        self, scope: Scope, receive: Receive, send: Send, declared: bytes | None, client: str
    ) -> None:
        # The body first, then a slot: a caller that trickles its body waits on its own
        # connection, never holding one of the `max_inflight` slots others need. What the
        # body holds of the memory budget is held until the request is answered.
        read = BodyRead(client, asyncio.current_task())
        try:
            body = await self._read_body(scope, receive, send, declared, read)
            if body is None:
                return  # answered (too large, too slow, malformed, cut) or the caller went away
            await self._admitted(scope, receive, send, client, body)
        finally:
            self.bodies.release(read)

    async def _admitted(
        self, scope: Scope, receive: Receive, send: Send, client: str, body: bytes
    ) -> None:
        entry = self.admission.try_enter(client)
        if entry is False:
            await self._overloaded(
                scope,
                receive,
                send,
                f"the service is at capacity ({self.limits.max_inflight} running, "
                f"{self.limits.max_queue} waiting)",
            )
            return
        if entry is not True:
            try:
                await entry
            except BaseException:
                self.admission.abandon(entry, client)
                raise
        scope[BODY_KEY] = body  # read once: a fast route (proofgym.serving.fastroute) takes it here
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
            self.admission.leave(client)

    async def _overloaded(self, scope: Scope, receive: Receive, send: Send, why: str) -> None:
        await self._refuse(
            scope,
            receive,
            send,
            "overloaded",
            f"{why}; retry after {self.limits.retry_after_s}s",
            503,
            {"Retry-After": str(self.limits.retry_after_s), "Connection": "close"},
        )

    async def _no_memory(self, scope: Scope, receive: Receive, send: Send, client: str) -> None:
        # Only a caller past its own share is refused while others hold bodies (BodyBudget).
        share = self.bodies.share(client) // BODY_COST
        await self._overloaded(
            scope,
            receive,
            send,
            f"the service holds as many request bodies as it may at once "
            f"({self.bodies.limit // BODY_COST} bytes; this caller's share is {share})",
        )

    async def _read_body(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        declared: bytes | None,
        read: BodyRead,
    ) -> bytes | None:
        """The whole body, within the size, time and memory limits and of bounded content;
        None when it was refused (and answered) or the caller went away. `read` holds what it
        took of the memory budget, for the caller to release."""
        limit = self.body_limit(scope["path"])
        if declared is not None and declared.isdigit():
            size = int(declared)
            if size > limit:
                await self._too_large(scope, receive, send, limit)
                return None
            if not self.bodies.fits(BODY_COST * size, read.client):
                await self._no_memory(scope, receive, send, read.client)  # refused unread
                return None
        chunks: list[bytes] = []
        size = 0
        more = True
        try:
            async with timeouts.timeout(self.limits.body_timeout_s):
                while more:
                    read.reading = True  # while it waits, another caller's need may cut it
                    try:
                        message = await receive()
                    finally:
                        read.reading = False
                    if message["type"] == "http.disconnect":
                        return None  # the caller went away: nothing to answer
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        await self._too_large(scope, receive, send, limit)
                        return None
                    if chunk:
                        if not self.bodies.take(BODY_COST * len(chunk), read.client, read):
                            await self._no_memory(scope, receive, send, read.client)
                            return None
                        chunks.append(chunk)
                    more = message.get("more_body", False)
        except asyncio.CancelledError:
            # cut off for another caller's room (BodyBudget); any other cancellation goes on
            task = read.task
            if not read.cut or task is None or task.uncancel() > 0:
                raise
            await self._overloaded(
                scope,
                receive,
                send,
                "this caller held more than its share of the request bodies the service holds "
                "at once while another caller needed room, so this body was not read further",
            )
            return None
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
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        del chunks
        problem = None
        if body:
            # a large body is scanned in a worker thread: the loop keeps answering others
            if len(body) > OFFLOAD_BYTES:
                problem = await asyncio.to_thread(self.limits.content_problem, body)
            else:
                problem = self.limits.content_problem(body)
        if problem is not None:
            await self._refuse(scope, receive, send, "malformed_body", problem, 400)
            return None
        return body

    def body_limit(self, path: str) -> int:
        """The most bytes a body sent to `path` may have."""
        for pattern, size in self.route_limits:
            if pattern.fullmatch(path):
                return size
        return self.limits.max_body_bytes

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        await self._refuse(
            scope,
            receive,
            send,
            "body_too_large",
            f"the request body is over this route's limit of {limit} bytes",
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


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else ""
