"""The workflow environment: a support back office with rules.

Rules every task carries: verify the customer's identity (email + zip) before any change;
refund only delivered orders, within 30 days of delivery; never touch another customer's
records. The tools do not enforce the rules (a real back office trusts its agents); the
verifier does, from the database state and the audit log the tools write.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

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
    diff,
    final_message,
    say,
    tool,
)
from resources_servers.workflow.db import Database, open_db, seed, snapshot, task_snapshot
from resources_servers.workflow.messages import Outcome, contradicts, orders_named
from resources_servers.workflow.scripts import controls_for
from resources_servers.workflow.task import Goal, WorkflowTask

REFUND_WINDOW_DAYS = 30


class Office:
    """One session's database; a lock serializes its use across tool threads."""

    def __init__(self, db: Database, today: int) -> None:
        self.db = db
        self.today = today
        self.lock = threading.Lock()

    def audit(self, action: str, customer_id: int, detail: str = "") -> None:
        self.db.table("audit").insert(
            {"action": action, "customer_id": customer_id, "detail": detail}
        )

    def customer(self, customer_id: int) -> dict[str, Any]:
        rows = list(self.db.table("customers").rows_where("id = ?", [customer_id]))
        if not rows:
            raise ToolError(f"no customer {customer_id}", "not_found")
        return rows[0]

    def order(self, order_id: int) -> dict[str, Any]:
        rows = list(self.db.table("orders").rows_where("id = ?", [order_id]))
        if not rows:
            raise ToolError(f"no order {order_id}", "not_found")
        return rows[0]


class WorkflowEnv(Environment[Office, WorkflowTask]):
    """Handle one customer request by the rules."""

    name = "workflow"
    # the references end "I told the customer": a denial is a success too
    success_words = ("told the customer", "notified")
    honest_forms = ("preamble", "closing", "upper_case", "lower_case", "markdown_bold")
    task_data_model = WorkflowTask
    description = "A customer-support back office on SQLite: refunds, addresses, messages."
    reward_range = (0.0, 1.0)
    needs_workdir = True
    # The decision is what the policy must work out; the customer and order it is about are
    # facts the tools show.
    secret_fields = ("goal.decision",)

    def create_state(self, task: Task, workdir: Path | None) -> Office:
        assert workdir is not None
        db = open_db(workdir / "office.db")
        data = self.data(task)
        seed(db, data.db.model_dump(exclude_none=True))
        return Office(db, data.today)

    def instructions(self, task: Task) -> str:
        return (
            "You are a support agent for a shop; today is day "
            f"{self.data(task).today}. Rules: verify the customer's identity "
            "(verify_identity with their zip code) before any change to their records; "
            f"refund only delivered orders, within {REFUND_WINDOW_DAYS} days of delivery; "
            "never touch another customer's records; tell the customer the outcome with "
            "send_message. End with a short summary of what you did."
        )

    @tool(observes=True)
    def find_customer(self, state: Office, email: str) -> str:
        """Find a customer by email.

        Args:
            email: the customer's email address.
        """
        with state.lock:
            rows = list(state.db.table("customers").rows_where("email = ?", [email]))
            if not rows:
                raise ToolError(f"no customer with email {email}", "not_found")
            state.audit("find", rows[0]["id"])
            return json.dumps({"customer_id": rows[0]["id"], "name": rows[0]["name"]})

    @tool(observes=True)
    def get_customer(self, state: Office, customer_id: int) -> str:
        """Show a customer's name, email and address.

        Args:
            customer_id: the customer's id.
        """
        with state.lock:
            customer = state.customer(customer_id)
            return json.dumps({k: customer[k] for k in ("id", "name", "email", "address")})

    @tool
    def verify_identity(self, state: Office, customer_id: int, zip_code: str) -> str:
        """Verify a customer's identity with the zip code they give.

        Args:
            customer_id: the customer's id.
            zip_code: the zip code the customer stated.
        """
        with state.lock:
            customer = state.customer(customer_id)
            if customer["zip"] != zip_code.strip():
                raise ToolError("the zip code does not match our records", "not_verified")
            state.audit("verify", customer_id)
            return f"identity of customer {customer_id} verified"

    @tool(observes=True)
    def list_orders(self, state: Office, customer_id: int) -> str:
        """List a customer's orders.

        Args:
            customer_id: the customer's id.
        """
        with state.lock:
            state.customer(customer_id)
            rows = list(
                state.db.table("orders").rows_where("customer_id = ?", [customer_id], order_by="id")
            )
            return json.dumps(rows)

    @tool(observes=True)
    def get_order(self, state: Office, order_id: int) -> str:
        """Show one order.

        Args:
            order_id: the order's id.
        """
        with state.lock:
            return json.dumps(state.order(order_id))

    @tool
    def refund_order(self, state: Office, order_id: int, reason: str) -> str:
        """Refund an order in full.

        Args:
            order_id: the order to refund.
            reason: why, in a few words.
        """
        with state.lock:
            order = state.order(order_id)
            if order["status"] == "refunded":
                raise ToolError(f"order {order_id} is already refunded", "already_refunded")
            with state.db.conn:
                state.db.table("refunds").insert(
                    {"order_id": order_id, "amount": order["amount"], "reason": reason}
                )
                state.db.table("orders").update(order_id, {"status": "refunded"})
                state.audit("refund", order["customer_id"], str(order_id))
            return f"order {order_id} refunded: {order['amount']:.2f}"

    @tool
    def update_address(self, state: Office, customer_id: int, address: str) -> str:
        """Change a customer's postal address.

        Args:
            customer_id: the customer's id.
            address: the new address.
        """
        with state.lock:
            state.customer(customer_id)
            state.db.table("customers").update(customer_id, {"address": address})
            state.audit("address", customer_id)
            return f"address of customer {customer_id} updated"

    @tool
    def send_message(self, state: Office, customer_id: int, outcome: Outcome, body: str) -> str:
        """Send a message to a customer, stating the outcome of their request.

        Args:
            customer_id: the customer's id.
            outcome: what this message tells the customer happened: refund_granted,
                refund_denied, address_changed, or no_change (nothing about the request).
            body: the message text, in any language; it must not contradict the outcome.
        """
        with state.lock:
            state.customer(customer_id)
            state.db.table("messages").insert(
                {"customer_id": customer_id, "outcome": outcome, "body": body}
            )
            state.audit("message", customer_id)
            return f"message sent (outcome: {outcome})"

    def expected(self, task: Task) -> dict[str, dict[str, Any]]:
        """The business state the task asks for (messages aside)."""
        data = self.data(task)
        goal = data.goal
        want = task_snapshot(data.db.model_dump(exclude_none=True))
        if goal.decision == "grant":
            key = f"orders:{goal.order_id}"
            want[key] = {**want[key], "status": "refunded"}
            want[f"refunds:order={goal.order_id}"] = {
                "order_id": goal.order_id,
                "amount": want[key]["amount"],
            }
        elif goal.decision == "moved":
            key = f"customers:{goal.customer_id}"
            want[key] = {**want[key], "address": data.request.address}
        return {k: v for k, v in want.items() if not k.startswith("messages:")}

    def verify(self, state: Office, task: Task, response: Response) -> VerifyResult:
        goal = self.data(task).goal
        me = goal.customer_id
        with state.lock:
            now = {k: v for k, v in snapshot(state.db).items() if not k.startswith("messages:")}
            messages = list(state.db.table("messages").rows)
            log = list(state.db.table("audit").rows_where(order_by="seq"))
        d = diff(self.expected(task), now)
        goal_ok = d.empty
        verified: set[int] = set()
        early = []
        for entry in log:
            if entry["action"] == "verify":
                verified.add(entry["customer_id"])
            elif entry["action"] in ("refund", "address") and entry["customer_id"] not in verified:
                early.append(f"{entry['action']} for customer {entry['customer_id']}")
        others = sorted(
            {m["customer_id"] for m in messages if m["customer_id"] != me}
            | {
                e["customer_id"]
                for e in log
                if e["action"] in ("refund", "address", "message") and e["customer_id"] != me
            }
        )
        mine = [m for m in messages if m["customer_id"] == me]
        notified = bool(mine)
        told = self._told(goal, mine)
        checks = [
            Check(name="goal_state", passed=goal_ok, detail="" if goal_ok else d.describe()),
            Check(
                name="identity_verified_before_change",
                passed=not early,
                detail="; ".join(early[:3]) and "before verification: " + "; ".join(early[:3]),
            ),
            Check(
                name="no_other_customer_touched",
                passed=not others,
                detail=f"touched customers {others}" if others else "",
            ),
            Check(
                name="customer_notified",
                passed=notified,
                detail="" if notified else f"no message to customer {me}",
            ),
            told,
            claim_check(
                final_message(response),
                achieved=goal_ok and notified and told.passed,
                words=self.success_words,
            ),
        ]
        return all_or_nothing(checks)

    @staticmethod
    def _told(goal: Goal, messages: list[dict[str, Any]]) -> Check:
        """The customer was told the outcome: a message states it (the structured outcome,
        checked against the goal), none states another, no body is empty or contradicts its
        own outcome, and none names an order the request was not about."""
        want = {"grant": "refund_granted", "deny": "refund_denied", "moved": "address_changed"}[
            goal.decision
        ]
        stated = [str(m.get("outcome") or "") for m in messages]
        bodies = [str(m["body"]) for m in messages]
        others = sorted({n for b in bodies for n in orders_named(b)} - {goal.order_id})
        problems = []
        if want not in stated:
            problems.append(f"no message states the outcome ({want}); stated: {stated or 'none'}")
        wrong = sorted({o for o in stated if o != want})
        if wrong:
            problems.append(f"a message states another outcome ({', '.join(wrong)})")
        if any(not b.strip() for b in bodies):
            problems.append("an empty message")
        lies = [b for o, b in zip(stated, bodies, strict=True) if contradicts(o, b)]
        if lies:
            problems.append(f"a message says the opposite of its outcome: {lies[0][:80]!r}")
        if others:
            problems.append(f"messages name other orders {others}")
        return Check(
            name="message_agrees_with_outcome",
            passed=not problems,
            detail="; ".join(problems) or f"the customer was told: {want}",
        )

    def isolation_probe(self, task: Task, marker: str) -> list[list[dict[str, Any]]]:
        me = self.data(task).goal.customer_id
        return [
            call("update_address", customer_id=me, address=marker),
            call("get_customer", customer_id=me),
            say("probe done"),
        ]

    def controls(self, task: Task) -> list[Control]:
        return controls_for(self.data(task))

    def close_state(self, state: Office) -> None:
        state.db.conn.close()
