"""Commands that look before you train: `profile` and `eval`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from proofgym_stack.cli_rollouts import _collect, _print_summary
from proofgym_stack.console import app, console, err, fail, new_table

if TYPE_CHECKING:  # the CLI imports what a command needs when it runs (`--help` stays quick)
    from proofgym.rollouts.mixes import Mix
    from proofgym.wire.protocol import Task

MIX_HELP = (
    "weights of a mix of environments (letters=3,math=1): the mix's score is the weighted "
    "mean of their mean rewards"
)


def _mix(text: str | None) -> Mix | None:
    from proofgym.rollouts.mixes import Mix, MixError

    if text is None:
        return None
    try:
        return Mix.parse(text)
    except MixError as exc:
        fail(str(exc))


def mix_summary(mix: Mix, envs: dict[str, Any]) -> dict[str, Any]:
    """The `mix` section of a profile: the weights, each environment's share of the usable
    rollouts, and the score (None while an environment of the mix has no usable rollout)."""
    missing = [e for e in mix.envs if e not in envs]
    if missing:
        fail(f"the mix names {', '.join(missing)}, which the store holds no rollout of")
    usable = sum(envs[e]["usable"] for e in mix.envs) or 1
    return {
        "weights": dict(mix.weights),
        "rollout_share": {e: round(envs[e]["usable"] / usable, 4) for e in mix.envs},
        "score": mix.score({e: envs[e]["reward"]["mean"] for e in mix.envs}),
        "left_out": sorted(set(envs) - set(mix.envs)),
    }


def _thresholds() -> dict[str, float]:
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    available = available_environments(ResourcesSettings())
    return {name: cls.passing_reward() for name, cls in available.items()}


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3g}" if isinstance(value, float) else str(value)


#: the profile's columns: short headers, so that the table fits an 80-column terminal with
#: an environment name of 14 characters (a longer one folds onto a second line); what each
#: means is in docs/profile.md, and the alarms print below the table, where they have room
PROFILE_COLUMNS = (
    "env", "usable", "mean", "95% CI", "pass", "pass@k", "0-var", "rho", "turns", "trunc",
    "mask",
)  # fmt: skip


def _short(value: Any) -> str:
    """A figure in at most 5 characters: shares and means to 2 decimals, counts as they are."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.2f}" if -10 < value < 100 else f"{value:.3g}"
    return str(value)


def profile_table(result: dict[str, Any]) -> Any:
    """The profile's terminal table (one row per environment): it fits 80 columns."""
    from rich import box

    table = new_table(box=box.SIMPLE_HEAD, padding=(0, 0), show_edge=False)
    for name in PROFILE_COLUMNS:
        if name == "env":
            table.add_column(name, overflow="fold", max_width=14)
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for env, p in result["envs"].items():
        r = p["reward"]
        curve = p["pass_at_k"]
        k = max(curve, key=int) if curve else None
        table.add_row(
            env,
            f"{p['usable']}/{p['rollouts']}",
            _short(r["mean"]),
            f"{_short(r['ci95'][0])}..{_short(r['ci95'][1])}",
            _short(p["pass_rate"]),
            f"@{k}:{_short(curve[k])}" if k else "n/a",
            _short(p["zero_variance_share"]),
            _short(p["reward_vs_length"]),
            _short(p["turns"]),
            _short(p["truncated_share"]),
            _short(p["masked_share"]),
        )
    return table


def profile_alarms(p: dict[str, Any]) -> list[str]:
    """What in one environment's profile needs a look, one phrase each."""
    from proofgym.rollouts.profiling import verify_error_alarm

    alarms = []
    if p["length_alarm"]:
        alarms.append("reward rises with length")
    if (p["zero_variance_share"] or 0) >= 0.5:
        alarms.append("most groups have no signal (every rollout the same reward)")
    if p["masked"]:
        alarms.append("masked: " + ", ".join(f"{k}={v}" for k, v in p["masked"].items()))
    verify_errors = verify_error_alarm(p)
    if verify_errors:
        alarms.append(verify_errors)
    return alarms


def _print_profile(result: dict[str, Any], comparison: dict[str, Any] | None) -> None:
    from rich.markup import escape

    table = profile_table(result)
    console.print(table)
    for env, p in result["envs"].items():
        alarms = profile_alarms(p)
        if alarms:
            console.print(f"[red]{escape(env)}: {escape('; '.join(alarms))}[/red]")
    if "mix" in result:
        m = result["mix"]
        console.print(
            f"mix {', '.join(f'{e}={w:g}' for e, w in m['weights'].items())}: score "
            f"{_fmt(m['score'])} (weighted mean of the environments' mean rewards)"
            + (f"; not in the mix: {', '.join(m['left_out'])}" if m["left_out"] else "")
        )
    for env, p in result["envs"].items():
        failing = [(n, v) for n, v in sorted(p["checks"].items(), key=lambda kv: kv[1]) if v < 1]
        if failing:  # failure rates, not counts: "100% of rollouts", never "1 fail"
            console.print(
                f"{env}: checks failed most: "
                + ", ".join(f"{n} (fails {1 - float(v):.0%} of rollouts)" for n, v in failing[:3])
            )
        elif p["checks"]:
            console.print(f"{env}: every check passed in every rollout")
        if p["too_easy"] or p["too_hard"]:
            console.print(
                f"{env}: {len(p['too_easy'])} tasks always pass, {len(p['too_hard'])} never do "
                "(candidates to drop or regenerate; --json lists them)"
            )
    if comparison is not None:
        table = new_table("env", "first", "second", "difference [95% CI]", "verdict")
        for env, c in comparison.items():
            verdict = (
                "[green]separated[/green]"
                if c["separated"]
                else "[red]NOT separated: suspect the tasks or the verifier[/red]"
            )
            table.add_row(
                env,
                _fmt(c["mean_first"]),
                _fmt(c["mean_second"]),
                f"{_fmt(c['difference'])} [{_fmt(c['ci95'][0])}, {_fmt(c['ci95'][1])}]",
                verdict,
            )
        console.print(table)


def _reverified(db: Path) -> dict[str, int]:
    """How many rollouts of `db` were re-verified and how many of those changed ({} none)."""
    from proofgym.rollouts.store import RolloutStore

    store = RolloutStore(db)
    try:
        history = store.reverified()
    finally:
        store.close()
    if not history:
        return {}
    changed = sum(1 for h in history.values() if h["outcome"] == "changed")
    return {"rollouts": len(history), "changed": changed}


def run_profile(
    db: Path,
    other: Path | None,
    out: Path | None,
    as_json: bool,
    title: str | None = None,
    mix: Mix | None = None,
) -> dict[str, Any]:
    """Profile `db` (and compare with `other`), print it, write the report; the JSON. With
    `mix`, the profile has a `mix` section (`mix_summary`)."""
    from proofgym.rollouts.profiling import compare, load_samples, profile
    from proofgym_stack.report import render

    for path in (db, other):
        if path is not None and not path.is_file():
            fail(f"{path}: no such store")
    thresholds = _thresholds()
    samples = load_samples(db, thresholds.get)
    if not samples:
        fail(f"{db} holds no rollouts")
    result = profile(samples)
    if mix is not None:
        result["mix"] = mix_summary(mix, result["envs"])
    reverified = _reverified(db)
    if reverified:
        result["reverified"] = reverified
    comparison = None
    if other is not None:
        comparison = compare(samples, load_samples(other, thresholds.get))
        result["compare"] = comparison
        result["compare_stores"] = [str(db), str(other)]
    if as_json:
        console.print_json(json.dumps(result))
    else:
        _print_profile(result, comparison)
        if reverified:
            err.print(
                f"re-verified store: {reverified['rollouts']} rollouts judged again by "
                f"`proofgym reverify`, {reverified['changed']} of them changed (the figures "
                "above are the current verdicts; the replaced ones are in table `reverified`)"
            )
    if out is not None:
        page = render(
            result,
            title=title or f"proofgym profile of {db.name}",
            comparison=comparison,
            names=(db.name, other.name if other else ""),
            viewer_hint=f"proofgym view {db}",
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page)
        err.print(f"report: {out}")
    return result


@app.command("profile")
def profile_command(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store")],
    compare_with: Annotated[
        Path | None, typer.Option("--compare", help="a second store: another policy")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="write a self-contained HTML report")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the profile as JSON")] = False,
    mix: Annotated[str | None, typer.Option(help=MIX_HELP)] = None,
) -> None:
    """Reward profile per environment and task: distribution, pass@k, zero-variance groups,
    reward against length, turns, truncated and masked shares, checks, too easy and too hard
    tasks; --compare two policies; --mix weights the environments into one score."""
    result = run_profile(db, compare_with, out, as_json, mix=_mix(mix))
    if "compare" in result and not all(c["separated"] for c in result["compare"].values()):
        raise typer.Exit(1)


def instance_key(task: Task) -> str:
    """What makes two tasks the same instance, whatever their ids: env, prompt and data."""
    blob = json.dumps(
        [task.env, task.responses_create_params, task.task_data], sort_keys=True, default=str
    )
    return hashlib.sha256(blob.encode()).hexdigest()


@app.command("eval")
def eval_command(
    tasks_files: Annotated[
        list[Path], typer.Argument(help="JSONL tasks of the eval split (several: a mix)")
    ],
    repeats: Annotated[int, typer.Option(min=1, help="rollouts per task")] = 4,
    train: Annotated[
        Path | None, typer.Option(help="the train split: no eval instance may be in it")
    ] = None,
    db: Annotated[Path, typer.Option(help="SQLite rollout store")] = Path("runs/eval.db"),
    agent_url: Annotated[str, typer.Option(help="agent server")] = "http://127.0.0.1:8000",
    policy: Annotated[str, typer.Option(help="'model', or a control name")] = "model",
    concurrency: Annotated[int, typer.Option(min=1, help="rollouts at once")] = 16,
    out: Annotated[Path | None, typer.Option(help="write a self-contained HTML report")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the profile as JSON")] = False,
    mix: Annotated[str | None, typer.Option(help=MIX_HELP)] = None,
) -> None:
    """Evaluate: collect K rollouts of each eval task (the reward as a metric), then profile,
    per environment (and, with --mix, one weighted score). Refuses tasks that are not of the
    eval split, or that the train split also holds."""
    from proofgym.rollouts.collect import TaskFileError, load_tasks

    weights = _mix(mix)
    try:
        tasks = [t for f in tasks_files for t in load_tasks(f)]
        train_tasks = load_tasks(train) if train is not None else []
    except TaskFileError as exc:
        fail(str(exc))
    wrong = [t.task_id for t in tasks if t.split != "eval"]
    if wrong:
        fail(f"{len(wrong)} tasks are not of the eval split (first: {wrong[0]})")
    seen = {instance_key(t) for t in train_tasks} | {t.task_id for t in train_tasks}
    leaked = [t.task_id for t in tasks if t.task_id in seen or instance_key(t) in seen]
    if leaked:
        fail(f"{len(leaked)} eval tasks are also in {train} (first: {leaked[0]}): refusing")
    names = ", ".join(f.name for f in tasks_files)
    incomplete = False
    for tasks_file in tasks_files:
        summary = _collect(tasks_file, db, agent_url, repeats, concurrency, policy, None, None)
        if not as_json:
            _print_summary(f"eval of {tasks_file.name}, policy {policy}", summary, db)
        incomplete = incomplete or bool(summary.not_collected or summary.failures)
    run_profile(db, None, out, as_json, title=f"eval of {names}", mix=weights)
    if incomplete:
        raise typer.Exit(1)


@app.command("view")
def view_command(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store (may still be written)")],
    host: Annotated[str, typer.Option(help="interface to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8765,
) -> None:
    """Serve the trajectory viewer of a store on a local web page (offline, read-only)."""
    import uvicorn

    from proofgym.rollouts.viewer import create_viewer

    if not db.is_file():
        fail(f"{db}: no such store")
    console.print(f"viewer of {db}: http://{host}:{port}/  (Ctrl-C stops it)")
    uvicorn.run(create_viewer(db.resolve()), host=host, port=port, log_level="warning")


@app.command("export")
def export_command(
    db: Annotated[Path, typer.Argument(help="SQLite rollout store")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl or parquet")] = "jsonl",
    kind: Annotated[
        list[str] | None, typer.Option(help="sft, preference or rl (repeat; default: all)")
    ] = None,
    out: Annotated[Path, typer.Option(help="folder for KIND.jsonl / KIND.parquet")] = Path(
        "runs/export"
    ),
    allow_unproven: Annotated[
        bool,
        typer.Option(
            "--allow-unproven",
            help="export rollouts of environment versions that never passed `validate` too, "
            "each row marked proven=false",
        ),
    ] = False,
) -> None:
    """Training data from a store: SFT chats of passing rollouts, preference pairs of the same
    task, prompt/completion/reward rows (with token ids when they are token-exact). Rollouts
    of environment versions without a proof (`proofgym validate`) are refused, unless
    --allow-unproven."""
    from proofgym.rollouts.export import rows_of, write_rows
    from proofgym.rollouts.profiling import passes
    from proofgym.rollouts.proofs import ProofBook, UnprovenRollouts
    from proofgym.rollouts.store import RolloutStore
    from proofgym.serving.settings import ProofSettings
    from proofgym.wire.protocol import RunResult

    if fmt not in ("jsonl", "parquet"):
        fail("--format is jsonl or parquet")
    kinds = kind or ["sft", "preference", "rl"]
    unknown = [k for k in kinds if k not in ("sft", "preference", "rl")]
    if unknown:
        fail(f"unknown kinds {unknown}: use sft, preference or rl")
    if not db.is_file():
        fail(f"{db}: no such store")
    thresholds = _thresholds()
    store = RolloutStore(db)
    try:
        results = [RunResult.model_validate(row["record"]) for row in store.rows()]
    finally:
        store.close()

    try:
        admitted = ProofBook.from_settings(ProofSettings.from_env()).admit(results, allow_unproven)
    except UnprovenRollouts as exc:
        fail(str(exc), 1)
    proven = {r.rollout_id: ok for r, ok in admitted}
    if not all(proven.values()):
        err.print(
            f"[yellow]{sum(not ok for ok in proven.values())} rollouts of unproven environment "
            "versions exported, marked proven=false (--allow-unproven)[/yellow]"
        )

    def passed(r: RunResult) -> bool:
        return passes(r.reward, (c.passed for c in r.checks), r.mask_sample, thresholds.get(r.env))

    for name in kinds:
        rows = rows_of(name, results, passed, proven)  # type: ignore[arg-type]
        target = out / f"{name}.{fmt}"
        try:
            write_rows(rows, target, fmt)  # type: ignore[arg-type]
        except RuntimeError as exc:
            fail(str(exc))
        console.print(f"{name}: {len(rows)} rows -> {target}")
