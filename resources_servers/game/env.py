"""The game environment: play `hands` Blackjack hands through tools; reward is the mean outcome.

An unfinished game scores -1 (the bottom of the range). Illegal moves are tool errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from resources_servers.game.blackjack import (
    Game,
    IllegalMove,
    basic_strategy,
    dealer_mimic,
    play,
    reckless,
)
from resources_servers.game.task import GameTask
from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    call,
    say,
    tool,
)


class GameEnv(Environment[Game, GameTask]):
    """Blackjack from a seeded shoe."""

    name = "game"
    task_data_model = GameTask
    description = "Blackjack (hit or stand) from a seeded shoe; reward is the mean outcome."
    reward_range = (-1.0, 1.5)
    partial_credit = True  # the mean outcome of the hands
    honest_forms = ("preamble", "closing", "upper_case", "lower_case", "markdown_bold")
    pass_threshold = 0.2
    random_play_can_pass = True  # a lucky run of random moves wins real hands
    secret_fields = ("seed",)  # the seed is the whole deal: a policy that knew it could peek
    floor_margin = 0.2  # a game's outcome is luck as well as skill: half a point of 2.5
    deterministic_tools = True

    def create_state(self, task: Task, workdir: Path | None) -> Game:
        data = self.data(task)
        return Game(data.seed, data.hands)

    def instructions(self, task: Task) -> str:
        return (
            "Play Blackjack: one move per turn with play (hit or stand); look shows the "
            "table. The dealer stands on 17. Play every hand, then say how it went."
        )

    @tool(observes=True, inline=True)
    def look(self, state: Game) -> str:
        """Show the table: your cards, the dealer's face-up card, the outcomes so far."""
        return state.describe()

    @tool(inline=True)
    def play(self, state: Game, move: Literal["hit", "stand"]) -> str:
        """Make one move in the current hand.

        Args:
            move: hit (take a card) or stand (end the hand).
        """
        before = len(state.outcomes)
        try:
            state.hit() if move == "hit" else state.stand()
        except IllegalMove as exc:
            raise ToolError(str(exc), "illegal_move") from None
        settled = (
            f"hand {before + 1} settled: {state.outcomes[before]:+g}. "
            if len(state.outcomes) > before
            else ""
        )
        return settled + state.describe()

    def verify(self, state: Game, task: Task, response: Response) -> VerifyResult:
        wins = sum(o > 0 for o in state.outcomes)
        losses = sum(o < 0 for o in state.outcomes)
        detail = (
            f"{len(state.outcomes)}/{state.hands} hands: {wins} won, {losses} lost, "
            f"{len(state.outcomes) - wins - losses} pushed"
        )
        return VerifyResult(
            reward=state.score(),
            reward_components={"outcome": state.score()},
            checks=[Check(name="game_finished", passed=state.over, detail=detail)],
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        seed, hands = data.seed, data.hands

        def script(strategy: Any, line: str) -> list[list[dict[str, Any]]]:
            moves, _ = play(seed, hands, strategy)
            return [*(call("play", move=m) for m in moves), say(line)]

        def looking(strategy: Any, line: str) -> list[list[dict[str, Any]]]:
            look = call("look")
            turns = script(strategy, line)
            return [t for move in turns[:-1] for t in (look, move)] + turns[-1:]

        return [
            Control(
                name="reference",
                expect="pass",
                description="basic strategy",
                script=script(basic_strategy, "All hands played with basic strategy."),
            ),
            Control(
                name="alternative",
                expect="pass",
                description="plays like the dealer",
                script=script(dealer_mimic, "All hands played, hitting below 17."),
            ),
            Control(
                name="alternative_looks_before_every_move",
                expect="pass",
                description="basic strategy, looking at the table before each move",
                script=looking(basic_strategy, "All hands played, each after a look."),
            ),
            Control(
                name="violation_reckless",
                expect="fail",
                description="hits to 21 or bust",
                script=script(reckless, "All hands played."),
            ),
            Control(
                name="noop_claim",
                expect="fail",
                description="claims, plays nothing",
                script=[[{"type": "message", "content": "Done: I won every hand."}]],
            ),
        ]
