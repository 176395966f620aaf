"""The one error hierarchy of proofgym, and the catalogue of every error kind on the wire.

Service answers: `{"error": {"kind": KIND, "message": TEXT}}` with the status of the class
that raised it:

    ProofgymError (500 internal)
    |- BadRequest (400 bad_request)          invalid_task, wrong_env, unsupported, ...
    |  `- InvalidRequest (422 invalid_request) malformed_json, missing_session, ...
    |- Unauthorized (401 unauthorized)
    |- NotFound (404 not_found)              unknown_env, unknown_session, unknown_tool, ...
    |- Conflict (409 conflict)               session_conflict, env_version_mismatch, ...
    |- AtCapacity (429 at_capacity)
    |- UpstreamError (502 upstream_error)    backend_error
    `- Unavailable (503 unavailable)         backend_unavailable
       `- SandboxUnavailable (503 sandbox_unavailable)

The request guard (proofgym.serving.guard) answers before any handler, in the same shape: 400
`malformed_body`, 408 `body_timeout`, 413 `body_too_large`, 503 `overloaded` (with
`Retry-After`; nothing ran, so any call may be sent again).

Tool outcomes the policy sees are not errors of the service: a 200 ToolResult whose
`error.kind` is one of TOOL_ERROR_KINDS or an environment's own (`not_verified`, ...).

Internal signals, never on the wire, each caught where it is raised from:
`resources_servers.base.ToolError` (a tool refuses: becomes a ToolResult error),
`proofgym.clients.http.CallFailed` / `ConnectFailed` (a call failed after its retries),
`agent_server.loop.RolloutFailed` (an infrastructure fault: becomes a masked RunResult),
`proofgym.rollouts.collect.TaskFileError` (a task file line that is not a task: the CLI's exit 2),
`proofgym.rollouts.store.StoreError` (the store's disk is full, read-only or not writable: a
sentence, the CLI's exit 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

ErrorKind = Literal[
    # the classes' own kinds
    "internal",
    "bad_request",
    "invalid_request",
    "unauthorized",
    "not_found",
    "method_not_allowed",
    "conflict",
    "at_capacity",
    "upstream_error",
    "unavailable",
    "sandbox_unavailable",
    # 400: the request cannot be acted on
    "invalid_task",
    "wrong_env",
    "unsupported",
    "unsupported_item",
    "unsupported_tool",
    "invalid_script",
    "missing_script",
    "invalid_token_data",
    "template_not_append_only",
    "backend_refused",
    "model_refused",
    "malformed_body",
    "invalid_session_id",
    # 408 / 413: the request guard (proofgym.serving.guard)
    "body_timeout",
    "body_too_large",
    # 422: the body is not what the route takes
    "malformed_json",
    "missing_session",
    # 404: an unknown name
    "unknown_env",
    "unknown_session",
    "unknown_tool",
    "unknown_control",
    # 409: contradicts what exists or runs
    "session_conflict",
    "session_exists",
    "seed_failed",
    "env_version_mismatch",
    "rollout_running",
    # 502 / 503: a backend of the model interface
    "backend_error",
    "backend_unavailable",
    "overloaded",
    # 503: a resources server's call waited past its caller's deadline for capacity other
    # sessions held (resources_servers.base.executor.OthersLoad)
    "others_load",
]
ERROR_KINDS: frozenset[str] = frozenset(get_args(ErrorKind))

#: kinds of `ToolResult.error` the base server itself produces (environments add their own)
TOOL_ERROR_KINDS = ("invalid_arguments", "tool_exception", "refused")


def describe_validation(
    errors: Iterable[Mapping[str, Any]], root: str = "", *, limit: int = 5
) -> str:
    """One readable line of pydantic (or FastAPI) validation errors, each naming its field
    under `root` (`task_data.goal.path: Field required`); FastAPI's `body` prefix is dropped."""
    parts = []
    for n, err in enumerate(errors):
        if n >= limit:
            break
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        where = ".".join([root, *loc] if root else loc) or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid"


def known_kind(kind: object) -> ErrorKind | None:
    """`kind` if it is in the catalogue (an upstream's answer, say), else None."""
    return kind if isinstance(kind, str) and kind in ERROR_KINDS else None  # type: ignore[return-value]


class ProofgymError(Exception):
    """Base of every error we raise on purpose; `kind` and `status` go on the wire."""

    kind: ErrorKind = "internal"
    status = 500

    def __init__(self, message: str, *, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind


class BadRequest(ProofgymError):
    """The caller sent something we cannot act on."""

    kind: ErrorKind = "bad_request"
    status = 400


class InvalidRequest(BadRequest):
    """A body that is not valid JSON or does not fit its schema."""

    kind: ErrorKind = "invalid_request"
    status = 422


class Unauthorized(ProofgymError):
    """Missing or wrong bearer token."""

    kind: ErrorKind = "unauthorized"
    status = 401


class NotFound(ProofgymError):
    """An unknown environment, session or tool: an infrastructure fault, not a policy outcome."""

    kind: ErrorKind = "not_found"
    status = 404


class Conflict(ProofgymError):
    """The request contradicts existing state (a session re-seeded with another task)."""

    kind: ErrorKind = "conflict"
    status = 409


class AtCapacity(ProofgymError):
    """The service is full; try again after `retry_after` seconds."""

    kind: ErrorKind = "at_capacity"
    status = 429

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UpstreamError(ProofgymError):
    """A service we depend on failed or answered something unusable."""

    kind: ErrorKind = "upstream_error"
    status = 502


class Unavailable(ProofgymError):
    """A service we depend on cannot be reached."""

    kind: ErrorKind = "unavailable"
    status = 503


class SandboxUnavailable(Unavailable):
    """An environment cannot isolate policy code here and refuses to run it (what to grant is
    in the message)."""

    kind: ErrorKind = "sandbox_unavailable"
