"""letters: write text made of one letter; a task small enough that a tiny model learns it."""

from resources_servers.letters.env import LettersEnv as Env

__all__ = ["Env"]
