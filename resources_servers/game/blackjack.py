"""Blackjack with hit and stand, dealt from a shoe shuffled by a seed: the same seed always
deals the same cards, so every sample of a GRPO group faces the same game."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def value(hand: list[str]) -> tuple[int, bool]:
    """Best total of a hand and whether it is soft (an ace counted as 11)."""
    total = sum(11 if c == "A" else 10 if c in "JQK" or c == "10" else int(c) for c in hand)
    aces = hand.count("A")
    while total > 21 and aces:
        total -= 10
        aces -= 1
    return total, aces > 0


def natural(hand: list[str]) -> bool:
    """A two-card 21."""
    return len(hand) == 2 and value(hand)[0] == 21


class IllegalMove(Exception):
    """A move the game does not allow now."""


@dataclass
class Game:
    """A game of `hands` hands. Outcomes: +1 win, +1.5 natural win, 0 push, -1 loss."""

    seed: int
    hands: int = 5
    shoe: list[str] = field(default_factory=list)
    player: list[str] = field(default_factory=list)
    dealer: list[str] = field(default_factory=list)
    outcomes: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.shoe = [r for _ in range(4) for r in RANKS * 4]  # four decks
        rng.shuffle(self.shoe)
        self._deal()

    @property
    def over(self) -> bool:
        """Whether every hand has been settled."""
        return len(self.outcomes) >= self.hands

    def _draw(self) -> str:
        return self.shoe.pop()

    def _deal(self) -> None:
        self.player = [self._draw(), self._draw()]
        self.dealer = [self._draw(), self._draw()]

    def _settle(self, outcome: float) -> None:
        self.outcomes.append(outcome)
        if not self.over:
            self._deal()

    def hit(self) -> None:
        """Take a card; a total over 21 loses the hand."""
        if self.over:
            raise IllegalMove("the game is over")
        self.player.append(self._draw())
        if value(self.player)[0] > 21:
            self._settle(-1.0)

    def stand(self) -> None:
        """End the hand: the dealer draws to 17 (standing on soft 17), then totals compare."""
        if self.over:
            raise IllegalMove("the game is over")
        mine, theirs = natural(self.player), natural(self.dealer)
        if mine or theirs:
            self._settle(0.0 if mine and theirs else 1.5 if mine else -1.0)
            return
        while value(self.dealer)[0] < 17:
            self.dealer.append(self._draw())
        me, them = value(self.player)[0], value(self.dealer)[0]
        self._settle(1.0 if them > 21 or me > them else 0.0 if me == them else -1.0)

    def describe(self) -> str:
        """What the player may see: never the dealer's hole card or the shoe."""
        done = ", ".join(f"{o:+g}" for o in self.outcomes) or "none yet"
        if self.over:
            return f"game over. outcomes: {done}. score: {self.score():+.2f}"
        total, soft = value(self.player)
        return (
            f"hand {len(self.outcomes) + 1} of {self.hands}. your cards: "
            f"{' '.join(self.player)} (total {total}{', soft' if soft else ''}). dealer "
            f"shows {self.dealer[0]}. settled so far: {done}"
        )

    def score(self) -> float:
        """Mean outcome over the hands; an unfinished game scores -1."""
        return sum(self.outcomes) / self.hands if self.over else -1.0


Strategy = Callable[[list[str], str], str]


def basic_strategy(hand: list[str], up: str) -> str:
    """The textbook hit/stand strategy (no doubling or splitting)."""
    total, soft = value(hand)
    dealer = value([up])[0]
    if soft:
        return "stand" if total >= 19 or (total == 18 and dealer <= 8) else "hit"
    if total >= 17:
        return "stand"
    if total >= 13:
        return "stand" if dealer <= 6 else "hit"
    if total == 12:
        return "stand" if 4 <= dealer <= 6 else "hit"
    return "hit"


def dealer_mimic(hand: list[str], up: str) -> str:
    """Play like the dealer: hit below 17."""
    return "hit" if value(hand)[0] < 17 else "stand"


def reckless(hand: list[str], up: str) -> str:
    """Hit until 21 or bust: a poor strategy."""
    return "hit" if value(hand)[0] < 21 else "stand"


def play(seed: int, hands: int, strategy: Strategy) -> tuple[list[str], float]:
    """The moves a strategy makes on this seed's game, and the score it gets."""
    game = Game(seed, hands)
    moves = []
    while not game.over:
        move = strategy(game.player, game.dealer[0])
        moves.append(move)
        game.hit() if move == "hit" else game.stand()
    return moves, game.score()
