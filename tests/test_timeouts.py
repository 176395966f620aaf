"""`proofgym.serving.timeouts.timeout`: asyncio.timeout's behaviour, long limits kept in a wheel.

The wheel's limits are shrunk here (COARSE_FROM_S, TICK_S) so that coarse limits fire in
tenths of a second; every case runs against asyncio.timeout too, the behaviour to match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager

import pytest

from proofgym.serving import timeouts

Limit = Callable[[float], AbstractAsyncContextManager[object]]


@pytest.fixture(autouse=True)
def short_wheel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(timeouts, "COARSE_FROM_S", 0.1)
    monkeypatch.setattr(timeouts, "TICK_S", 0.02)
    yield


@pytest.fixture(params=["coarse", "asyncio"])
def limit(request: pytest.FixtureRequest) -> Limit:
    return timeouts.timeout if request.param == "coarse" else asyncio.timeout


def wheel() -> timeouts._Wheel:
    return timeouts._wheel(asyncio.get_running_loop())


def me() -> asyncio.Task[object]:
    task = asyncio.current_task()
    assert task is not None
    return task


async def test_a_coarse_limit_is_filed_in_the_wheel() -> None:
    async with timeouts.timeout(0.5):
        assert wheel().live == 1
    assert wheel().live == 0
    async with timeouts.timeout(0.05):  # short: asyncio.timeout's own timer
        assert wheel().live == 0


async def test_it_fires_never_early_and_at_most_a_tick_late(limit: Limit) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(TimeoutError):
        async with limit(0.2):
            await asyncio.sleep(5)
    elapsed = loop.time() - start
    assert elapsed >= 0.2
    assert elapsed < 0.2 + timeouts.TICK_S + 1.0  # a tick, and a loaded machine's slack
    assert me().cancelling() == 0
    await asyncio.sleep(0.01)  # nothing left pending on this task


async def test_a_block_that_finishes_in_time_is_untouched(limit: Limit) -> None:
    async with limit(0.3):
        await asyncio.sleep(0.01)
        result = "done"
    assert result == "done"
    await asyncio.sleep(0.4)  # past the limit: nothing fires later
    assert me().cancelling() == 0
    assert wheel().live == 0


async def test_a_cancellation_from_outside_is_not_a_timeout(limit: Limit) -> None:
    async def guarded() -> None:
        async with limit(5.0):
            await asyncio.sleep(30)

    task = asyncio.create_task(guarded())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_expiry_and_an_outside_cancel_together_stay_a_cancel(limit: Limit) -> None:
    entered = asyncio.Event()

    async def guarded() -> None:
        async with limit(0.15):
            entered.set()
            await asyncio.sleep(30)

    task = asyncio.create_task(guarded())
    await entered.wait()
    await asyncio.sleep(0.3)  # the limit expires while this task waits below
    task.cancel()
    # whichever came first, an outside cancel is never turned into a TimeoutError, and a
    # timeout is never lost: the task ends with one or the other
    with pytest.raises((asyncio.CancelledError, TimeoutError)):
        await task


async def test_an_inner_shorter_limit_fires_and_the_outer_goes_on(limit: Limit) -> None:
    async with limit(2.0):
        with pytest.raises(TimeoutError):
            async with limit(0.15):
                await asyncio.sleep(5)
        await asyncio.sleep(0.05)  # the outer block carries on, uncancelled
    assert me().cancelling() == 0


async def test_an_outer_shorter_limit_ends_the_inner_block(limit: Limit) -> None:
    reached = []
    with pytest.raises(TimeoutError):
        async with limit(0.15):
            try:
                async with limit(5.0):
                    await asyncio.sleep(5)
            except TimeoutError:
                reached.append("inner took it")  # it must not
                raise
    assert reached == []
    assert me().cancelling() == 0


async def test_a_block_that_swallows_the_cancel_keeps_its_result(limit: Limit) -> None:
    async with limit(0.15):
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            result = "kept"
    assert result == "kept"
    assert me().cancelling() == 0
    await asyncio.sleep(0.01)


async def test_many_limits_leave_nothing_behind() -> None:
    async def one(i: int) -> None:
        # limits far above the work, so a loaded machine (3,000 tasks on a busy core, beside
        # a whole test suite on the other) never reaches one: what is tested is the
        # bookkeeping, not the speed (2 s was reached once in a clean run under load)
        async with timeouts.timeout(6.0 + (i % 7) * 0.05):
            await asyncio.sleep(0 if i % 3 else 0.01)

    await asyncio.gather(*(one(i) for i in range(3000)))
    assert wheel().live == 0
    await asyncio.sleep(6.6)  # every bucket due: the wheel stops sweeping and empties
    assert wheel().sweeper is None and not wheel().buckets and not wheel().slots


async def test_limits_in_many_tasks_fire_each_in_its_own_task() -> None:
    async def sleeper(seconds: float) -> str:
        try:
            async with timeouts.timeout(seconds):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out"
        return "slept"

    got = await asyncio.gather(*(sleeper(0.1 + i * 0.01) for i in range(50)))
    assert got == ["timed out"] * 50
    assert wheel().live == 0


def test_each_event_loop_has_its_own_wheel() -> None:
    async def fire() -> str:
        try:
            async with timeouts.timeout(0.15):
                await asyncio.sleep(5)
        except TimeoutError:
            return "fired"
        return "no"

    # a new loop after the first: the wheel of a closed loop is not reused
    assert asyncio.run(fire()) == "fired"
    assert asyncio.run(fire()) == "fired"
