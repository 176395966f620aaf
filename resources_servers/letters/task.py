"""What a letters task carries: the letter, and how long the answer must be."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LettersTask(BaseModel):
    """`task_data` of letters."""

    model_config = ConfigDict(extra="forbid")

    letter: str = Field(pattern=r"^[a-z]$", description="the letter the answer should be made of")
    min_chars: int = Field(default=8, ge=1, le=100, description="fewer characters score 0")
