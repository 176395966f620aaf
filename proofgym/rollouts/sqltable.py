"""SQLite tables as dictionaries: what the rollout store and the workflow environment need.

proofgym used sqlite-utils for this; it imports pandas and numpy whenever they are installed
(they are, next to TRL), which cost every process that opened a store or served `workflow`
0.4 s of start-up and about 60 MB. This is the small part of it proofgym uses, on the standard
library's sqlite3.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

#: the column types a table may declare, as SQLite's type affinities
SQL_TYPES: dict[type, str] = {int: "INTEGER", float: "FLOAT", str: "TEXT"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection in autocommit mode (each statement commits unless a BEGIN is open), usable
    from any thread (its callers serialize their use)."""
    return sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)


def _name(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a plain SQL name: {name!r}")
    return f"[{name}]"


class Table:
    """One table of `conn`; rows go in and come out as dicts of column -> value."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self.quoted = _name(name)

    def exists(self) -> bool:
        """Whether the table is there."""
        found = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [self.name]
        ).fetchone()
        return found is not None

    def create(self, columns: Mapping[str, type], pk: str, not_null: Iterable[str] = ()) -> None:
        """CREATE TABLE with these columns (int, float or str), `pk` its primary key (an int
        one numbers new rows itself)."""
        required = set(not_null)
        parts = []
        for column, kind in columns.items():
            part = f"{_name(column)} {SQL_TYPES[kind]}"
            if column == pk:
                part += " PRIMARY KEY"
            elif column in required:
                part += " NOT NULL"
            parts.append(part)
        self.conn.execute(f"CREATE TABLE {self.quoted} ({', '.join(parts)})")

    def create_index(self, columns: Sequence[str], unique: bool = False) -> None:
        """An index over `columns`."""
        index = _name(f"idx_{self.name}_{'_'.join(columns)}")
        kind = "UNIQUE INDEX" if unique else "INDEX"
        cols = ", ".join(map(_name, columns))
        self.conn.execute(f"CREATE {kind} {index} ON {self.quoted} ({cols})")

    def insert(self, row: Mapping[str, Any]) -> None:
        """Insert one row (columns not given are NULL, or numbered for an int primary key)."""
        self.insert_all([row])

    def insert_all(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Insert rows, each with its own columns."""
        for row in rows:
            cols = ", ".join(map(_name, row))
            marks = ", ".join("?" for _ in row)
            sql = f"INSERT INTO {self.quoted} ({cols}) VALUES ({marks})"
            self.conn.execute(sql, list(row.values()))

    def update(self, key: Any, changes: Mapping[str, Any], pk: str = "id") -> None:
        """Set `changes` on the row whose `pk` is `key`."""
        sets = ", ".join(f"{_name(c)} = ?" for c in changes)
        sql = f"UPDATE {self.quoted} SET {sets} WHERE {_name(pk)} = ?"
        self.conn.execute(sql, [*changes.values(), key])

    def rows_where(
        self, where: str | None = None, args: Sequence[Any] = (), order_by: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """The rows matching `where` (SQL with ? for `args`), in `order_by` order (a column)."""
        sql = f"SELECT * FROM {self.quoted}"
        if where:
            sql += f" WHERE {where}"
        if order_by:
            sql += f" ORDER BY {_name(order_by)}"
        cursor = self.conn.execute(sql, list(args))
        names = [d[0] for d in cursor.description]
        for values in cursor:
            yield dict(zip(names, values, strict=True))

    @property
    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row, in storage order."""
        return self.rows_where()

    @property
    def count(self) -> int:
        """How many rows the table holds."""
        return int(self.conn.execute(f"SELECT count(*) FROM {self.quoted}").fetchone()[0])
