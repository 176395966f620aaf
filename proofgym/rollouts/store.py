"""The rollout store: one SQLite row per rollout (PROTOCOL.md, Rollout store).

Every row is committed on its own, in WAL mode, so a killed collection loses nothing it had
stored. A `(task_id, repeat)` pair is stored once: a new result for a pair replaces the old
one, which is how a rerun completes rollouts that were stored masked. `proofgym reverify`
replaces a rollout's verdict in place and keeps the verdict it replaced, with both
environment versions, in the `reverified` table.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from proofgym.rollouts.sqltable import Table, connect
from proofgym.wire.protocol import RunResult

COLUMNS = {
    "rollout_id": str,
    "task_id": str,
    "repeat": int,
    "env": str,
    "env_version": str,
    "reward": float,
    "failure_kind": str,
    "mask_sample": int,
    "trainable": int,
    "created_at": float,
    "record": str,
}

#: one row per verdict a re-verification replaced (`proofgym reverify`)
REVERIFIED_COLUMNS = {
    "id": int,
    "rollout_id": str,
    "reverified_at": float,
    "outcome": str,
    "env_version_before": str,
    "env_version": str,
    "reward_before": float,
    "reward": float,
    "mask_before": int,
    "mask_sample": int,
    "checks_moved": str,
    "record_before": str,
}


class RolloutStore:
    """A SQLite file of rollouts. Use from one thread at a time."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = connect(self.path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.table = Table(self.conn, "rollouts")
        if not self.table.exists():
            self.table.create(COLUMNS, pk="rollout_id", not_null={"task_id", "repeat"})
            self.table.create_index(["task_id", "repeat"], unique=True)

    def put(self, result: RunResult, repeat: int) -> None:
        """Store one rollout, replacing any earlier row of the same (task_id, repeat)."""
        row = {
            "rollout_id": result.rollout_id,
            "task_id": result.task_id,
            "repeat": repeat,
            "env": result.env,
            "env_version": result.env_version,
            "reward": result.reward,
            "failure_kind": result.failure_kind,
            "mask_sample": int(result.mask_sample),
            "trainable": int(result.trainable),
            "created_at": time.time(),
            "record": result.model_dump_json(exclude_none=True),
        }
        # One transaction: a kill between the two statements must not drop the old row.
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "DELETE FROM rollouts WHERE task_id = ? AND repeat = ?", [result.task_id, repeat]
            )
            columns = ", ".join(f"[{c}]" for c in COLUMNS)
            marks = ", ".join("?" for _ in COLUMNS)
            conn.execute(
                f"INSERT OR REPLACE INTO rollouts ({columns}) VALUES ({marks})",
                [row[c] for c in COLUMNS],
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def replace_verdict(self, result: RunResult, history: dict[str, Any]) -> None:
        """Put `result`'s verdict in place of its stored rollout's (same rollout id) and add
        `history` (REVERIFIED_COLUMNS but `id`) to the `reverified` table, in one transaction."""
        reverified = Table(self.conn, "reverified")
        if not reverified.exists():
            reverified.create(REVERIFIED_COLUMNS, pk="id", not_null={"rollout_id"})
            reverified.create_index(["rollout_id"])
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            changed = conn.execute(
                "UPDATE rollouts SET env_version = ?, reward = ?, failure_kind = ?, "
                "mask_sample = ?, trainable = ?, record = ? WHERE rollout_id = ?",
                [
                    result.env_version,
                    result.reward,
                    result.failure_kind,
                    int(result.mask_sample),
                    int(result.trainable),
                    result.model_dump_json(exclude_none=True),
                    result.rollout_id,
                ],
            ).rowcount
            if changed != 1:
                raise KeyError(f"no stored rollout {result.rollout_id}")
            reverified.insert(history)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def reverified(self) -> dict[str, dict[str, Any]]:
        """rollout id -> the latest verdict a re-verification replaced (empty when none)."""
        table = Table(self.conn, "reverified")
        if not table.exists():
            return {}
        return {row["rollout_id"]: row for row in table.rows_where(order_by="id")}

    def done_pairs(self) -> set[tuple[str, int]]:
        """Pairs stored with a usable (not masked) result: a rerun skips these."""
        rows = self.conn.execute("SELECT task_id, repeat FROM rollouts WHERE mask_sample = 0")
        return {(r[0], int(r[1])) for r in rows.fetchall()}

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row, oldest first, with `record` parsed."""
        for row in self.table.rows_where(order_by="created_at"):
            yield {**row, "record": json.loads(row["record"])}

    def count(self) -> int:
        """How many rollouts are stored."""
        return self.table.count

    def close(self) -> None:
        """Close the database file."""
        self.conn.close()
