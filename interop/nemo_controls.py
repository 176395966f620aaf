"""Task rows for a NeMo Gym resources server, with a reference control taken from its own
example rollouts.

A NeMo Gym environment ships `data/example.jsonl` (dataset rows) and, for most, the rollouts
its authors recorded on them (`data/example_rollouts.jsonl`: the row's create params, the
model's `response` and the `reward` the server paid). A rollout that earned the full reward is
an honest solution the peer itself accepted: replayed action by action (its function calls,
its final message; never the tool outputs, which the peer computes again), it is the task's
`reference` control, so `proofgym validate` can attack the server from a trajectory its own
authors vouch for; the only control we add is the one every task admits (a success claimed
with nothing done must fail). A row whose rollouts never reached the full
reward gets none (and no task): validate needs a reference to measure from. Where the
rollouts were recorded on other rows than the examples, the row each rollout carries is used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

#: the one control every task can carry without knowing the peer: success claimed, nothing
#: done. Whatever the task, no work at all must not earn the full reward.
NOOP_CLAIM: dict[str, Any] = {
    "name": "noop_claim",
    "expect": "fail",
    "description": "claims the task is done without doing anything",
    "script": [[{"type": "message", "content": "Done. I have completed the task."}]],
}

#: the fields a replayed action keeps: what a policy chose, never what the peer answered
_CALL_FIELDS = ("name", "arguments")


def input_key(create_params: dict[str, Any]) -> str:
    """What identifies a row's prompt across the peers' encodings of it: the text of every
    input message in order (a string input is its own text). NeMo Gym rewrites input items
    between the dataset and the recorded rollout (roles kept, `type` and ids added), so the
    items themselves do not compare; their text does."""
    given = create_params.get("input")
    if isinstance(given, str):
        return given
    parts: list[str] = []
    for item in given or []:
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(c.get("text", "")) for c in content if isinstance(c, dict)]
    return "\n".join(parts)


def message_text(item: dict[str, Any]) -> str:
    """The text of an output message (its `output_text` parts joined)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(
        str(c.get("text", ""))
        for c in content or []
        if isinstance(c, dict) and c.get("type") in ("output_text", "text")
    )


def script_of(output: Iterable[Any]) -> list[list[dict[str, Any]]]:
    """A recorded Response's output as a scripted policy's turns: the calls the model made
    before each batch of tool outputs form one turn, its messages go with the turn they
    were said in, reasoning is dropped (the peer never sees it). Tool outputs are left out:
    the peer computes them again when the script is played."""
    turns: list[list[dict[str, Any]]] = []
    turn: list[dict[str, Any]] = []
    for item in output:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "function_call":
            turn.append({"type": "function_call", **{k: item.get(k) for k in _CALL_FIELDS}})
        elif kind == "message" and item.get("role", "assistant") == "assistant":
            text = message_text(item)
            if text:
                turn.append({"type": "message", "content": text})
        elif kind == "function_call_output" and turn:
            turns.append(turn)
            turn = []
    if turn:
        turns.append(turn)
    return turns


def full_reward_rollouts(
    rollouts: Iterable[dict[str, Any]], full: float = 1.0
) -> dict[str, dict[str, Any]]:
    """The first rollout per prompt that earned `full` reward or more, by `input_key`."""
    best: dict[str, dict[str, Any]] = {}
    for rollout in rollouts:
        reward = rollout.get("reward")
        params = rollout.get("responses_create_params")
        response = rollout.get("response")
        if not isinstance(reward, int | float) or reward < full:
            continue
        if not isinstance(params, dict) or not isinstance(response, dict):
            continue
        best.setdefault(input_key(params), rollout)
    return best


#: what a recorded rollout holds beside its task row: the answer, its reward, NeMo's indexes
_ROLLOUT_ONLY = frozenset({"response", "reward"})


def row_of_rollout(rollout: dict[str, Any]) -> dict[str, Any]:
    """The task row a recorded rollout was played on: NeMo Gym records the row's fields
    beside the response (the verify request echoed), less the response, the reward, its
    own bookkeeping (`_ng_*`) and the create params it recorded as null."""
    row = {k: v for k, v in rollout.items() if k not in _ROLLOUT_ONLY and not k.startswith("_ng_")}
    params = row.get("responses_create_params")
    if isinstance(params, dict):  # recorded with every field, unset ones as null, which the
        # peer's own request model refuses (`tool_choice: null`): a null is a field not given
        row["responses_create_params"] = {k: v for k, v in params.items() if v is not None}
    return row


def task_rows(
    env: str,
    rows: Iterable[dict[str, Any]],
    rollouts: Iterable[dict[str, Any]],
    limit: int = 3,
    full: float = 1.0,
) -> list[dict[str, Any]]:
    """Up to `limit` task rows for the bridge named `env`, each with a `reference` control
    that replays a full-reward rollout: first the dataset rows that have one (unchanged: the
    peer receives the row as its dataset holds it), then, where the rollouts were recorded
    on other rows than the examples, the rows those rollouts carry (`row_of_rollout`). Each
    is a proofgym task row: the peer's fields in `task_data`, beside our controls."""
    vouched = full_reward_rollouts(rollouts, full)
    paired: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for row in rows:
        params = row.get("responses_create_params")
        key = input_key(params) if isinstance(params, dict) else None
        if key is not None and key in vouched:
            paired.append((row, vouched.pop(key)))
    paired += [(row_of_rollout(r), r) for r in vouched.values()]
    out: list[dict[str, Any]] = []
    for row, rollout in paired:
        script = script_of(rollout["response"].get("output") or [])
        if not script:
            continue
        reference = {
            "name": "reference",
            "expect": "pass",
            "description": f"replays the peer's own example rollout (reward {rollout['reward']:g})",
            "script": script,
        }
        # The peer's fields go in task_data whole (the bridge sends them back to it as its
        # row): one named like a field of ours (NeMo rows carry their own `split: "test"`)
        # stays the peer's instead of failing or changing meaning as ours.
        data = {k: v for k, v in row.items() if k != "responses_create_params"}
        out.append(
            {
                "env": env,
                "task_id": f"{env}-{len(out)}",
                "responses_create_params": row["responses_create_params"],
                "task_data": {**data, "controls": [reference, NOOP_CLAIM]},
            }
        )
        if len(out) == limit:
            break
    return out


def read_jsonl(text: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL text; a line that is not one is skipped (the peers'
    files are theirs: one bad line must not lose the rest)."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out
