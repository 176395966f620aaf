"""Token bookkeeping checks shared by the agent and the trainer adapters."""

from __future__ import annotations

from typing import Any

from proofgym.wire.responses import TOKEN_FIELDS


def token_data(item: dict[str, Any]) -> tuple[list[int], list[int], list[float]] | None:
    """The (prompt ids, generation ids, logprobs) an item carries, or None if incomplete."""
    if not all(isinstance(item.get(f), list) for f in TOKEN_FIELDS):
        return None
    prompt, gen, logps = (item[f] for f in TOKEN_FIELDS)
    if len(gen) != len(logps) or not gen:
        return None
    return prompt, gen, logps


def is_trainable(turns: list[list[dict[str, Any]]]) -> tuple[bool, str]:
    """Whether every model turn carries complete token data and the history is append-only.

    `turns` holds the output items of each model call, in order; the last item of each call
    carries the token data (PROTOCOL.md). Returns the verdict and the reason when it is no.
    """
    if not turns:
        return False, "no model turn"
    previous: list[int] | None = None
    for index, items in enumerate(turns):
        if not items:
            return False, f"turn {index} has no items"
        data = token_data(items[-1])
        if data is None:
            return False, f"turn {index} carries no complete token data"
        prompt, gen, _ = data
        if previous is not None and prompt[: len(previous)] != previous:
            return False, f"turn {index} prompt does not extend the previous turn's tokens"
        previous = prompt + gen
    return True, ""
