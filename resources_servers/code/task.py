"""What a code task carries: the function, example tests, hidden tests and solutions."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Case(BaseModel):
    """One test: the arguments and the value the function must return."""

    model_config = ConfigDict(extra="forbid")

    args: list[Any]
    expected: Any


class CodeTask(BaseModel):
    """`task_data` of code."""

    model_config = ConfigDict(extra="forbid")

    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="the name to define")
    visible_tests: list[Case]
    hidden_tests: list[Case] = Field(min_length=1, description="they decide the reward")
    solution: str = Field(description="a correct implementation (the reference control)")
    alternative: str | None = Field(default=None, description="another correct implementation")
    stub: str | None = Field(default=None, description="what solution.py holds at the start")
