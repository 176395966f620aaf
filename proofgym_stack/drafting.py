"""`proofgym sdg ENV --llm`: a model rewords generated tasks; code keeps the ground truth.

For each generated row the model interface (any backend) is asked for a new statement; the
checks of `sdg.llm` drop any draft that no longer states the same instance, by reason; every
kept task must then pass its environment's controls (run in-process, as `validate` runs
them). Each draft is journaled as it comes, so a killed run resumes where it stopped and a
failed call is asked again on the rerun; the journal is removed once the task file is
written.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from proofgym.clients.model_client import ModelRefused, ModelUnavailable, response_text
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Control, RunResult, Task
from proofgym_stack.testing import in_process_stack
from sdg.llm import INSTRUCTIONS, drop_reason, near_duplicates, skeleton, statement, with_statement


class DraftingError(Exception):
    """Drafting cannot go on (no skeleton, the model refuses every request): exit 2."""


@dataclass
class DraftReport:
    """What a drafting run did, for the CLI and the manifest."""

    model: str
    temperature: float
    instructions_sha256: str = hashlib.sha256(INSTRUCTIONS.encode()).hexdigest()
    drafted: int = 0
    resumed: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    failed: int = 0  # calls that got no draft: asked again on the next run
    errors: list[str] = field(default_factory=list)

    def manifest(self) -> dict[str, Any]:
        """The manifest entry: enough to reproduce the drafts and to read what was dropped."""
        return {
            "model": self.model,
            "temperature": self.temperature,
            "instructions": INSTRUCTIONS,
            "instructions_sha256": self.instructions_sha256,
            "kept": self.kept,
            "dropped": dict(sorted(self.dropped.items())),
        }


def ask_model(client: httpx.Client, model: str, temperature: float, text: str) -> str:
    """One rewording of `text` from the model interface; DraftingError when it refuses the
    request itself (4xx), ModelUnavailable when it stays unreachable."""
    body = {"model": model, "instructions": INSTRUCTIONS, "input": text, "temperature": temperature}
    try:
        return response_text(client, "/v1/responses", body)
    except ModelRefused as exc:
        raise DraftingError(str(exc)) from None


def read_journal(path: Path) -> dict[str, dict[str, Any]]:
    """Drafts already made, by source task id (a torn last line is ignored)."""
    done: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            done[entry["source"]] = entry
    return done


def draft_rows(
    rows: list[dict[str, Any]],
    module: ModuleType,
    client: httpx.Client,
    *,
    model: str,
    temperature: float,
    journal: Path,
    on_progress: Callable[[], None] = lambda: None,
) -> tuple[list[dict[str, Any]], DraftReport]:
    """Reworded rows that still state their instances, in the order of `rows`."""
    facts_of = skeleton(module)
    if facts_of is None:
        raise DraftingError(
            f"{module.__name__} exposes no ground-truth skeleton (a `facts(row)` function): "
            "its statements cannot be checked, so they are not drafted"
        )
    report = DraftReport(model=model, temperature=temperature)
    done = read_journal(journal)
    journal.parent.mkdir(parents=True, exist_ok=True)
    with journal.open("a") as out:
        for row in rows:
            if row["task_id"] in done:
                report.resumed += 1
                on_progress()
                continue
            original = statement(row)
            try:
                draft = ask_model(client, model, temperature, original)
            except ModelUnavailable as exc:
                report.failed += 1
                if len(report.errors) < 3:
                    report.errors.append(f"{row['task_id']}: {exc}")
                on_progress()
                continue
            report.drafted += 1
            reason = drop_reason(original, draft, facts_of(row))
            entry = {
                "source": row["task_id"],
                "reason": reason,
                "draft": draft[:2000],
                "row": with_statement(row, draft.strip()) if reason is None else None,
            }
            out.write(json.dumps(entry) + "\n")
            out.flush()  # a kill loses at most the draft being written
            done[row["task_id"]] = entry
            on_progress()
    kept = []
    for row in rows:
        made = done.get(row["task_id"])
        if made is None:
            continue
        if made["reason"] is None:
            kept.append(made["row"])
        else:
            report.dropped[made["reason"]] += 1
    near = near_duplicates([(statement(r), facts_of(r)) for r in kept])
    report.dropped["near_duplicate"] += len(near)
    kept = [r for i, r in enumerate(kept) if i not in near]
    report.kept = len(kept)
    return kept, report


async def controls_failing(env: Any, rows: list[dict[str, Any]], parallel: int = 32) -> set[str]:
    """Ids of the rows one of whose controls does not get its declared outcome."""
    tasks = [Task.model_validate(r) for r in rows]
    failing: set[str] = set()
    settings = ResourcesSettings(max_sessions=max(1024, parallel * 8))
    gate = asyncio.Semaphore(parallel)
    async with in_process_stack(resources_settings=settings, envs={env.name: env}) as stack:

        async def check(task: Task) -> None:
            async with gate:
                body = {"task": task.model_dump(mode="json")}
                answer = await stack.client.post(f"http://resources/{env.name}/controls", json=body)
                if answer.status_code != 200:  # no controls for this task: it cannot be kept
                    failing.add(task.task_id)
                    return
                for raw in answer.json()["controls"]:
                    control = Control.model_validate(raw)
                    params = {"model": "scripted", "script": control.script}
                    r = await stack.run({**body, "model_params": params})
                    result = RunResult.model_validate(r.json())
                    passed = not result.mask_sample and result.reward >= env.passing_reward()
                    if passed != (control.expect == "pass"):
                        failing.add(task.task_id)
                        return

        await asyncio.gather(*(check(t) for t in tasks))
    return failing
