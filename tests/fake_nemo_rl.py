"""A fake of the OpenAI server NeMo RL exposes from its vLLM workers, built from its source
(nemo_rl/models/generation/vllm/vllm_worker_async.py in NVIDIA-NeMo/RL: the request mixin that
takes `required_prefix_token_ids` from the last message carrying `prompt_token_ids`, and
`_replace_prefix_tokens`), restated in our own words.

It renders the chat template with a real tokenizer, splices the previous turn's exact tokens in
front of the rest (dropping their trailing EOS and resuming the template at its last EOS
before the new messages), "generates" a scripted reply, and answers with the token fields on
the message, as NeMo Gym's model server reads them. It refuses (400) a request whose spliced
prompt would not extend the required prefix: the property token-exact training rests on.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

TOKEN_FIELDS = ("prompt_token_ids", "generation_token_ids", "generation_log_probs")


def splice(
    eos: int, model_prefix: list[int], template_prefix: list[int], template: list[int]
) -> list[int]:
    """The previous turn's tokens, then the template from its last EOS before the new part."""
    if not model_prefix:
        return template
    cut = len(model_prefix) - (1 if model_prefix[-1] == eos else 0)
    if len(template) <= len(template_prefix):
        raise ValueError("the trajectory does not grow")
    starts = [pos for pos in range(len(template_prefix)) if template[pos] == eos]
    if not starts:
        raise ValueError("no EOS in the templated history")
    return model_prefix[:cut] + template[starts[-1] :]


def fake_nemo_rl(tokenizer: Any, seen: list[dict[str, Any]]) -> FastAPI:
    """The fake server; `seen` records, per request, the prefix asked for and the prompt used."""
    app = FastAPI()
    eos = int(tokenizer.eos_token_id)

    def render(messages: list[dict[str, Any]], tools: Any, generation: bool) -> list[int]:
        out = tokenizer.apply_chat_template(
            messages, tools=tools, tokenize=True, add_generation_prompt=generation
        )
        ids = out["input_ids"] if not isinstance(out, list) else out
        return [int(t) for t in ids]

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        messages = body["messages"]
        required: list[int] | None = None
        last_assistant = None
        for index in range(len(messages) - 1, -1, -1):
            if "prompt_token_ids" in messages[index]:
                m = messages[index]
                required = list(m["prompt_token_ids"]) + list(m["generation_token_ids"])
                last_assistant = index
                break
        clean = [{k: v for k, v in m.items() if k not in TOKEN_FIELDS} for m in messages]
        for m in clean:  # templates want call arguments as objects
            for call in m.get("tool_calls") or []:
                if isinstance(call["function"].get("arguments"), str):
                    call["function"]["arguments"] = json.loads(
                        call["function"]["arguments"] or "{}"
                    )
        tools = body.get("tools")
        template = render(clean, tools, True)
        prompt = template
        if required is not None and last_assistant is not None:
            prefix = render(clean[: last_assistant + 1], tools, False)
            prompt = splice(eos, required, prefix, template)
            if prompt[: len(required)] != required:
                return JSONResponse({"error": "spliced prompt lost the prefix"}, 400)
        seen.append({"required": required, "prompt": prompt})
        has_tool_answer = any(m.get("role") == "tool" for m in messages)
        if not has_tool_answer and tools:
            text = '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>'
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{len(seen)}",
                        "type": "function",
                        "function": {"name": "list_files", "arguments": "{}"},
                    }
                ],
            }
        else:
            text = "Nothing to change here."
            message = {"role": "assistant", "content": text}
        generated = [*tokenizer.encode(text, add_special_tokens=False), eos]
        message.update(
            prompt_token_ids=prompt,
            generation_token_ids=generated,
            generation_log_probs=[-0.5] * len(generated),
        )
        return {
            "id": f"chatcmpl-{len(seen)}",
            "object": "chat.completion",
            "model": body.get("model"),
            "prompt_token_ids": prompt,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(generated)},
        }

    @app.post("/tokenize")
    async def tokenize(request: Request) -> Any:
        body = await request.json()
        return {"tokens": render(body["messages"], body.get("tools"), True)}

    return app
