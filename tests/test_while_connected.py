"""`proofgym.serving.service.while_connected`: work for a caller stops when the caller goes, and
only
then; a cancellation that is not its own passes through untouched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from proofgym.serving.service import while_connected


class Caller:
    """The part of a Starlette request `while_connected` reads: whether the caller has gone
    (after `gone_after` questions, or never)."""

    def __init__(self, gone_after: int | None = None) -> None:
        self.gone_after = gone_after
        self.asked = 0

    async def is_disconnected(self) -> bool:
        self.asked += 1
        return self.gone_after is not None and self.asked > self.gone_after


async def test_an_instant_answer_is_returned_and_nobody_is_asked() -> None:
    caller = Caller(gone_after=0)

    async def work() -> int:
        return 42

    assert await while_connected(caller, work(), poll_s=0.05) == 42  # type: ignore[arg-type]
    await asyncio.sleep(0.1)
    assert caller.asked == 0  # no watcher for work that never waited


async def test_slow_work_for_a_caller_still_there_completes() -> None:
    caller = Caller()

    async def work() -> str:
        await asyncio.sleep(0.2)
        return "done"

    assert await while_connected(caller, work(), poll_s=0.02) == "done"  # type: ignore[arg-type]
    assert caller.asked >= 3  # it was watched all along
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_work_for_a_caller_that_has_gone_is_cancelled() -> None:
    caller = Caller(gone_after=2)
    events: list[str] = []

    async def work() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        return "too late"

    started = asyncio.get_running_loop().time()
    result = await while_connected(caller, work(), poll_s=0.02)  # type: ignore[arg-type]
    assert result is None
    assert events == ["cancelled"]
    assert asyncio.get_running_loop().time() - started < 5
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    await asyncio.sleep(0)  # the caller's task runs on, uncancelled


async def test_work_that_keeps_its_result_through_the_cancel_answers_nobody() -> None:
    caller = Caller(gone_after=1)

    async def stubborn() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "finished anyway"
        return "never"

    assert await while_connected(caller, stubborn(), poll_s=0.02) is None  # type: ignore[arg-type]
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    await asyncio.sleep(0.01)  # no cancellation is left pending on the caller's task


async def test_a_cancellation_from_outside_is_not_swallowed() -> None:
    caller = Caller()
    results: list[Any] = []

    async def work() -> str:
        await asyncio.sleep(30)
        return "never"

    async def handler() -> None:
        results.append(await while_connected(caller, work(), poll_s=0.02))  # type: ignore[arg-type]

    task = asyncio.create_task(handler())
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert results == []


async def test_an_outer_timeout_still_fires_through_it() -> None:
    caller = Caller()

    async def work() -> str:
        await asyncio.sleep(30)
        return "never"

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.1):
            await while_connected(caller, work(), poll_s=0.02)  # type: ignore[arg-type]
