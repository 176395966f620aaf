"""How a proofgym service process runs: descriptors raised, slow headers cut, uvicorn tuned.

`serve(app, settings)` is what `proofgym serve` calls for every service.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import logging
import resource
import struct
import termios
from typing import Any, TypeVar

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from proofgym.serving.settings import CommonSettings
from proofgym.wire.jsonlimits import MAX_BYTES

log = logging.getLogger("proofgym")

#: uvicorn keeps an idle client connection this long; our clients drop theirs sooner
#: (proofgym.clients.http.KEEPALIVE_S), so a request is never written into a closing connection.
SERVER_KEEPALIVE_S = 75
#: below this many descriptors a service under load will run out; say so at start
LOW_NOFILE = 8192


def raise_nofile() -> tuple[int, int]:
    """Raise this process's soft open-files limit to the hard limit and return (soft, hard)
    after. A soft limit of 1,024 is a common default and far too low for
    thousands of concurrent rollouts; the hard limit is what an unprivileged process may use."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = max(soft, 1 << 20) if hard == resource.RLIM_INFINITY else hard
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-files limit to %s: %s", target, exc)
    return soft, hard


def unread_bytes(transport: asyncio.BaseTransport) -> int:
    """Bytes the kernel holds for this connection that the server has not read (0 if unknown)."""
    sock = transport.get_extra_info("socket")
    try:
        raw = fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
    except (AttributeError, OSError, ValueError):
        return 0
    return int(struct.unpack("i", raw)[0])


class CoalescedWrites:
    """A transport whose writes in one turn of the event loop leave as one write.

    uvicorn writes a response's status line and headers, then its body: two sends, so the
    caller's event loop woke twice for one answer, once for headers without a body. Here the
    writes of a turn are joined and sent at its end (`call_soon`): one send, one wake-up. Order
    is kept, `close` sends what is pending first, `abort` drops it; everything else is the
    wrapped transport's."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        """Send `data` at the end of this turn, after what this turn already wrote."""
        if self._pending is None:
            self._pending = [data]
            self._loop.call_soon(self._flush)
        else:
            self._pending.append(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def get_write_buffer_size(self) -> int:
        """What the wrapped transport holds, and what this turn has not sent yet."""
        held = sum(map(len, self._pending)) if self._pending else 0
        return self._transport.get_write_buffer_size() + held

    def close(self) -> None:
        """Send what is pending, then close."""
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        """Close at once; what is pending is dropped, as the wrapped transport drops its own."""
        self._pending = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with two more timers, so that no client holds a
    descriptor for nothing:

    - a connection that sends no byte at all is closed after `idle_timeout_s` (the keep-alive
      time: an idle new connection is treated like an idle kept-alive one);
    - a request whose headers do not all arrive within `header_timeout_s` of its first byte
      is cut off (headers trickled in byte by byte).

    Measured: timing the headers from the connection itself (10 s) cut off 4,460 of 16,384
    simultaneous rollouts, whose client had connected but not yet written under the burst.
    """

    header_timeout_s = 10.0
    idle_timeout_s = float(SERVER_KEEPALIVE_S)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        coalesced = CoalescedWrites(transport, self.loop)
        super().connection_made(coalesced)  # type: ignore[arg-type]
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm(self.idle_timeout_s)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if unread_bytes(self.transport) > 0:
            # The client sent; we have not read it yet: the event loop is behind, not the
            # client. Give it the time again.
            self._arm(self.header_timeout_s)
            return
        self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


S = TypeVar("S", bound=CommonSettings)


def tune_gc() -> None:
    """Collect the young generation less often and leave start-up objects out of full
    collections. With a thousand rollouts in flight the live heap is large, and the default
    thresholds made full collections walk it again and again: the agent's CPU per rollout
    grew with concurrency (bench/HOT_PATH.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def fit_to_descriptors(settings: S) -> S:
    """Raise the open-files limit, then shrink the guard's admission (`max_inflight` plus
    `max_queue`) to what the descriptors left after outbound pools allow, so that load
    beyond them is refused early with 503 `overloaded`, never failed deep inside a rollout
    with "Too many open files"."""
    soft, hard = raise_nofile()
    pool = getattr(settings, "pool_per_upstream", 0)
    spare = max(16, soft - 128 - 4 * pool)  # outbound pools, listening socket, files
    inflight = min(settings.max_inflight, spare)
    queue = min(settings.max_queue, spare - inflight)
    if soft < LOW_NOFILE:
        log.warning(
            "only %d open files allowed (hard limit %d): admitting %d requests at once and "
            "%d waiting; more get 503 overloaded. Raise the hard limit (ulimit -Hn, or the "
            "container's nofile ulimit) for more concurrent rollouts",
            soft,
            hard,
            inflight,
            queue,
        )
    if (inflight, queue) == (settings.max_inflight, settings.max_queue):
        return settings
    return settings.model_copy(update={"max_inflight": inflight, "max_queue": queue})


PLACEHOLDER_TOKENS = frozenset(
    {"change-me", "changeme", "change_me", "secret", "token", "password", "example", "test"}
)


def token_problem(settings: CommonSettings) -> str | None:
    """Why these settings must not serve (a placeholder token, or no token on an address
    others can reach), or None."""
    token = settings.token
    if token is not None and token.strip().lower() in PLACEHOLDER_TOKENS:
        return (
            f"PROOFGYM_TOKEN is the placeholder {token!r}: set it to a long random string, "
            "e.g. `export PROOFGYM_TOKEN=$(openssl rand -hex 16)`"
        )
    loopback = settings.host in ("127.0.0.1", "localhost", "::1")
    if token is None and not loopback and not settings.insecure_no_token:
        return (
            f"refusing to serve on {settings.host} without a token: set PROOFGYM_TOKEN (e.g. "
            "`export PROOFGYM_TOKEN=$(openssl rand -hex 16)`), bind to 127.0.0.1, or set "
            "PROOFGYM_INSECURE_NO_TOKEN=true to let anyone who reaches the port in"
        )
    return None


def serve(application: Any, settings: CommonSettings, port: int) -> None:
    """Run `application` until stopped, with the limits `settings` name."""
    tune_gc()
    protocol = type(
        "ProofgymHttpProtocol",
        (HeaderTimeoutProtocol,),
        {"header_timeout_s": settings.header_timeout_s, "idle_timeout_s": settings.idle_timeout_s},
    )
    uvicorn.run(
        application,
        host=settings.host,
        port=port,
        loop="uvloop",
        http=protocol,
        log_level=settings.log_level,
        timeout_graceful_shutdown=5,
        backlog=8192,
        timeout_keep_alive=SERVER_KEEPALIVE_S,
        ws_max_size=MAX_BYTES,  # a WebSocket frame (serve openenv) is one JSON message
    )
