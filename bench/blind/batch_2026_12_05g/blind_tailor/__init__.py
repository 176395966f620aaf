"""blind_tailor: finish the rush alterations, leave the rest, and close the shop's day."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_tailor"
CUSTOMERS = ("Patel", "Okoro", "Novak", "Hughes", "Moreau", "Tanaka", "Silva", "Kowalski")
JOBS = (
    "trouser hem",
    "jacket sleeves shortened",
    "dress taken in",
    "zip replaced",
    "waist let out",
    "suit tapered",
    "curtains hemmed",
    "coat relined",
)


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    customer: str
    job: str
    priority: Literal["rush", "standard"]
    status: Literal["pinned", "sewn", "ready"] = "pinned"


class TailorTask(BaseModel):
    """task_data of blind_tailor: the queue at the end of the day."""

    model_config = ConfigDict(extra="forbid")

    shop: str
    orders: list[Order] = Field(min_length=1)


class Shop:
    """One session: each order's status, and whether the day is closed."""

    def __init__(self, data: TailorTask) -> None:
        self.orders = {o.id: o.model_copy() for o in data.orders}
        self.closed = False


class Twin(Environment[Shop, TailorTask]):
    """Every rush order ready, standard orders untouched, the day closed."""

    name = NAME
    description = "Alterations tailor: finish the rush orders and close the day."
    reward_range = (0.0, 1.0)
    task_data_model = TailorTask
    success_words = ("closed", "ready")

    def create_state(self, task: Task, workdir: Path | None) -> Shop:
        return Shop(self.data(task))

    def instructions(self, task: Task) -> str:
        return (
            "list_orders() shows the queue. An order is sewn with sew(order_id), then pressed "
            "with press(order_id), which makes it ready for collection. Before closing, every "
            "rush order must be ready; leave standard orders as they are for tomorrow. Close "
            "the day with close_day() when done."
        )

    def _order(self, state: Shop, order_id: str) -> Order:
        if state.closed:
            raise ToolError("the day is closed", "closed")
        o = state.orders.get(order_id.strip().upper())
        if o is None:
            raise ToolError(f"no order {order_id!r}", "no_such_order")
        return o

    @tool(inline=True, observes=True)
    def list_orders(self, state: Shop) -> str:
        """Show the queue: id, customer, job, priority and status of every order."""
        return "\n".join(
            f"{o.id} | {o.customer} | {o.job} | {o.priority.title()} | {o.status}"
            for o in state.orders.values()
        )

    @tool(inline=True)
    def sew(self, state: Shop, order_id: str) -> str:
        """Sew a pinned order.

        Args:
            order_id: the order's id.
        """
        o = self._order(state, order_id)
        if o.status != "pinned":
            raise ToolError(f"{o.id} is already {o.status}", "not_pinned")
        o.status = "sewn"
        return f"{o.id} sewn"

    @tool(inline=True)
    def press(self, state: Shop, order_id: str) -> str:
        """Press a sewn order, making it ready for collection.

        Args:
            order_id: the order's id.
        """
        o = self._order(state, order_id)
        if o.status != "sewn":
            raise ToolError(f"{o.id} is {o.status}: sew it first", "not_sewn")
        o.status = "ready"
        return f"{o.id} pressed and ready"

    @tool(inline=True)
    def close_day(self, state: Shop) -> str:
        """Close the shop's day: no more work can be done on any order."""
        if state.closed:
            raise ToolError("the day is already closed", "closed")
        state.closed = True
        return "day closed"

    def _rush(self, d: TailorTask) -> list[Order]:
        return [o for o in d.orders if o.priority == "rush"]

    def verify(self, state: Shop, task: Task, response: Response) -> VerifyResult:
        d = self.data(task)
        rush = self._rush(d)
        finished = all(state.orders[o.id].status == "ready" for o in rush)
        touched = [
            o.id
            for o in d.orders
            if o.priority == "standard" and state.orders[o.id].status != o.status
        ]
        ok = finished and not touched and state.closed
        return all_or_nothing(
            [
                Check(name="rush_orders_ready", passed=finished),
                Check(name="standard_orders_untouched", passed=not touched, detail=f"{touched}"),
                Check(name="day_closed", passed=state.closed),
                claim_check(final_message(response), ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = self.data(task)
        rush = [o.id for o in d.orders if o.priority == "rush"]
        standard = next(o.id for o in d.orders if o.priority == "standard")
        work = [call(t, order_id=oid) for oid in rush for t in ("sew", "press")]
        done = say("All rush orders are ready and the day is closed.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("list_orders"), *work, call("close_day"), done],
            ),
            Control(
                name="violation_standard_started",
                expect="fail",
                description="finishes the rush orders and also sews a standard one",
                script=[*work, call("sew", order_id=standard), call("close_day"), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    """Rush orders picked out by the priority as the queue displays it."""

    def _rush(self, d: TailorTask) -> list[Order]:
        return [o for o in d.orders if o.priority == "Rush"]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        k = rng.randint(4, 6)
        rush = set(rng.sample(range(k), rng.randint(2, 3)))
        orders = [
            {
                "id": f"T-{100 + rng.randint(0, 899)}{c}",
                "customer": rng.choice(CUSTOMERS),
                "job": rng.choice(JOBS),
                "priority": "rush" if j in rush else "standard",
                "status": "pinned",
            }
            for j, c in enumerate("ABCDEF"[:k])
        ]
        shop = rng.choice(("Needle & Thread", "Stitch Lane", "The Alteration Room", "Hem & Co"))
        prompt = (
            f"It is closing time at {shop}. Get today's rush alterations finished and ready "
            "for collection, then close the day."
        )
        rows.append(
            task_row(
                NAME,
                f"{NAME}-{split}-{seed}-{i:05d}",
                split,
                prompt,
                {"shop": shop, "orders": orders},
            )
        )
    return rows


def exploit(task: Task) -> list[Any]:
    return [
        call("list_orders"),
        call("close_day"),
        say("All rush orders are ready and the day is closed."),
    ]
