"""`proofgym reverify`: stored rollouts judged again by the current verifier."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proofgym_stack.console import app, console, err, fail, new_table

if TYPE_CHECKING:
    from proofgym.rollouts.store import WriteCounts
    from proofgym.wire.protocol import Task
    from proofgym_stack.reverify import ReverifySummary

OUTCOMES = ("same", "changed", "not_reproduced", "failed", "no_task")


def _tasks_for(envs: set[str], files: list[Path] | None) -> dict[str, Task]:
    from proofgym.rollouts.collect import TaskFileError, load_tasks
    from proofgym_stack.examples import NoExamples, example_tasks

    tasks: list[Task] = []
    try:
        if files:
            tasks = [t for f in files for t in load_tasks(f)]
        else:  # the tasks a store of the shipped examples was collected from
            for env in sorted(envs):
                tasks += example_tasks(env)[0]
    except (TaskFileError, NoExamples) as exc:
        fail(str(exc))
    return {t.task_id: t for t in tasks}


def _print(summary: ReverifySummary, counts: WriteCounts, dry_run: bool) -> None:
    from proofgym_stack.reverify import replaced_sentence

    table = new_table("env", *OUTCOMES, "rewards up", "rewards down", "masked<->verdict")
    for env, outcomes in sorted(summary.by_env().items()):
        flips = outcomes["masked->verdict"] + outcomes["verdict->masked"]
        table.add_row(
            env,
            *(str(outcomes[o]) for o in OUTCOMES),
            str(outcomes["up"]),
            str(outcomes["down"]),
            str(flips),
        )
    console.print(table)
    moved = summary.by_check()
    if moved:
        checks = new_table("env", "check", "moved", "rollouts", title="checks that moved")
        for (env, check, how), n in sorted(moved.items()):
            checks.add_row(env, check, how, str(n))
        console.print(checks)
    for v in summary.changed[:20]:
        after = v.after
        assert after is not None
        old = "masked" if v.before.mask_sample else f"{v.before.reward:g}"
        new = "masked" if after.mask_sample else f"{after.reward:g}"
        err.print(f"  {v.env} {v.task_id} {v.rollout_id}: {old} -> {new}")
    for v in summary.verdicts:
        if v.outcome in ("not_reproduced", "failed", "no_task"):
            err.print(f"  [yellow]{v.outcome}[/yellow] {v.rollout_id} ({v.task_id}): {v.detail}")
    if summary.skipped_unfinished:
        err.print(
            f"  {summary.skipped_unfinished} rollouts were masked before their verify (no "
            "finished trajectory): not re-verified; collect them again with `proofgym rollout`"
        )
    if dry_run:
        err.print("  --dry-run: nothing written")
        return
    err.print(f"  {counts.written} verdicts written (the replaced ones kept in table `reverified`)")
    if counts.already_recorded:
        err.print(
            f"  {counts.already_recorded} of them were already recorded by an earlier run: "
            "no second history row"
        )
    if counts.replaced:
        err.print(f"  [yellow]{replaced_sentence(len(counts.replaced))}[/yellow]")


@app.command()
def reverify(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store")],
    tasks_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--tasks",
            help="JSONL task files the rollouts ran on (default: each env's example tasks)",
        ),
    ] = None,
    failed_only: Annotated[
        bool,
        typer.Option(help="only rollouts masked at their verify (a judge that failed)"),
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="report what changes; write nothing")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON report")] = False,
) -> None:
    """Re-verify stored rollouts with the current verifier: replay each trajectory's tool calls
    in a fresh session, verify it, write the new verdict beside the old, print what changed.

    Exit 0 when every finished rollout was re-verified (or could not be reproduced), 1 when
    some could not be (a failed replay, a task not found, a row a concurrent rerun replaced
    meanwhile: run it again), 2 for bad usage.
    """
    import asyncio

    from proofgym.rollouts.proofs import ProofBook
    from proofgym.rollouts.store import RolloutStore, StoreError, WriteCounts
    from proofgym.serving.settings import ProofSettings, ResourcesSettings
    from proofgym.wire.protocol import RunResult
    from proofgym_stack.environments import available_environments
    from proofgym_stack.reverify import replaced_sentence, write
    from proofgym_stack.reverify import reverify as run

    if not db.is_file():
        fail(f"{db}: no such store")
    try:
        store = RolloutStore(db)
    except StoreError as exc:
        fail(str(exc), 1)
    try:
        results = [RunResult.model_validate(row["record"]) for row in store.rows()]
        settings = ResourcesSettings.from_env()
        try:
            available = available_environments(settings)
        except ValueError as exc:
            fail(str(exc))
        names = {r.env for r in results} & set(available)
        tasks = _tasks_for(names, tasks_files)
        envs = {name: available[name].from_settings(settings) for name in names}
        try:
            summary = asyncio.run(run(results, tasks, envs, failed_only=failed_only))
        finally:
            for env in envs.values():
                env.shutdown()
        # the rows it rewrites are signed with the operator's key, as the agent signs them
        key = ProofBook.from_settings(ProofSettings.from_env()).key(create=not dry_run)
        try:
            counts = WriteCounts() if dry_run else write(store, summary, key)
        except StoreError as exc:  # the batches before it are committed; a rerun does the rest
            fail(str(exc), 1)
    finally:
        store.close()
    if as_json:
        report = {
            "by_env": {e: dict(c) for e, c in summary.by_env().items()},
            "checks_moved": [
                {"env": e, "check": c, "moved": h, "rollouts": n}
                for (e, c, h), n in sorted(summary.by_check().items())
            ],
            "rollouts": [
                {
                    "rollout_id": v.rollout_id,
                    "task_id": v.task_id,
                    "env": v.env,
                    "outcome": v.outcome,
                    "reward_before": None if v.before.mask_sample else v.before.reward,
                    "reward": None if v.after is None or v.after.mask_sample else v.after.reward,
                    "detail": v.detail,
                }
                for v in summary.verdicts
            ],
            "skipped_unfinished": summary.skipped_unfinished,
            "written": counts.written,
            "already_recorded": counts.already_recorded,
            "replaced_by_rerun": counts.replaced,
        }
        console.print_json(json.dumps(report))
    else:
        _print(summary, counts, dry_run)
    if counts.replaced and as_json:  # the table's reader was told; the JSON's reader is here
        err.print(replaced_sentence(len(counts.replaced)))
    if counts.replaced or any(v.outcome in ("failed", "no_task") for v in summary.verdicts):
        raise typer.Exit(1)
