"""file_edit: set one value in a workspace of config files, and change nothing else."""

from resources_servers.file_edit.env import FileEditEnv as Env

__all__ = ["Env"]
