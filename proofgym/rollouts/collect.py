"""Rollout collection: run tasks x repeats through the agent, store each result as it comes.

Resumable: pairs already stored with a usable result are skipped, so a rerun of the same
command completes what a killed or failed run left.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from proofgym.clients.agent_client import run_request_body
from proofgym.clients.http import CallFailed, ServiceClient
from proofgym.rollouts.store import RolloutStore
from proofgym.wire.protocol import RunResult, Task


class TaskFileError(ValueError):
    """A task file that cannot be read; the message names the file and line."""


def load_tasks(path: Path) -> list[Task]:
    """Read a JSONL task file (proofgym or NeMo Gym rows); raise TaskFileError on bad lines."""
    if not path.is_file():
        raise TaskFileError(f"{path}: no such file")
    tasks: list[Task] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            task = Task.from_row(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise TaskFileError(f"{path}:{number}: not a valid task: {exc}") from None
        if task.task_id in seen:
            raise TaskFileError(f"{path}:{number}: task_id {task.task_id!r} appears twice")
        seen.add(task.task_id)
        tasks.append(task)
    if not tasks:
        raise TaskFileError(f"{path}: no tasks")
    return tasks


@dataclass
class Summary:
    """What a collection did."""

    planned: int = 0
    skipped: int = 0
    stored: int = 0
    not_collected: int = 0
    #: of those not collected, the ones the agent refused (4xx): the request is to fix
    refused: int = 0
    rewards: list[float] = field(default_factory=list)
    passed: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    trainable: int = 0
    errors: list[str] = field(default_factory=list)
    #: the first failure reason seen for each failure kind: what a person needs to act
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def mean_reward(self) -> float | None:
        """Mean reward over the usable (not masked) rollouts."""
        return sum(self.rewards) / len(self.rewards) if self.rewards else None

    @property
    def pass_rate(self) -> float | None:
        """Share of usable rollouts whose every check passed with a positive reward."""
        return self.passed / len(self.rewards) if self.rewards else None

    def add(self, result: RunResult) -> None:
        """Count one stored result."""
        self.stored += 1
        if result.mask_sample:
            kind = result.failure_kind or "unknown"
            self.failures[kind] += 1
            self.reasons.setdefault(kind, result.failure_reason or "")
            return
        self.rewards.append(result.reward)
        self.trainable += int(result.trainable)
        if result.reward > 0 and all(c.passed for c in result.checks):
            self.passed += 1


async def collect(
    tasks: list[Task],
    *,
    agent_url: str,
    store: RolloutStore,
    client: ServiceClient,
    repeats: int = 1,
    concurrency: int = 16,
    control: str | None = None,
    model_params: dict[str, Any] | None = None,
    max_steps: int | None = None,
    on_result: Callable[[RunResult | None], None] | None = None,
) -> Summary:
    """Collect every (task, repeat) pair not yet stored; return the summary of this run."""
    summary = Summary(planned=len(tasks) * repeats)
    done = await asyncio.to_thread(store.done_pairs)
    todo = [(t, r) for t in tasks for r in range(repeats) if (t.task_id, r) not in done]
    summary.skipped = summary.planned - len(todo)
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for pair in todo:
        queue.put_nowait(pair)

    async def one(task: Task, repeat: int) -> None:
        body = run_request_body(
            task, model_params=model_params, control=control, max_steps=max_steps
        )
        try:
            answer = await client.post_json(f"{agent_url.rstrip('/')}/run", body, idempotent=False)
            result = RunResult.model_validate(answer)
        except (CallFailed, ValidationError) as exc:
            summary.not_collected += 1
            status = getattr(exc, "status", None)
            summary.refused += int(status is not None and 400 <= status < 500)
            if len(summary.errors) < 5:
                summary.errors.append(f"{task.task_id}#{repeat}: {exc}")
            if on_result:
                on_result(None)
            return
        await loop.run_in_executor(writer, store.put, result, repeat)
        summary.add(result)
        if on_result:
            on_result(result)

    async def worker() -> None:
        while not queue.empty():
            task, repeat = queue.get_nowait()
            await one(task, repeat)

    try:
        await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(todo))))))
    finally:
        writer.shutdown(wait=True)
    return summary
