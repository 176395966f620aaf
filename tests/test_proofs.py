"""Proof certificates: an environment version is what decides its rewards; `validate` proves
a version; rollouts of a version never proven reach no trainer unless a user asks by name."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import prove
from openai.types.responses import Response
from typer.testing import CliRunner

from proofgym.clients.agent_client import AgentClient
from proofgym.clients.http import HttpxTransport
from proofgym.rollouts.proofs import Identity, ProofBook, UnprovenRollouts
from proofgym.rollouts.signing import sign_row
from proofgym.serving.settings import AgentSettings
from proofgym.wire.protocol import RewardInputs, RunResult, Task, VerifyResult
from proofgym.wire.responses import build_response, final_message
from proofgym_stack.cli import app
from proofgym_stack.examples import example_tasks
from proofgym_stack.testing import in_process_stack
from resources_servers.base.identity import source_closure, source_hash
from resources_servers.math.env import MathEnv, MathState
from resources_servers.verifiers.answers import length_guard, numeric_answer_check
from resources_servers.verifiers.compose import all_or_nothing
from trainers.trl import ProofgymRollouts, task_prompt


class StricterMath(MathEnv):
    """A verifier change (final messages over 2,000 characters pay nothing): a new version,
    which has to pass `validate` before its rollouts train anything."""

    def verify(self, state: MathState, task: Task, response: Response) -> VerifyResult:
        text = final_message(response)
        truth = float(task.task_data["answer"])
        return all_or_nothing([numeric_answer_check(text[:2000], truth), length_guard(text, 2000)])


def result_of(env: str, version: str | None) -> RunResult:
    return RunResult(
        rollout_id="r" * 16,
        task_id="t",
        env=env,
        env_version=version,
        settings_digest=RewardInputs().settings_digest(),  # as a server declaring none names it
        reward=1.0,
        response=build_response([], model="m"),
        num_steps=1,
        termination_reason="final_message",
    )


def test_the_version_covers_what_verify_calls() -> None:
    closure = source_closure(MathEnv)
    # the verifier library, the base class and the core that reads the final message
    for module in (
        "resources_servers.math.env",
        "resources_servers.verifiers.answers",
        "resources_servers.verifiers.compose",
        "resources_servers.base.environment",
        "proofgym.wire.responses",
    ):
        assert module in closure, module
    assert not any(m.startswith(("proofgym_stack", "sdg", "tests")) for m in closure)
    # a subclass elsewhere is another environment: its own file is part of it
    assert StricterMath.version() != MathEnv.version()
    assert __name__ in source_closure(StricterMath)


def test_a_fix_in_a_helper_imported_inside_a_function_moves_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "plantedenv"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "env.py").write_text(
        textwrap.dedent(
            """
            from resources_servers.math.env import MathEnv

            class Planted(MathEnv):
                def verify(self, state, task, response):
                    from .rules import adjust
                    return adjust(super().verify(state, task, response))
            """
        )
    )
    rules = package / "rules.py"
    rules.write_text("def adjust(verdict):\n    return verdict\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    planted = importlib.import_module("plantedenv.env").Planted
    before = source_hash(planted)
    assert "plantedenv.rules" in source_closure(planted)
    rules.write_text("def adjust(verdict):\n    return verdict  # fixed\n")
    assert source_hash(planted) != before
    for name in [m for m in sys.modules if m.startswith("plantedenv")]:
        del sys.modules[name]


def test_the_book_proves_only_what_it_holds(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    plain = RewardInputs()
    math_abc = Identity.serving("math", "abc", plain)
    assert not book.is_proven(math_abc) and not book.is_proven(Identity("math", None))
    path = book.certify("math", "abc", plain, {"passed": True})
    assert path.parent == tmp_path / "math" / "abc" and book.is_proven(math_abc)
    assert [(p.env, p.version) for p in book.proofs()] == [("math", "abc")]
    assert not book.is_proven(Identity.serving("math", "abd", plain))
    assert not book.is_proven(Identity.serving("letters", "abc", plain))
    # bridged versions hold colons; another version under the same file name proves nothing
    book.certify("peer", "openenv:0.1:ff", plain, {"passed": True})
    assert book.is_proven(Identity.serving("peer", "openenv:0.1:ff", plain))
    assert not book.is_proven(Identity.serving("peer", "openenv_0.1_ff", plain))
    for hostile in ("../math", "a/b", "..", ""):
        with pytest.raises(ValueError):
            book.certify(hostile, "abc", plain, {"passed": True})
        assert not book.is_proven(Identity.serving(hostile, "abc", plain))
    # a file that is not a certificate proves nothing
    (tmp_path / "math" / "bad").mkdir()
    (tmp_path / "math" / "bad" / "x.json").write_text("{not json")
    assert not book.is_proven(Identity.serving("math", "bad", plain))
    assert {p.version for p in book.proofs()} == {"abc", "openenv:0.1:ff"}


def signed(book: ProofBook, row: RunResult) -> RunResult:
    key = book.key(create=True)
    assert key is not None
    return sign_row(key, row)


def test_admit_refuses_by_default_and_marks_when_asked(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    book.certify("math", "v1", RewardInputs(), {"passed": True})
    rows = [signed(book, result_of("math", v)) for v in ("v1", "v2", None)]
    with pytest.raises(UnprovenRollouts) as refused:
        book.admit(rows)
    said = str(refused.value)
    assert "math v2: no certificate: never passed `proofgym validate` (1 rollouts)" in said
    assert "(no version recorded)" in said
    assert "proofgym validate math" in said and "--allow-unproven" in said
    assert [ok for _, ok in book.admit(rows, allow_unproven=True)] == [True, False, False]
    assert book.admit(rows[:1]) == [(rows[0], True)]


async def test_a_changed_verifier_is_refused_until_validate_passes_again(tmp_path: Path) -> None:
    tasks = example_tasks("math")[0][:2]
    book = await prove(MathEnv(), tmp_path / "proofs")
    settings = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=1,
        proofs_dir=tmp_path / "proofs",
    )

    async def play(env: Any) -> list[RunResult]:
        async with in_process_stack(agent_settings=settings, envs={"math": env}) as stack:
            client = AgentClient("http://agent", transport=HttpxTransport(stack.client))
            return await client.run_many(tasks, control="reference")

    proven = await play(MathEnv())
    assert {r.env_version for r in proven} == {MathEnv.version()}  # named by the server
    assert all(r.env_proven for r in proven)  # the agent's stamp
    assert [ok for _, ok in book.admit(proven)] == [True, True]
    changed = await play(StricterMath())
    assert {r.env_version for r in changed} == {StricterMath.version()}
    assert not any(r.env_proven for r in changed)
    with pytest.raises(UnprovenRollouts, match=StricterMath.version()):
        book.admit(changed)
    await prove(StricterMath(), tmp_path / "proofs")
    assert [ok for _, ok in book.admit(changed)] == [True, True]


def test_the_trl_adapter_refuses_a_batch_before_the_trainer_sees_it(tmp_path: Path) -> None:
    task = example_tasks("math")[0][0]

    class Played:
        def run_batch(self, tasks: list[Task], **options: Any) -> list[RunResult]:
            return [result_of("math", "never-validated") for _ in tasks]

    class Trainer:
        args = type("Args", (), {"temperature": 1.0})()
        processing_class = None

    rollouts = ProofgymRollouts([task], client=Played(), proofs=ProofBook(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(UnprovenRollouts, match="never-validated"):
        rollouts([task_prompt(task)], Trainer())
    allowed = ProofgymRollouts(
        [task],
        client=Played(),
        proofs=ProofBook(tmp_path),
        allow_unproven=True,  # type: ignore[arg-type]
    )
    allowed([task_prompt(task), task_prompt(task)], Trainer())
    assert allowed.unproven == 2


def test_validate_writes_the_certificate_and_envs_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path / "proofs"))
    runner = CliRunner()
    before = runner.invoke(app, ["envs"])
    assert before.exit_code == 0 and "unproven versions reach no trainer" in before.output
    quick = runner.invoke(app, ["validate", "math", "--quick"])
    assert quick.exit_code == 0 and not (tmp_path / "proofs").exists()  # quick proves nothing
    done = runner.invoke(app, ["validate", "math", "--sample", "2", "--parallel", "16"])
    assert done.exit_code == 0, done.output
    (path,) = (tmp_path / "proofs" / "math" / MathEnv.version()).glob("*.json")
    body = json.loads(path.read_text())
    assert body["passed"] is True and body["report"]["version"] == MathEnv.version()
    assert body["run_with"]["sample"] == 2 and body["run_with"]["judge"] is None
    assert len(body["run_with"]["tasks_digest"]) == 64 and body["signature"]
    assert {v["name"] for v in body["report"]["verdicts"]} >= {"control:reference", "determinism"}
    shown = runner.invoke(app, ["envs"])
    math_row = next(line for line in shown.output.splitlines() if MathEnv.version() in line)
    assert "yes" in math_row


def test_a_new_import_written_into_a_file_is_followed_and_no_library_is_imported(
    tmp_path: Path,
) -> None:
    # the closure caches what each file imports by its mtime and size: a file rewritten with
    # a new import is parsed again; and an installed library's submodule named in an import
    # is left out without importing its package (finding a dotted name's spec imports its
    # parents): run in a fresh interpreter, where nothing imported the library before
    package = tmp_path / "growingenv"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("X = 1\n")
    env = package / "env.py"
    env.write_text(
        "import xml.dom.minidom\n"
        "from resources_servers.math.env import MathEnv\n\n"
        "class Growing(MathEnv):\n    pass\n"
    )
    program = textwrap.dedent(
        """
        import importlib, os, sys, time
        sys.path.insert(0, sys.argv[1])
        from resources_servers.base.identity import source_closure
        from growingenv.env import Growing
        sys.modules.pop("xml.dom.minidom", None)
        sys.modules.pop("xml.dom", None)
        first = source_closure(Growing)
        imported = "xml.dom" in sys.modules
        path = os.path.join(sys.argv[1], "growingenv", "env.py")
        text = open(path).read().replace("import xml", "from . import helper\\nimport xml")
        open(path, "w").write(text)
        os.utime(path, ns=(time.time_ns() + 10**9,) * 2)
        second = source_closure(Growing)
        print("growingenv.helper" in first, "growingenv.helper" in second, imported)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", program, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        check=True,
    ).stdout.split()
    assert out == ["False", "True", "False"]
