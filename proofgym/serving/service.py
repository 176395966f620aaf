"""What every proofgym service shares: health, metrics, bearer auth and error answers."""

from __future__ import annotations

import asyncio
import bisect
import hmac
import itertools
import logging
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from proofgym import VERSION
from proofgym.serving.fastroute import FastRoutes
from proofgym.serving.guard import (
    ASGIApp,
    GuardLimits,
    Message,
    Receive,
    RequestGuard,
    Scope,
    Send,
    error_answer,
)
from proofgym.wire.errors import AtCapacity, ProofgymError, describe_validation
from proofgym.wire.protocol import ErrorBody, Health

log = logging.getLogger("proofgym")
T = TypeVar("T")

#: FastAPI options of every service. FastAPI's own OpenTelemetry layer asks the global tracer,
#: meter and logger providers (environment lookups) on every request, configured or not: 2%
#: of a resources server's CPU. A service's metrics are its Prometheus `/metrics`.
APP_OPTIONS: dict[str, Any] = {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


class RequestStats:
    """`proofgym_requests_total` (by service, route and status) and `proofgym_request_seconds`
    (by service and route, prometheus_client's default buckets) of one service, exposed as
    prometheus_client's own Counter and Histogram expose them.

    Every request passes here, and prometheus_client's metrics take a lock for each
    increment and find a latency's bucket in a Python loop; these are plain integers and a
    bisection. Updated and read on the service's event loop only (one thread)."""

    BOUNDS = tuple(b for b in Histogram.DEFAULT_BUCKETS if b != float("inf"))
    #: the buckets' `le` labels, written as prometheus_client writes them
    LE = tuple(floatToGoString(b) for b in (*BOUNDS, float("inf")))  # type: ignore[no-untyped-call]

    def __init__(self, service: str) -> None:
        self.service = service
        self.counts: dict[tuple[str, int], int] = {}
        # route -> requests per bucket (not cumulative; the last is +Inf), then their sum
        self.latency: dict[str, list[float]] = {}

    def observe(self, route: str, status: int, seconds: float) -> None:
        """Count one answered request of `route` and its latency."""
        key = (route, status)
        self.counts[key] = self.counts.get(key, 0) + 1
        row = self.latency.get(route)
        if row is None:
            row = self.latency[route] = [0] * (len(self.BOUNDS) + 2)
        row[bisect.bisect_left(self.BOUNDS, seconds)] += 1  # a bucket holds what is <= its bound
        row[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        """The two metric families (prometheus_client's collector protocol)."""
        requests = CounterMetricFamily(
            "proofgym_requests", "HTTP requests", labels=["service", "route", "status"]
        )
        for (route, status), count in self.counts.items():
            requests.add_metric([self.service, route, str(status)], count)
        yield requests
        latency = HistogramMetricFamily(
            "proofgym_request_seconds", "HTTP request latency", labels=["service", "route"]
        )
        for route, row in self.latency.items():
            cumulative = itertools.accumulate(row[:-1])
            buckets = list(zip(self.LE, cumulative, strict=True))
            latency.add_metric([self.service, route], buckets, row[-1])
        yield latency


class Metrics:
    """Prometheus metrics of one service, in a registry of its own (several apps share tests)."""

    def __init__(self, service: str) -> None:
        self.registry = CollectorRegistry()
        self.requests = RequestStats(service)
        self.registry.register(self.requests)
        self.errors = Counter(
            "proofgym_errors", "Error answers by kind", ["service", "kind"], registry=self.registry
        )
        self.open_sessions = Gauge(
            "proofgym_open_sessions", "Open sessions", ["service", "env"], registry=self.registry
        )
        self.service = service

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return bytes(generate_latest(self.registry))


def bearer_token(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """The credentials of an `Authorization: Bearer ...` header (the scheme in any case)."""
    got = next((v for k, v in headers if k == b"authorization"), None)
    if got is None:
        return None
    scheme, _, credentials = got.strip().partition(b" ")
    return credentials.strip() if scheme.lower() == b"bearer" else None


def token_accepted(headers: list[tuple[bytes, bytes]], expected: bytes | None) -> bool:
    """Whether `headers` (an ASGI scope's) carry the bearer token `expected` (any request does
    when none is set): the scheme in any case, the token compared in constant time. Every door
    asks this, the WebSocket of `serve openenv` included."""
    if expected is None:
        return True
    got = bearer_token(headers)
    return got is not None and hmac.compare_digest(got, expected)


class _MetricsAndAuth:
    """Pure ASGI middleware: counts requests and checks the bearer token (cheap on the hot path)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, token: str | None) -> None:
        self.app = app
        self.metrics = metrics
        self.expected = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        expected = self.expected
        if (
            expected is not None
            and scope["path"] != "/health"
            and not token_accepted(scope["headers"], expected)
        ):
            self.metrics.errors.labels(self.metrics.service, "unauthorized").inc()
            sent = bearer_token(scope["headers"]) is not None
            why = "the bearer token is wrong" if sent else "no bearer token was sent"
            resp = error_answer(
                "unauthorized",
                f"{why}: send `Authorization: Bearer <PROOFGYM_TOKEN>`",
                401,
                {"WWW-Authenticate": 'Bearer realm="proofgym"'},
            )
            await resp(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = message["status"]
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception:
            # A bug answers a whole 500 here, so the server sees no exception and the
            # kept-alive connection (which another caller's request may ride next) stays
            # usable; Starlette's own handler would re-raise and the connection would drop.
            if started:
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            self.metrics.errors.labels(self.metrics.service, "internal").inc()
            await error_answer("internal", "internal error", 500)(scope, receive, send_tracked)
        finally:
            path = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.requests.observe(path, status, time.perf_counter() - start)


ERROR_STATUSES = {
    400: "the request cannot be acted on (bad input, malformed body)",
    401: "missing or wrong bearer token",
    404: "an unknown route, environment, session, tool or control",
    405: "the method is not allowed on this route (`Allow` lists the allowed ones)",
    408: "the request body did not arrive in time",
    409: "the request contradicts what exists or runs",
    413: "the request body is over the service's limit",
    422: "the body is not what the route takes",
    429: "a capacity limit of the route (sessions); retry after `Retry-After`",
    500: "a bug of ours (never on purpose)",
    502: "an upstream answered something unusable",
    503: "overloaded (retry after `Retry-After`) or a dependency unavailable",
}


def document_raw_route(
    app: FastAPI, path: str, summary: str, body: dict[str, Any], answer: type[BaseModel]
) -> None:
    """Put a POST route that FastAPI does not see (a Starlette `Route` that reads its body
    raw) into the OpenAPI document, with the path's parameters, `body` (a JSON schema) and
    `answer`'s schema; its error answers are documented like every other route's."""
    params = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in (part[1:-1] for part in path.split("/") if part.startswith("{"))
    ]
    raw: dict[str, Any] = app.state.__dict__.setdefault("raw_routes", {})
    raw[path] = (summary, params, body, answer)


def _raw_paths(app: FastAPI, schemas: dict[str, Any]) -> dict[str, Any]:
    paths = {}
    for path, (summary, params, body, answer) in app.state.__dict__.get("raw_routes", {}).items():
        full = answer.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in full.pop("$defs", {}).items():
            schemas.setdefault(name, sub)
        schemas[answer.__name__] = full
        paths[path] = {
            "post": {
                "summary": summary,
                "parameters": params,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body}},
                },
                "responses": {
                    "200": {
                        "description": "Successful Response",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{answer.__name__}"}
                            }
                        },
                    }
                },
            }
        }
    return paths


def document_errors(app: FastAPI) -> None:
    """Make the OpenAPI document name every error answer (status, meaning, `ErrorBody`), and
    hold the raw routes (`document_raw_route`)."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = original()
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schema.setdefault("paths", {}).update(_raw_paths(app, schemas))
        full = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in full.pop("$defs", {}).items():
            schemas.setdefault(name, sub)
        schemas["ErrorBody"] = full
        ref = {"$ref": "#/components/schemas/ErrorBody"}
        for path_item in schema.get("paths", {}).values():
            for operation in path_item.values():
                answers = operation.setdefault("responses", {})
                answers.pop("422", None)  # FastAPI's HTTPValidationError: not our shape
                for status, meaning in ERROR_STATUSES.items():
                    answers.setdefault(
                        str(status),
                        {"description": meaning, "content": {"application/json": {"schema": ref}}},
                    )
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def install_common(
    app: FastAPI,
    service: str,
    token: str | None,
    limits: GuardLimits | None = None,
    instance: str | None = None,
    *,
    health: bool = True,
) -> Metrics:
    """Add `/health` (naming `instance`, the id `proofgym up` gave this process; `health`
    False: the app answers its own, as a peer's protocol shapes it), `/metrics`, auth, the
    request guard (`proofgym.serving.guard`) and the error answers of docs/protocol.md to
    `app`. Long on purpose: the routes and handlers every service shares, each a closure over
    its app."""
    metrics = Metrics(service)
    answer = Health(service=service, version=VERSION, instance=instance)

    if health:

        @app.get("/health", response_model=Health, response_model_exclude_none=True)
        async def health_route() -> Health:
            return answer

    @app.get("/metrics")
    async def metrics_route() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.exception_handler(ProofgymError)
    async def on_proofgym_error(request: Request, exc: ProofgymError) -> JSONResponse:
        metrics.errors.labels(service, exc.kind).inc()
        headers = None
        if isinstance(exc, AtCapacity):
            headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
        return error_answer(exc.kind, exc.message, exc.status, headers)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        metrics.errors.labels(service, "invalid_request").inc()
        return error_answer("invalid_request", describe_validation(exc.errors()), 422)

    @app.exception_handler(404)
    async def on_not_found(request: Request, exc: Exception) -> JSONResponse:
        detail = getattr(exc, "detail", None)
        message = (
            detail
            if isinstance(detail, str) and detail != "Not Found"
            else (f"no route {request.method} {request.url.path}")
        )
        return error_answer("not_found", message, 404)

    @app.exception_handler(405)
    async def on_bad_method(request: Request, exc: Exception) -> JSONResponse:
        allow = (getattr(exc, "headers", None) or {}).get("Allow") or _allowed(app, request)
        return error_answer(
            "method_not_allowed",
            f"{request.method} is not allowed on {request.url.path}; allowed: {allow}",
            405,
            {"Allow": allow},
        )

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # what FastAPI and Starlette raise themselves (a body that is not JSON, ...): the
        # protocol's error shape, never `{"detail": ...}`
        if exc.status_code == 404:
            return await on_not_found(request, exc)
        if exc.status_code == 405:
            return await on_bad_method(request, exc)
        kind = {400: "malformed_body", 401: "unauthorized", 413: "body_too_large"}.get(
            exc.status_code, "bad_request" if exc.status_code < 500 else "internal"
        )
        metrics.errors.labels(service, kind).inc()
        return error_answer(
            kind, str(exc.detail), exc.status_code, dict(exc.headers) if exc.headers else None
        )

    @app.exception_handler(Exception)
    async def on_bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        metrics.errors.labels(service, "internal").inc()
        return error_answer("internal", f"internal error: {type(exc).__name__}", 500)

    def refused(kind: str) -> None:
        metrics.errors.labels(service, kind).inc()

    app.state.fast_routes = []  # filled by fast_post as the service declares its hot routes
    app.add_middleware(FastRoutes, routes=app.state.fast_routes, handlers=app.exception_handlers)
    app.add_middleware(RequestGuard, limits=limits or GuardLimits(), on_refusal=refused)
    app.add_middleware(_MetricsAndAuth, metrics=metrics, token=token)
    document_errors(app)
    return metrics


async def while_connected(
    request: Request, work: Coroutine[Any, Any, T], poll_s: float = 0.25
) -> T | None:
    """The result of `work`, or None when the caller disconnected first: then `work` is
    cancelled, so a slow backend stops working for a caller that has gone (a judge call that
    timed out, a client that gave up) instead of holding up the callers still waiting.

    `work` runs in the caller's own task. Only work still running after `poll_s` gets a
    watcher, which asks every `poll_s` whether the caller is still there: an instant answer
    (most model calls behind a fast endpoint) costs one timer, not a task and a wait."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    gone = False
    watcher: asyncio.Task[None] | None = None

    async def watch() -> None:
        nonlocal gone
        while not await request.is_disconnected():
            await asyncio.sleep(poll_s)
        gone = True
        task.cancel()

    def start_watching() -> None:
        nonlocal watcher
        watcher = loop.create_task(watch())

    timer = loop.call_later(poll_s, start_watching)
    try:
        result = await work
    except asyncio.CancelledError:
        if gone and task.uncancel() == 0:
            return None  # cancelled by the watcher alone: the caller has gone
        raise
    finally:
        timer.cancel()
        if watcher is not None:
            watcher.cancel()
    if gone:  # the work kept its result through the cancel; no one is there to take it
        task.uncancel()
        return None
    return result


def _allowed(app: FastAPI, request: Request) -> str:
    """The methods the routes matching this path take (for `Allow`)."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        route_methods = getattr(route, "methods", None)
        if match != Match.NONE and route_methods:
            methods |= set(route_methods)
    return ", ".join(sorted(methods)) or "GET"
