"""Wire types of the proofgym protocol (see PROTOCOL.md). Types only: no I/O.

Our own request bodies reject unknown fields; OpenAI objects are the `openai` package's own
types and accept extra fields as OpenAI does.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Literal

from openai.types.responses import Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from proofgym.wire.output_items import check_output, normalize_output
from proofgym.wire.responses import validate_response

ID_PATTERN = re.compile(r"[A-Za-z0-9_\-.~]{16,128}")  # matched whole (fullmatch)
# an environment name goes into URLs (`/<env>/...`): plain lower-case words only
ENV_NAME = re.compile(r"[a-z0-9_]+")

#: `others_load`: a call waited past its deadline for capacity other callers held
FailureKind = Literal["model_error", "resources_error", "verify_error", "timeout", "others_load"]
TerminationReason = Literal["final_message", "max_steps", "length", "error"]
Split = Literal["train", "eval", "example"]


class StrictModel(BaseModel):
    """Base of our own request/response bodies: unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")


def check_id(value: str) -> str:
    """Return `value` if it is a URL-safe id of 16 to 128 characters, else raise ValueError."""
    if not ID_PATTERN.fullmatch(value):
        raise ValueError("ids are URL-safe strings of 16 to 128 characters ([A-Za-z0-9_-.~])")
    return value


def check_create_params(params: dict[str, Any]) -> dict[str, Any]:
    """Raise ValueError when Responses create params have the wrong shape where proofgym reads
    them: `input` a string or a list of items, `tools` a list of objects, `instructions` a
    string."""
    if "input" in params and not isinstance(params["input"], str | list):
        raise ValueError("input must be a string or a list of items")
    if isinstance(params.get("input"), list) and not all(
        isinstance(i, dict) for i in params["input"]
    ):
        raise ValueError("every input item must be an object")
    tools = params.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
    ):
        raise ValueError("tools must be a list of tool objects")
    instructions = params.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ValueError("instructions must be a string")
    return params


class Task(StrictModel):
    """One row of a task file."""

    task_id: str = Field(min_length=1)
    env: str = Field(min_length=1)
    env_version: str | None = None
    split: Split = "train"
    responses_create_params: dict[str, Any]
    task_data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("responses_create_params")
    @classmethod
    def _has_input(cls, value: dict[str, Any]) -> dict[str, Any]:
        if "input" not in value:
            raise ValueError("responses_create_params must contain 'input'")
        return check_create_params(value)

    @field_validator("env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if not ENV_NAME.fullmatch(value):
            raise ValueError(f"an environment name is lower-case letters, digits and _ ({value!r})")
        return value

    def content_hash(self) -> str:
        """A stable hash of the whole task: the same task always hashes the same."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Task:
        """Read a task row, accepting NeMo Gym rows (task fields beside the create params).

        A NeMo Gym row carries `responses_create_params` and its own fields at the top level;
        every field that is not one of ours goes into `task_data`.
        """
        ours = set(cls.model_fields)
        if set(row) <= ours:
            return cls.model_validate(row)
        extra = {k: v for k, v in row.items() if k not in ours}
        base = {k: v for k, v in row.items() if k in ours}
        base.setdefault("task_data", {})
        base["task_data"] = {**extra, **base["task_data"]}
        if "task_id" not in base:
            raw = json.dumps(row, sort_keys=True).encode()
            base["task_id"] = hashlib.sha256(raw).hexdigest()[:16]
        return cls.model_validate(base)


class ErrorDetail(StrictModel):
    """What went wrong, in a form a program can branch on and a person can act on."""

    kind: str
    message: str


class ErrorBody(StrictModel):
    """The body of every error answer."""

    error: ErrorDetail


class Health(StrictModel):
    """Answer of `GET /health`."""

    status: Literal["ok"] = "ok"
    service: str
    version: str
    instance: str | None = None  # the id `proofgym up` gave the process (not in NeMo Gym)


# ---- resources server -------------------------------------------------------------------


class EnvInfo(StrictModel):
    """Answer of `GET /<env>/info`."""

    name: str
    version: str
    description: str
    tools: list[dict[str, Any]]
    reward_range: tuple[float, float]
    max_sessions: int
    sandbox: str | None = Field(
        default=None,
        description="how the environment runs code the policy wrote (null: it runs none)",
    )
    task_data_schema: dict[str, Any] | None = Field(
        default=None, description="JSON schema of the environment's task_data (null: unchecked)"
    )


class SeedRequest(StrictModel):
    """Body of `POST /<env>/seed_session`."""

    session_id: str
    task: Task
    lease_s: float | None = Field(
        default=None,
        gt=0,
        le=86400,
        description="not in NeMo Gym: close the session when nothing touches or renews it "
        "for this long (the agent renews the sessions of its running rollouts), so a dead "
        "caller's sessions are reclaimed soon instead of after the idle TTL (capped at it)",
    )
    session_key: str | None = Field(
        default=None,
        description="not in NeMo Gym: the secret that makes the session its caller's alone (an id "
        "of 16 to 128 URL-safe characters). Left out, the server mints one and answers it. Every "
        "tool call, verify, close and renew must send it (`X-Session-Key`); seeding an id in use "
        "with another key (or none) is refused (409 `session_exists`), never joined, and seeding "
        "again with the same key and task is the same session (retries are safe)",
    )

    _check = field_validator("session_id")(check_id)

    @field_validator("session_key")
    @classmethod
    def _check_key(cls, value: str | None) -> str | None:
        return None if value is None else check_id(value)


class SessionRef(StrictModel):
    """A session and the key that owns it (what `renew_sessions` takes)."""

    session_id: str
    session_key: str


class RenewRequest(StrictModel):
    """Body of `POST /<env>/renew_sessions` (a proofgym addition): sessions still in use, each
    with its key (a session is renewed only by who owns it)."""

    sessions: list[SessionRef] = Field(max_length=65536)


class RenewResponse(StrictModel):
    """Answer of `POST /<env>/renew_sessions`: how many were renewed; the ids not renewed (not
    open here, or not under that key: the two are not told apart)."""

    renewed: int
    unknown: list[str]


class RewardInputs(StrictModel):
    """What decides an environment's rewards beside its version (code and data files): who
    judges what code cannot (an LLM judge's model and URL, the offline judge; None: code
    alone) and the values of the settings the environment declares as deciding its reward
    (`reward_settings`, plus its sandbox mode). A certificate holds them; a rollout is stamped
    with `judge` and `settings_digest()`; the gate matches the two."""

    judge: str | None = None
    settings: dict[str, str | None] = Field(default_factory=dict)

    def settings_digest(self) -> str:
        """A hash of the settings' names and values: what a rollout carries (a value may be a
        secret, so never the values themselves)."""
        body = json.dumps(self.settings, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()[:16]


class SeedResponse(StrictModel):
    """Answer of `POST /<env>/seed_session`: the session, its key (the caller's own, or the one
    the server minted when the seed carried none) and what the policy is shown."""

    session_id: str
    session_key: str
    tools: list[dict[str, Any]]
    instructions: str | None = None
    #: the version of the environment that serves the session (its identity hash): what a
    #: rollout records, so a trainer can tell whether that version was proven
    env_version: str | None = None
    #: who judges this server's rewards, and the digest of its reward settings
    #: (`RewardInputs`): stamped on the rollout beside `env_version`
    judge: str | None = None
    settings_digest: str | None = None


class ToolResult(StrictModel):
    """Answer of `POST /<env>/tools/{name}`: what the policy sees, and an error if any."""

    output: str
    error: ErrorDetail | None = None


#: A verify call may ask the resources server to close the session with its verdict (value
#: "1"); a server that did answers with CLOSED_HEADER "1", and the caller then sends no
#: close_session. A server that does not know the header ignores it, and the caller closes.
CLOSE_HEADER = "X-Proofgym-Close"
CLOSED_HEADER = "X-Proofgym-Closed"


class VerifyRequest(StrictModel):
    """Body of `POST /<env>/verify`: the session and the whole Response of the rollout.

    Output items in their Responses input form (a NeMo Gym client's `function_call_output`
    without `id` or `status`) are accepted; an invalid item is refused by name and field."""

    session_id: str
    response: Response

    @field_validator("response", mode="wrap")
    @classmethod
    def _normalize(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not (isinstance(value, dict) and isinstance(value.get("output"), list)):
            return handler(value)
        value = {**value, "output": normalize_output(value["output"])}
        try:
            return validate_response(value)
        except ValidationError:
            # Items are checked one by one only now, for the message: validated once on the
            # common path, and pydantic's hundred errors for one bad item never reach the caller
            check_output(value["output"])
            raise


class Check(StrictModel):
    """One named verdict of a verifier."""

    name: str
    passed: bool
    detail: str = ""
    #: what sort of check this is, where the library knows: "claim" for a claim check
    #: (`validate` then checks that it recognises the reference's own success message).
    kind: str | None = None
    #: for a claim check: whether the final message was read as claiming success.
    claimed: bool | None = None


class VerifyResult(StrictModel):
    """What a verifier says of one rollout. `reward` is the sum of components when any."""

    reward: float
    reward_components: dict[str, float] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)
    mask_sample: bool = False
    failure_kind: FailureKind | None = None
    failure_reason: str | None = None

    @model_validator(mode="after")
    def _components_sum(self) -> VerifyResult:
        if self.reward_components:
            total = sum(self.reward_components.values())
            if abs(total - self.reward) > 1e-9:
                raise ValueError(f"reward {self.reward} is not the sum of its components {total}")
        return self


class CloseRequest(StrictModel):
    """Body of `POST /<env>/close_session`."""

    session_id: str


class CloseResponse(StrictModel):
    """Answer of `POST /<env>/close_session`: whether a live session was closed."""

    closed: bool


class ControlsRequest(StrictModel):
    """Body of `POST /<env>/controls` (a proofgym addition): the task to script controls for."""

    task: Task


ControlRole = Literal["reference", "alternative", "violation", "exploit", "negative"]
#: what each role must get
ROLE_EXPECTS: dict[str, str] = {
    "reference": "pass",
    "alternative": "pass",
    "violation": "fail",
    "exploit": "fail",
    "negative": "fail",
}


def role_of_name(name: str, expect: str) -> str:
    """The role a control named `name` has when it declares none: `reference`, a name that
    starts with `violation` or `exploit`, else by what it expects (`alternative` for a pass,
    `negative` for a fail)."""
    if name == "reference":
        return "reference"
    for prefix in ("violation", "exploit"):
        if name.startswith(prefix):
            return prefix
    return "alternative" if expect == "pass" else "negative"


class Control(StrictModel):
    """A scripted trajectory and the outcome it must get.

    `script` is a list of model turns; each turn is a list of items the scripted model emits:
    `{"type": "function_call", "name": ..., "arguments": {...}}` or
    `{"type": "message", "content": "..."}`.

    `role` says what the control proves, whatever its name: `reference` (the honest solution
    every attack of `validate` starts from), `alternative` (another honest path), `violation`
    (the goal reached by a forbidden path), `exploit` (an escape that must earn the floor) or
    `negative` (anything else that must fail). Left out, it is read from the name
    (`role_of_name`); a role that contradicts `expect` is refused.
    """

    name: str
    expect: Literal["pass", "fail"]
    script: list[list[dict[str, Any]]]
    description: str = ""
    role: ControlRole | None = None

    @model_validator(mode="after")
    def _role(self) -> Control:
        if self.role is None:
            self.role = role_of_name(self.name, self.expect)  # type: ignore[assignment]
        elif ROLE_EXPECTS[self.role] != self.expect:
            raise ValueError(
                f"control {self.name!r}: role {self.role!r} must expect "
                f"{ROLE_EXPECTS[self.role]!r}, not {self.expect!r}"
            )
        return self


class ControlsResponse(StrictModel):
    """Answer of `POST /<env>/controls`."""

    controls: list[Control]


# ---- agent server ------------------------------------------------------------------------


class RunRequest(StrictModel):
    """Body of `POST /run`.

    `task` may be a proofgym task or a NeMo Gym row. `control` (a proofgym addition) runs the
    environment's named control script through the scripted model instead of a real policy.
    """

    task: Task
    model_params: dict[str, Any] = Field(default_factory=dict)
    max_steps: int | None = Field(default=None, ge=1, le=1024)
    control: str | None = None
    rollout_id: str | None = None

    @field_validator("task", mode="before")
    @classmethod
    def _nemo_row(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return Task.from_row(value)
        return value

    @field_validator("rollout_id")
    @classmethod
    def _rid(cls, value: str | None) -> str | None:
        return None if value is None else check_id(value)

    @field_validator("model_params")
    @classmethod
    def _params(cls, value: dict[str, Any]) -> dict[str, Any]:
        return check_create_params(value)


class Timings(StrictModel):
    """Seconds spent in each phase of a rollout."""

    model: float = 0.0
    tools: float = 0.0
    verify: float = 0.0
    total: float = 0.0


class Usage(StrictModel):
    """Token counts over the whole rollout."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


class RunResult(StrictModel):
    """Everything a trainer needs of one rollout."""

    rollout_id: str
    task_id: str
    env: str
    #: the version of the environment the rollout ran on, as its server named it at the seed
    env_version: str | None = None
    #: whether that version had passed `proofgym validate` when the agent ran the rollout
    #: (None: the agent keeps no proofs). A trainer checks the proofs itself, never this.
    env_proven: bool | None = None
    #: who judged the rollout and the digest of the environment's reward settings, as its
    #: server named them at the seed (`RewardInputs`): the gate admits the rollout only under
    #: a certificate proven with the same
    judge: str | None = None
    settings_digest: str | None = None
    #: the agent's HMAC of every other field with the operator's proof key
    #: (`proofgym.rollouts.signing`): a row edited, or written by anything but the services,
    #: does not pass the gate. None: stamped by no agent holding a key (older rows too).
    signature: str | None = None
    reward: float
    reward_components: dict[str, float] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)
    response: Response
    #: what the policy was sent at the first step (input, tools, instructions, sampling), as
    #: NeMo Gym names it; the scripted model's script is left out
    responses_create_params: dict[str, Any] = Field(default_factory=dict)
    num_steps: int
    termination_reason: TerminationReason
    usage: Usage = Field(default_factory=Usage)
    timings: Timings = Field(default_factory=Timings)
    trainable: bool = False
    mask_sample: bool = False
    failure_kind: FailureKind | None = None
    failure_reason: str | None = None
