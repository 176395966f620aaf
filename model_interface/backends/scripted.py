"""The scripted backend: replays a script given in the request, one turn per model call.

The turn to play is the number of model turns already in the input after the task's prompt
(where the agent says the rollout's own items start, `script_from`; else after the input's
last user message). A model turn is a run of assistant messages, reasoning and function calls,
so a script replays the same way whatever the tools answered, and a prompt that carries a
conversation's earlier assistant turns, or ends with a tool call and its output, does not
move it. Past its end the script says so in a final message.
"""

from __future__ import annotations

import json
from typing import Any

from openai.types.responses import Response

from model_interface.hermes import items_from_generation, parse_hermes
from model_interface.request import ResponsesRequest
from proofgym.wire.errors import BadRequest
from proofgym.wire.responses import (
    assistant_message,
    build_response,
    function_call,
    normalize_input,
)

MODEL_ITEMS = ("function_call", "reasoning")


def is_model_item(item: dict[str, Any]) -> bool:
    """Whether an input item was produced by the model (not the user, system or a tool)."""
    kind = item.get("type", "message")
    return kind in MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")


def count_model_turns(items: list[dict[str, Any]], since_prompt: bool = True) -> int:
    """How many maximal runs of model items the input holds since its last user, system or
    developer message (or, `since_prompt` False, in all of `items`): the turns of this
    rollout. A task's prompt may carry a conversation's earlier assistant turns (NeMo Gym's
    multi-turn rows do); those are not the script's. A prompt that ends with a tool call and
    its output is told apart only by where the rollout's own items start (`script_from`)."""
    last_prompt = -1
    if since_prompt:
        last_prompt = max(
            (
                i
                for i, item in enumerate(items)
                if item.get("type", "message") == "message"
                and item.get("role") in ("user", "system", "developer")
            ),
            default=-1,
        )
    turns, inside = 0, False
    for item in items[last_prompt + 1 :]:
        model = is_model_item(item)
        if model and not inside:
            turns += 1
        inside = model
    return turns


def render_item(item: dict[str, Any]) -> list[dict[str, Any]]:
    """One script item as Responses output items. A `text` item is a raw generation: it goes
    through the tool-call parser the token-exact backends use, so a script can play what a
    model might generate (`proofgym validate` sends hostile generations this way)."""
    kind = item.get("type")
    if kind == "function_call":
        args = item.get("arguments", {})
        return [
            function_call(str(item["name"]), args if isinstance(args, str) else json.dumps(args))
        ]
    if kind == "message":
        return [assistant_message(str(item.get("content", "")))]
    if kind == "text":
        return items_from_generation(str(item.get("content", "")), parse_hermes)
    raise BadRequest(
        f"script items are function_call, message or text, not {kind!r}", kind="invalid_script"
    )


class ScriptedBackend:
    """Replays `request.script`; needs no model and no network."""

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        if request.script is None:
            raise BadRequest(
                "the scripted backend needs a 'script' in the request", kind="missing_script"
            )
        items = normalize_input(request.input)
        if request.script_from is not None:  # the prompt's own items are no turns of the script
            turn = count_model_turns(items[request.script_from :], since_prompt=False)
        else:
            turn = count_model_turns(items)
        if turn < len(request.script):
            output = [out for i in request.script[turn] for out in render_item(i)]
        else:
            output = [assistant_message("(the script has ended)")]
        if not output:
            raise BadRequest(f"script turn {turn} is empty", kind="invalid_script")
        return build_response(output, model="scripted")

    async def chat(self, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        raise BadRequest("the scripted backend has no chat completions", kind="unsupported")

    def models(self) -> list[str]:
        return ["scripted"]

    async def aclose(self) -> None:
        return None
