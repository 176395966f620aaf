"""workflow tasks: a small shop database and one customer request with a known right outcome."""

from __future__ import annotations

import random
from typing import Any

from sdg.rows import task_row

FIRST = ["Ava", "Ben", "Chloe", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas"]
LAST = ["Stone", "Ng", "Okafor", "Lind", "Moreau", "Patel", "Quinn", "Rossi"]
ITEMS = ["kettle", "lamp", "backpack", "keyboard", "blender", "tent", "jacket", "speaker"]
STREETS = ["Elm St", "Harbor Rd", "Mill Lane", "Oak Ave", "Pine Ct", "River Way"]
TODAY = 100
WINDOW = 30


def _address(rng: random.Random) -> str:
    return f"{rng.randint(1, 999)} {rng.choice(STREETS)}, {rng.randint(10000, 99999)}"


def _db(rng: random.Random) -> dict[str, Any]:
    customers, orders = [], []
    order_id = 100
    for cid in range(1, rng.randint(3, 5) + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        customers.append(
            {
                "id": cid,
                "name": f"{first} {last}",
                "email": f"{first.lower()}.{last.lower()}{cid}@example.com",
                "zip": f"{rng.randint(10000, 99999)}",
                "address": _address(rng),
            }
        )
        for _ in range(rng.randint(2, 4)):
            order_id += rng.randint(1, 9)
            status = rng.choice(["delivered", "delivered", "delivered", "shipped"])
            orders.append(
                {
                    "id": order_id,
                    "customer_id": cid,
                    "item": rng.choice(ITEMS),
                    "amount": round(rng.uniform(10, 300), 2),
                    "status": status,
                    "delivered_day": rng.randint(TODAY - 60, TODAY) if status == "delivered" else 0,
                }
            )
    return {"customers": customers, "orders": orders, "refunds": [], "messages": []}


def eligible(order: dict[str, Any]) -> bool:
    """Refundable under the rules: delivered, within the window."""
    return bool(order["status"] == "delivered" and TODAY - order["delivered_day"] <= WINDOW)


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed, cycling refund-granted, refund-denied and
    address-change requests."""
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    while len(tasks) < n:
        db = _db(rng)
        kind = ("grant", "deny", "moved")[len(tasks) % 3]
        me = rng.choice(db["customers"])
        mine = [o for o in db["orders"] if o["customer_id"] == me["id"]]
        items = [o["item"] for o in mine]
        pool = [o for o in mine if eligible(o) == (kind == "grant") and items.count(o["item"]) == 1]
        if kind != "moved" and not pool:
            continue
        request: dict[str, Any] = {"email": me["email"], "zip": me["zip"]}
        if kind == "moved":
            request["address"] = _address(rng)
            text = (
                f"Hi, this is {me['name']} ({me['email']}, zip {me['zip']}). I moved: "
                f"please change my address to {request['address']}."
            )
            goal = {"decision": "moved", "customer_id": me["id"], "order_id": None}
        else:
            order = rng.choice(pool)
            text = (
                f"Hi, this is {me['name']} ({me['email']}, zip {me['zip']}). I would like "
                f"my money back for the {order['item']} I ordered."
            )
            goal = {"decision": kind, "customer_id": me["id"], "order_id": order["id"]}
        tasks.append(
            task_row(
                "workflow",
                f"workflow-{seed}-{len(tasks):04d}",
                split,
                text,
                {"db": db, "today": TODAY, "request": request, "goal": goal},
            )
        )
    return tasks
