"""game: Blackjack hands dealt from a seeded shoe, played through tools."""

from resources_servers.game.env import GameEnv as Env

__all__ = ["Env"]
