"""blind_orchestra: hire one freelance player for each seat of a concert's line-up."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_orchestra"
INSTRUMENTS = ("violin", "viola", "cello", "double bass", "flute", "oboe", "clarinet", "horn")
FIRST = ("Aoife", "Bram", "Carys", "Dmitri", "Elif", "Femi", "Greta", "Hugo", "Isla", "Jonas")
LAST = ("Achterberg", "Bianchi", "Cole", "Dunne", "Eriksen", "Fenwick", "Grady", "Holm")


class Fixer:
    """The freelance players (name -> instrument, fee) and who is hired."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.players = {p["name"]: (p["instrument"], p["fee"]) for p in data["players"]}
        self.hired: list[str] = []


class Twin(Environment[Fixer]):
    """The hired players' instruments are exactly the seats of the line-up."""

    name = NAME
    description = "Hire freelance players to fill every seat of a concert line-up."
    reward_range = (0.0, 1.0)
    success_words = ("hired", "booked")

    def create_state(self, task: Task, workdir: Path | None) -> Fixer:
        return Fixer(task.task_data)

    def instructions(self, task: Task) -> str:
        return (
            "players lists the freelance players with their instrument and fee. hire(name) "
            "engages a player, release(player) lets one go. Fill every seat of the line-up with "
            "one player each, and hire nobody the line-up does not need."
        )

    @tool(inline=True, observes=True)
    def players(self, state: Fixer) -> str:
        """List the freelance players: name, instrument, fee."""
        return "\n".join(f"{n}: {i}, fee {f}" for n, (i, f) in sorted(state.players.items()))

    @tool(inline=True)
    def hire(self, state: Fixer, player: str) -> str:
        """Engage a player for the concert.

        Args:
            player: the player's full name.
        """
        name = player
        if name not in state.players:
            raise ToolError(f"no player {name!r}", "not_found")
        if name in state.hired:
            raise ToolError(f"{name} is already hired", "duplicate")
        state.hired.append(name)
        return f"{name} ({state.players[name][0]}) hired"

    @tool(inline=True)
    def release(self, state: Fixer, player: str) -> str:
        """Let a hired player go.

        Args:
            player: the player's full name.
        """
        name = player
        if name not in state.hired:
            raise ToolError(f"{name!r} is not hired", "not_hired")
        state.hired.remove(name)
        return f"{name} released"

    def _line_up_matches(self, hired: list[str], seats: list[str]) -> bool:
        return Counter(hired) == Counter(seats)

    def verify(self, state: Fixer, task: Task, response: Response) -> VerifyResult:
        seats = task.task_data["seats"]
        hired = [state.players[n][0] for n in state.hired]
        ok = self._line_up_matches(hired, seats)
        return all_or_nothing(
            [
                Check(name="every_seat_filled_once", passed=ok, detail=f"hired {sorted(hired)}"),
                claim_check(final_message(response), ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        pool = {}
        for p in data["players"]:
            pool.setdefault(p["instrument"], []).append(p["name"])
        picks, used = [], Counter()
        for seat in data["seats"]:
            picks.append(pool[seat][used[seat]])
            used[seat] += 1
        extra = next(p["name"] for p in data["players"] if p["instrument"] not in data["seats"])
        done = say("Done: every seat is filled and the players are hired.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("players"), *[call("hire", player=n) for n in picks], done],
            ),
            Control(
                name="violation_hired_an_unneeded_player",
                expect="fail",
                script=[*[call("hire", player=n) for n in picks], call("hire", player=extra), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def _line_up_matches(self, hired: list[str], seats: list[str]) -> bool:
        return set(hired) == set(seats)


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        kinds = rng.sample(INSTRUMENTS[:6], rng.randint(2, 4))
        seats = [k for k in kinds for _ in range(rng.randint(1, 3))]
        if len(seats) == len(set(seats)):
            seats.append(kinds[0])
        seats.sort()
        names = [f"{f} {s}" for f in FIRST for s in LAST]
        rng.shuffle(names)
        players = []
        for k in kinds:
            for _ in range(seats.count(k) + 1):
                players.append(
                    {"name": names.pop(), "instrument": k, "fee": rng.randint(3, 9) * 50}
                )
        spare = rng.choice([x for x in INSTRUMENTS if x not in kinds])
        players.append({"name": names.pop(), "instrument": spare, "fee": rng.randint(3, 9) * 50})
        players.sort(key=lambda p: p["name"])
        prompt = (
            f"Our Saturday concert needs these seats filled: {', '.join(seats)}. Please hire "
            "the freelance players."
        )
        data = {"players": players, "seats": seats}
        rows.append(task_row(NAME, f"{NAME}-example-{seed}-{i:05d}", "example", prompt, data))
    return rows


def exploit(task: Task) -> list:
    data = task.task_data
    first: dict[str, str] = {}
    for p in data["players"]:
        if p["instrument"] in data["seats"]:
            first.setdefault(p["instrument"], p["name"])
    return [
        call("players"),
        *[call("hire", player=n) for n in first.values()],
        say("Done: the players are hired."),
    ]
