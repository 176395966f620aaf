"""A blocking call of the model interface's `POST /v1/responses`, for code that is not async
(a verifier in a worker thread, a CLI loop): bounded retries, the answer's text."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from proofgym.wire.responses import answer_text

if TYPE_CHECKING:  # loaded by whoever makes the client: a resources server imports this
    import httpx  # module with the judge, and would otherwise pay 50 ms of its start for it


class ModelRefused(Exception):
    """The model interface refused the request itself (a 4xx other than 429): asking again
    changes nothing."""


class ModelUnavailable(Exception):
    """No usable answer after the retries (unreachable, 5xx, 429, not a Response)."""


def response_text(client: httpx.Client, url: str, body: dict[str, Any], *, retries: int = 2) -> str:
    """The text of the answer to `body` at `url`; retries transport failures, 5xx and 429
    with a short backoff, at most `retries` times."""
    import httpx

    last = "no attempt"
    for attempt in range(retries + 1):
        try:
            r = client.post(url, json=body)
        except httpx.HTTPError as exc:
            last = f"{type(exc).__name__}: {exc}"
        else:
            if r.status_code == 200:
                try:
                    return answer_text(r.json())
                except ValueError as exc:
                    raise ModelUnavailable(f"{url} answered no Response: {exc}") from None
            last = f"{url} answered {r.status_code}: {r.text[:300]}"
            if r.status_code < 500 and r.status_code != 429:
                raise ModelRefused(last)
        if attempt < retries:
            time.sleep(0.2 * 2**attempt)
    raise ModelUnavailable(last)
