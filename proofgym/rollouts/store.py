"""The rollout store: one SQLite row per rollout (PROTOCOL.md, Rollout store).

Every row is committed on its own, in WAL mode, so a killed collection loses nothing it had
stored. A `(task_id, repeat)` pair is stored once: a new result for a pair replaces the old
one, which is how a rerun completes rollouts that were stored masked. `proofgym reverify`
replaces a rollout's verdict in place and keeps the verdict it replaced, with both
environment versions, in the `reverified` table.

A failure of the disk under the store (full, read-only, the folder not writable) is a
`StoreError` whose message is one sentence an operator can act on; nothing already committed is
lost. `replace_verdicts` is a compare-and-swap: a row that changed or vanished since its caller
read it (a concurrent `proofgym rollout` rerun replaced it) is skipped and named, never
overwritten; and it adds no second history row for a verdict already recorded (a rerun of
`reverify` after a kill).
"""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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
    # what the re-verification wrote (`verdict_digest`): a rerun that writes it again adds no row
    "verdict_digest": str,
}


class StoreError(Exception):
    """The store's file could not be opened or written; the message says why and what to do."""


def _why(exc: BaseException) -> str:
    """The cause of a failed store operation, in words an operator acts on."""
    text = str(exc).lower()
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC or "disk is full" in text or "database or disk is full" in text:
        return "the disk is full; free space on it and run the command again"
    if code == errno.EROFS or "readonly" in text or "read-only" in text:
        return "it is read-only; make it writable (or name a store elsewhere) and run again"
    if code in (errno.ENOTDIR, errno.EEXIST):
        return "a part of its path is a file, not a folder; name a store elsewhere"
    if code in (errno.EACCES, errno.EPERM) or "unable to open" in text:
        return (
            "it cannot be opened for writing (check the folder exists and you may write to "
            "it, or name a store elsewhere)"
        )
    return f"{exc}; check the disk and run the command again"


def store_error(path: Path, exc: BaseException) -> StoreError:
    """The StoreError of `exc` raised on the store at `path`."""
    return StoreError(
        f"cannot write the rollout store {path}: {_why(exc)} (every row stored before is kept)"
    )


def verdict_digest(result: RunResult) -> str:
    """A digest of `result`'s verdict (reward, checks, mask, failure, env version): equal for
    the same judgement of the same rollout, whatever else of the record was re-serialized."""
    verdict = result.model_dump(
        mode="json",
        include={
            "reward",
            "reward_components",
            "checks",
            "mask_sample",
            "failure_kind",
            "failure_reason",
            "env_version",
        },
    )
    text = json.dumps(verdict, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _normal(record: str) -> str:
    """A stored record as `rows()` readers see it, serialized again: what `before` is compared
    with (the text itself may differ from a fresh dump when the record's schema grew)."""
    return RunResult.model_validate(json.loads(record)).model_dump_json(exclude_none=True)


@dataclass(frozen=True)
class VerdictWrite:
    """One verdict to write: `after` in place of `before` (the row as its caller read it), with
    `history` (REVERIFIED_COLUMNS but `id` and `verdict_digest`) for the `reverified` table."""

    before: RunResult
    after: RunResult
    history: dict[str, Any]


@dataclass
class WriteCounts:
    """What `replace_verdicts` did: rows written, history rows not added again (the verdict was
    already recorded), and the ids of rows skipped because they changed or vanished."""

    written: int = 0
    already_recorded: int = 0
    replaced: list[str] = field(default_factory=list)

    def add(self, other: WriteCounts) -> None:
        """Add `other`'s counts to these."""
        self.written += other.written
        self.already_recorded += other.already_recorded
        self.replaced += other.replaced


class RolloutStore:
    """A SQLite file of rollouts. Use from one thread at a time."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = connect(self.path)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.table = Table(self.conn, "rollouts")
            if not self.table.exists():
                self.table.create(COLUMNS, pk="rollout_id", not_null={"task_id", "repeat"})
                self.table.create_index(["task_id", "repeat"], unique=True)
        except (OSError, sqlite3.Error) as exc:
            raise store_error(self.path, exc) from None

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
        columns = ", ".join(f"[{c}]" for c in COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        with self._transaction():
            self.conn.execute(
                "DELETE FROM rollouts WHERE task_id = ? AND repeat = ?", [result.task_id, repeat]
            )
            self.conn.execute(
                f"INSERT OR REPLACE INTO rollouts ({columns}) VALUES ({marks})",
                [row[c] for c in COLUMNS],
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: committed whole or rolled back; a failure of the disk
        becomes a StoreError."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except (OSError, sqlite3.Error) as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise store_error(self.path, exc) from None

    def replace_verdicts(self, writes: Sequence[VerdictWrite]) -> WriteCounts:
        """Put each write's `after` in place of its stored rollout (same rollout id) and add its
        history to the `reverified` table, all in one transaction. A row that is gone or no
        longer `before` (a rerun replaced it meanwhile) is skipped and its id returned in
        `replaced`; a verdict the rollout's latest history row already recorded adds no
        second history row."""
        reverified = self._reverified_table()
        counts = WriteCounts()
        with self._transaction():
            for w in writes:
                rid = w.before.rollout_id
                stored = self.conn.execute(
                    "SELECT record FROM rollouts WHERE rollout_id = ?", [rid]
                ).fetchone()
                if stored is None or _normal(stored[0]) != w.before.model_dump_json(
                    exclude_none=True
                ):
                    counts.replaced.append(rid)
                    continue
                self.conn.execute(
                    "UPDATE rollouts SET env_version = ?, reward = ?, failure_kind = ?, "
                    "mask_sample = ?, trainable = ?, record = ? WHERE rollout_id = ?",
                    [
                        w.after.env_version,
                        w.after.reward,
                        w.after.failure_kind,
                        int(w.after.mask_sample),
                        int(w.after.trainable),
                        w.after.model_dump_json(exclude_none=True),
                        rid,
                    ],
                )
                counts.written += 1
                digest = verdict_digest(w.after)
                latest = self.conn.execute(
                    "SELECT verdict_digest FROM reverified WHERE rollout_id = ? "
                    "ORDER BY id DESC LIMIT 1",
                    [rid],
                ).fetchone()
                if latest is not None and latest[0] == digest:
                    counts.already_recorded += 1
                else:
                    reverified.insert({**w.history, "verdict_digest": digest})
        return counts

    def _reverified_table(self) -> Table:
        """The `reverified` table, made (or given its newer columns) on first use."""
        table = Table(self.conn, "reverified")
        try:
            if not table.exists():
                table.create(REVERIFIED_COLUMNS, pk="id", not_null={"rollout_id"})
                table.create_index(["rollout_id"])
            else:
                have = {r[1] for r in self.conn.execute("PRAGMA table_info(reverified)")}
                for column in REVERIFIED_COLUMNS.keys() - have:  # a store of an older proofgym
                    self.conn.execute(f"ALTER TABLE reverified ADD COLUMN [{column}] TEXT")
        except (OSError, sqlite3.Error) as exc:
            raise store_error(self.path, exc) from None
        return table

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
