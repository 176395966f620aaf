"""What the real peers send, recorded from their own types and replayed here, so that a
drift in a dependency (openai 3.x made usage fields required that NeMo Gym's openai 2.44
responses lack) shows in the default suite without installing the peers.

`tests/peer_payloads/` holds the recordings: `nemo_gym_0.7.0_verify.json` is the `/verify`
body NeMo Gym 0.7.0's `simple_agent` sends, built by NeMo Gym's own `BaseVerifyRequest` and
`NeMoGymResponse` under its pinned openai 2.44 (`make test-interop` re-checks against the
live peer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from interop.nemo_server import create_app as nemo_app
from proofgym.serving.settings import ResourcesSettings
from resources_servers.math import Env as MathEnv

PAYLOADS = Path(__file__).resolve().parent / "peer_payloads"


def recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((PAYLOADS / name).read_text()))


async def test_nemo_gym_s_own_verify_body_is_accepted_by_serve_nemo_gym() -> None:
    captured = recorded("nemo_gym_0.7.0_verify.json")
    assert captured["openai"].startswith("2.")  # recorded under the peer's own pin
    body = captured["body"]
    usage = body["response"]["usage"]["input_tokens_details"]
    assert "cache_write_tokens" not in usage  # what openai 3.x requires and 2.44 never sends
    row = {k: v for k, v in body.items() if k != "response"}
    app = nemo_app(MathEnv(), ResourcesSettings(), close_after_verify_s=0)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://nemo") as client,
    ):
        seeded = await client.post("/seed_session", json=row)
        assert seeded.status_code == 200, seeded.text
        call = body["response"]["output"][0]
        tool = await client.post(f"/{call['name']}", content=call["arguments"])
        assert tool.status_code == 200 and tool.json()["error"] is None, tool.text
        verified = await client.post("/verify", json=body)
    assert verified.status_code == 200, verified.text  # was 422: cache_write_tokens required
    answer = verified.json()
    assert answer["reward"] == 1.0 and answer["mask_sample"] is False
    assert answer["response"]["id"] == "resp_nemo_capture"  # the request echoed, as NeMo wants
