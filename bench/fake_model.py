"""The instant fake model of the hot-path benches: a calculator call, then the final message.

`fake_completion(body)` is its answer to a chat completion request; run as a script
(`python bench/fake_model.py PORT`) it serves that answer at `/v1/chat/completions` (aiohttp,
its own process), which bench/hot_path.py puts behind the model interface's `openai` backend.
bench/app_logic.py calls `fake_completion` in-process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "calculator", "arguments": json.dumps({"expression": "6*7"})},
        }
    ],
}
DONE = {"role": "assistant", "content": "The answer is 42."}


def fake_completion(body: dict[str, Any]) -> dict[str, Any]:
    """The fake model's chat completion for `body`: the final message once a tool answered."""
    used_tool = any(m.get("role") == "tool" for m in body["messages"])
    return {
        "id": "c",
        "object": "chat.completion",
        "model": "fake",
        "choices": [{"index": 0, "message": DONE if used_tool else CALL, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }


def main() -> None:
    """Serve `fake_completion` on 127.0.0.1 at the port given as the first argument."""
    from aiohttp import web

    async def chat(request: web.Request) -> web.Response:
        return web.json_response(fake_completion(await request.json()))

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, backlog=8192)


if __name__ == "__main__":
    main()
