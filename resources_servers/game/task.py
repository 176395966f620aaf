"""What a game task carries: the seed of the shoe and how many hands."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GameTask(BaseModel):
    """`task_data` of game."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(description="shuffles the shoe: the same seed deals the same cards")
    hands: int = Field(default=5, ge=1, le=20)
