"""The Responses create request as the model interface reads it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ResponsesRequest(BaseModel):
    """`POST /v1/responses` body. Unknown OpenAI fields are accepted, as OpenAI does."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    input: str | list[dict[str, Any]]
    instructions: str | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list)
    tool_choice: Any = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    parallel_tool_calls: bool | None = None
    metadata: dict[str, str] | None = None
    stream: bool | None = None
    # Not in the OpenAI spec: the turns a scripted policy replays (see backends/scripted.py).
    script: list[list[dict[str, Any]]] | None = None
    # Where this rollout's own items start in `input` (the agent sets it): the task's prompt
    # may end with tool calls and their outputs, which are no turns of the script.
    script_from: int | None = Field(default=None, ge=0)
