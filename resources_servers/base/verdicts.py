"""Verdicts of sessions that closed with them, kept a while for the owner's retry.

The agent asks `/verify` to close the session with its verdict. When the answer is lost (the
agent's attempt timed out while a slow verifier ran on), the agent sends the same verify again
and finds the session gone: before, a 404 that masked the rollout, though the verifier had
judged it. Now the retry gets the verdict its first attempt produced, as the first attempt
would have answered it. Only the session's owner (its key) gets it, only for the same
Response (its id and length: another Response is another question, and the session is gone),
for `ttl_s`, and at most `most` verdicts are kept (the oldest forgotten first).

How long is enough: a retry that finds the session gone was sent after the verify finished
(one sent before it finished waits for that verify instead), so it comes one client backoff
after the lost answer (`backoff_max_s`, 5 s by default) plus its own transit. Even a retry
refused and retried at every attempt (4 retries, each after up to 5 s and a body read of up to
30 s) comes within about 140 s: `TTL_S` is 300 s. What bounds memory is the count: a verdict is
kept as its JSON bytes under one digest of (key, Response), about 0.5 KB where the live objects
cost about 2 KB (issue 44: verdicts kept as objects grew the server by 3.3 KB per rollout), and
at most `MOST` of them, so the server holds at most a few MB whatever the rate. A verdict is
dropped early only if more than `MOST` other sessions of the environment close between a lost
answer and its retry: over 800 closes a second for the 5 s of a backoff.
"""

from __future__ import annotations

import hashlib
import hmac

from openai.types.responses import Response

from proofgym.wire.protocol import VerifyResult
from resources_servers.base.expiring import Expiring

#: how long a closed session's verdict is kept for its owner's retry (see the module's text)
TTL_S = 300.0
#: at most this many verdicts kept per environment, the oldest forgotten first
MOST = 4096


def _ask(key: str | None, response: Response) -> bytes:
    """One digest of who asks and of which Response: the owner's key, the Response's id and
    length. Kept instead of the key itself: smaller, and compared in constant time."""
    raw = (key or "").encode("utf-8", "surrogatepass")
    which = f"{response.id}\0{len(response.output)}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(len(raw).to_bytes(4, "big") + raw + which).digest()


class ClosedVerdicts:
    """The verdicts sessions closed with, by session id, each bound to its owner's key and the
    Response it judged; at most `most`, each for `ttl_s`."""

    def __init__(self, ttl_s: float = TTL_S, most: int = MOST) -> None:
        self._kept: Expiring[str, tuple[bytes, bytes]] = Expiring(ttl_s, most)

    def keep(self, session_id: str, key: str, response: Response, verdict: VerifyResult) -> None:
        """Remember that `session_id` (owned by `key`) closed with `verdict` of `response`."""
        self._kept.put(session_id, (_ask(key, response), verdict.model_dump_json().encode()))

    def get(self, session_id: str, key: str | None, response: Response) -> VerifyResult | None:
        """The verdict `session_id` closed with, for its owner asking of the same Response;
        None otherwise."""
        kept = self._kept.get(session_id)
        if kept is None or key is None or not hmac.compare_digest(kept[0], _ask(key, response)):
            return None
        return VerifyResult.model_validate_json(kept[1])

    def forget(self, session_id: str) -> None:
        """Drop what is kept for `session_id` (its id is seeded again)."""
        self._kept.pop(session_id)

    def __len__(self) -> int:
        return len(self._kept)
