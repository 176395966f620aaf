"""Training data out of a rollout store: SFT rows, preference pairs, RL rows.

- `sft`: every passing rollout as one chat (`messages`: the prompt, then what the model said
  and called and what the tools answered), the shape chat SFT trainers read;
- `preference`: from the same task, a passing rollout (`chosen`) against a failing one
  (`rejected`), both after the same `prompt`;
- `rl`: every usable rollout as `prompt`, `completion` and `reward` (with its components), and
  for token-exact rollouts the trainer's token view (`prompt_ids`, `completion_ids`,
  `completion_mask`, `logprobs`).

Masked rollouts are never exported: they say nothing about the policy. Rows are plain dicts;
`write_rows` writes JSONL, or Parquet when pyarrow is installed (`pip install
'proofgym[export]'`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from proofgym.wire.protocol import RunResult
from proofgym.wire.responses import message_text, output_items
from proofgym.wire.trajectory import trajectory

Kind = Literal["sft", "preference", "rl"]


def chat_messages(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses items as chat messages: consecutive function calls become one assistant
    message with `tool_calls`, their outputs `tool` messages; reasoning is left out."""
    out: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            out.append({"role": item.get("role", "assistant"), "content": message_text(item)})
        elif kind == "function_call":
            call = {
                "id": item.get("call_id", ""),
                "type": "function",
                "function": {"name": item.get("name", ""), "arguments": item.get("arguments", "")},
            }
            if out and out[-1]["role"] == "assistant" and "tool_calls" in out[-1]:
                out[-1]["tool_calls"].append(call)
            else:
                out.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif kind == "function_call_output":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": item.get("call_id", ""),
                    "content": str(item.get("output", "")),
                }
            )
    return out


def _prompt(result: RunResult) -> list[dict[str, Any]]:
    params = result.responses_create_params
    messages = chat_messages(params.get("input") or [])
    if params.get("instructions"):
        messages.insert(0, {"role": "system", "content": str(params["instructions"])})
    return messages


def _base(result: RunResult) -> dict[str, Any]:
    return {
        "rollout_id": result.rollout_id,
        "task_id": result.task_id,
        "env": result.env,
        "env_version": result.env_version,
    }


def sft_rows(results: list[RunResult], passed: Callable[[RunResult], bool]) -> list[dict[str, Any]]:
    """One chat per passing rollout."""
    return [
        {
            **_base(r),
            "messages": _prompt(r) + chat_messages(output_items(r.response)),
            "tools": r.responses_create_params.get("tools") or [],
            "reward": r.reward,
        }
        for r in results
        if not r.mask_sample and passed(r)
    ]


def preference_pairs(
    results: list[RunResult], passed: Callable[[RunResult], bool]
) -> list[dict[str, Any]]:
    """For each task, each passing rollout against a failing one (cycling the failing ones)."""
    by_task: dict[str, list[RunResult]] = defaultdict(list)
    for r in results:
        if not r.mask_sample:
            by_task[r.task_id].append(r)
    rows = []
    for task_id, group in sorted(by_task.items()):
        good = [r for r in group if passed(r)]
        bad = [r for r in group if not passed(r)]
        if not bad:
            continue
        for n, chosen in enumerate(good):
            rejected = bad[n % len(bad)]
            rows.append(
                {
                    "task_id": task_id,
                    "env": chosen.env,
                    "prompt": _prompt(chosen),
                    "chosen": chat_messages(output_items(chosen.response)),
                    "rejected": chat_messages(output_items(rejected.response)),
                    "reward_chosen": chosen.reward,
                    "reward_rejected": rejected.reward,
                    "chosen_rollout_id": chosen.rollout_id,
                    "rejected_rollout_id": rejected.rollout_id,
                }
            )
    return rows


def rl_rows(results: list[RunResult]) -> list[dict[str, Any]]:
    """Every usable rollout as prompt, completion and reward (and tokens when it has them)."""
    rows = []
    for r in results:
        if r.mask_sample:
            continue
        row = {
            **_base(r),
            "prompt": _prompt(r),
            "completion": chat_messages(output_items(r.response)),
            "reward": r.reward,
            "reward_components": json.dumps(r.reward_components),
        }
        t = trajectory(r)
        if t.trainable:
            row.update(
                prompt_ids=t.prompt_ids,
                completion_ids=t.completion_ids,
                completion_mask=t.completion_mask,
                logprobs=t.logprobs,
            )
        rows.append(row)
    return rows


#: the fields of a row that name the rollouts it was made of
ID_FIELDS = ("rollout_id", "chosen_rollout_id", "rejected_rollout_id")


def rows_of(
    kind: Kind,
    results: list[RunResult],
    passed: Callable[[RunResult], bool],
    proven: Mapping[str, bool] | None = None,
) -> list[dict[str, Any]]:
    """The rows of one kind; with `proven` (rollout id -> whether its environment version is
    proven, `ProofBook.admit`), each row says `proven` (a pair: both of its rollouts)."""
    if kind == "sft":
        rows = sft_rows(results, passed)
    elif kind == "preference":
        rows = preference_pairs(results, passed)
    else:
        rows = rl_rows(results)
    if proven is not None:
        for row in rows:
            ids = [
                row[k]
                for k in ("rollout_id", "chosen_rollout_id", "rejected_rollout_id")
                if k in row
            ]
            row["proven"] = all(proven[i] for i in ids)
    return rows


def write_rows(rows: list[dict[str, Any]], path: Path, fmt: Literal["jsonl", "parquet"]) -> None:
    """Write `rows` to `path` (whole, or not at all: a temporary file is renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if fmt == "jsonl":
        tmp.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise RuntimeError(
                "Parquet needs pyarrow: pip install 'proofgym[export]' (or use --format jsonl)"
            ) from None
        pq.write_table(pa.Table.from_pylist(rows), tmp)
    tmp.replace(path)
