"""What a user hits outside the happy path: an installed package, another folder, a masked
row, a backend that cannot serve the policy asked for, a missing extra."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from proofgym.clients.http import HttpxTransport, ServiceClient
from proofgym.rollouts.collect import collect
from proofgym.rollouts.store import RolloutStore
from proofgym.serving.settings import ClientSettings
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.responses import build_response
from proofgym_stack.cli_rollouts import _print_summary
from proofgym_stack.testing import in_process_stack

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "proofgym_stack.cli"]


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env or dict(os.environ), capture_output=True, text=True, timeout=600
    )


def test_an_installed_package_validates_from_any_folder(tmp_path: Path) -> None:
    # `pip install .` (not editable) into a folder of its own, run from a folder with no tasks/:
    # nothing may reach into the source tree.
    target = tmp_path / "site"
    install = run(
        [
            *(sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"),
            *("--target", str(target), str(ROOT)),
        ],
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    deps = sysconfig.get_paths()["purelib"]  # fastapi & co, from this venv
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{deps}"}
    probe = run(
        [sys.executable, "-c", "import proofgym_stack; print(proofgym_stack.__file__)"],
        elsewhere,
        env,
    )
    assert probe.stdout.startswith(str(target)), probe.stdout + probe.stderr  # the copy, not ROOT
    ok = run(
        [
            *(sys.executable, "-m", "proofgym_stack.cli", "validate", "math"),
            *("--sample", "1", "--parallel", "8", "--json"),
        ],
        elsewhere,
        env,
    )
    assert ok.returncode == 0, ok.stdout[-2000:] + ok.stderr[-2000:]
    assert json.loads(ok.stdout)[0]["passed"] is True
    assert not (elsewhere / "tasks").exists()


def test_sdg_writes_into_the_current_folder(tmp_path: Path) -> None:
    before = (ROOT / "tasks" / "manifest.json").read_text()
    done = run([*CLI, "sdg", "math", "--n", "2", "--seed", "3"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert len((tmp_path / "tasks" / "math" / "train.jsonl").read_text().splitlines()) == 2
    assert "math/train.jsonl" in json.loads((tmp_path / "tasks" / "manifest.json").read_text())
    assert (ROOT / "tasks" / "manifest.json").read_text() == before  # the checkout untouched
    assert not (ROOT / "tasks" / "math" / "train.jsonl").exists()


def test_show_says_masked_rows_were_not_judged(tmp_path: Path) -> None:
    store = RolloutStore(tmp_path / "r.db")
    masked = RunResult(
        rollout_id="masked-rollout-000001",
        task_id="t1",
        env="math",
        reward=0.0,
        response=build_response([], model="m"),
        num_steps=1,
        termination_reason="error",
        mask_sample=True,
        failure_kind="model_error",
        failure_reason="the model interface is down",
    )
    store.put(masked, repeat=0)
    store.close()
    shown = run([*CLI, "show", str(tmp_path / "r.db")], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "masked" in shown.stdout and "all passed" not in shown.stdout
    assert "0.00" not in shown.stdout


def test_tiny_model_without_the_local_extra_says_what_to_install(tmp_path: Path) -> None:
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'transformers'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "sys.argv = ['proofgym', 'tiny-model', sys.argv[1]]\n"
        "from proofgym_stack.cli import main\n"
        "main()\n"
    )
    done = run([sys.executable, "-c", blocker, str(tmp_path / "m")], tmp_path)
    assert done.returncode == 2, done.stderr
    assert "pip install 'proofgym[local]'" in done.stderr and "Traceback" not in done.stderr


async def test_a_policy_the_scripted_backend_cannot_serve_is_explained(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = [Task.model_validate(t) for t in file_edit_tasks[:2]]
    store = RolloutStore(tmp_path / "runs.db")
    async with in_process_stack() as stack:  # the default backend: scripted
        client = ServiceClient(ClientSettings(), HttpxTransport(stack.client))
        summary = await collect(
            tasks, agent_url="http://agent", store=store, client=client, concurrency=2
        )
    store.close()
    # the caller's request is refused (400 model_refused), never stored as a masked sample
    assert summary.failures == {} and summary.stored == 0
    assert summary.not_collected == summary.refused == 2
    _print_summary("policy model", summary, tmp_path / "runs.db")
    captured = capsys.readouterr()
    assert "scripted backend" in captured.err and "--policy reference" in captured.err
    assert "model_refused" in captured.err and "will not help" in captured.out


def test_a_broken_environment_folder_breaks_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import resources_servers
    from resources_servers.base.registry import discover, problems

    (tmp_path / "broken_env").mkdir()
    (tmp_path / "broken_env" / "__init__.py").write_text("import no_such_module_here\n")
    (tmp_path / "no_env").mkdir()
    (tmp_path / "no_env" / "__init__.py").write_text("X = 1\n")
    monkeypatch.setattr(resources_servers, "__path__", [*resources_servers.__path__, str(tmp_path)])
    assert "math" in discover() and "broken_env" not in discover()
    found = problems()
    assert (
        "ModuleNotFoundError" in found["broken_env"]
        and "no_such_module_here" in found["broken_env"]
    )
    assert "exports no `Env`" in found["no_env"]
    from typer.testing import CliRunner

    from proofgym_stack.cli import app

    listed = CliRunner().invoke(app, ["envs"])
    assert listed.exit_code == 0 and "math" in listed.output and "broken_env" in listed.output
    named = CliRunner().invoke(app, ["validate", "broken_env"])
    assert named.exit_code != 0 and "no_such_module_here" in named.output
