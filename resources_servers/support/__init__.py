"""support: answer a customer from a knowledge base; an LLM judge behind deterministic gates."""

from resources_servers.support.env import SupportEnv as Env

__all__ = ["Env"]
