"""The one error hierarchy of proofgym. Each kind maps to one HTTP status code."""

from __future__ import annotations


class ProofgymError(Exception):
    """Base of every error we raise on purpose; `kind` and `status` go on the wire."""

    kind = "error"
    status = 500

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind


class BadRequest(ProofgymError):
    """The caller sent something we cannot act on."""

    kind = "bad_request"
    status = 400


class InvalidRequest(BadRequest):
    """A body that is not valid JSON or does not fit its schema."""

    kind = "invalid_request"
    status = 422


class Unauthorized(ProofgymError):
    """Missing or wrong bearer token."""

    kind = "unauthorized"
    status = 401


class NotFound(ProofgymError):
    """An unknown environment, session or tool: an infrastructure fault, not a policy outcome."""

    kind = "not_found"
    status = 404


class Conflict(ProofgymError):
    """The request contradicts existing state (a session re-seeded with another task)."""

    kind = "conflict"
    status = 409


class AtCapacity(ProofgymError):
    """The service is full; try again after `retry_after` seconds."""

    kind = "at_capacity"
    status = 429

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UpstreamError(ProofgymError):
    """A service we depend on failed or answered something unusable."""

    kind = "upstream_error"
    status = 502


class Unavailable(ProofgymError):
    """A service we depend on cannot be reached."""

    kind = "unavailable"
    status = 503


class SandboxUnavailable(Unavailable):
    """An environment cannot isolate policy code here and refuses to run it (what to grant is
    in the message)."""

    kind = "sandbox_unavailable"
