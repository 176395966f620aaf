"""workflow: a customer-support back office on a per-session SQLite database."""

from resources_servers.workflow.env import WorkflowEnv as Env

__all__ = ["Env"]
