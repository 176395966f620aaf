"""A schema fuzzer (schemathesis) against all three services: no input makes a 5xx.

Each service's own OpenAPI document drives the fuzzer: valid and invalid bodies, odd headers,
paths and query strings, in-process (ASGI). Every answer must be below 500, and every error
answer must be in our `{"error": {"kind", "message"}}` shape. Derandomized, so a failure
reproduces.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from helpers import FUZZ

from agent_server.app import create_app as agent_app
from model_interface.app import create_app as model_app
from proofgym.serving.settings import AgentSettings, ResourcesSettings
from resources_servers.base.app import create_app as resources_app

# Upstreams nobody listens on: the agent's calls fail at once, as masked rollouts (200).
AGENT = agent_app(
    AgentSettings(
        resources_urls=["http://127.0.0.1:9"],
        model_url="http://127.0.0.1:9",
        max_retries=0,
        connect_timeout_s=0.5,
    )
)
RESOURCES = resources_app(ResourcesSettings(envs=["math", "file_edit", "workflow", "game"]))
MODEL = model_app()

agent_schema = schemathesis.openapi.from_asgi("/openapi.json", AGENT)
resources_schema = schemathesis.openapi.from_asgi("/openapi.json", RESOURCES)
model_schema = schemathesis.openapi.from_asgi("/openapi.json", MODEL)


def in_our_shape(response: Any) -> bool:
    """A success, or an error answer `{"error": {"kind": str, "message": str}}`."""
    if response.status_code < 400:
        return True
    error = response.json().get("error")
    return isinstance(error, dict) and all(
        isinstance(error.get(k), str) for k in ("kind", "message")
    )


@agent_schema.parametrize()
@FUZZ
def test_the_agent_answers_no_5xx(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.text[:500])
    assert in_our_shape(response), response.text[:500]


@resources_schema.parametrize()
@FUZZ
def test_the_resources_server_answers_no_5xx(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.text[:500])
    assert in_our_shape(response), response.text[:500]


@model_schema.parametrize()
@FUZZ
def test_the_model_interface_answers_no_5xx(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.text[:500])
    assert in_our_shape(response), response.text[:500]


def test_what_the_fuzzer_found_stays_fixed() -> None:
    """An output item whose `type` is not a string made /verify a 500 (TypeError)."""
    from starlette.testclient import TestClient

    with TestClient(RESOURCES) as client:
        response = {"id": "r", "object": "response", "output": [{"type": ["message"]}]}
        r = client.post("/math/verify", json={"session_id": "s" * 16, "response": response})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "invalid_request", r.text
