"""A scripted Responses API model server for the real-peer checks (runs in any venv with
fastapi and uvicorn). Scripts come from a JSON file: {last user message: [turn, ...]}, each
turn a list of items ({"type": "function_call", "name", "arguments"} or {"type": "message",
"content"}); turn k is played when the input holds k function_call_output items.

    python fake_policy.py SCRIPTS.json PORT
"""

import json
import sys
import time
import uuid

import uvicorn
from fastapi import FastAPI, Request

with open(sys.argv[1]) as f:
    SCRIPTS = json.load(f)
app = FastAPI()


def last_user_text(items):
    for item in reversed(items):
        if item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    return ""


def render(item):
    if item["type"] == "function_call":
        args = item["arguments"]
        return {
            "type": "function_call",
            "id": f"fc_{uuid.uuid4().hex}",
            "call_id": f"call_{uuid.uuid4().hex}",
            "name": item["name"],
            "arguments": args if isinstance(args, str) else json.dumps(args),
            "status": "completed",
        }
    return {
        "type": "message",
        "id": f"msg_{uuid.uuid4().hex}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": item["content"], "annotations": []}],
    }


@app.post("/v1/responses")
async def responses(request: Request):
    body = await request.json()
    items = (
        body["input"]
        if isinstance(body["input"], list)
        else [{"role": "user", "content": body["input"]}]
    )
    script = SCRIPTS.get(last_user_text(items), [[{"type": "message", "content": "no script"}]])
    turn = sum(1 for i in items if i.get("type") == "function_call_output")
    output = [render(i) for i in script[min(turn, len(script) - 1)]]
    return {
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": time.time(),
        "model": "scripted",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": body.get("tools") or [],
        "status": "completed",
    }


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
