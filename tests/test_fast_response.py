"""`validate_response` is `Response.model_validate` without the union search: the same
Response (items, their classes, the fields set, extras kept) for every body, and the same
refusal for every body the slow path refuses. Bodies are drawn from real items of each kind,
then broken in every way a caller could."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from helpers import FUZZ
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.responses import Response
from pydantic import ValidationError

from proofgym.wire.responses import ITEM_MODELS, build_response, validate_response

ITEMS: list[dict[str, Any]] = [
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "c1",
        "name": "add",
        "arguments": '{"a": 1}',
        "status": "completed",
    },
    {
        "type": "function_call_output",
        "id": "fco_1",
        "call_id": "c1",
        "output": "2",
        "status": "completed",
    },
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It is 2.", "annotations": []}],
    },
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "add"}]},
    {
        "type": "function_call",
        "id": "fc_2",
        "call_id": "c2",
        "name": "f",
        "arguments": "{}",
        "prompt_token_ids": [1, 2],
        "generation_token_ids": [3],
        "generation_log_probs": [-0.5],
    },
]
BASE: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0.0,
    "model": "m",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "status": "completed",
}

JUNK = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def bodies(draw: st.DrawFn) -> dict[str, Any]:
    items = copy.deepcopy(draw(st.lists(st.sampled_from(ITEMS), max_size=5)))
    body: dict[str, Any] = {**copy.deepcopy(BASE), "output": items}
    for _ in range(draw(st.integers(0, 3))):  # break it, or not
        target = draw(st.sampled_from(["body", "item"])) if items else "body"
        where = body if target == "body" else draw(st.sampled_from(items))
        key = draw(st.sampled_from([*where.keys(), "extra_field", "type"]))
        if draw(st.booleans()):
            where.pop(key, None)
        else:
            where[key] = draw(st.one_of(JUNK, st.sampled_from([*ITEM_MODELS, "unknown"])))
    if draw(st.booleans()) and items:
        body["output"] = [draw(JUNK), *items]  # a non-object item
    return body


def outcome(validate: Any, body: dict[str, Any]) -> Any:
    try:
        r = validate(copy.deepcopy(body))
    except ValidationError as exc:
        return ("refused", exc.error_count() > 0)
    return (
        "ok",
        r,
        r.model_dump(mode="json"),
        r.model_fields_set,
        [(type(i), i.model_fields_set, i.model_extra) for i in r.output],
        r.model_extra,
    )


@settings(FUZZ, max_examples=600)  # cheap: a millisecond each
@given(bodies())
def test_the_same_response_or_the_same_refusal(body: dict[str, Any]) -> None:
    assert outcome(validate_response, body) == outcome(Response.model_validate, body)


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: i["type"])
def test_each_kind_of_item_takes_its_own_class(item: dict[str, Any]) -> None:
    response = build_response([item], model="m")
    assert (
        type(response.output[0]).__name__
        == type(Response.model_validate({**BASE, "output": [item]}).output[0]).__name__
    )
    assert (
        response.output[0].model_dump(mode="json", exclude_none=True).items()
        >= {k: v for k, v in item.items() if k != "summary"}.items()
    )
