"""A chain of calls made as one: the first call stretched to where the last one ended.

One of the blind corpus's misses (batch 05b) covered a night with several short DJ sets, each
starting where the one before ended; one set over the whole gap paid, because the length rule
was worked out wrongly across midnight. The grammar never wrote that move: it merged list
arguments, never a chain of ranges. `join` writes it; the ordinary another-world oracle judges
it (the records of the calls it left out are lost).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.mutants import call_mutants
from proofgym_stack.validation.search.values import Pools
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing

MAX_HOURS = 3


def test_a_chain_of_ranges_is_joined_into_one_call() -> None:
    script = [
        call("book", start=9, end=12),
        call("book", start=12, end=15),
        call("book", start=15, end=17),
        say("Done."),
    ]
    joined = [m for m in call_mutants(script, Pools()) if m.op == "join"]
    assert joined[0].what == "3 book calls as one, end 12 -> 17"
    calls = [item for turn in joined[0].script for item in turn if item["type"] == "function_call"]
    assert len(calls) == 1 and '"start": 9' in calls[0]["arguments"]
    # calls that do not chain are never joined
    apart = [call("book", start=9, end=12), call("book", start=13, end=15)]
    assert not [m for m in call_mutants(apart, Pools()) if m.op == "join"]


class Desk(Environment[dict[str, Any]]):
    """Cover the opening hours with bookings of at most three hours each."""

    name = "desk"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"bookings": []}

    def instructions(self, task: Task) -> str:
        return f"book(start, end) books the desk, hours 0-24, at most {MAX_HOURS} hours each."

    @tool(inline=True)
    def book(self, state: dict[str, Any], start: int, end: int) -> str:
        """Book the desk.

        Args:
            start: the first hour.
            end: the hour it ends.
        """
        if not 0 <= start < end <= 24:
            raise ToolError("hours run from 0 to 24, start before end")
        state["bookings"].append((start, end))
        return f"booked {start}-{end}"

    def short(self, start: int, end: int) -> bool:
        return end - start <= MAX_HOURS

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        data = task.task_data
        spans = sorted(state["bookings"])
        hours = {h for s, e in spans for h in range(s, e)}
        covered = hours >= set(range(data["open"], data["close"]))
        return all_or_nothing(
            [
                Check(name="covered", passed=covered),
                Check(name="short", passed=all(self.short(s, e) for s, e in spans)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        script: list[Any] = []
        at = data["open"]
        while at < data["close"]:
            end = min(at + MAX_HOURS, data["close"])
            script.append(call("book", start=at, end=end))
            at = end
        return [
            Control(name="reference", expect="pass", script=[*script, say("Done.")]),
            Control(name="noop_claim", expect="fail", script=[say("Done: covered.")]),
        ]


class LengthUnchecked(Desk):
    """The mistake: the length rule reads the wrong pair (the hours are never compared)."""

    def short(self, start: int, end: int) -> bool:
        return start <= end


def desk_tasks() -> list[Task]:
    out = []
    for k in range(4):
        data = {"open": 8 + k, "close": 16 + k}
        out.append(
            Task(
                task_id=f"desk-example-0-{k:05d}",
                env="desk",
                responses_create_params={"input": f"Cover the desk from {8 + k} to {16 + k}."},
                task_data=data,
            )
        )
    return out


async def _validate(env: Environment[Any]) -> EnvReport:
    return await validate_env(env, desk_tasks(), parallel=16, sample=4)


async def test_one_long_booking_where_the_rule_allows_short_ones_is_accused() -> None:
    bad = await _validate(LengthUnchecked())
    joins = [f for f in bad.findings if f["severity"] == "pays" and "calls as one" in f["what"]]
    assert joins, bad.findings
    good = await _validate(Desk())
    assert not [f for f in good.findings if f["severity"] == "pays"], good.findings
