"""Settings of each service: read once at start from `PROOFGYM_` variables, then passed in.

Hermetic by construction: `SomeSettings(...)` is built from its arguments and defaults alone,
whatever the shell holds. Only the entry points (`proofgym serve`, `up`, the CLI commands)
call `SomeSettings.from_env(...)`, which also reads the `PROOFGYM_` variables (arguments win).
"""

from __future__ import annotations

import contextvars
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, SecretStr, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from proofgym.serving.guard import GuardLimits

_READ_ENV: contextvars.ContextVar[bool] = contextvars.ContextVar("read_env", default=False)


class _OnlyWhenAsked(PydanticBaseSettingsSource):
    """The environment source, consulted only inside `from_env`."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource):
        super().__init__(settings_cls)
        self.inner = inner

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return self.inner() if _READ_ENV.get() else {}


class ProofgymSettings(BaseSettings):
    """Base of every settings class: arguments and defaults, plus the environment on request."""

    model_config = SettingsConfigDict(env_prefix="PROOFGYM_", extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _OnlyWhenAsked(settings_cls, env_settings))

    @classmethod
    def from_env(cls, **overrides: Any) -> Self:
        """The settings from `PROOFGYM_` variables, `overrides` winning: for entry points only."""
        token = _READ_ENV.set(True)
        try:
            return cls(**overrides)
        finally:
            _READ_ENV.reset(token)


class CommonSettings(ProofgymSettings):
    """Settings every service has, the request guard's limits among them
    (`proofgym.serving.guard`)."""

    host: str = "127.0.0.1"
    token: str | None = Field(default=None, description="bearer token every request must carry")
    insecure_no_token: bool = Field(
        default=False,
        description="serve on a non-loopback address without a token (anyone who can reach "
        "the port can run rollouts and read sessions)",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug"] = Field(
        default="warning", description="the services' logging level (any case)"
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    instance: str | None = Field(
        default=None,
        description="set by `proofgym up` for the services it starts: /health answers it, so "
        "`up` knows a healthy answer came from its own process, not another stack's",
    )
    max_inflight: int = Field(default=1024, ge=1, description="requests handled at once")
    max_queue: int = Field(
        default=16384, ge=0, description="requests waiting in arrival order; more get 503"
    )
    max_body_mb: float = Field(default=32.0, gt=0, description="request bodies over it get 413")
    body_timeout_s: float = Field(default=30.0, gt=0, description="slower bodies get 408")
    max_body_memory_mb: float = Field(
        default=256.0,
        gt=0,
        description="request bodies read or held at once, each byte counted four times (the "
        "bytes, their parse, what validating it makes); past it new bodies get 503 with "
        "Retry-After, unread (never less than one body of max_body_mb needs)",
    )
    header_timeout_s: float = Field(
        default=10.0, gt=0, description="a request whose headers take longer: closed"
    )
    idle_timeout_s: float = Field(
        default=75.0, gt=0, description="a new connection that sends nothing this long: closed"
    )
    max_json_depth: int = Field(default=64, ge=2, description="deeper JSON bodies get 400")
    max_json_containers: int = Field(
        default=65_536,
        ge=16,
        description="bodies with more objects and arrays get 400 (bounds the parser's memory)",
    )
    max_json_members: int = Field(
        default=131_072,
        ge=16,
        description="bodies with more object members get 400 (bounds the parser's memory)",
    )
    max_inflight_per_client: int | None = Field(
        default=None,
        ge=1,
        description="requests one client may have running at once; default: all but an "
        "eighth of max_inflight",
    )

    def guard_limits(self, route_body_bytes: tuple[tuple[str, int], ...] = ()) -> GuardLimits:
        """The request guard's limits these settings name, with a service's lower body limits
        for the routes that never need `max_body_mb` (each capped by it)."""
        return GuardLimits(
            route_body_bytes=route_body_bytes,
            max_inflight=self.max_inflight,
            max_queue=self.max_queue,
            max_body_bytes=int(self.max_body_mb * 1024 * 1024),
            body_timeout_s=self.body_timeout_s,
            max_json_depth=self.max_json_depth,
            max_json_containers=self.max_json_containers,
            max_json_members=self.max_json_members,
            max_inflight_per_client=self.max_inflight_per_client,
            max_body_memory_bytes=int(self.max_body_memory_mb * 1024 * 1024),
        )


class ClientSettings(ProofgymSettings):
    """How a service calls another: timeouts and bounded retries."""

    request_timeout_s: float = 120.0
    connect_timeout_s: float = 5.0
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_base_s: float = 0.1
    backoff_max_s: float = 5.0
    pool_per_upstream: int = Field(
        default=256, ge=1, description="connections kept to each upstream; more calls queue"
    )
    max_response_mb: float = Field(
        default=64.0, gt=0, description="an answer's body over it is not read: the call fails"
    )


class ProofSettings(ProofgymSettings):
    """Where the proof certificates are (`proofgym.rollouts.proofs`): `validate` writes them,
    `export`,
    `learn` and the trainer adapters read them."""

    proofs_dir: Path = Field(
        default=Path("runs/proofs"), description="one certificate per proven env version"
    )
    proof_key: SecretStr | None = Field(
        default=None,
        description="the key certificates and rollout rows are signed with (unset: a key "
        "generated into proofs_dir on first use, `.proof-key`, mode 0600)",
    )


class CollectorSettings(ClientSettings):
    """Settings of `proofgym rollout` and other clients of the agent."""

    token: str | None = Field(default=None, description="bearer token sent to the agent")
    max_retries: int = Field(default=3, ge=0, le=20)
    # thousands of rollouts connect at once: the agent's listen queue drains in seconds
    connect_timeout_s: float = 30.0


class ResourcesSettings(CommonSettings):
    """Settings of a resources server process."""

    port: int = 8001
    envs: list[str] = Field(default_factory=list, description="environments to host; empty: all")
    session_ttl_s: float = Field(default=900.0, gt=0)
    max_sessions: int = Field(default=16384, ge=1)
    workdir: Path | None = Field(
        default=None, description="where session files live; default: /dev/shm if large, else tmp"
    )
    reap_interval_s: float = Field(
        default=10.0, gt=0, description="how often idle and unrenewed sessions are closed"
    )
    tool_workers: int = Field(
        default=8,
        ge=1,
        description="threads for blocking tool calls (sandbox runs), shared "
        "fairly: one call at a time per session, sessions in turn",
    )
    tool_queue_wait_s: float = Field(
        default=30.0,
        gt=0,
        description="a tool call waiting longer behind its own session's "
        "calls is answered as a tool error, unrun",
    )
    tool_call_timeout_s: float = Field(
        default=60.0, gt=0, description="a tool call running longer is answered as a tool error"
    )
    judge_url: str | None = Field(
        default=None,
        description="a model interface whose model judges open-ended answers (e.g. the support "
        "environment); unset: the offline reference-overlap judge",
    )
    judge_model: str = Field(default="judge", description="the model name sent to the judge")
    judge_timeout_s: float = Field(
        default=60.0, gt=0, description="how long one verdict may take (then the rollout is masked)"
    )
    judge_max_tokens: int = Field(
        default=400, ge=16, description="the most tokens the judge may write for one verdict"
    )
    bridges: dict[str, str] = Field(
        default_factory=dict,
        description="other frameworks' servers hosted as environments, by name: "
        '{"echo": "openenv+http://H:P", "weather": "nemo-gym+http://H:P"}',
    )
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
        description="resources server processes (replicas); each environment is at URL/<env>. "
        "dns+http://NAME:PORT stands for every address NAME resolves to; "
        "ray-actors://GCS/NAMESPACE/GROUP for the live actors GROUP-* of a Ray namespace",
    )
    env_urls: dict[str, list[str]] = Field(
        default_factory=dict, description="per-environment base URLs, overriding resources_urls"
    )
    model_url: str = "http://127.0.0.1:8002"
    max_steps: int = Field(default=16, ge=1)
    max_tool_calls_per_turn: int = Field(
        default=32,
        ge=1,
        description="tool calls run from one model turn; the excess are answered as tool "
        "errors the policy sees, unrun (a flood of slow calls cannot outlast the rollout's "
        "time and mask it)",
    )
    session_lease_s: float = Field(
        default=30.0,
        gt=0,
        description="sessions are seeded with this lease and renewed every third of it while "
        "their rollout runs: if this agent dies, its sessions close within the lease plus "
        "the resources server's reap interval",
    )
    rollout_timeout_s: float = Field(default=1800.0, gt=0)
    ui_store: Path | None = Field(
        default=None, description="a rollout store the agent shows under /ui (the viewer)"
    )
    proofs_dir: Path | None = Field(
        default=Path("runs/proofs"),
        description="the proof certificates `proofgym validate` writes: each rollout is "
        "stamped `env_proven` from them (None: not stamped; trainers check the proofs "
        "themselves either way), and each rollout is signed with the proof key kept there",
    )
    proof_key: SecretStr | None = Field(
        default=None,
        description="the key each rollout row is signed with (unset: proofs_dir's key file, "
        "generated there on first use; with neither, rows go unsigned and no gate admits them)",
    )


class ModelSettings(CommonSettings, ClientSettings):
    """Settings of the model interface."""

    port: int = 8002
    backend: Literal["scripted", "openai", "vllm", "local"] = "scripted"
    base_urls: list[str] = Field(default_factory=list, description="OpenAI-compatible endpoints")
    model: str = Field(default="scripted", description="model name, or its folder (local)")
    api_key: str | None = None
    tokenizer: str | None = Field(default=None, description="tokenizer folder (default: model)")
    vllm_mode: Literal["completions", "chat", "nemo_rl"] = Field(
        default="completions",
        description="completions (token ids in and out), chat (vLLM templates), or nemo_rl "
        "(the chat server NeMo RL exposes, which splices the previous turn's tokens)",
    )
    context_length: int | None = Field(default=None, ge=16)
    default_max_tokens: int = Field(default=512, ge=1)
    pinned_sampling: dict[str, float] = Field(
        default_factory=dict, description="sampling values that override requests' (on-policy)"
    )
    device: str = "cpu"
    torch_threads: int | None = Field(
        default=None,
        ge=1,
        description="threads the local backend's torch uses; default: half the cores (torch's "
        "own default, every core, was 10x slower beside the other services on 2 cores)",
    )
    chat_template: Path | None = Field(
        default=None,
        description="a Jinja chat template file replacing the model's own (local backend)",
    )
    tool_parser: Literal["hermes", "none"] = Field(
        default="hermes",
        description="how the local and vllm backends read tool calls in generated text: "
        "hermes (<tool_call>{...}</tool_call>) or none (text only)",
    )
