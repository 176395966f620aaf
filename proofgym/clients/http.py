"""The one service-to-service HTTP client: bounded retries, backoff with jitter, `Retry-After`.

The transport is pluggable: production uses `LeanTransport` (proofgym.clients.lean_http for the
plain
http calls between services, one shared aiohttp session for anything else: both measured far
faster than httpx at high concurrency, see DESIGN.md and bench/HOT_PATH.md); tests plug an
httpx client with an ASGI transport so services run in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from proofgym.clients.lean_http import (
    MAX_RESPONSE_BYTES,
    ConnectFailed,
    LeanClient,
    ResponseTooLarge,
)
from proofgym.serving import deadline
from proofgym.serving.guard import CLIENT_HEADER
from proofgym.serving.settings import ClientSettings
from proofgym.wire.codec import decode, encode

if TYPE_CHECKING:  # httpx (and the rich it loads) only where a test plugs an httpx client
    import aiohttp  # and aiohttp only for an https:// upstream: 70 ms of a service's start
    import httpx

RETRY_STATUSES = frozenset({429, 502, 503, 504})
KEEPALIVE_S = 15.0
_TROUBLES: ContextVar[list[str] | None] = ContextVar("proofgym_troubles", default=None)


@contextlib.contextmanager
def troubles() -> Iterator[list[str]]:
    """Collect what went wrong with the attempts of every call made in the block (an upstream's
    429 or 503, a timeout, a refused connection; the newest last, the last 8 kept): when a
    caller's own timeout cancels a call, its reason can still name the upstream's answer."""
    found: list[str] = []
    token = _TROUBLES.set(found)
    try:
        yield found
    finally:
        _TROUBLES.reset(token)


def next_hop_budget(attempt_s: float) -> float:
    """The budget an attempt of `attempt_s` seconds gives the service it calls: 5% less (at
    most half a second less), the time its answer needs to travel back."""
    return max(0.0, attempt_s - min(0.5, 0.05 * attempt_s))


def _note_trouble(what: str) -> None:
    found = _TROUBLES.get()
    if found is not None:
        found.append(what)
        del found[:-8]


@dataclass
class HttpAnswer:
    """A status, its headers and the parsed JSON body (or None when the body is not JSON)."""

    status: int
    headers: dict[str, str]
    body: Any
    text: str

    def header(self, name: str) -> str | None:
        """The value of header `name`, whatever case the server wrote it in."""
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)


class Transport(Protocol):
    """Sends one request; raises ConnectFailed when nothing was sent, TimeoutError on timeout."""

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer: ...

    async def aclose(self) -> None: ...


def _parse(raw: bytes) -> Any:
    try:
        return decode(raw) if raw else None
    except ValueError:
        return None


def json_request(body: Any, headers: dict[str, str]) -> tuple[bytes | None, dict[str, str]]:
    """The bytes to send for `body` (None for no body) and the headers to send them with."""
    if body is None:
        return None, headers
    return encode(body), {**headers, "Content-Type": "application/json"}


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def http_answer(status: int, headers: dict[str, str], raw: bytes) -> HttpAnswer:
    """The answer a transport hands back for a status, its headers and the raw body."""
    return HttpAnswer(status, headers, _parse(raw), _text(raw))


class AiohttpTransport:
    """One aiohttp session for the whole process, created lazily inside the running loop."""

    def __init__(
        self,
        connect_timeout_s: float = 5.0,
        limit_per_host: int = 256,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._connect_timeout = connect_timeout_s
        self._limit_per_host = limit_per_host
        self._max_response = max_response_bytes

    def _get(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None or self._session.closed:
            # Drop idle pooled connections well before servers do (uvicorn: 75 s, set in
            # proofgym.serving.server), so a request is never written into a closing connection.
            # At most `limit_per_host` connections per upstream: more requests wait for one,
            # in order, instead of opening descriptors until the process runs out.
            connector = aiohttp.TCPConnector(
                limit=0,
                limit_per_host=self._limit_per_host,
                ttl_dns_cache=300,
                keepalive_timeout=KEEPALIVE_S,
            )
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer:
        import aiohttp

        session = self._get()
        tmo = aiohttp.ClientTimeout(total=timeout, sock_connect=self._connect_timeout)
        data, headers = json_request(body, headers)
        try:
            async with session.request(method, url, data=data, headers=headers, timeout=tmo) as r:
                limit = self._max_response
                too_large = ResponseTooLarge(f"the answer's body is over {limit} bytes")
                if (r.content_length or 0) > self._max_response:
                    raise too_large
                raw = await r.content.read(self._max_response + 1)
                if len(raw) > self._max_response or not r.content.at_eof():
                    raise too_large
                return http_answer(r.status, dict(r.headers), raw)
        except (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError) as exc:
            # Refused, unresolvable, or not accepted in time (a listen queue overflowing
            # under a burst of thousands of connections): nothing was sent.
            raise ConnectFailed(str(exc)) from exc
        except aiohttp.ClientOSError as exc:
            # The request body could not be written: the server closed a pooled connection
            # under us, so no handler ran and a retry is safe even for a tool call.
            if "Can not write request body" in str(exc):
                raise ConnectFailed(str(exc)) from exc
            raise ConnectionError(str(exc)) from exc
        except aiohttp.ClientError as exc:
            # Includes a disconnect with no answer (a server that died with the request in
            # flight): retried only for idempotent calls (see ServiceClient).
            raise ConnectionError(str(exc)) from exc

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class LeanTransport:
    """The default transport: `proofgym.clients.lean_http` for `http://` URLs (the calls between
    services), aiohttp for anything else (an `https://` model endpoint)."""

    def __init__(
        self,
        connect_timeout_s: float = 5.0,
        limit_per_host: int = 256,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._lean = LeanClient(limit_per_host, connect_timeout_s, max_response_bytes)
        self._other = AiohttpTransport(connect_timeout_s, limit_per_host, max_response_bytes)

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer:
        if not url.startswith("http://"):
            return await self._other.send(method, url, body, headers, timeout)
        data, headers = json_request(body, headers)
        r = await self._lean.request(method, url, data, headers, timeout)
        return http_answer(r.status, r.header_dict(), r.body)

    async def aclose(self) -> None:
        await self._lean.aclose()
        await self._other.aclose()


class HttpxTransport:
    """An httpx client as transport; with `httpx.ASGITransport` services run in-process."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> HttpAnswer:
        import httpx

        data, headers = json_request(body, headers)  # as the other transports send it
        try:
            r = await self.client.request(
                method, url, content=data, headers=headers, timeout=timeout
            )
        except httpx.ConnectError as exc:
            raise ConnectFailed(str(exc)) from exc
        except httpx.TimeoutException as exc:
            raise TimeoutError(str(exc)) from exc
        except httpx.TransportError as exc:
            raise ConnectionError(str(exc)) from exc
        return http_answer(r.status_code, dict(r.headers), r.content)

    async def aclose(self) -> None:
        await self.client.aclose()


class CallFailed(Exception):
    """A call that failed for good after its retries; `status` is None when nothing answered,
    and `reached` is False when no attempt even reached the server (every connection was
    refused or timed out connecting): then nothing ran there, and another server may be tried."""

    def __init__(
        self, message: str, status: int | None = None, body: Any = None, reached: bool = True
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.reached = reached


def _retry_after(answer: HttpAnswer) -> float | None:
    value = answer.header("Retry-After")
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None


def error_detail(body: Any) -> dict[str, Any]:
    """The `error` object of an error answer's body (`{"kind", "message"}`), or {}."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return dict(body["error"])
    return {}


def error_kind(answer: HttpAnswer) -> str | None:
    """The `error.kind` of an error answer, if it has one."""
    kind = error_detail(answer.body).get("kind")
    return kind if isinstance(kind, str) else None


def refused_unrun(answer: HttpAnswer) -> bool:
    """A 503 `overloaded`: the server's guard refused the request before any handler ran, so
    sending it again is safe whatever the call does."""
    return answer.status == 503 and error_kind(answer) == "overloaded"


def error_message(answer: HttpAnswer) -> str:
    """The `error.message` of an error answer, or its raw text."""
    err = error_detail(answer.body)
    if err:
        return f"{err.get('kind', 'error')}: {err.get('message', '')}"
    return answer.text[:500]


class ServiceClient:
    """JSON calls to other services with bounded retries under the caller's deadline.

    An answer over `max_response_mb` is not read, and fails the call at once (no retry).
    Retries, with exponential backoff, full jitter and a honoured `Retry-After`: a request that
    never reached its server, a 429, and, for idempotent calls only, a 502/503/504, a timeout or
    a dropped connection; at most `max_retries` of those per call. A 503 `overloaded` (refused
    before anything ran) is retried for any call and does not spend that budget. No attempt
    and no backoff outlasts the current deadline (`proofgym.serving.deadline`); each attempt sends
    its
    own limit, the smaller of the remainder and the per-try timeout, as the next hop's budget.
    Anything else is returned as it came; errors are the caller's to read.
    """

    def __init__(
        self,
        settings: ClientSettings,
        transport: Transport | None = None,
        token: str | None = None,
    ) -> None:
        self.settings = settings
        self.transport = transport or LeanTransport(
            settings.connect_timeout_s,
            settings.pool_per_upstream,
            int(settings.max_response_mb * 1024 * 1024),
        )
        # One client per process for the services' fair admission (proofgym.serving.guard).
        self.headers = {CLIENT_HEADER: f"{socket.gethostname()}-{os.getpid()}"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def _delay(self, attempt: int, hint: float | None) -> float:
        base = min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2**attempt)
        jittered = random.uniform(0, base)
        return max(jittered, min(hint, self.settings.backoff_max_s * 4)) if hint else jittered

    async def call(
        self,
        method: str,
        url: str,
        body: Any = None,
        *,
        idempotent: bool = True,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> HttpAnswer:
        """Send and retry as the class says; raise CallFailed when no usable answer came."""
        hdrs = {**self.headers, **(headers or {})}
        per_try = timeout or self.settings.request_timeout_s
        # Without a deadline, refusals are retried for at most one request timeout.
        with deadline.within(None if deadline.remaining() is not None else per_try):
            return await self._attempts(method, url, body, idempotent, hdrs, per_try)

    async def _attempts(
        self,
        method: str,
        url: str,
        body: Any,
        idempotent: bool,
        hdrs: dict[str, str],
        per_try: float,
    ) -> HttpAnswer:
        last = "no attempt"
        answered = ""  # the upstream's last answer: a later timeout must not hide it
        retries = refusals = 0
        reached = False
        while True:
            left = deadline.remaining()
            if left is not None and left <= 0:
                raise CallFailed(
                    f"deadline passed before {url} answered; last: {last}", reached=reached
                )
            tmo = per_try if left is None else min(per_try, left)
            # this attempt is abandoned after `tmo`: the hop behind it gets a little less, so
            # its own retries stop before this caller goes (not running on for nobody), and
            # its answer, which names what failed behind it, arrives while someone listens
            budget = f"{next_hop_budget(tmo):.3f}"
            if float(budget) <= 0:  # a hop with no time cannot run: the service refuses 0
                raise CallFailed(
                    f"deadline passed before {url} answered; last: {last}", reached=reached
                )
            hdrs[deadline.BUDGET_HEADER] = budget
            hint: float | None = None
            try:
                answer = await self.transport.send(method, url, body, hdrs, tmo)
            except ConnectFailed as exc:
                last = f"cannot connect to {url}: {exc}"
                _note_trouble(last)
            except ResponseTooLarge as exc:  # the same answer would come again
                raise CallFailed(f"{url}: {exc}") from exc
            except (TimeoutError, ConnectionError) as exc:
                reached = True
                last = f"{type(exc).__name__} calling {url}: {exc}"
                if answered:
                    last += f" (before that, {answered})"
                _note_trouble(last)
                if not idempotent:
                    raise CallFailed(last) from exc
            else:
                reached = True
                if refused_unrun(answer):
                    _note_trouble(f"{url} refused: {error_message(answer)}")
                    refusals += 1
                    await self._sleep(refusals, _retry_after(answer), url, answer)
                    continue
                retryable = answer.status == 429 or (idempotent and answer.status in RETRY_STATUSES)
                if not retryable:
                    return answer
                last = answered = f"{url} answered {answer.status}: {error_message(answer)}"
                _note_trouble(last)
                hint = _retry_after(answer)
                if retries == self.settings.max_retries:
                    raise CallFailed(last, answer.status, answer.body)
            if retries == self.settings.max_retries:
                raise CallFailed(last, reached=reached)
            await self._sleep(retries, hint, url, None, last)
            retries += 1

    async def _sleep(
        self,
        attempt: int,
        hint: float | None,
        url: str,
        refusal: HttpAnswer | None,
        last: str = "",
    ) -> None:
        """Back off, unless the deadline would pass first: then fail now, not after waiting,
        naming what the upstream last said."""
        pause = self._delay(min(attempt, 8), hint)
        left = deadline.remaining()
        if left is not None and pause >= left:
            what = (
                f"{url} refused: {error_message(refusal)}"
                if refusal
                else f"retrying {url}; last: {last}"
            )
            raise CallFailed(
                f"deadline passed before {what}",
                refusal.status if refusal else None,
                refusal.body if refusal else None,
            )
        await asyncio.sleep(pause)

    async def post(
        self,
        url: str,
        body: Any,
        *,
        idempotent: bool = True,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> HttpAnswer:
        """POST and return a 2xx answer (headers included); raise CallFailed for anything
        else."""
        answer = await self.call(
            "POST", url, body, idempotent=idempotent, headers=headers, timeout=timeout
        )
        if not 200 <= answer.status < 300:
            raise CallFailed(
                f"{url} answered {answer.status}: {error_message(answer)}",
                answer.status,
                answer.body,
            )
        return answer

    async def post_json(self, url: str, body: Any, **options: Any) -> Any:
        """POST and return the JSON body of a 2xx answer (`options` as `post` takes them);
        raise CallFailed for anything else."""
        return (await self.post(url, body, **options)).body

    async def aclose(self) -> None:
        """Close the transport."""
        await self.transport.aclose()
