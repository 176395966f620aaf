"""game tasks: seeds whose deals tell a sound strategy from a poor one, and whose sound games
fit the agent's default step budget even for a policy that looks before every move."""

from __future__ import annotations

from typing import Any

from resources_servers.game.blackjack import basic_strategy, dealer_mimic, play, reckless
from sdg.rows import task_row

PASS, GAP, MAX_MOVES = 0.2, 0.5, 15
DEFAULT_MAX_STEPS = 16  # the agent's default (AgentSettings.max_steps)


def steps_when_looking(moves: int) -> int:
    """Agent steps a policy needs that looks before every move: look, play, ..., then a final
    message."""
    return 2 * moves + 1


def discriminates(seed: int, hands: int) -> bool:
    """Self-check: both sound strategies pass, the reckless one fails by a margin, every
    scripted game fits in the agent's default step budget, and the sound ones fit it even when
    the policy looks before every move (a careful policy must not be the one that runs out)."""
    plays = {
        name: play(seed, hands, s)
        for name, s in (("basic", basic_strategy), ("mimic", dealer_mimic), ("reckless", reckless))
    }
    if any(len(moves) > MAX_MOVES for moves, _ in plays.values()):
        return False
    if any(steps_when_looking(len(plays[n][0])) > DEFAULT_MAX_STEPS for n in ("basic", "mimic")):
        return False
    basic, mimic, poor = (plays[n][1] for n in ("basic", "mimic", "reckless"))
    return basic >= PASS and mimic >= PASS and poor < PASS and basic - poor >= GAP


def generate(n: int, seed: int, split: str = "example", hands: int = 5) -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed."""
    tasks: list[dict[str, Any]] = []
    candidate = seed * 100_000
    while len(tasks) < n:
        candidate += 1
        if not discriminates(candidate, hands):
            continue
        tasks.append(
            task_row(
                "game",
                f"game-{seed}-{len(tasks):04d}",
                split,
                f"Play {hands} hands of Blackjack; try to come out ahead.",
                {"seed": candidate, "hands": hands},
            )
        )
    return tasks
