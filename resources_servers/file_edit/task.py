"""What a file_edit task carries: the workspace's files and the one value to set."""

from __future__ import annotations

from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_PATH = 255  # one file name of most file systems; a longer path is no config file


def _safe_path(path: str) -> str:
    parts = PurePosixPath(path).parts
    if not path or "\0" in path or path.startswith("/") or ".." in parts or "\\" in path:
        raise ValueError(f"must be a relative path inside the workspace: {path!r}")
    if path.endswith("/") or {"", "."} & set(path.split("/")):
        raise ValueError(f"must name a file, not a folder: {path!r}")
    if len(path) > MAX_PATH or any(len(p) > MAX_PATH for p in parts):
        raise ValueError(f"a path of at most {MAX_PATH} characters: {path[:40]!r}...")
    return path


class Goal(BaseModel):
    """Set `key = value` in the file at `path`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    key: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    value: str | int | float

    _path = field_validator("path")(_safe_path)


class FileEditTask(BaseModel):
    """`task_data` of file_edit."""

    model_config = ConfigDict(extra="forbid")

    files: dict[str, str] = Field(min_length=1, description="path -> text of every file")
    goal: Goal

    @field_validator("files")
    @classmethod
    def _paths(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            _safe_path(path)
        return files

    @model_validator(mode="after")
    def _goal_file_exists(self) -> FileEditTask:
        if self.goal.path not in self.files:
            raise ValueError(f"goal.path {self.goal.path!r} is not among the files")
        return self
