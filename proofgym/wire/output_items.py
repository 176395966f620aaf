"""Output items of a rollout's Response as clients send them: normalized, or refused by name.

NeMo Gym clients send `function_call_output` (and other) items in their Responses *input*
form, without `id` or `status`; those get them here. An item that is still not a valid output
item is refused with one message naming the item and the field, instead of the hundred errors
pydantic reports when it tries every member of the OpenAI union.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from proofgym.wire.errors import describe_validation
from proofgym.wire.responses import ITEM_MODELS, new_id

_ID_PREFIX = {"function_call_output": "fco", "function_call": "fc", "message": "msg"}
_NEEDS_STATUS = ("function_call_output", "function_call", "message")


def normalize_output(items: list[Any]) -> list[Any]:
    """`items` with the `id` and `status` that input-form items lack filled in (missing, or
    null as NeMo Gym's `NeMoGymFunctionCallOutput` sends them)."""
    out = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind in _ID_PREFIX:
            item = dict(item)
            if item.get("id") is None:
                item["id"] = new_id(_ID_PREFIX[item["type"]])
            if item["type"] in _NEEDS_STATUS and item.get("status") is None:
                item["status"] = "completed"
            if item["type"] == "message" and item.get("role") is None:
                item["role"] = "assistant"
        out.append(item)
    return out


def check_output(items: list[Any]) -> None:
    """Raise ValueError naming the first item that is no valid output item, and its field."""
    for index, item in enumerate(items):
        where = f"output[{index}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where} is not an object")
        kind = item.get("type")
        model = ITEM_MODELS.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise ValueError(f"{where} has an unknown type {kind!r}")
        try:
            model.model_validate(item)
        except ValidationError as exc:
            raise ValueError(
                f"{where} ({kind}): {describe_validation(exc.errors(), limit=3)}"
            ) from None
