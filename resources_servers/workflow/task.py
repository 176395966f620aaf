"""What a workflow task carries: the shop's database, the request and the right outcome."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Customer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    name: str
    email: str
    zip: str
    address: str


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    customer_id: int
    item: str
    amount: float
    status: str
    delivered_day: int


class Refund(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    order_id: int
    amount: float
    reason: str


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    customer_id: int
    body: str


class Database(BaseModel):
    """The rows the session's database starts with."""

    model_config = ConfigDict(extra="forbid")

    customers: list[Customer] = Field(min_length=2)
    orders: list[Order] = Field(default_factory=list)
    refunds: list[Refund] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)


class Request(BaseModel):
    """What the customer gives: who they are, and for a move, the new address."""

    model_config = ConfigDict(extra="forbid")

    email: str
    zip: str
    address: str | None = None


class Goal(BaseModel):
    """The right outcome: refund granted, refund denied, or address moved."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["grant", "deny", "moved"]
    customer_id: int
    order_id: int | None = None


class WorkflowTask(BaseModel):
    """`task_data` of workflow."""

    model_config = ConfigDict(extra="forbid")

    db: Database
    today: int = 100
    request: Request
    goal: Goal

    @model_validator(mode="after")
    def _consistent(self) -> WorkflowTask:
        if self.goal.customer_id not in {c.id for c in self.db.customers}:
            raise ValueError("goal.customer_id is not a customer of db")
        if self.goal.decision in ("grant", "deny"):
            mine = {o.id for o in self.db.orders if o.customer_id == self.goal.customer_id}
            if self.goal.order_id not in mine:
                raise ValueError("goal.order_id is not an order of that customer")
        elif self.request.address is None:
            raise ValueError("request.address is required when the goal is a move")
        return self
