"""Commands that collect and read rollouts: `rollout`, `show`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from proofgym_stack.console import app, console, err, fail, new_table

if TYPE_CHECKING:  # the CLI imports what a command needs when it runs (`--help` stays quick)
    from proofgym.rollouts.collect import Summary


def _print_summary(title: str, summary: Summary, db: Path) -> None:
    table = new_table(title=title, show_header=False)
    mean = summary.mean_reward
    rate = summary.pass_rate
    table.add_row("planned", str(summary.planned))
    table.add_row("already stored (skipped)", str(summary.skipped))
    table.add_row("stored now", str(summary.stored))
    table.add_row("mean reward", "n/a" if mean is None else f"{mean:.3f}")
    table.add_row("pass rate", "n/a" if rate is None else f"{rate:.1%}")
    table.add_row("trainable", str(summary.trainable))
    fails = ", ".join(f"{k}: {v}" for k, v in sorted(summary.failures.items())) or "none"
    table.add_row("masked failures", fails)
    if summary.not_collected:
        table.add_row("not collected", str(summary.not_collected))
    table.add_row("store", str(db))
    console.print(table)
    for kind, reason in sorted(summary.reasons.items()):
        err.print(f"  {kind}, for example: {reason[:300]}")
    for line in summary.errors:
        err.print(f"  {line}")
    said = " ".join([*summary.reasons.values(), *summary.errors])
    if "missing_script" in said or "needs a 'script'" in said:
        err.print(
            "  [yellow]the model interface runs the scripted backend, which only replays "
            "controls: pass --policy reference (or another control), or start it with a "
            "model (PROOFGYM_BACKEND=local|vllm|openai)[/yellow]"
        )
    if summary.refused:
        console.print(
            f"[yellow]{summary.refused} rollouts were refused as requested (4xx): fix the "
            "request (see above); running the same command again will not help[/yellow]"
        )
    if summary.failures or summary.not_collected > summary.refused:
        console.print(
            "[yellow]some rollouts failed; run the same command again to complete them[/yellow]"
        )


def _collect(
    tasks_file: Path | list[Path],
    db: Path,
    agent_url: str,
    repeats: int,
    concurrency: int,
    policy: str,
    model: str | None,
    max_steps: int | None,
    timeout: float | None = None,
) -> Summary:
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from proofgym.clients.http import ServiceClient
    from proofgym.rollouts.collect import TaskFileError, collect, load_tasks
    from proofgym.rollouts.store import RolloutStore, StoreError
    from proofgym.serving.server import raise_nofile
    from proofgym.serving.settings import CollectorSettings

    try:
        files = tasks_file if isinstance(tasks_file, list) else [tasks_file]
        tasks = [t for f in files for t in load_tasks(f)]
    except TaskFileError as exc:
        fail(str(exc))
    control = None if policy == "model" else policy
    model_params = {"model": model} if model else {}
    try:
        store = RolloutStore(db)
    except StoreError as exc:
        fail(str(exc), 1)
    soft, _ = raise_nofile()
    if concurrency > soft - 64:  # one connection per rollout in flight, plus the store
        err.print(
            f"[yellow]only {soft} open files allowed: running {soft - 64} rollouts at once, "
            f"not {concurrency} (raise `ulimit -n` for more)[/yellow]"
        )
        concurrency = max(1, soft - 64)
    settings = CollectorSettings.from_env()
    # one pooled connection per rollout in flight: a rollout never waits for a connection
    update: dict[str, Any] = {"pool_per_upstream": concurrency}
    if timeout is not None:  # the budget each /run carries: the agent stops the rollout there
        update["request_timeout_s"] = timeout
    settings = settings.model_copy(update=update)
    client = ServiceClient(settings, token=settings.token)

    async def main(progress: Progress, bar: Any) -> Summary:
        try:
            return await collect(
                tasks,
                agent_url=agent_url,
                store=store,
                client=client,
                repeats=repeats,
                concurrency=concurrency,
                control=control,
                model_params=model_params,
                max_steps=max_steps,
                on_result=lambda r: progress.advance(bar),
            )
        finally:
            await client.aclose()

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err.real,
        transient=True,
    ) as progress:
        done = len(store.done_pairs() & {(t.task_id, r) for t in tasks for r in range(repeats)})
        bar = progress.add_task(f"rollouts ({policy})", total=len(tasks) * repeats - done)
        try:
            return asyncio.run(main(progress, bar))
        except StoreError as exc:  # a full disk: what was stored stays, a rerun completes it
            fail(str(exc), 1)
        finally:
            store.close()


@app.command()
def rollout(
    tasks_files: Annotated[
        list[Path], typer.Argument(help="JSONL task files (tasks/*/example.jsonl: every env)")
    ],
    db: Annotated[Path, typer.Option(help="SQLite rollout store")] = Path("runs/rollouts.db"),
    agent_url: Annotated[str, typer.Option(help="agent server")] = "http://127.0.0.1:8000",
    repeats: Annotated[int, typer.Option(min=1, help="rollouts per task")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="rollouts at once")] = 16,
    policy: Annotated[
        str,
        typer.Option(
            help="'model' for the model interface's backend, or a control name "
            "(reference, alternative, noop_claim, ...) replayed by the scripted model"
        ),
    ] = "model",
    model: Annotated[str | None, typer.Option(help="model name sent to the backend")] = None,
    max_steps: Annotated[int | None, typer.Option(min=1, help="steps per rollout")] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=1,
            help="seconds each rollout may take, waits for the model included (default "
            "PROOFGYM_REQUEST_TIMEOUT_S, 120); a rollout past it is masked as a timeout "
            "naming this limit. A model on CPU needs minutes",
        ),
    ] = None,
) -> None:
    """Collect rollouts into the store; a rerun skips what is stored and completes failures."""
    summary = _collect(
        tasks_files, db, agent_url, repeats, concurrency, policy, model, max_steps, timeout
    )
    names = ", ".join(f.name if len(tasks_files) == 1 else str(f) for f in tasks_files)
    _print_summary(f"{names}, policy {policy}", summary, db)
    err.print(
        f"look before you train: proofgym profile {db} --out {db.with_suffix('.html')}"
        f"  (one rollout at a time: proofgym view {db})"
    )
    if summary.not_collected or summary.failures:
        raise typer.Exit(1)


@app.command()
def show(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store")],
    limit: Annotated[int, typer.Option(help="rows to show")] = 20,
) -> None:
    """Print the stored rollouts of a store."""
    from proofgym.rollouts.store import RolloutStore
    from proofgym.wire.protocol import RunResult

    if not db.is_file():
        fail(f"{db}: no such store")
    store = RolloutStore(db)
    table = new_table("task", "repeat", "reward", "steps", "failure", "checks")
    for n, row in enumerate(store.rows()):
        if n >= limit:
            break
        result = RunResult.model_validate(row["record"])
        failed = [c.name for c in result.checks if not c.passed]
        if result.mask_sample:  # no verdict: neither a reward nor checks to show
            reward, checks = "masked", f"not judged: {(result.failure_reason or '')[:60]}"
        else:
            reward = f"{row['reward']:.2f}"
            checks = "failed: " + ", ".join(failed) if failed else "all passed"
        table.add_row(
            row["task_id"],
            str(row["repeat"]),
            reward,
            str(result.num_steps),
            row["failure_kind"] or "",
            checks,
        )
    console.print(table)
    store.close()
