"""Shared fixtures: tasks and the in-process stack."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from proofgym_stack.testing import InProcessStack, in_process_stack
from sdg.file_edit import generate

ROOT = Path(__file__).resolve().parent.parent
# bench/ is no installed package: the tests of its scripts import it from the checkout
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
KEEP_ENV = "PROOFGYM_TEST_KEEP_ENV"  # test_hermetic runs tests with hostile variables set


def pytest_configure(config: pytest.Config) -> None:
    """A developer's PROOFGYM_* variables must not change what the processes a test starts do,
    module and session fixtures' processes included: they are gone before any fixture runs
    (the in-process code ignores them anyway: test_hermetic proves it)."""
    if os.environ.get(KEEP_ENV) != "1":
        for key in [k for k in os.environ if k.startswith("PROOFGYM_")]:
            del os.environ[key]
        # what a `proofgym validate` a test runs proves is written here, not into the checkout
        os.environ["PROOFGYM_PROOFS_DIR"] = tempfile.mkdtemp(prefix="proofgym-test-proofs-")


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """A FIFO a test made in its tmp_path (a hostile certificate) is removed when it ends:
    pytest keeps old tmp folders, and a later test's sandboxed program that walks /tmp and
    opens every file would block on one for good."""
    where = getattr(item, "funcargs", {}).get("tmp_path")
    if not isinstance(where, Path) or not where.is_dir():
        return
    for path in where.rglob("*"):
        try:
            if path.is_fifo():
                path.unlink()
        except OSError:
            continue


@pytest.fixture
def file_edit_tasks() -> list[dict[str, Any]]:
    return generate(6, seed=11)


@pytest.fixture
def example_tasks() -> list[dict[str, Any]]:
    path = ROOT / "tasks" / "file_edit" / "example.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
async def stack() -> AsyncIterator[InProcessStack]:
    async with in_process_stack() as s:
        yield s


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The untrained tiny model, built once per test session."""
    pytest.importorskip("transformers", reason="the local extra (torch, transformers) is needed")
    from model_interface.tiny_model import build

    return build(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="session")
def tool_calling_model_dir(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model taught to call list_files every turn."""
    from tiny_policy import teach_tool_calls

    return teach_tool_calls(tiny_model_dir, tmp_path_factory.mktemp("taught"))
