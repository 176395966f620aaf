"""proofgym.rollouts.sqltable: the SQLite tables of the rollout store and the workflow
environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proofgym.rollouts.sqltable import Table, connect


def test_rows_go_in_and_come_out_as_dicts(tmp_path: Path) -> None:
    table = Table(connect(tmp_path / "t.db"), "orders")
    assert not table.exists()
    table.create({"id": int, "item": str, "amount": float}, pk="id", not_null={"item"})
    assert table.exists()
    table.insert_all([{"id": 2, "item": "lamp", "amount": 30}, {"id": 1, "item": "desk"}])
    table.insert({"item": "chair", "amount": 12.5})  # an int primary key numbers it
    # a float column keeps floats: 30 stored is 30.0 read (a snapshot compares them)
    assert list(table.rows_where(order_by="id")) == [
        {"id": 1, "item": "desk", "amount": None},
        {"id": 2, "item": "lamp", "amount": 30.0},
        {"id": 3, "item": "chair", "amount": 12.5},
    ]
    table.update(2, {"amount": 25.0, "item": "lamp (used)"})
    assert list(table.rows_where("amount > ?", [20])) == [
        {"id": 2, "item": "lamp (used)", "amount": 25.0}
    ]
    assert table.count == 3
    with pytest.raises(Exception, match="NOT NULL"):
        table.insert({"id": 9})


def test_a_unique_index_refuses_a_duplicate(tmp_path: Path) -> None:
    table = Table(connect(tmp_path / "t.db"), "pairs")
    table.create({"k": str, "a": str, "b": int}, pk="k")
    table.create_index(["a", "b"], unique=True)
    table.insert({"k": "x", "a": "t", "b": 0})
    with pytest.raises(Exception, match="UNIQUE"):
        table.insert({"k": "y", "a": "t", "b": 0})


def test_names_are_plain_identifiers(tmp_path: Path) -> None:
    conn = connect(tmp_path / "t.db")
    for bad in ("x]; DROP TABLE y; --", "a b", ""):
        with pytest.raises(ValueError, match="plain SQL name"):
            Table(conn, bad)
    table = Table(conn, "ok")
    table.create({"id": int}, pk="id")
    with pytest.raises(ValueError, match="plain SQL name"):
        table.insert({"id); --": 1})


def test_opening_a_store_imports_no_dataframe_library() -> None:
    # sqlite-utils imported pandas and numpy whenever installed: 0.4 s and ~60 MB a process
    code = (
        "import sys; from proofgym.rollouts.store import RolloutStore; "
        "import resources_servers.workflow.env; "
        "print(sorted(m for m in ('pandas', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
