"""Commands that meet other ecosystems: `serve openenv`, `serve nemo-gym`, `nemo-rows`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from proofgym_stack.console import app, console, fail

if TYPE_CHECKING:  # the CLI imports what a command needs when it runs (`--help` stays quick)
    from proofgym.serving.settings import ResourcesSettings
    from proofgym.wire.protocol import Task
    from resources_servers.base.environment import Environment

DEFAULT_PORTS = {"openenv": 8004, "nemo-gym": 8005}


def environment(name: str | None, settings: ResourcesSettings) -> Environment[Any]:
    """The environment called `name` (shipped or bridged), built as the resources server
    builds it."""
    from proofgym_stack.environments import available_environments

    try:
        available = available_environments(settings)
    except ValueError as exc:
        fail(str(exc))
    if not name:
        fail(f"--env is required: one of {sorted(available)}")
    if name not in available:
        fail(f"unknown environment {name!r}; available: {sorted(available)}")
    assert name is not None
    return available[name].from_settings(settings)


def serve_interop(
    service: str, env_name: str | None, tasks: Path | None, host: str | None, port: int | None
) -> None:
    """Run `serve openenv` or `serve nemo-gym` until stopped."""
    from proofgym.rollouts.collect import TaskFileError, load_tasks
    from proofgym.serving.server import fit_to_descriptors, token_problem
    from proofgym.serving.server import serve as run_service
    from proofgym.serving.settings import AgentSettings, ResourcesSettings

    overrides: dict[str, Any] = {"port": port or DEFAULT_PORTS[service]}
    if host:
        overrides["host"] = host
    settings = fit_to_descriptors(ResourcesSettings.from_env(**overrides))
    problem = token_problem(settings)
    if problem is not None:
        fail(problem)
    env = environment(env_name, settings)
    if service == "openenv":
        from interop.openenv_server import create_app as openenv_app

        rows = []
        if tasks is not None:
            try:
                rows = load_tasks(tasks)
            except TaskFileError as exc:
                fail(str(exc))
        application = openenv_app(env, settings, rows, AgentSettings.from_env().max_steps)
    else:
        if tasks is not None:
            fail("--tasks is for serve openenv; NeMo Gym's agent sends each row itself")
        from interop.nemo_server import create_app as nemo_app

        application = nemo_app(env, settings)
    logging.basicConfig(level=settings.log_level.upper())
    run_service(application, settings, settings.port)


def tasks_with_envs(path: Path) -> list[tuple[Task, Environment[Any]]]:
    """Each task of the file with its environment (shipped or bridged), one built per name;
    a bad file or an unknown environment ends the command with its reason."""
    from proofgym.rollouts.collect import TaskFileError, load_tasks
    from proofgym.serving.settings import ResourcesSettings

    try:
        rows = load_tasks(path)
    except TaskFileError as exc:
        fail(str(exc))
    settings = ResourcesSettings.from_env()
    built: dict[str, Environment[Any]] = {}
    out = []
    for task in rows:
        if task.env not in built:
            built[task.env] = environment(task.env, settings)
        out.append((task, built[task.env]))
    return out


@app.command("nemo-rows")
def nemo_rows(
    tasks: Annotated[Path, typer.Argument(help="a proofgym task file (JSONL)")],
    out: Annotated[Path, typer.Option(help="where to write the NeMo Gym rows (JSONL)")],
    agent: Annotated[str | None, typer.Option(help="an agent_ref name to put on each row")] = None,
) -> None:
    """Write the tasks as rows NeMo Gym's simple_agent accepts (tools and instructions
    inlined in responses_create_params; task_id, env and task_data beside them)."""
    from interop.nemo_rows import nemo_row

    lines = [json.dumps(nemo_row(task, env, agent)) for task, env in tasks_with_envs(tasks)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    console.print(f"wrote {len(lines)} NeMo Gym rows to {out}")


@app.command("skyrl-rows")
def skyrl_rows(
    tasks: Annotated[Path, typer.Argument(help="a proofgym task file (JSONL)")],
    out: Annotated[Path, typer.Option(help="where to write the SkyRL dataset (.parquet)")],
) -> None:
    """Write the tasks as the Parquet rows SkyRL's trainer reads: `prompt` (the environment's
    instructions, tools and call format as a system message, then the task's messages),
    `env_class: proofgym`, `reward_spec`, and `extra_info.task`."""
    import importlib.util

    from interop.skyrl_env import skyrl_row

    if importlib.util.find_spec("pyarrow") is None:
        fail("Parquet needs pyarrow: pip install 'proofgym[skyrl]'")
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [
        skyrl_row(task, env.task_tool_schemas(task), env.instructions(task))
        for task, env in tasks_with_envs(tasks)
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(records), out)
    console.print(f"wrote {len(records)} SkyRL rows to {out}")
