"""The `proofgym` command line."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from proofgym.collect import Summary, TaskFileError, collect, load_tasks
from proofgym.http import SERVER_KEEPALIVE_S, ServiceClient
from proofgym.protocol import RunResult, Task
from proofgym.settings import AgentSettings, CollectorSettings, ModelSettings, ResourcesSettings
from proofgym.store import RolloutStore
from proofgym.up import Stack, free_port

app = typer.Typer(
    help="proofgym: RL environments for LLM agents, with proven rewards.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
err = Console(stderr=True)
EXAMPLES = Path(__file__).resolve().parent.parent / "tasks" / "file_edit" / "example.jsonl"


def fail(message: str, code: int = 2) -> None:
    """Print an error a person can act on and exit."""
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


@app.command()
def serve(
    service: Annotated[str, typer.Argument(help="agent, resources, model or vllm")],
    host: Annotated[str | None, typer.Option(help="interface to bind")] = None,
    port: Annotated[int | None, typer.Option(help="port to bind")] = None,
    backend: Annotated[
        str | None, typer.Option(help="model backend: scripted, openai, vllm or local")
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name or folder")] = None,
    base_url: Annotated[
        list[str] | None, typer.Option(help="upstream URL (repeat for several)")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="vllm: print the command, start nothing")] = False,
) -> None:
    """Start one service. Other settings come from PROOFGYM_ environment variables.

    `serve vllm --model DIR` starts vLLM's OpenAI server with the flags the vllm backend
    needs (the `vllm` extra must be installed).
    """
    import uvicorn

    if service == "vllm":
        _serve_vllm(model, host or "127.0.0.1", port or 8003, dry_run)
        return
    overrides: dict[str, Any] = {k: v for k, v in (("host", host), ("port", port)) if v}
    if model:
        overrides["model"] = model
    if base_url:
        overrides["base_urls"] = base_url
    settings: AgentSettings | ResourcesSettings | ModelSettings
    if service == "agent":
        from agent_server.app import create_app as agent_app

        settings = AgentSettings(**overrides)
        application = agent_app(settings)
    elif service == "resources":
        from resources_servers.base.app import create_app as resources_app

        settings = ResourcesSettings(**overrides)
        try:
            application = resources_app(settings)
        except ValueError as exc:
            fail(str(exc))
    elif service == "model":
        from model_interface.app import create_app as model_app

        if backend:
            overrides["backend"] = backend
        settings = ModelSettings(**overrides)
        try:
            application = model_app(settings)
        except ValueError as exc:
            fail(str(exc))
    else:
        fail(f"unknown service {service!r}; choose agent, resources, model or vllm")
    logging.basicConfig(level=settings.log_level.upper())
    uvicorn.run(
        application,
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        log_level=settings.log_level,
        timeout_graceful_shutdown=5,
        backlog=8192,
        timeout_keep_alive=SERVER_KEEPALIVE_S,
    )


def vllm_command(model: str, host: str, port: int) -> list[str]:
    """vLLM's OpenAI server with what the vllm backend relies on: token ids in and out
    (`return_token_ids` needs no flag in vLLM 0.10.2+; the flag below covers older logprob
    output), and Hermes tool parsing for the chat fallback mode."""
    return [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        model,
        "--host",
        host,
        "--port",
        str(port),
        "--return-tokens-as-token-ids",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
        "--generation-config",
        "vllm",
    ]


def _serve_vllm(model: str | None, host: str, port: int, dry_run: bool) -> None:
    import importlib.util
    import os

    if not model:
        fail("serve vllm needs --model (a folder or a model name)")
    assert model is not None
    cmd = vllm_command(model, host, port)
    if dry_run:
        console.print(" ".join(cmd))
        return
    if importlib.util.find_spec("vllm") is None:
        fail("vLLM is not installed: pip install 'proofgym[vllm-server]' (needs a GPU machine)")
    os.execv(cmd[0], cmd)


def _supervise(stack: Stack) -> None:
    """Until SIGINT or SIGTERM: restart any service that dies, and say so."""
    stop = {"now": False}

    def handler(signum: int, frame: Any) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    while not stop["now"]:
        for svc in stack.restart_dead():
            err.print(
                f"[yellow]{svc.name} at {svc.url} died; restarted it "
                f"(pid {svc.process.pid}, restart {svc.restarts})[/yellow]"
            )
        time.sleep(0.2)


@app.command()
def up(
    host: Annotated[str, typer.Option(help="interface to bind")] = "127.0.0.1",
    agent_port: Annotated[int, typer.Option(help="agent port")] = 8000,
    resources_port: Annotated[int, typer.Option(help="first resources port")] = 8001,
    model_port: Annotated[int, typer.Option(help="model interface port")] = 8002,
    resources_replicas: Annotated[int, typer.Option(min=1, help="resources processes")] = 1,
) -> None:
    """Start the three services as local processes; Ctrl-C or SIGTERM stops them all."""
    ports = [resources_port] + [free_port(host) for _ in range(resources_replicas - 1)]
    stack = Stack(host=host, agent_port=agent_port, resources_ports=ports, model_port=model_port)
    try:
        stack.start()
    except RuntimeError as exc:
        fail(f"the services did not start: {exc}", 1)
    for svc in stack.processes:
        console.print(f"{svc.name:>10}  {svc.url}  pid {svc.process.pid}")
    console.print("ready; Ctrl-C stops everything", style="green")
    try:
        _supervise(stack)
    finally:
        stack.stop()


def _print_summary(title: str, summary: Summary, db: Path) -> None:
    table = Table(title=title, show_header=False)
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
    for line in summary.errors:
        err.print(f"  {line}")
    if summary.failures or summary.not_collected:
        console.print(
            "[yellow]some rollouts failed; run the same command again to complete them[/yellow]"
        )


def _collect(
    tasks_file: Path,
    db: Path,
    agent_url: str,
    repeats: int,
    concurrency: int,
    policy: str,
    model: str | None,
    max_steps: int | None,
) -> Summary:
    try:
        tasks = load_tasks(tasks_file)
    except TaskFileError as exc:
        fail(str(exc))
    control = None if policy == "model" else policy
    model_params = {"model": model} if model else {}
    store = RolloutStore(db)
    settings = CollectorSettings()
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
        console=err,
        transient=True,
    ) as progress:
        done = len(store.done_pairs() & {(t.task_id, r) for t in tasks for r in range(repeats)})
        bar = progress.add_task(f"rollouts ({policy})", total=len(tasks) * repeats - done)
        try:
            return asyncio.run(main(progress, bar))
        finally:
            store.close()


@app.command()
def rollout(
    tasks_file: Annotated[Path, typer.Argument(help="JSONL task file")],
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
) -> None:
    """Collect rollouts into the store; a rerun skips what is stored and completes failures."""
    summary = _collect(tasks_file, db, agent_url, repeats, concurrency, policy, model, max_steps)
    _print_summary(f"{tasks_file.name}, policy {policy}", summary, db)
    if summary.not_collected or summary.failures:
        raise typer.Exit(1)


@app.command("tiny-model")
def tiny_model(
    out: Annotated[Path, typer.Argument(help="folder to write the model into")],
    seed: Annotated[int, typer.Option(help="weight initialisation seed")] = 0,
) -> None:
    """Build an untrained tiny causal LM and tokenizer (seconds, no download); for tests."""
    try:
        from model_interface.tiny_model import build
    except ImportError:
        fail("the tiny model needs torch and transformers: pip install 'proofgym[local]'")
    build(out, seed=seed)
    console.print(f"wrote an untrained tiny model to {out} (random weights: it writes noise)")


@app.command()
def envs() -> None:
    """List the shipped environments with their versions and tools."""
    from proofgym.settings import ResourcesSettings
    from resources_servers.base.registry import discover

    settings = ResourcesSettings()
    table = Table("environment", "version", "tools", "runs policy code", "description")
    for name, cls in sorted(discover().items()):
        env = cls.from_settings(settings)
        sandbox = env.sandbox_mode() or "no"
        table.add_row(name, cls.version(), ", ".join(cls.tools()), sandbox, cls.description)
        env.shutdown()
    console.print(table)


@app.command()
def demo(
    tasks_file: Annotated[Path, typer.Option(help="JSONL task file")] = EXAMPLES,
    out_dir: Annotated[
        Path | None, typer.Option(help="folder for one store per policy (default: temporary)")
    ] = None,
) -> None:
    """Start the services, run the example tasks with the reference and no-op policies and
    with the tiny local model, then stop."""
    host = "127.0.0.1"
    stack = Stack(
        host=host, agent_port=free_port(), resources_ports=[free_port()], model_port=free_port()
    )
    with tempfile.TemporaryDirectory(prefix="proofgym-demo-") as tmp:
        folder = out_dir or Path(tmp)
        tiny = _demo_model(Path(tmp) / "tiny-model")
        if tiny is not None:
            stack.model_env = {
                "PROOFGYM_BACKEND": "local",
                "PROOFGYM_MODEL": str(tiny),
                "PROOFGYM_DEFAULT_MAX_TOKENS": "32",
            }
        console.print("starting agent, resources and model services ...")
        try:
            stack.start()
        except RuntimeError as exc:
            fail(f"the services did not start: {exc}", 1)
        try:
            for svc in stack.processes:
                console.print(f"  {svc.name:>10}  {svc.url}")
            for policy, meaning in (
                ("reference", "should score 1"),
                ("noop_claim", "claims success, does nothing: should score 0"),
            ):
                store = folder / f"demo-{policy}.db"
                summary = _collect(tasks_file, store, stack.agent_url, 1, 8, policy, None, None)
                _print_summary(f"policy {policy} ({meaning})", summary, store)
            if tiny is not None:
                store = folder / "demo-tiny-model.db"
                summary = _collect(tasks_file, store, stack.agent_url, 1, 8, "model", None, 3)
                _print_summary(
                    "the tiny local model (untrained: reward ~0 is expected; every "
                    "rollout should be trainable)",
                    summary,
                    store,
                )
        finally:
            stack.stop()


def _demo_model(out: Path) -> Path | None:
    try:
        from model_interface.tiny_model import build
    except ImportError:
        console.print(
            "[yellow]torch/transformers missing: skipping the tiny-model rollouts "
            "(pip install 'proofgym[local]')[/yellow]"
        )
        return None
    return build(out)


@app.command()
def validate(
    envs: Annotated[list[str] | None, typer.Argument(help="environments (default: all)")] = None,
    tasks_file: Annotated[
        Path | None,
        typer.Option("--tasks", help="JSONL tasks (default: tasks/<env>/example.jsonl)"),
    ] = None,
    parallel: Annotated[int, typer.Option(min=1, help="sessions at once for isolation")] = 256,
    sample: Annotated[int, typer.Option(min=1, help="tasks per environment")] = 4,
    margin: Annotated[
        float | None,
        typer.Option(help="floor gap as a share of the reward range (default: the env's)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON report")] = False,
) -> None:
    """Prove each environment's reward: controls, negatives, isolation, determinism, leakage.

    Exit 0 when every check passes, 1 when any fails, 2 for bad usage.
    """
    from proofgym.validation import EnvReport, validate_env
    from resources_servers.base.registry import discover

    available = discover()
    names = envs or sorted(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        fail(f"unknown environments {unknown}; available: {sorted(available)}")
    plan: list[tuple[str, list[Task]]] = []
    for name in names:
        path = tasks_file or EXAMPLES.parent.parent / name / "example.jsonl"
        try:
            tasks = [t for t in load_tasks(path) if t.env == name]
        except TaskFileError as exc:
            fail(f"{name}: {exc}")
        if not tasks:
            fail(f"{path} has no task for {name}")
        plan.append((name, tasks))
    reports: list[EnvReport] = []
    for name, tasks in plan:
        if not as_json:
            err.print(f"validating {name} ...")
        reports.append(
            asyncio.run(
                validate_env(
                    available[name].from_settings(ResourcesSettings()),
                    tasks,
                    parallel=parallel,
                    sample=sample,
                    margin=margin,
                )
            )
        )
    if as_json:
        console.print_json(json.dumps([r.to_json() for r in reports]))
    else:
        for report in reports:
            table = Table(
                "check",
                "verdict",
                "detail",
                title=f"{report.env} {report.version}: {report.tasks} tasks, "
                f"{report.rollouts} rollouts, {report.seconds:.1f}s",
            )
            for v in report.verdicts:
                table.add_row(
                    v.name, "[green]pass[/green]" if v.passed else "[red]FAIL[/red]", v.detail
                )
            console.print(table)
    if not all(r.passed for r in reports):
        raise typer.Exit(1)


@app.command()
def sdg(
    env: Annotated[str, typer.Argument(help="environment to generate tasks for")],
    n: Annotated[int, typer.Option(min=1, help="how many tasks")] = 8,
    seed: Annotated[int, typer.Option(help="the same seed gives the same tasks")] = 0,
    split: Annotated[str, typer.Option(help="train, eval or example")] = "train",
    out: Annotated[
        Path | None, typer.Option(help="JSONL file (default tasks/ENV/SPLIT.jsonl)")
    ] = None,
) -> None:
    """Generate tasks for an environment, deterministically, and record them in the manifest."""
    import importlib
    import os

    from resources_servers.base.registry import discover

    if split not in ("train", "eval", "example"):
        fail("split must be train, eval or example")
    available = discover()
    if env not in available:
        fail(f"unknown environment {env!r}; available: {sorted(available)}")
    try:
        module = importlib.import_module(f"sdg.{env}")
    except ModuleNotFoundError:
        fail(f"no generator for {env} (sdg/{env}.py)")
    rows = module.generate(n, seed=seed, split=split)
    tasks = [Task.model_validate(r) for r in rows]  # every row is a valid task
    target = out or EXAMPLES.parent.parent / env / f"{split}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in rows)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, target)  # a crash never leaves half a file
    manifest_path = target.parent.parent / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest[str(target.relative_to(target.parent.parent))] = {
        "env": env,
        "split": split,
        "count": len(tasks),
        "seed": seed,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "env_version": available[env].version(),
    }
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {len(tasks)} {env} tasks to {target}")


@app.command()
def show(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store")],
    limit: Annotated[int, typer.Option(help="rows to show")] = 20,
) -> None:
    """Print the stored rollouts of a store."""
    if not db.is_file():
        fail(f"{db}: no such store")
    store = RolloutStore(db)
    table = Table("task", "repeat", "reward", "steps", "failure", "checks")
    for n, row in enumerate(store.rows()):
        if n >= limit:
            break
        result = RunResult.model_validate(row["record"])
        failed = [c.name for c in result.checks if not c.passed]
        table.add_row(
            row["task_id"],
            str(row["repeat"]),
            f"{row['reward']:.2f}",
            str(result.num_steps),
            row["failure_kind"] or "",
            "failed: " + ", ".join(failed) if failed else "all passed",
        )
    console.print(table)
    store.close()


def main() -> None:
    """Entry point of the console script."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
