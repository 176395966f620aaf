"""A lean HTTP/1.1 client for the calls between services: pooled keep-alive connections, one
write per request, responses parsed by httptools (uvicorn's own parser, already here).

A rollout makes six calls from the agent and two from the model interface, and aiohttp's
client machinery was the largest single cost left in both (44% and 28% of their CPU under the
hot-path bench: request and response objects, payload registries, timers, trace hooks). This
client does only what those calls need:

- plain `http://` (an `https://` URL goes to `proofgym.clients.http.AiohttpTransport`);
- at most `limit_per_host` connections to one host and port, the rest waiting in order; an
  idle connection is dropped after `KEEPALIVE_S` (before servers drop theirs), and one the
  server has closed is never reused; a reused connection the server closes without a byte of
  answer (it closed the idle connection as the request went out) is retried once on a new
  connection, so that a race of keep-alive timers never counts as a failed call;
- bodies by Content-Length, chunked, or up to the server's close; no redirects, proxies or
  compression (none of our hops uses them);
- the same errors as the aiohttp transport: `ConnectFailed` when nothing reached the server
  (refused, unresolvable, not connected in time), `TimeoutError` when the whole call outlived
  `timeout`, `ConnectionError` when the server went away without a whole answer (or sent
  one that is not HTTP), `ResponseTooLarge` when the answer's body is over
  `max_response_bytes` (declared or as it arrives: the connection is dropped, the rest
  unread).

A header name or value holding a line break is refused (ValueError) before anything is sent.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import time
import typing
from typing import Any
from urllib.parse import urlsplit

import httptools

from proofgym.serving import timeouts

#: drop idle connections well before servers do (uvicorn: 75 s, proofgym.serving.server)
KEEPALIVE_S = 15.0
#: resolved addresses are kept this long
DNS_TTL_S = 300.0


#: the largest answer body read by default: a whole rollout's verdict or a long generation with
#: its logprobs is a few megabytes
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class ConnectFailed(Exception):
    """The request never reached the server (refused, DNS, connect timeout): safe to retry.
    Every transport of `proofgym.clients.http` raises this one (it is defined here, below them)."""


class ResponseTooLarge(ConnectionError):
    """The answer's body is over the client's limit; it was not read (the same answer would
    come again: not a call to retry)."""


class _Unanswered(ConnectionError):
    """The server closed the connection before a byte of the answer came."""


class _Connection(asyncio.Protocol):
    """One connection: writes a request, parses its answer, and says whether it can be reused."""

    def __init__(self, max_body: int = MAX_RESPONSE_BYTES) -> None:
        self.max_body = max_body
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.answer: asyncio.Future[tuple[int, list[tuple[bytes, bytes]], bytes]] | None = None
        self.lost = False
        self.reusable = False
        self.reused = False  # this request went out on a connection kept from an earlier one
        self.idle_since = 0.0
        self._reset()

    def _reset(self) -> None:
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.size = 0
        self.headers_done = False
        self.delimited = False  # the body's end is known (Content-Length or chunked)
        self.received = False

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: no isinstance check
        self.transport = typing.cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self.answer is None or self.answer.done():
            if self.transport is not None and self.transport.is_closing():
                return  # the rest of an answer refused as too large

            self.close()  # bytes nobody asked for: this connection cannot be trusted again
            return
        self.received = True
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            self._fail(ConnectionError(f"the answer is not HTTP: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.reusable = False
        if self.answer is None or self.answer.done():
            return
        if self.headers_done and not self.delimited:  # a body that ends with the connection
            self._finish()
        elif not self.received:
            self._fail(_Unanswered("the server closed the connection without answering"))
        else:
            self._fail(ConnectionError("the server closed the connection mid-answer"))

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        names = {n.lower() for n, _ in self.headers}
        self.delimited = b"content-length" in names or b"transfer-encoding" in names
        declared = next((v for n, v in self.headers if n.lower() == b"content-length"), b"")
        if declared.strip().isdigit() and int(declared) > self.max_body:
            self._too_large()

    def on_body(self, body: bytes) -> None:
        self.size += len(body)
        if self.size > self.max_body:
            self._too_large()
            return
        self.body.append(body)

    def _too_large(self) -> None:
        self.body.clear()
        self._fail(ResponseTooLarge(f"the answer's body is over {self.max_body} bytes"))
        self.close()

    def on_message_complete(self) -> None:
        self.reusable = bool(self.parser.should_keep_alive()) and not self.lost
        self._finish()

    def _finish(self) -> None:
        if self.answer is not None and not self.answer.done():
            status = self.parser.get_status_code()
            self.answer.set_result((status, self.headers, b"".join(self.body)))

    def _fail(self, exc: Exception) -> None:
        self.reusable = False
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(exc)

    def request(self, data: bytes) -> asyncio.Future[tuple[int, list[tuple[bytes, bytes]], bytes]]:
        """Send one whole request; the future of its (status, headers, body)."""
        assert self.transport is not None
        self._reset()
        self.reusable = False
        self.answer = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return self.answer

    def usable(self, now: float) -> bool:
        """Whether this idle connection can carry another request."""
        return (
            self.reusable
            and not self.lost
            and self.transport is not None
            and not self.transport.is_closing()
            and now - self.idle_since < KEEPALIVE_S
        )

    def close(self) -> None:
        self.reusable = False
        if self.transport is not None:
            self.transport.close()


class _Pool:
    """The connections to one host and port: at most `limit` at once, the rest wait in order."""

    def __init__(
        self,
        host: str,
        port: int,
        limit: int,
        connect_timeout: float,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.host, self.port = host, port
        self.max_response_bytes = max_response_bytes
        self.slots = asyncio.Semaphore(limit)
        self.idle: collections.deque[_Connection] = collections.deque()
        self.connect_timeout = connect_timeout
        self.addresses: list[tuple[Any, ...]] = []
        self.resolved_at = 0.0

    async def _resolved(self) -> list[tuple[Any, ...]]:
        now = time.monotonic()
        if not self.addresses or now - self.resolved_at > DNS_TTL_S:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    self.host, self.port, type=socket.SOCK_STREAM
                )
            except OSError as exc:
                raise ConnectFailed(f"cannot resolve {self.host}: {exc}") from exc
            self.addresses = list(dict.fromkeys(info[4][:2] for info in infos))
            self.resolved_at = now
        return self.addresses

    async def connect(self, fresh: bool = False) -> _Connection:
        """A connection: an idle one still usable (unless `fresh`), else a new one (its
        `reused` False); ConnectFailed if none."""
        now = time.monotonic()
        while self.idle and not fresh:
            conn = self.idle.pop()  # the most recent: the least likely to be closing
            if conn.usable(now):
                conn.reused = True
                return conn
            conn.close()
        loop = asyncio.get_running_loop()
        failures = []
        # every address in turn (`localhost` may name ::1 first, a server listen on 127.0.0.1
        # only); the one that answered is tried first next time
        for address in await self._resolved():
            try:
                async with asyncio.timeout(self.connect_timeout):
                    _, conn = await loop.create_connection(
                        lambda: _Connection(self.max_response_bytes), address[0], address[1]
                    )
            except TimeoutError:
                failures.append(f"{address[0]}: not connected within {self.connect_timeout}s")
                continue
            except OSError as exc:
                failures.append(f"{address[0]}: {exc}")
                continue
            if address != self.addresses[0]:
                self.addresses = [address, *(a for a in self.addresses if a != address)]
            return conn
        raise ConnectFailed(f"cannot connect to {self.host}:{self.port}: {'; '.join(failures)}")

    def release(self, conn: _Connection) -> None:
        if conn.reusable and not conn.lost:
            conn.idle_since = time.monotonic()
            self.idle.append(conn)
        else:
            conn.close()

    def close(self) -> None:
        while self.idle:
            self.idle.pop().close()


def _head(method: str, target: str, host: str, headers: dict[str, str], length: int) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        if any(c in name or c in value for c in "\r\n\0"):
            raise ValueError(f"header {name!r} holds a line break")
        lines.append(f"{name}: {value}")
    if length or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class LeanResponse:
    """What `LeanClient.request` returns: status, headers (as sent, in order) and body."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def header_dict(self) -> dict[str, str]:
        """The headers as a dict (the last of a repeated name wins)."""
        return {n.decode("latin-1"): v.decode("latin-1") for n, v in self.headers}


class LeanClient:
    """Pooled HTTP/1.1 requests to `http://` URLs (see the module); one per process."""

    def __init__(
        self,
        limit_per_host: int = 256,
        connect_timeout_s: float = 5.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.limit_per_host = limit_per_host
        self.connect_timeout = connect_timeout_s
        self.max_response_bytes = max_response_bytes
        self.pools: dict[tuple[str, int], _Pool] = {}

    def _pool(self, host: str, port: int) -> _Pool:
        pool = self.pools.get((host, port))
        if pool is None:
            pool = _Pool(
                host, port, self.limit_per_host, self.connect_timeout, self.max_response_bytes
            )
            self.pools[(host, port)] = pool
        return pool

    async def request(
        self, method: str, url: str, data: bytes | None, headers: dict[str, str], timeout: float
    ) -> LeanResponse:
        """Send `data` to `url`; the whole answer. Errors as the module says."""
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"not a plain http URL: {url}")
        port = parts.port or 80
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # IPv6
        netloc = host if port == 80 else f"{host}:{port}"
        body = data or b""
        head = _head(method, target, netloc, headers, len(body))
        pool = self._pool(parts.hostname, port)
        async with timeouts.timeout(timeout), pool.slots:
            conn = await pool.connect()
            try:
                status, got, answer = await conn.request(head + body)
            except _Unanswered:
                conn.close()
                if not conn.reused:
                    raise
                # a kept-alive connection the server had closed: once more on a new one
                conn = await pool.connect(fresh=True)
                try:
                    status, got, answer = await conn.request(head + body)
                except BaseException:
                    conn.close()
                    raise
            except BaseException:
                conn.close()  # cancelled, timed out or broken: never reused
                raise
            pool.release(conn)
        return LeanResponse(status, got, answer)

    async def aclose(self) -> None:
        """Close every idle connection."""
        for pool in self.pools.values():
            pool.close()
        self.pools.clear()
