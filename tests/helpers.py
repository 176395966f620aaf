"""Small helpers shared by the tests that run real processes."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def count_rows(db: Path, where: str = "1") -> int:
    """Rows of the rollout store matching `where` (0 while the file or table is not there)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(f"select count(*) from rollouts where {where}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
