"""One POST to a model backend's upstream, with its failures mapped to our error answers.

- unreachable, or still failing after the client's bounded retries: 503 `backend_unavailable`
- 400, 413 or 422 (the upstream refused this request: a bad parameter, say): 400
  `backend_refused`; the request is the caller's to fix, so the agent does not mask it
- any other answer that is not a JSON object, a 401/403/404 (our configuration) included:
  502 `backend_error`
"""

from __future__ import annotations

from typing import Any

from proofgym.clients.http import CallFailed, ServiceClient
from proofgym.wire.errors import BadRequest, Unavailable, UpstreamError

REQUEST_REFUSALS = frozenset({400, 413, 422})


async def post_upstream(
    client: ServiceClient, url: str, body: dict[str, Any], name: str, headers: dict[str, str]
) -> dict[str, Any]:
    """POST `body` to `url` (the upstream called `name` in messages); the JSON object answer."""
    try:
        answer = await client.call("POST", url, body, headers=headers)
    except CallFailed as exc:
        raise Unavailable(f"{name} unreachable: {exc}", kind="backend_unavailable") from None
    if answer.status in REQUEST_REFUSALS:
        raise BadRequest(
            f"{name} refused the request ({answer.status}): {answer.text[:300]}",
            kind="backend_refused",
        )
    if answer.status >= 400 or not isinstance(answer.body, dict):
        raise UpstreamError(
            f"{name} answered {answer.status}: {answer.text[:300]}", kind="backend_error"
        )
    return answer.body
