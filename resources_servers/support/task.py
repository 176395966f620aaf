"""What a support task carries: which question, from the knowledge base."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from resources_servers.support.kb import QUESTIONS_BY_ID


class SupportTask(BaseModel):
    """`task_data` of support: the question's id; its article and reference come from the KB."""

    model_config = ConfigDict(extra="forbid")

    question_id: str = Field(description="a question of the knowledge base (kb.py)")
    customer: str = Field(default="there", max_length=40, description="how to greet them")

    @field_validator("question_id")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in QUESTIONS_BY_ID:
            raise ValueError(f"unknown question; known: {sorted(QUESTIONS_BY_ID)}")
        return value
