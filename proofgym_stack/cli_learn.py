"""`proofgym learn`: does a model get a learning signal from an environment, and more than
from a control reward? The command, and how its result is printed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proofgym_stack.console import app, console, err, fail, new_table

if TYPE_CHECKING:  # the CLI imports what a command needs when it runs (`--help` stays quick)
    from proofgym_stack.learn_report import LearnResult

MARKS = " ▁▂▃▄▅▆▇█"


def spark(rewards: list[float]) -> str:
    """The per-step rewards (0 to 1) as one line of block characters."""
    return "".join(MARKS[min(8, max(0, int(r * 8.999)))] for r in rewards)


def learnability_path(env: str, db: Path | None, plot: Path | None) -> Path:
    """Where the learnability JSON goes: beside the store (`--db`), else beside the plot,
    else `runs/learnability-<env>.json`."""
    if db is not None:
        return db.with_suffix(".learnability.json")
    if plot is not None:
        return plot.with_suffix(".learnability.json")
    return Path("runs") / f"learnability-{re.sub(r'[^A-Za-z0-9_.-]', '_', env)}.json"


# long: a Typer command declares its options in its signature, and its docstring is its --help
@app.command("learn")
def learn_command(
    env: Annotated[
        str,
        typer.Argument(
            help="environment to learn, or a mix with weights (letters=3,math=1: the share of "
            "training tasks); default letters"
        ),
    ] = "letters",
    model: Annotated[
        Path | None, typer.Option(help="model folder (default: the tiny model, built now)")
    ] = None,
    steps: Annotated[int, typer.Option(min=1, help="GRPO optimizer steps")] = 100,
    learning_rate: Annotated[
        float | None,
        typer.Option(
            help="GRPO learning rate (default: 5e-3 for the tiny model, 1e-5 for --model)"
        ),
    ] = None,
    generations: Annotated[int, typer.Option(min=2, help="rollouts per task in a GRPO group")] = 8,
    groups: Annotated[
        int, typer.Option(min=1, help="tasks (groups) per GRPO step: one update averages them")
    ] = 1,
    completion_length: Annotated[
        int, typer.Option(min=4, help="tokens the policy may write per turn")
    ] = 24,
    tasks: Annotated[int, typer.Option(min=1, help="generated training tasks")] = 32,
    sft: Annotated[
        int,
        typer.Option(
            min=0,
            help="supervised warm-up steps on the environment's reference trajectories first "
            "(teaches a model the tools)",
        ),
    ] = 0,
    db: Annotated[Path | None, typer.Option(help="keep every rollout in this store")] = None,
    evaluate: Annotated[
        int,
        typer.Option(
            "--eval",
            min=0,
            help="play every training task this many times before GRPO and after it, "
            "sampling as in training: the mean reward before and after",
        ),
    ] = 0,
    seed: Annotated[int, typer.Option(help="tasks, sampling and initialisation")] = 0,
    plot: Annotated[Path | None, typer.Option(help="write the reward curve as a PNG")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the result as JSON (every step's reward, seconds)")
    ] = False,
    allow_unproven: Annotated[
        bool,
        typer.Option(
            "--allow-unproven",
            help="train on an environment version that never passed `validate` (counted as "
            "`unproven` in the result)",
        ),
    ] = False,
    control: Annotated[
        str | None,
        typer.Option(
            help="then train the same model again, same seeds and steps, on rewards "
            "'shuffled' within each group or drawn at 'random', and report the gap between "
            "the two (real verifier's rewards, last 10% of steps) with its 95% CI and p-value",
        ),
    ] = None,
    control_window: Annotated[
        float,
        typer.Option(
            min=0.01,
            max=1.0,
            help="the share of the last steps --control compares (0.5: the last half; more "
            "rollouts where the runs parted early)",
        ),
    ] = 0.1,
    learnability: Annotated[
        Path | None,
        typer.Option(
            help="where --control writes its JSON (default: beside --db, else beside --plot, "
            "else runs/learnability-ENV.json); `learnability_section` reads it"
        ),
    ] = None,
) -> None:
    """Does a model get a learning signal here? GRPO (TRL) through the real services; prints
    the reward curve and the mean reward over the first and the last 10% of steps; when the
    reward did not rise, why (zero-variance groups, tool calls, truncation, the failing check).

    With `--control shuffled` (or `random`), the same model trains again on a reward that
    carries no information, and the gap between the runs says whether the rise came from the
    environment's reward; an interval that covers 0 is too small to trust.

    With `--model DIR --sft N`, a pretrained model is first taught the tools on the
    environment's reference trajectories, then reinforced."""
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    try:
        import trl  # noqa: F401
    except ImportError:
        fail("proofgym learn needs TRL: pip install 'proofgym[trl]'")
    if model is not None and not (model / "config.json").is_file():
        fail(f"--model {model}: not a model folder (no config.json); `proofgym model import`")
    from pydantic import ValidationError

    from proofgym.rollouts.mixes import Mix, MixError
    from proofgym.rollouts.proofs import ProofBook, UnprovenRollouts
    from proofgym.serving.settings import ProofSettings
    from proofgym_stack.learn import LearnConfig, learn

    try:
        Mix.parse(env)
        config = LearnConfig(
            env=env,
            model_dir=model,
            steps=steps,
            learning_rate=learning_rate,
            generations=generations,
            groups=groups,
            max_completion_length=completion_length,
            tasks=tasks,
            seed=seed,
            sft_steps=sft,
            eval_samples=evaluate,
            allow_unproven=allow_unproven,
            control=control,
            control_window=control_window,
        )
    except (MixError, ValidationError) as exc:
        fail(_first_error(exc))

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err.real, transient=True) as progress:
        bar = progress.add_task(f"learning {env}", total=steps * (2 if control else 1))

        def step(n: int, reward: float) -> None:
            progress.update(bar, completed=n, description=f"learning {env}: reward {reward:.3f}")

        def phase(text: str) -> None:
            progress.update(bar, description=text)

        try:
            result = learn(
                config,
                db=db,
                on_step=step,
                on_phase=phase,
                proofs=ProofBook.from_settings(ProofSettings.from_env()),
            )
        except (UnprovenRollouts, RuntimeError) as exc:
            fail(str(exc), 1)
    _print_result(env, result, plot, as_json, learnability or learnability_path(env, db, plot))


def _first_error(exc: Exception) -> str:
    """One sentence for a bad option: a pydantic error's first message, naming the field."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        return f"--{where.replace('_', '-')}: {first['msg']}"
    return str(exc)


def _print_result(
    env: str, result: LearnResult, plot: Path | None, as_json: bool, learnability: Path
) -> None:
    """Print a run (and its control), write the plot and the learnability JSON."""
    from proofgym_stack.learn import write_png

    if result.unproven:
        err.print(f"[yellow]{result.unproven} rollouts of an unproven version trained on[/yellow]")
    if plot is not None:
        control = result.control.rewards if result.control else None
        write_png(result.rewards, plot, control=control, control_kind=result.control_kind, env=env)
        err.print(f"reward curve: {plot}")
    if result.learnability is not None:
        result.learnability.write(learnability)
        err.print(f"learnability: {learnability}")
        if result.learnability_certificate:
            err.print(f"learnability attached to the certificate {result.learnability_certificate}")
    if as_json:
        console.print_json(json.dumps(result.to_json()))
        if not result.rose:
            for line in result.diagnosis:
                err.print(line)
        return
    console.print(
        f"{env}: reward {result.reward_first:.3f} -> {result.reward_last:.3f} "
        f"over {result.steps} steps in {result.seconds:.0f}s"
    )
    console.print(spark(result.rewards))
    if result.control is not None and result.learnability is not None:
        c = result.control
        console.print(
            f"control ({result.learnability.control_kind} rewards, same model, seeds and "
            f"steps): reward {c.reward_first:.3f} -> {c.reward_last:.3f} (the real verifier's)"
        )
        console.print(spark(c.rewards))
        colour = "green" if result.rose else "yellow"
        console.print(f"[{colour}]learnability: {result.learnability.verdict}[/{colour}]")
    if result.eval_before and result.eval_after:
        b, a = result.eval_before, result.eval_after
        console.print(
            f"every training task x {result.eval_samples}: reward {b.reward:.3f} before GRPO, "
            f"{a.reward:.3f} after; calling a tool {b.tool_call_share:.0%} -> "
            f"{a.tool_call_share:.0%}"
        )
    if len(result.per_env) > 1 or len(result.weights) > 1:
        table = new_table("env", "weight", "rollouts", "reward first -> last", "turns",
                          "truncated", "masked", title="per environment of the mix")  # fmt: skip
        for name, f in result.per_env.items():
            table.add_row(
                name,
                f"{result.weights.get(name, 0):g}",
                str(f["rollouts"]),
                f"{f['reward_first']} -> {f['reward_last']}",
                str(f["turns"]),
                f"{f['truncated_share']}",
                f"{f['masked_share']}",
            )
        console.print(table)
    from proofgym.rollouts.profiling import verify_error_alarm

    for name, f in result.per_env.items():
        alarm = verify_error_alarm(f)
        if alarm:
            err.print(f"[red]{name}: {alarm}[/red]")
    if not result.rose and result.diagnosis:
        console.print("[yellow]the reward did not rise:[/yellow]")
        for line in result.diagnosis:
            console.print(f"  {line}")
