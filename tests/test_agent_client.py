"""The agent client trainers use: async and batch calls, bounded concurrency, order kept,
refusals raised, and a synchronous batch that works inside a running event loop (a notebook)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from proofgym.clients.agent_client import AgentClient, RolloutRefused
from proofgym.clients.http import HttpxTransport
from proofgym.wire.protocol import Task
from proofgym_stack.testing import InProcessStack
from proofgym_stack.up import Stack, free_port


def tasks_of(rows: list[dict[str, Any]]) -> list[Task]:
    return [Task.model_validate(r) for r in rows]


async def test_run_many_keeps_order_and_bounds_concurrency(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    client = AgentClient("http://agent", concurrency=2, transport=HttpxTransport(stack.client))
    in_flight = peak = 0
    original = client.run

    async def counting(task: Task, **options: Any) -> Any:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await original(task, **options)
        finally:
            in_flight -= 1

    client.run = counting  # type: ignore[method-assign]
    tasks = tasks_of(file_edit_tasks[:3])
    results = await client.run_many(tasks, repeats=2, control="reference")
    assert [r.task_id for r in results] == [t.task_id for t in tasks for _ in range(2)]
    assert all(r.reward == 1.0 and not r.mask_sample for r in results)
    assert len({r.rollout_id for r in results}) == 6 and peak == 2


async def test_a_refused_task_raises(
    stack: InProcessStack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    client = AgentClient("http://agent", transport=HttpxTransport(stack.client))
    bad = Task.model_validate({**file_edit_tasks[0], "task_data": {"files": {}}})
    with pytest.raises(RolloutRefused) as caught:
        await client.run(bad, control="reference")
    assert caught.value.status == 400 and "task_data" in str(caught.value)


@pytest.fixture(scope="module")
def real_stack() -> Iterator[Stack]:
    stack = Stack(
        host="127.0.0.1",
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
    )
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def test_run_batch_from_plain_code_and_from_inside_a_running_loop(
    real_stack: Stack, file_edit_tasks: list[dict[str, Any]]
) -> None:
    client = AgentClient(real_stack.agent_url, concurrency=4)
    tasks = tasks_of(file_edit_tasks[:2])
    try:
        plain = client.run_batch(tasks, repeats=2, control="reference")
        assert [r.reward for r in plain] == [1.0] * 4

        async def notebook_cell() -> list[Any]:
            # a notebook's loop is running: asyncio.run() would fail here; run_batch does not
            return client.run_batch(tasks, control="noop_claim")

        inside = asyncio.run(notebook_cell())
        assert [r.reward for r in inside] == [0.0, 0.0]
    finally:
        client.close()
    assert client._loop is None and client._thread is not None and not client._thread.is_alive()
