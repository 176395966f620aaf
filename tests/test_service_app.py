"""`proofgym.serving.service.ServiceApp`: after the first request, HTTP enters at proofgym's own
outer
layer, and every answer is what it was through FastAPI's whole stack."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel

from proofgym.serving.fastroute import fast_post
from proofgym.serving.service import APP_OPTIONS, ServiceApp, _MetricsAndAuth, install_common


class Ping(BaseModel):
    n: int


def build() -> ServiceApp:
    app = ServiceApp(**APP_OPTIONS)
    install_common(app, "test", "s3cret-token-value")

    @fast_post(app, "/ping")
    async def ping(body: Ping) -> Ping:
        if body.n < 0:
            raise RuntimeError("a bug")
        return Ping(n=body.n + 1)

    @app.get("/boom")
    async def boom() -> dict[str, str]:
        raise RuntimeError("a bug in a plain route")

    return app


REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/ping", {"json": {"n": 1}}),
    ("POST", "/ping", {"json": {"n": -1}}),  # the handler raises: a whole 500 in our shape
    ("POST", "/ping", {"content": b"{not json"}),  # 422 invalid_request
    ("GET", "/ping", {}),  # 405 with Allow
    ("GET", "/nowhere", {}),  # 404 not_found
    ("GET", "/boom", {}),  # a plain route that raises
    ("GET", "/health", {}),
]


async def answers(app: ServiceApp, token: str | None) -> list[tuple[int, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        got = []
        for method, path, options in REQUESTS:
            r = await client.request(method, path, headers=headers, **options)
            body = (
                r.json()
                if r.headers.get("content-type", "").startswith("application/json")
                else r.text
            )
            got.append((r.status_code, body))
        return got


async def test_answers_are_the_same_through_the_front_as_through_fastapi() -> None:
    app = build()
    assert app._front is None  # nothing built before the first request
    first = await answers(app, "s3cret-token-value")  # the first builds the stack
    assert isinstance(app._front, _MetricsAndAuth)
    again = await answers(app, "s3cret-token-value")  # through the front
    assert again == first
    statuses = [status for status, _ in first]
    assert statuses == [200, 500, 422, 405, 404, 500, 200]
    assert first[1][1]["error"]["kind"] == "internal"
    assert first[5][1]["error"]["kind"] == "internal"


async def test_auth_and_metrics_still_run_on_the_front() -> None:
    app = build()
    await answers(app, "s3cret-token-value")
    refused = await answers(app, "wrong")
    assert {status for status, _ in refused[:-1]} == {401}  # /health needs no token
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        text = (
            await client.get("/metrics", headers={"Authorization": "Bearer s3cret-token-value"})
        ).text
    assert 'proofgym_requests_total{route="/ping",service="test",status="200"} 1.0' in text
    assert 'proofgym_errors_total{kind="unauthorized",service="test"} 6.0' in text
