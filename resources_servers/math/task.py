"""What a math task carries: the answer, and how it was computed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MathTask(BaseModel):
    """`task_data` of math."""

    model_config = ConfigDict(extra="forbid")

    answer: int | float = Field(allow_inf_nan=False, description="the one right number")
    expression: str | None = Field(default=None, description="how the answer is computed")
