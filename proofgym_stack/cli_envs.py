"""Commands about environments: `envs`, `validate`, `sdg`, `tiny-model`."""

from __future__ import annotations

import functools
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from proofgym_stack.console import app, console, err, fail, new_table

if TYPE_CHECKING:  # the CLI imports what a command needs when it runs (`--help` stays quick)
    from proofgym.wire.protocol import Task
    from proofgym_stack.validation import EnvReport


@app.command()
def envs() -> None:
    """List the shipped environments with their versions (proven or not, and why not) and tools."""
    from proofgym.rollouts.proofs import Identity, ProofBook
    from proofgym.serving.settings import ProofSettings, ResourcesSettings
    from proofgym_stack.environments import available_environments

    settings = ResourcesSettings.from_env()
    book = ProofBook.from_settings(ProofSettings.from_env())
    table = new_table(
        "environment", "version", "proven", "tools", "runs policy code", "description"
    )
    table.columns[1].no_wrap = True  # a version is copied whole (`validate` names it)
    table.columns[1].min_width = 16
    try:
        available = available_environments(settings)
    except ValueError as exc:
        fail(str(exc))
    from resources_servers.base.registry import problems

    for folder, why in sorted(problems().items()):  # a broken folder, by name, in one line
        err.print(f"[yellow]{folder}: not an environment: {why.splitlines()[0]}[/yellow]")
    unproven: dict[str, str] = {}
    for name, cls in sorted(available.items()):
        env = cls.from_settings(settings)
        sandbox = env.sandbox_mode() or "no"
        not_admitted = book.why_not(Identity.serving(name, cls.version(), env.reward_inputs()))
        proven = "yes" if not_admitted is None else "[yellow]no[/yellow]"
        if not_admitted is not None:
            unproven[name] = not_admitted
        tools = ", ".join(cls.tools())
        table.add_row(name, cls.version(), proven, tools, sandbox, cls.description)
        env.shutdown()
    console.print(table)
    older = [
        p for p in book.proofs() if p.env in available and p.version != available[p.env].version()
    ]
    if older:
        err.print(
            f"{len(older)} proofs of earlier versions in {book.root} (rollouts of those versions "
            "stay admitted): " + ", ".join(f"{p.env} {p.version}" for p in older[:8])
        )
    for name, why in unproven.items():
        err.print(f"  {name} not admitted: {why}")
    if unproven:
        err.print(
            f"unproven versions reach no trainer: `proofgym validate` proves them ({book.root})"
        )


def _progress(env: str, check: str) -> None:
    err.print(f"  {env}: {check} ...")


def _certify(
    reports: list[EnvReport], run_with: dict[str, tuple[Any, list[Task], str]], sample: int
) -> list[str]:
    """Write the signed certificate of each environment version that passed every check:
    `run_with` is, per environment, (the instance validated, its tasks, where they came from);
    a sentence for each that could not be written (a read-only or full proofs folder), so the
    report is still shown before the command fails."""
    import hashlib
    from importlib.metadata import version as installed

    from proofgym.rollouts.proofs import ProofBook
    from proofgym.rollouts.safe_files import why_not_written
    from proofgym.serving.settings import ProofSettings

    book = ProofBook.from_settings(ProofSettings.from_env())
    problems = []
    for report in reports:
        if not report.passed:
            continue
        env, tasks, source = run_with[report.env]
        rows = "\n".join(t.model_dump_json() for t in tasks)
        try:
            path = book.certify(
                report.env,
                report.version,
                env.reward_inputs(),
                report.to_json(),
                tasks=source,
                tasks_digest=hashlib.sha256(rows.encode()).hexdigest(),
                sample=sample,
                proofgym=installed("proofgym"),
            )
        except OSError as exc:
            problems.append(
                f"{report.env} {report.version} passed, but its proof certificate could not be "
                f"written into {book.root}: {why_not_written(exc)}; make the folder writable "
                "(or set PROOFGYM_PROOFS_DIR to a writable one) and run `proofgym validate "
                f"{report.env}` again"
            )
            continue
        err.print(f"  proven: {report.env} {report.version} ({path})")
    return problems


# long: a Typer command declares its options in its signature, and its docstring is its --help
@app.command()
def validate(
    envs: Annotated[
        list[str] | None,
        typer.Argument(help="environments (default: all but reasoning-gym's rg_*)"),
    ] = None,
    tasks_file: Annotated[
        Path | None,
        typer.Option(
            "--tasks",
            help="JSONL tasks (default: ./tasks/<env>/example.jsonl, else the env's generator)",
        ),
    ] = None,
    parallel: Annotated[int, typer.Option(min=1, help="sessions at once for isolation")] = 256,
    sample: Annotated[int, typer.Option(min=1, help="tasks per environment")] = 4,
    margin: Annotated[
        float | None,
        typer.Option(help="floor gap as a share of the reward range (default: the env's)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON report")] = False,
    budget: Annotated[
        int,
        typer.Option(min=0, help="mutants of the pass controls the search plays (0: no search)"),
    ] = 200,  # the search's DEFAULT_BUDGET (a test holds them equal; imported lazily)
    quick: Annotated[
        bool,
        typer.Option(help="only controls, negatives and the floor gap on one task: seconds"),
    ] = False,
) -> None:
    """Prove each environment's reward: controls, negatives, isolation, determinism, leakage.

    Exit 0 when every check passes, 1 when any fails, 2 for bad usage.
    """
    import asyncio

    from proofgym.rollouts.collect import TaskFileError, load_tasks
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments
    from proofgym_stack.examples import NoExamples, example_tasks
    from proofgym_stack.validation import validate_env

    try:
        available = available_environments(ResourcesSettings.from_env())
    except ValueError as exc:
        fail(str(exc))
    from proofgym_stack.environments import default_names

    names = envs or default_names(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        from proofgym_stack.environments import unknown_message

        fail(unknown_message(unknown, available))
    plan: list[tuple[str, list[Task]]] = []
    for name in names:
        try:
            if tasks_file is not None:
                tasks, source = (
                    [t for t in load_tasks(tasks_file) if t.env == name],
                    str(tasks_file),
                )
            else:
                tasks, source = example_tasks(name)
        except (TaskFileError, NoExamples) as exc:
            fail(f"{name}: {exc}")
        if not tasks:
            fail(f"{source} has no task for {name}")
        plan.append((name, tasks))
    # SIGTERM unwinds like Ctrl-C, so the planted canary is removed on the way out
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    reports: list[EnvReport] = []
    run_with: dict[str, tuple[Any, list[Task], str]] = {}
    for name, tasks in plan:
        if not as_json:
            err.print(f"validating {name} ...")
        env = available[name].from_settings(ResourcesSettings.from_env())
        run_with[name] = (env, tasks, str(tasks_file or "example tasks"))
        reports.append(
            asyncio.run(
                validate_env(
                    env,
                    tasks,
                    parallel=parallel,
                    sample=1 if quick else sample,
                    margin=margin,
                    quick=quick,
                    progress=functools.partial(_progress, name),
                    budget=budget,
                )
            )
        )
    unwritten: list[str] = []
    if not quick:  # a quick run proves nothing: it skips most attacks
        unwritten = _certify(reports, run_with, sample)
    if as_json:
        console.print_json(json.dumps([r.to_json() for r in reports]))
    else:
        for report in reports:
            table = new_table(
                "check",
                "verdict",
                "detail",
                title=f"{report.env} {report.version}: {report.tasks} tasks, "
                f"{report.rollouts} rollouts, {report.seconds:.1f}s",
            )
            shown = {
                "pass": "[green]pass[/green]",
                "fail": "[red]FAIL[/red]",
                "n/a": "[dim]n/a[/dim]",
            }
            for v in report.verdicts:
                table.add_row(v.name, shown[v.outcome], v.detail)
            console.print(table)
        for report in reports:
            _show_findings(report)
            _keep_paid(report)
        for report in reports:  # the closing lines: no scanning forty rows for FAIL
            style = "green" if report.passed else "red"
            console.print(f"[{style}]{report.summary()}[/{style}] ({report.sampled()})")
        if quick:
            console.print("(quick: controls, negatives and floor gap only; run without --quick)")
    if unwritten:  # the report is shown above: now why it proves nothing
        from rich.markup import escape

        for problem in unwritten:
            err.print(f"[red]error:[/red] {escape(problem)}", soft_wrap=True)
        raise typer.Exit(1)
    if not all(r.passed for r in reports):
        raise typer.Exit(1)


def _keep_paid(report: EnvReport) -> None:
    """Every rollout that had to fail and was paid, whole (a verdict's detail shows the
    end of each), in a file beside the findings; its path on one line."""
    if not report.paid:
        return
    path = Path("runs") / "findings" / report.env / f"{report.version}.paid.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report.paid, indent=1) + "\n")
        err.print(f"  {report.env}: {len(report.paid)} rollouts that had to fail were paid: {path}")
    except OSError as exc:
        err.print(f"  {report.env}: the paid rollouts were not written to {path}: {exc.strerror}")


def _show_findings(report: EnvReport) -> None:
    """Each finding of the search that fails `validate` (`pays`, `masks`) with its minimal
    trajectory, as a control to paste; every finding, with its whole trajectory, in a file
    beside the proofs."""
    if not report.findings:
        return
    folder = Path("runs") / "findings" / report.env
    path = folder / f"{report.version}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report.findings, indent=1) + "\n")
        where = f"every finding with its whole trajectory: {path}"
    except OSError as exc:
        where = f"the findings could not be written to {path}: {exc.strerror}"
    failing = [f for f in report.findings if f["severity"] in ("pays", "masks")]
    pays = [f for f in failing if f["severity"] == "pays"]
    for f in failing:
        console.print(
            f"[red]{report.env}: {f['severity']} {f['oracle']} at {f['site']}[/red] "
            f"({f['count']} mutants of "
            f"{f['control']} on {f['task_id']}): {f['what']}; {f['why']}"
        )
        console.print("  the minimal trajectory, to paste into controls():")
        console.print(f["paste"], markup=False, highlight=False)
    err.print(
        f"  {report.env}: {len(pays)} paying, {len(failing) - len(pays)} masking a failure, "
        f"{len(report.findings) - len(failing)} advisory; {where}"
    )


@app.command()
def sdg(
    env: Annotated[str, typer.Argument(help="environment to generate tasks for")],
    n: Annotated[int, typer.Option(min=1, help="how many tasks")] = 8,
    seed: Annotated[int, typer.Option(help="the same seed gives the same tasks")] = 0,
    split: Annotated[str, typer.Option(help="train, eval or example")] = "train",
    out: Annotated[
        Path | None,
        typer.Option(help="JSONL file (default ./tasks/ENV/SPLIT.jsonl; the manifest beside)"),
    ] = None,
    llm: Annotated[
        bool, typer.Option("--llm", help="have a model reword each statement (see below)")
    ] = False,
    model_url: Annotated[
        str, typer.Option(help="--llm: the model interface")
    ] = "http://127.0.0.1:8002",
    model: Annotated[str, typer.Option(help="--llm: the model name to ask")] = "default",
    temperature: Annotated[float, typer.Option(min=0, help="--llm: sampling temperature")] = 0.7,
) -> None:
    """Generate tasks for an environment, deterministically, and record them in the manifest.

    Each instance appears once (by the generator's identity of an instance), and train and
    eval never share one: an instance's split is a hash of its identity, whatever the seed.
    With --llm, a model rewords each statement; the answer stays the one code computed, a
    draft that no longer states the same facts is dropped (counted by reason), and every kept
    task must pass its environment's controls. Resumable: run the same command again.
    """
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments, generator
    from proofgym_stack.examples import tasks_root
    from proofgym_stack.taskfiles import write_task_file
    from sdg.sets import SPLITS, build_set

    if split not in SPLITS:
        fail("split must be train, eval or example")
    available = available_environments(ResourcesSettings.from_env())
    if env not in available:
        fail(f"unknown environment {env!r}; available: {sorted(available)}")
    try:
        module = generator(env)
    except ModuleNotFoundError:
        fail(f"no generator for {env} (sdg/{env}.py)")
    try:
        rows, built = build_set(env, module, n, seed, split)
    except ValueError as exc:  # a generator that cannot make checked tasks says why
        fail(str(exc))
    if built.exhausted:
        err.print(
            f"[yellow]only {len(rows)} distinct {split} instances of {env} exist (asked for "
            f"{n}); the set holds each once[/yellow]"
        )
    if not rows:
        fail(f"no {split} instance of {env} to write")
    extra: dict[str, Any] = {
        "distinct_instances": len(rows),
        "duplicates_skipped": built.duplicates,
        "other_split_skipped": built.other_split,
    }
    root = tasks_root() if out is None else out.parent
    target = out or root / env / f"{split}.jsonl"
    if llm:
        rows, extra["llm"] = _draft(env, module, rows, target, model_url, model, temperature)
    count = write_task_file(
        rows,
        env=env,
        env_version=available[env].version(),
        split=split,
        seed=seed,
        target=target,
        root=root,
        extra=extra,
    )
    if llm:
        target.with_suffix(".llm-journal.jsonl").unlink(missing_ok=True)
    console.print(
        f"wrote {count} {env} tasks to {target} ({built.duplicates} duplicate instances and "
        f"{built.other_split} of the other split skipped)"
    )


def _draft(
    env: str,
    module: Any,
    rows: list[dict[str, Any]],
    target: Path,
    model_url: str,
    model: str,
    temperature: float,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import httpx
    from rich.progress import Progress

    from proofgym.serving.settings import CollectorSettings, ResourcesSettings
    from proofgym_stack.drafting import DraftingError, controls_failing, draft_rows
    from proofgym_stack.environments import available_environments

    token = CollectorSettings.from_env().token
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    journal = target.with_suffix(".llm-journal.jsonl")
    with (
        httpx.Client(base_url=model_url, headers=headers, timeout=120) as client,
        Progress(console=err.real) as progress,
    ):
        bar = progress.add_task(f"drafting {env} statements", total=len(rows))
        try:
            kept, report = draft_rows(
                rows,
                module,
                client,
                model=model,
                temperature=temperature,
                journal=journal,
                on_progress=lambda: progress.advance(bar),
            )
        except DraftingError as exc:
            fail(str(exc))
    if report.failed:
        for line in report.errors:
            err.print(f"  {line}")
        fail(
            f"{report.failed} statements got no draft (the model interface at {model_url} "
            "failed); the drafts made are journaled: run the same command again to finish"
        )
    env_instance = available_environments(ResourcesSettings.from_env())[env].from_settings(
        ResourcesSettings.from_env()
    )
    import asyncio

    failing = asyncio.run(controls_failing(env_instance, kept))
    report.dropped["controls_failed"] += len(failing)
    kept = [r for r in kept if r["task_id"] not in failing]
    report.kept = len(kept)
    dropped = ", ".join(f"{k}: {v}" for k, v in sorted(report.dropped.items()) if v) or "none"
    console.print(
        f"drafted {report.drafted} (resumed {report.resumed}), kept {report.kept}; "
        f"dropped: {dropped}"
    )
    return kept, report.manifest()


@app.command("new-env")
def new_env(
    name: Annotated[str, typer.Argument(help="the new environment's name, e.g. inventory")],
) -> None:
    """Write a working environment skeleton (environment, typed task data, controls, generator,
    example tasks, a test) into this checkout; `proofgym validate NAME` passes as written."""
    import importlib

    from proofgym_stack.scaffold import ScaffoldError, write
    from proofgym_stack.taskfiles import write_task_file

    root = Path.cwd()
    try:
        written = write(root, name)
    except ScaffoldError as exc:
        fail(str(exc))
    importlib.invalidate_caches()
    env_cls = importlib.import_module(f"resources_servers.{name}").Env
    rows = importlib.import_module(f"sdg.{name}").generate(6, seed=0, split="example")
    target = root / "tasks" / name / "example.jsonl"
    write_task_file(
        rows,
        env=name,
        env_version=env_cls.version(),
        split="example",
        seed=0,
        target=target,
        root=root / "tasks",
    )
    for path in [*written, target]:
        console.print(f"  wrote {path.relative_to(root)}")
    console.print(
        f"next: edit resources_servers/{name}/env.py, then `proofgym validate {name}` "
        "(docs/environments.md walks through each part)"
    )


@app.command("tiny-model")
def tiny_model(
    out: Annotated[Path, typer.Argument(help="folder to write the model into")],
    seed: Annotated[int, typer.Option(help="weight initialisation seed")] = 0,
) -> None:
    """Build an untrained tiny causal LM and tokenizer (seconds, no download); for tests."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401

        from model_interface.tiny_model import build
    except ImportError as exc:
        fail(f"the tiny model needs torch and transformers ({exc}): pip install 'proofgym[local]'")

    build(out, seed=seed)
    console.print(f"wrote an untrained tiny model to {out} (random weights: it writes noise)")
