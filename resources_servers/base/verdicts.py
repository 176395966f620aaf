"""Verdicts of sessions that closed with them, kept a while for the owner's retry.

The agent asks `/verify` to close the session with its verdict. When the answer is lost (the
agent's attempt timed out while a slow verifier ran on), the agent sends the same verify again
and finds the session gone: before, a 404 that masked the rollout, though the verifier had
judged it. Now the retry gets the verdict its first attempt produced, as the first attempt
would have answered it. Only the session's owner (its key) gets it, only for the same
Response (its id and length: another Response is another question, and the session is gone),
for `ttl_s`, and at most `most` verdicts are kept (the oldest forgotten first).
"""

from __future__ import annotations

from openai.types.responses import Response

from proofgym.wire.protocol import VerifyResult
from resources_servers.base.expiring import Expiring
from resources_servers.base.sessions import same_key


def _which(response: Response) -> tuple[str, int]:
    return response.id, len(response.output)


class ClosedVerdicts:
    """The verdicts sessions closed with, by session id, each with its owner's key and the
    Response it judged."""

    def __init__(self, ttl_s: float = 600.0, most: int = 16_384) -> None:
        self._kept: Expiring[str, tuple[str, tuple[str, int], VerifyResult]] = Expiring(ttl_s, most)

    def keep(self, session_id: str, key: str, response: Response, verdict: VerifyResult) -> None:
        """Remember that `session_id` (owned by `key`) closed with `verdict` of `response`."""
        self._kept.put(session_id, (key, _which(response), verdict))

    def get(self, session_id: str, key: str | None, response: Response) -> VerifyResult | None:
        """The verdict `session_id` closed with, for its owner asking of the same Response;
        None otherwise."""
        kept = self._kept.get(session_id)
        if kept is None or not same_key(kept[0], key) or kept[1] != _which(response):
            return None
        return kept[2]

    def forget(self, session_id: str) -> None:
        """Drop what is kept for `session_id` (its id is seeded again)."""
        self._kept.pop(session_id)
