"""Re-verify stored rollouts with the current verifier (`proofgym reverify STORE`).

A verifier fix changes what a trajectory is worth; the trajectories already collected need
not be collected again. Each stored rollout whose trajectory finished is replayed through the
resources server's own path, in process: a fresh session seeded with the rollout's task, the
trajectory's tool calls made again in order, its final response verified. Then:

- **same** / **changed** (the reward, or whether it is masked, moved; checks that moved are
  counted apart): the current verdict, beside the stored one. The new verdict
  becomes the rollout's row (so `profile`, `view`, `export` and `learn` read it); the old one
  is kept in the store's `reverified` table with the environment version of each;
- **not reproduced**: a tool answered the replay differently from the recording, so the
  session's state is not the one the policy acted in; judging the trajectory there would
  score a world the policy never saw. The stored verdict stays;
- **failed**: the replay or the verify failed (a judge that is down): the stored verdict stays;
- **no task**: the rollout's task is not in the task files given.

Rollouts masked before their verify (a model error, a timeout mid-rollout) hold no finished
trajectory and are not re-verified; rollouts masked at verify (`verify_error`: a judge that
failed) are, which is what `--failed-only` selects.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from proofgym.rollouts.signing import sign_row
from proofgym.rollouts.store import RolloutStore, VerdictWrite, WriteCounts
from proofgym.wire.protocol import RewardInputs, RunResult, Task, VerifyResult
from proofgym.wire.trajectory import trajectory
from proofgym_stack.testing import in_process_stack
from proofgym_stack.validation.sessions import HandSession, replay_calls

Outcome = Literal["same", "changed", "not_reproduced", "failed", "no_task"]


@dataclass
class Reverdict:
    """What re-verifying one stored rollout found."""

    rollout_id: str
    task_id: str
    env: str
    outcome: Outcome
    before: RunResult
    after: RunResult | None = None
    detail: str = ""

    def flipped_checks(self) -> list[tuple[str, str]]:
        """(check, "pass->fail" | "fail->pass" | "new" | "gone") for each check that moved."""
        if self.after is None:
            return []
        old = {c.name: c.passed for c in self.before.checks}
        new = {c.name: c.passed for c in self.after.checks}
        moved = []
        for name in sorted(old.keys() | new.keys()):
            if name not in new:
                moved.append((name, "gone"))
            elif name not in old:
                moved.append((name, "new"))
            elif old[name] != new[name]:
                moved.append((name, "fail->pass" if new[name] else "pass->fail"))
        return moved


@dataclass
class ReverifySummary:
    """Counts per environment and per check of one `reverify` run."""

    verdicts: list[Reverdict] = field(default_factory=list)
    skipped_unfinished: int = 0

    def by_env(self) -> dict[str, Counter[str]]:
        """env -> outcome -> count (and `up` / `down` for changed rewards)."""
        out: dict[str, Counter[str]] = {}
        for v in self.verdicts:
            counts = out.setdefault(v.env, Counter())
            counts[v.outcome] += 1
            if v.outcome == "changed" and v.after is not None:
                before = None if v.before.mask_sample else v.before.reward
                after = None if v.after.mask_sample else v.after.reward
                if before is None or after is None:
                    counts["masked->verdict" if before is None else "verdict->masked"] += 1
                elif after > before:
                    counts["up"] += 1
                elif after < before:
                    counts["down"] += 1
        return out

    def by_check(self) -> dict[tuple[str, str, str], int]:
        """(env, check, how it moved) -> count."""
        out: Counter[tuple[str, str, str]] = Counter()
        for v in self.verdicts:
            for check, how in v.flipped_checks():
                out[(v.env, check, how)] += 1
        return dict(out)

    @property
    def changed(self) -> list[Reverdict]:
        """The rollouts whose verdict changed."""
        return [v for v in self.verdicts if v.outcome == "changed"]


def finished(result: RunResult) -> bool:
    """Whether a stored rollout holds a trajectory that reached its verify."""
    return not result.mask_sample or result.failure_kind == "verify_error"


def _verdict_moved(before: RunResult, after: RunResult) -> bool:
    if before.mask_sample or after.mask_sample:
        return before.mask_sample != after.mask_sample or before.failure_kind != after.failure_kind
    return abs(before.reward - after.reward) > 1e-9


def _with_verdict(
    before: RunResult, verdict: VerifyResult, env_version: str, inputs: RewardInputs
) -> RunResult:
    """The stored rollout with `verdict` in place of its own, stamped with the version and the
    reward inputs (judge, settings digest) that judged it now; trainable where its tokens are
    complete and append-only and the new verdict is not masked. Unsigned: `write` signs it."""
    update: dict[str, Any] = {
        "judge": inputs.judge,
        "settings_digest": inputs.settings_digest(),
        "signature": None,
        "reward": verdict.reward,
        "reward_components": dict(verdict.reward_components),
        "checks": list(verdict.checks),
        "mask_sample": verdict.mask_sample,
        "failure_kind": verdict.failure_kind,
        "failure_reason": verdict.failure_reason,
        "env_version": env_version,
    }
    if before.mask_sample:  # masked at verify: the agent marked it untrainable for that alone
        unmasked = before.model_copy(update={"mask_sample": False, "trainable": True})
        tokens_ok = trajectory(unmasked).trainable
    else:
        tokens_ok = before.trainable
    update["trainable"] = tokens_ok and not verdict.mask_sample
    return before.model_copy(update=update)


async def _reverify_one(
    client: httpx.AsyncClient, env: Any, task: Task, before: RunResult
) -> Reverdict:
    base = f"http://resources/{env.name}"
    # the task was made for the version the rollout ran on; it is judged by this one on purpose
    session = HandSession(client, base, task.model_copy(update={"env_version": None}), "reverify")
    made = Reverdict(before.rollout_id, before.task_id, before.env, "failed", before)
    try:
        if not await session.seed():
            made.detail = "the task could not be seeded"
            return made
    except httpx.HTTPError as exc:
        made.detail = f"seed failed: {exc}"
        return made
    try:
        tools = {t["name"] for t in env.task_tool_schemas(task)}
        for name, now, then in await replay_calls(session, before.response, tools):
            if now != then:
                made.outcome = "not_reproduced"
                made.detail = f"{name} answers the replay differently from the recording"
                if env.deterministic_tools:
                    return made
        verdict = VerifyResult.model_validate(
            await session.verify(before.response.model_dump(mode="json"))
        )
    except (RuntimeError, httpx.HTTPError, ValueError) as exc:
        made.outcome, made.detail = "failed", str(exc)[:300]
        return made
    finally:
        with contextlib.suppress(RuntimeError, httpx.HTTPError):  # the server reaps it
            await session.close()
    made.after = _with_verdict(before, verdict, env.version(), env.reward_inputs())
    if made.outcome != "not_reproduced":  # tools that are not deterministic: judged anyway
        made.outcome = "changed" if _verdict_moved(before, made.after) else "same"
    return made


async def reverify(
    rows: Iterable[RunResult],
    tasks: Mapping[str, Task],
    envs: Mapping[str, Any],
    *,
    failed_only: bool = False,
    on_result: Callable[[Reverdict], None] | None = None,
) -> ReverifySummary:
    """Re-verify `rows` (stored rollouts) with `envs` (environment instances by name, the
    current code) on `tasks` (by task id); nothing is written (see `write`)."""
    summary = ReverifySummary()
    todo = []
    for result in rows:
        if not finished(result):
            summary.skipped_unfinished += 1
        elif not failed_only or result.mask_sample:
            todo.append(result)
    if not todo:
        return summary
    wanted = {r.env for r in todo if r.env in envs}
    async with in_process_stack(envs={name: envs[name] for name in wanted}) as stack:
        for result in todo:
            task = tasks.get(result.task_id)
            if task is None or result.env not in envs or task.env != result.env:
                detail = (
                    "its task is not in the task files"
                    if task is None
                    else (
                        f"no environment {result.env!r} here"
                        if result.env not in envs
                        else f"task {task.task_id} is of {task.env}, the rollout of {result.env}"
                    )
                )
                made = Reverdict(
                    result.rollout_id, result.task_id, result.env, "no_task", result, None, detail
                )
            else:
                made = await _reverify_one(stack.client, envs[result.env], task, result)
            summary.verdicts.append(made)
            if on_result is not None:
                on_result(made)
    return summary


#: verdicts written per transaction: a kill loses at most one batch, which a rerun writes again
WRITE_BATCH = 64


def write(
    store: RolloutStore,
    summary: ReverifySummary,
    key: bytes | None = None,
    batch: int = WRITE_BATCH,
) -> WriteCounts:
    """Write each new verdict into its rollout's row (signed with the proof `key`, as the agent
    signs a row: None leaves it unsigned, never admitted), the old one into the `reverified`
    table beside it, `batch` rollouts per transaction. A row that changed or vanished since it was
    read (a `proofgym rollout` rerun replaced it) is skipped and counted in `replaced`, never
    overwritten; a rerun after a kill adds no second history row (`already_recorded`)."""
    writes = []
    for v in summary.verdicts:
        if v.after is None or v.outcome not in ("same", "changed"):
            continue
        history = {
            "rollout_id": v.rollout_id,
            "reverified_at": time.time(),
            "outcome": v.outcome,
            "env_version_before": v.before.env_version or "",
            "env_version": v.after.env_version or "",
            "reward_before": v.before.reward,
            "reward": v.after.reward,
            "mask_before": int(v.before.mask_sample),
            "mask_sample": int(v.after.mask_sample),
            "checks_moved": json.dumps(v.flipped_checks()),
            "record_before": v.before.model_dump_json(exclude_none=True),
        }
        after = v.after if key is None else sign_row(key, v.after)
        writes.append(VerdictWrite(v.before, after, history))
    counts = WriteCounts()
    for start in range(0, len(writes), batch):
        counts.add(store.replace_verdicts(writes[start : start + batch]))
    return counts


def replaced_sentence(replaced: int) -> str:
    """What to tell an operator about rows a rerun replaced while `reverify` ran."""
    rows = "1 row was" if replaced == 1 else f"{replaced} rows were"
    return (
        f"{rows} replaced by a rerun while re-verifying (their new verdicts were not written): "
        "run it again"
    )
