"""Settings of each service: read once at start from `PROOFGYM_` variables, then passed in."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class CommonSettings(BaseSettings):
    """Settings every service has."""

    model_config = SettingsConfigDict(env_prefix="PROOFGYM_", extra="ignore")

    host: str = "127.0.0.1"
    token: str | None = Field(default=None, description="bearer token every request must carry")
    log_level: str = "warning"


class ClientSettings(BaseSettings):
    """How a service calls another: timeouts and bounded retries."""

    model_config = SettingsConfigDict(env_prefix="PROOFGYM_", extra="ignore")

    request_timeout_s: float = 120.0
    connect_timeout_s: float = 5.0
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_base_s: float = 0.1
    backoff_max_s: float = 5.0


class CollectorSettings(ClientSettings):
    """Settings of `proofgym rollout` and other clients of the agent."""

    token: str | None = Field(default=None, description="bearer token sent to the agent")
    max_retries: int = Field(default=3, ge=0, le=20)


class ResourcesSettings(CommonSettings):
    """Settings of a resources server process."""

    port: int = 8001
    envs: list[str] = Field(default_factory=list, description="environments to host; empty: all")
    session_ttl_s: float = Field(default=900.0, gt=0)
    max_sessions: int = Field(default=16384, ge=1)
    workdir: Path | None = Field(
        default=None, description="where session files live; default: /dev/shm if large, else tmp"
    )
    reap_interval_s: float = Field(default=30.0, gt=0)
    code_sandbox: Literal["bwrap", "unsafe-no-isolation"] = Field(
        default="bwrap",
        description="how policy-written code runs: bubblewrap, or (trusted code only) without "
        "isolation; with bwrap unusable, such environments refuse to run code",
    )


class AgentSettings(CommonSettings, ClientSettings):
    """Settings of the agent server."""

    port: int = 8000
    resources_urls: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:8001"],
        description="resources server processes (replicas); each environment is at URL/<env>",
    )
    env_urls: dict[str, list[str]] = Field(
        default_factory=dict, description="per-environment base URLs, overriding resources_urls"
    )
    model_url: str = "http://127.0.0.1:8002"
    max_steps: int = Field(default=16, ge=1)
    rollout_timeout_s: float = Field(default=1800.0, gt=0)


class ModelSettings(CommonSettings, ClientSettings):
    """Settings of the model interface."""

    port: int = 8002
    backend: Literal["scripted", "openai", "vllm", "local"] = "scripted"
    base_urls: list[str] = Field(default_factory=list, description="OpenAI-compatible endpoints")
    model: str = Field(default="scripted", description="model name, or its folder (local)")
    api_key: str | None = None
    tokenizer: str | None = Field(default=None, description="tokenizer folder (default: model)")
    vllm_mode: Literal["completions", "chat"] = "completions"
    context_length: int | None = Field(default=None, ge=16)
    default_max_tokens: int = Field(default=512, ge=1)
    pinned_sampling: dict[str, float] = Field(
        default_factory=dict, description="sampling values that override requests' (on-policy)"
    )
    device: str = "cpu"
