"""The back office database of one session: schema, seeding and snapshots."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from resources_servers.sdk import SQLiteTable, connect_sqlite

SCHEMA: dict[str, dict[str, type]] = {
    "customers": {"id": int, "name": str, "email": str, "zip": str, "address": str},
    "orders": {
        "id": int,
        "customer_id": int,
        "item": str,
        "amount": float,
        "status": str,
        "delivered_day": int,
    },
    "refunds": {"id": int, "order_id": int, "amount": float, "reason": str},
    "messages": {"id": int, "customer_id": int, "outcome": str, "body": str},
    # What the tools did, in order: the state-side record of the trajectory.
    "audit": {"seq": int, "action": str, "customer_id": int, "detail": str},
}


class Database:
    """The session's database: its tables by name."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def table(self, name: str) -> SQLiteTable:
        """The table `name`."""
        return SQLiteTable(self.conn, name)


def open_db(path: Path) -> Database:
    """A connection to the session's database file."""
    return Database(connect_sqlite(path))


def seed(db: Database, data: dict[str, Any]) -> None:
    """Create the tables and insert the task's rows."""
    for table, columns in SCHEMA.items():
        db.table(table).create(columns, pk="seq" if table == "audit" else "id")
        rows = data.get(table, [])
        if rows:
            db.table(table).insert_all(rows)


def snapshot(db: Database) -> dict[str, dict[str, Any]]:
    """Every business row as `table:id -> row` (the audit log and refund ids aside: a refund
    is identified by its order)."""
    out: dict[str, dict[str, Any]] = {}
    for table in ("customers", "orders", "messages"):
        for row in db.table(table).rows:
            out[f"{table}:{row['id']}"] = row
    for row in db.table("refunds").rows:
        out[f"refunds:order={row['order_id']}"] = {
            "order_id": row["order_id"],
            "amount": row["amount"],
        }
    return out


def task_snapshot(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The snapshot the seed data would give, without a database."""
    out: dict[str, dict[str, Any]] = {}
    for table in ("customers", "orders", "messages"):
        for row in data.get(table, []):
            out[f"{table}:{row['id']}"] = dict(row)
    for row in data.get("refunds", []):
        out[f"refunds:order={row['order_id']}"] = {
            "order_id": row["order_id"],
            "amount": row["amount"],
        }
    return out
