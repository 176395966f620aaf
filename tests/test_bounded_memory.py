"""What a resources server remembers per rollout stays bounded by size and age (issue 44), and
a retried verify still gets the first verdict inside its window."""

from __future__ import annotations

import sys
import time

import pytest
from openai.types.responses import Response

from proofgym.wire.protocol import Check, VerifyResult
from resources_servers.base import expiring
from resources_servers.base.expiring import Expiring
from resources_servers.base.verdicts import MOST, TTL_S, ClosedVerdicts


def response(rid: str = "resp_1") -> Response:
    return Response.model_validate(
        {
            "id": rid, "object": "response", "created_at": 0, "model": "m", "output": [],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        }
    )  # fmt: skip


def verdict(i: int) -> VerifyResult:
    return VerifyResult(
        reward=1.0,
        reward_components={"answer": 1.0},
        checks=[Check(name="answer", passed=True, detail=f"the answer {i} matches " + "x" * 200)],
    )


class Clock:
    """time.monotonic, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(expiring.time, "monotonic", c)
    return c


def test_expiring_bounded_by_count_when_only_written() -> None:
    kept: Expiring[int, int] = Expiring(ttl_s=3600, most=100)
    for i in range(10_000):
        kept.put(i, i)
    assert len(kept._entries) == 100  # never past `most`, though nothing was read
    assert kept.get(9_999) == 9_999 and kept.get(9_899) is None


def test_expiring_forgets_by_age_on_put_alone(clock: Clock) -> None:
    kept: Expiring[int, int] = Expiring(ttl_s=10, most=10_000)
    for i in range(500):
        kept.put(i, i)
    clock.now += 11
    kept.put(-1, -1)  # a map only written to still sheds what expired
    assert list(kept._entries) == [-1]


def test_closed_verdicts_stay_bounded_after_many_rollouts() -> None:
    kept = ClosedVerdicts()
    resp = response()
    for i in range(3 * MOST):
        kept.keep(f"session-{i:08d}", f"key-{i}", resp, verdict(i))
    assert len(kept) == MOST
    # the newest are still there for their owners' retries
    last = 3 * MOST - 1
    assert kept.get(f"session-{last:08d}", f"key-{last}", resp) == verdict(last)
    assert kept.get("session-00000000", "key-0", resp) is None


def test_a_kept_verdict_is_small() -> None:
    """Kept as JSON bytes under one digest, not as live objects: a bound of MOST verdicts
    costs a few MB at most, whatever the rate."""
    kept = ClosedVerdicts()
    kept.keep("session-00000001", "key", response(), verdict(1))
    digest, data = next(iter(kept._kept._entries.values()))[0]
    assert isinstance(data, bytes) and isinstance(digest, bytes)
    assert sys.getsizeof(digest) + sys.getsizeof(data) < 2 * len(verdict(1).model_dump_json())


def test_a_retried_verify_gets_its_first_verdict_inside_the_window(clock: Clock) -> None:
    kept = ClosedVerdicts()
    resp = response()
    kept.keep("session-00000001", "owner", resp, verdict(7))
    clock.now += TTL_S - 1  # a retry late in the window: still the first verdict
    assert kept.get("session-00000001", "owner", resp) == verdict(7)
    # only to its owner, only for the same Response
    assert kept.get("session-00000001", "stranger", resp) is None
    assert kept.get("session-00000001", None, resp) is None
    assert kept.get("session-00000001", "owner", response("resp_2")) is None
    clock.now += 2  # past the window: forgotten
    assert kept.get("session-00000001", "owner", resp) is None


def test_the_window_outlasts_the_clients_retries() -> None:
    """The window covers the agent client's whole retry schedule (see verdicts.py): every
    retry's backoff plus a body read at the guard's timeout."""
    from proofgym.serving.settings import AgentSettings

    client = AgentSettings()
    worst = client.max_retries * (client.backoff_max_s + client.body_timeout_s)
    assert worst < TTL_S


def test_bounded_by_count_under_a_frozen_clock(clock: Clock) -> None:
    kept = ClosedVerdicts(ttl_s=TTL_S, most=50)
    resp = response()
    start = time.perf_counter()
    for i in range(5_000):
        kept.keep(f"session-{i:08d}", "k", resp, verdict(i))
    assert len(kept) == 50
    assert time.perf_counter() - start < 5  # bounded work per keep, not a scan of all kept
