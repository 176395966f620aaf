"""Ready-made isolation probes for `Environment.isolation_probe`."""

from __future__ import annotations

import json
from typing import Any


def write_then_list(
    marker: str, write_tool: str = "write_file", list_tool: str = "list_files"
) -> list[list[dict[str, Any]]]:
    """Write a file named after `marker`, then list the files: for workspace environments."""
    write = {
        "type": "function_call",
        "name": write_tool,
        "arguments": json.dumps({"path": f"probe-{marker}.txt", "content": marker}),
    }
    listing = {"type": "function_call", "name": list_tool, "arguments": "{}"}
    return [[write], [listing], [{"type": "message", "content": "probe done"}]]
