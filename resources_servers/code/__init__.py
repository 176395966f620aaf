"""code: implement a Python function; hidden unit tests run in a sandbox decide."""

from resources_servers.code.env import CodeEnv as Env

__all__ = ["Env"]
