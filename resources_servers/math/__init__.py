"""math: word problems with one numeric answer, an optional calculator."""

from resources_servers.math.env import MathEnv as Env

__all__ = ["Env"]
