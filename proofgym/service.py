"""What every proofgym service shares: health, metrics, bearer auth and error answers."""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from proofgym import VERSION
from proofgym.errors import AtCapacity, ProofgymError, describe_validation
from proofgym.protocol import Health

log = logging.getLogger("proofgym")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Metrics:
    """Prometheus metrics of one service, in a registry of its own (several apps share tests)."""

    def __init__(self, service: str) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "proofgym_requests",
            "HTTP requests",
            ["service", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "proofgym_request_seconds",
            "HTTP request latency",
            ["service", "route"],
            registry=self.registry,
        )
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


def error_response(
    kind: str, message: str, status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The wire form of an error: `{"error": {"kind", "message"}}` with its status code."""
    return JSONResponse({"error": {"kind": kind, "message": message}}, status, headers=headers)


class _MetricsAndAuth:
    """Pure ASGI middleware: counts requests and checks the bearer token (cheap on the hot path)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, token: str | None) -> None:
        self.app = app
        self.metrics = metrics
        self.expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.expected is not None and scope["path"] != "/health":
            got = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
            if not hmac.compare_digest(got, self.expected):
                self.metrics.errors.labels(self.metrics.service, "unauthorized").inc()
                resp = error_response("unauthorized", "missing or wrong bearer token", 401)
                await resp(scope, receive, send)
                return
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            self.metrics.requests.labels(self.metrics.service, path, str(status)).inc()
            self.metrics.latency.labels(self.metrics.service, path).observe(
                time.perf_counter() - start
            )


def install_common(app: FastAPI, service: str, token: str | None) -> Metrics:
    """Add `/health`, `/metrics`, auth and the error answers of PROTOCOL.md to `app`."""
    metrics = Metrics(service)

    @app.get("/health", response_model=Health)
    async def health() -> Health:
        return Health(service=service, version=VERSION)

    @app.get("/metrics")
    async def metrics_route() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.exception_handler(ProofgymError)
    async def on_proofgym_error(request: Request, exc: ProofgymError) -> JSONResponse:
        metrics.errors.labels(service, exc.kind).inc()
        headers = None
        if isinstance(exc, AtCapacity):
            headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
        return error_response(exc.kind, exc.message, exc.status, headers)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        metrics.errors.labels(service, "invalid_request").inc()
        return error_response("invalid_request", describe_validation(exc.errors()), 422)

    @app.exception_handler(404)
    async def on_not_found(request: Request, exc: Exception) -> JSONResponse:
        detail = getattr(exc, "detail", None)
        message = (
            detail
            if isinstance(detail, str) and detail != "Not Found"
            else (f"no route {request.method} {request.url.path}")
        )
        return error_response("not_found", message, 404)

    @app.exception_handler(405)
    async def on_bad_method(request: Request, exc: Exception) -> JSONResponse:
        return error_response(
            "method_not_allowed", f"{request.method} is not allowed on {request.url.path}", 405
        )

    @app.exception_handler(Exception)
    async def on_bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        metrics.errors.labels(service, "internal").inc()
        return error_response("internal", f"internal error: {type(exc).__name__}", 500)

    app.add_middleware(_MetricsAndAuth, metrics=metrics, token=token)
    return metrics
