"""One catalogue of error kinds, documented; a malformed model answer is the model's fault."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from proofgym.serving.settings import AgentSettings
from proofgym.wire.errors import ERROR_KINDS, TOOL_ERROR_KINDS, ProofgymError
from proofgym_stack.testing import in_process_stack
from sdg.file_edit import generate

ROOT = Path(__file__).resolve().parent.parent


def test_every_error_kind_is_documented() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    documented = set(re.findall(r"`([a-z_]+)`", doc))
    assert documented >= ERROR_KINDS, sorted(ERROR_KINDS - documented)
    assert set(TOOL_ERROR_KINDS) <= documented


def test_every_error_class_has_a_catalogued_kind() -> None:
    classes: list[type[ProofgymError]] = [ProofgymError]
    for cls in classes:
        classes += cls.__subclasses__()
    assert len(classes) >= 10
    assert all(cls.kind in ERROR_KINDS for cls in classes)


def model_answering(items: list[Any]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses() -> dict[str, Any]:
        return {"id": "resp_1", "model": "m", "output": items}

    return app


@pytest.mark.parametrize(
    "items",
    [
        [{"type": "function_call", "name": 5, "arguments": {"not": "a string"}}],
        [{"type": "no_such_item"}],
        ["not an object"],
    ],
    ids=["wrong_field_types", "unknown_item_type", "not_an_object"],
)
async def test_a_malformed_model_answer_is_a_masked_model_error(items: list[Any]) -> None:
    settings = AgentSettings(
        resources_urls=["http://resources"], model_url="http://fake-model", max_retries=0
    )
    apps = {"fake-model": model_answering(items)}
    async with in_process_stack(agent_settings=settings, extra_apps=apps) as stack:
        r = await stack.run({"task": generate(1, seed=1)[0]})
    assert r.status_code == 200, r.text[:300]
    body = r.json()
    assert body["mask_sample"] and body["failure_kind"] == "model_error"
    assert "malformed" in body["failure_reason"] or "no Response" in body["failure_reason"]
