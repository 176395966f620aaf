"""The resources server base: environments, typed tools, sessions and the HTTP app."""

from resources_servers.base.environment import Environment, ToolError
from resources_servers.base.scripts import Turn, call, call_item, say, say_item
from resources_servers.base.tools import tool

__all__ = [
    "Environment",
    "ToolError",
    "Turn",
    "call",
    "call_item",
    "say",
    "say_item",
    "tool",
]
