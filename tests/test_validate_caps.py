"""A count the task's words cap (`search/caps.py`): one more call past a stated cap that
honest play reached pays only on a verifier that does not count."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.caps import cap_crossed, stated_caps
from proofgym_stack.validation.search.options import listed_with
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

QUOTA = 2
SLOTS = ["Mon 10:00", "Mon 14:00", "Tue 10:00", "Tue 14:00", "Wed 10:00", "Wed 14:00"]


class Desk:
    """One session's free slots and each member's sessions."""

    def __init__(self) -> None:
        self.free = list(SLOTS)
        self.sessions: dict[str, int] = {}


class KilnDesk(Environment[Desk]):
    """Book kiln sessions: each member what they asked for, at most two each."""

    name = "kiln"

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk()

    def instructions(self, task: Task) -> str | None:
        return f"Each member may have at most {QUOTA} sessions a week. book(member, slot)."

    @tool(inline=True)
    def book(self, state: Desk, member: str, slot: str) -> str:
        """Book one kiln session.

        Args:
            member: the member's name.
            slot: a free slot, as the request lists it.
        """
        if slot not in state.free:
            raise ToolError(f"{slot} is not free")
        state.free.remove(slot)
        state.sessions[member] = state.sessions.get(member, 0) + 1
        return f"booked {slot} for {member}"

    def quota_kept(self, state: Desk) -> bool:
        return all(n <= QUOTA for n in state.sessions.values())

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        asks = task.task_data["asks"]
        served = all(state.sessions.get(m, 0) >= min(n, QUOTA) for m, n in asks.items())
        return all_or_nothing(
            [
                Check(name="everyone_served", passed=served),
                Check(name="quota_kept", passed=self.quota_kept(state)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        free = iter(SLOTS)
        steps = [
            call("book", member=m, slot=next(free))
            for m, n in task.task_data["asks"].items()
            for _ in range(min(n, QUOTA))
        ]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Booked.")]),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class QuotaNeverCounted(KilnDesk):
    """The plant: the quota is never checked."""

    def quota_kept(self, state: Desk) -> bool:
        return True


def kiln_tasks() -> list[Task]:
    out = []
    for i, (a, b) in enumerate((("Ana", "Ben"), ("Cy", "Dee"), ("Eve", "Fay"), ("Gus", "Hal"))):
        asks = {a: 3 + i % 2, b: 1}
        text = f"{a} asks for {asks[a]} sessions, {b} for 1. Free slots: {', '.join(SLOTS)}."
        out.append(
            Task(
                task_id=f"kiln-{i}",
                env="kiln",
                responses_create_params={"input": text},
                task_data={"asks": asks},
            )
        )
    return out


async def test_one_more_past_a_stated_cap_is_caught() -> None:
    plant = await validate(QuotaNeverCounted(), kiln_tasks())
    assert "search" in failed(plant)
    pays = [f for f in plant.findings if f["severity"] == "pays"]
    assert any("cap it" in f["why"] for f in pays), [(f["what"], f["why"]) for f in pays]
    sound = await validate(KilnDesk(), kiln_tasks())
    assert "search" not in failed(sound)


def test_the_caps_words_state() -> None:
    assert stated_caps("Each member may have at most 2 sessions a week.") == {
        2: "at most 2 sessions a week"
    }
    assert 3 in stated_caps("no more than three per guest; up to 10 guests")
    assert stated_caps("book the sessions they asked for") == {}
    honest = [call("book", member="Ana", slot="a"), call("book", member="Ana", slot="b")]
    more = [*honest, call("book", member="Ana", slot="c")]
    assert cap_crossed(honest, more, "book", "at most 2 each") is not None
    assert cap_crossed(honest, more, "book", "at most 3 each") is None
    assert cap_crossed(honest, more, "book", "book them all") is None


def test_a_time_is_one_member_of_a_list() -> None:
    assert listed_with("Mon 10:00", "Free slots: Mon 10:00, Mon 14:00, Tue 9:30.") == [
        "Mon 14:00",
        "Tue 9:30",
    ]
