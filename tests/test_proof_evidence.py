"""A certificate is evidence: signed with the operator's key, void when its verdicts failed,
tied to the judge and the settings the rollouts were judged with; a row is admitted only as
the agent signed it. And the version moves with everything that can move the reward."""

from __future__ import annotations

import importlib
import json
import os
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proofgym.clients.agent_client import AgentClient
from proofgym.clients.http import HttpxTransport
from proofgym.rollouts.proofs import Identity, ProofBook, UnprovenRollouts
from proofgym.rollouts.signing import KEY_FILE, sign_row
from proofgym.rollouts.store import RolloutStore
from proofgym.serving.settings import AgentSettings, ProofSettings
from proofgym.wire.protocol import RewardInputs, RunResult
from proofgym.wire.responses import build_response
from proofgym_stack.cli import app
from proofgym_stack.examples import example_tasks
from proofgym_stack.testing import in_process_stack
from resources_servers.support.env import RUBRIC, SupportEnv
from resources_servers.verifiers.judge import Judge, ModelInterfaceJudge

PLAIN = RewardInputs()


def row(env: str = "math", version: str = "v1", **stamp: Any) -> RunResult:
    fields: dict[str, Any] = {"settings_digest": PLAIN.settings_digest(), **stamp}
    return RunResult(
        rollout_id="r" * 16,
        task_id="t",
        env=env,
        env_version=version,
        reward=1.0,
        response=build_response([], model="m"),
        num_steps=1,
        termination_reason="final_message",
        **fields,
    )


def signed(book: ProofBook, result: RunResult) -> RunResult:
    key = book.key(create=True)
    assert key is not None
    return sign_row(key, result)


def refusal(book: ProofBook, result: RunResult) -> str:
    with pytest.raises(UnprovenRollouts) as refused:
        book.admit([result])
    return str(refused.value)


def test_the_key_is_generated_private_in_the_proofs_folder_or_given(tmp_path: Path) -> None:
    book = ProofBook(tmp_path / "proofs")
    assert book.key() is None and not (tmp_path / "proofs").exists()  # reading makes none
    key = book.key(create=True)
    path = tmp_path / "proofs" / KEY_FILE
    assert key and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ProofBook(tmp_path / "proofs").key(create=True) == key  # kept, not regenerated
    given = ProofBook.from_settings(ProofSettings(proofs_dir=tmp_path / "p2", proof_key="s" * 32))
    assert given.key() == b"s" * 32 and not (tmp_path / "p2").exists()
    # a certificate signed with one key proves nothing to a book holding another
    given.certify("math", "v1", PLAIN, {"passed": True})
    other = ProofBook(tmp_path / "p2")
    assert "no proof key" in str(other.why_not(Identity.serving("math", "v1", PLAIN)))
    other.key(create=True)
    assert not other.is_proven(Identity.serving("math", "v1", PLAIN))
    assert "signature is invalid" in str(other.why_not(Identity.serving("math", "v1", PLAIN)))


def test_a_hand_written_certificate_is_refused(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    real = book.certify("math", "v1", PLAIN, {"passed": True})
    body = json.loads(real.read_text())
    ident = Identity.serving("math", "v1", PLAIN)
    assert book.is_proven(ident)
    for forged in (
        {k: v for k, v in body.items() if k != "signature"},  # unsigned
        {**body, "signature": "0" * 64},  # a made-up signature
        {**body, "created_at": body["created_at"] + 1},  # edited after signing
        {"env": "math", "version": "v1"},  # the old format, written by hand
    ):
        real.write_text(json.dumps(forged))
        why = book.why_not(ident)
        assert why is not None and "signature is invalid" in why, why
        assert "signature is invalid" in refusal(book, signed(book, row()))
    # a FIFO does not hang the gate, a 10,000-deep nesting does not crash it
    real.unlink()
    os.mkfifo(real)
    assert "not a regular file" in str(book.why_not(ident))
    real.unlink()
    real.write_text("[" * 10_000 + "]" * 10_000)
    assert "nested deeper than" in str(book.why_not(ident))


def test_a_certificate_whose_validation_failed_is_refused(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    report = {"passed": False, "verdicts": [{"name": "determinism", "outcome": "fail"}]}
    book.certify("math", "v1", PLAIN, report)
    said = refusal(book, signed(book, row()))
    assert "its validation failed: determinism" in said
    # `passed` said true over a failed verdict (signed all the same) is void too
    report = {"passed": True, "verdicts": [{"name": "reads", "outcome": "fail"}]}
    book.certify("math", "v1", PLAIN, report)
    assert "its validation failed: reads" in refusal(book, signed(book, row()))


def test_a_row_judged_with_another_judge_or_settings_is_refused(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    offline = RewardInputs(judge="offline judge")
    book.certify("support", "v1", offline, {"passed": True})
    good = signed(book, row("support", judge="offline judge"))
    assert book.admit([good]) == [(good, True)]
    other_judge = signed(book, row("support", judge="model big at http://judge"))
    said = refusal(book, other_judge)
    assert "proven only under another judge (offline judge), not model big at http://j" in said
    moved = RewardInputs(judge="offline judge", settings={"SUPPORT_STRICT": "1"})
    other_settings = signed(
        book, row("support", judge="offline judge", settings_digest=moved.settings_digest())
    )
    assert "proven only with other reward settings" in refusal(book, other_settings)


def test_a_tampered_row_and_an_old_row_are_refused_with_why(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    book.certify("math", "v1", PLAIN, {"passed": True})
    good = signed(book, row())
    assert book.admit([good]) == [(good, True)]
    for edit in ({"reward": 0.5}, {"env_version": "v1", "task_id": "other"}):
        tampered = good.model_copy(update=edit)
        assert "the row's signature is invalid" in refusal(book, tampered)
    old = row()  # collected before rows were signed: readable, never admitted
    assert "the row carries no signature" in refusal(book, old)
    assert [ok for _, ok in book.admit([old, good], allow_unproven=True)] == [False, True]


async def test_the_agent_stamps_and_signs_and_the_store_keeps_it_admissible(
    tmp_path: Path,
) -> None:
    """Support played through the services: each row names its judge and settings digest,
    is signed with the key in the proofs folder, and stays admissible after the store."""
    tasks = example_tasks("support")[0][:1]
    book = ProofBook(tmp_path / "proofs")
    env = SupportEnv()
    book.certify("support", env.version(), env.reward_inputs(), {"passed": True})
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://model",
        max_retries=1,
        proofs_dir=tmp_path / "proofs",
    )

    async def play(env: SupportEnv) -> list[RunResult]:
        async with in_process_stack(agent_settings=agent, envs={"support": env}) as stack:
            client = AgentClient("http://agent", transport=HttpxTransport(stack.client))
            return await client.run_many(tasks, control="reference")

    offline = await play(SupportEnv())
    assert {r.judge for r in offline} == {env.judge_identity()} and offline[0].signature
    assert offline[0].env_proven
    store = RolloutStore(tmp_path / "runs.db")
    store.put(offline[0], repeat=0)
    stored = [RunResult.model_validate(r["record"]) for r in store.rows()]
    store.close()
    assert [ok for _, ok in book.admit(stored)] == [True]
    # the same code under a judge model: its rollouts are not the ones that were proven
    judged = SupportEnv(Judge(ModelInterfaceJudge("http://judge", "big"), RUBRIC))
    assert judged.version() == env.version()
    assert judged.reward_inputs().judge != env.reward_inputs().judge
    ident = Identity.serving("support", judged.version(), judged.reward_inputs())
    assert "proven only under another judge" in str(book.why_not(ident))


def planted(root: Path, name: str, verify_body: str, **declared: Any) -> type:
    """An environment package `name` under `root` (a project of its own beside a helper
    package `<name>_rules`), whose verify runs `verify_body`; `declared` class attributes."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (root / f"{name}_rules").mkdir()
    (root / f"{name}_rules" / "__init__.py").write_text("")
    (root / f"{name}_rules" / "pay.py").write_text("def pay(v):\n    return v\n")
    (package / "truth.txt").write_text("42")
    attrs = "".join(f"    {k} = {v!r}\n" for k, v in declared.items())
    body = textwrap.indent(textwrap.dedent(verify_body), " " * 8)
    (package / "env.py").write_text(
        "import os\nfrom pathlib import Path\nfrom resources_servers.math.env import MathEnv\n\n"
        "class Planted(MathEnv):\n"
        f"{attrs}"
        "    def verify(self, state, task, response):\n"
        f"{body}"
        "        return super().verify(state, task, response)\n"
    )
    return importlib.import_module(f"{name}.env").Planted  # type: ignore[no-any-return]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A folder on the path for planted packages; they are forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def fresh_version(cls: type) -> str:
    cls.__dict__.get("_version") and delattr(cls, "_version")
    return cls.version()  # type: ignore[attr-defined,no-any-return]


def test_each_way_the_reward_moves_moves_the_version_or_the_identity(project: Path) -> None:
    tmp_path = project
    # a helper in another package of the project (not the env's own, not proofgym)
    env = planted(tmp_path, "viahelper", "from viahelper_rules.pay import pay\n")
    before = fresh_version(env)
    (tmp_path / "viahelper_rules" / "pay.py").write_text("def pay(v):\n    return 1.0\n")
    assert fresh_version(env) != before
    # a declared data file
    env = planted(tmp_path, "viadata", "Path(__file__).with_name('truth.txt').read_text()\n",
                  data_files=("truth.txt",))  # fmt: skip
    before = fresh_version(env)
    (tmp_path / "viadata" / "truth.txt").write_text("43")
    assert fresh_version(env) != before
    # a declared variable: its name is in the version, its value in the admitted identity
    env = planted(tmp_path, "viavar", "os.environ.get('PLANTED_MODE')\n",
                  reward_settings=("PLANTED_MODE",))  # fmt: skip
    assert env.version() != planted(tmp_path, "viavar2", "pass\n").version()
    os.environ["PLANTED_MODE"] = "strict"
    try:
        strict = env().reward_inputs()
        os.environ["PLANTED_MODE"] = "lenient"
        assert env().reward_inputs().settings_digest() != strict.settings_digest()
    finally:
        del os.environ["PLANTED_MODE"]
    # the judge: the same code under another judge is another admitted identity
    offline, model = SupportEnv(), SupportEnv(Judge(ModelInterfaceJudge("http://j", "m"), RUBRIC))
    assert Identity.serving("support", offline.version(), offline.reward_inputs()) != (
        Identity.serving("support", model.version(), model.reward_inputs())
    )


async def test_an_undeclared_read_is_a_validate_finding(project: Path) -> None:
    tmp_path = project
    from proofgym_stack.validation.runner import validate_env

    body = "Path(__file__).with_name('truth.txt').read_text()\nos.environ.get('PLANTED_X')\n"
    sneaky = planted(tmp_path, "sneaky", body)
    honest = planted(tmp_path, "honest", body, data_files=("truth.txt",),
                     reward_settings=("PLANTED_X",))  # fmt: skip
    tasks = example_tasks("math")[0][:1]
    for cls, passes in ((sneaky, False), (honest, True)):
        report = await validate_env(cls(), tasks, sample=1, parallel=4, budget=0)
        (reads,) = [v for v in report.verdicts if v.name == "reads"]
        assert reads.passed is passes, reads.detail
        if not passes:
            assert "truth.txt" in reads.detail and "PLANTED_X" in reads.detail


def test_envs_says_why_a_version_is_not_admitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from resources_servers.math.env import MathEnv

    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path))
    book = ProofBook(tmp_path)
    book.certify("math", MathEnv.version(), PLAIN, {"passed": False})
    shown = CliRunner().invoke(app, ["envs"])
    assert shown.exit_code == 0, shown.output
    assert "math not admitted: its validation failed" in shown.output
    assert "letters not admitted: no certificate" in shown.output


def test_a_folder_removed_is_no_read_and_a_file_read_is(tmp_path: Path) -> None:
    import shutil

    from proofgym_stack.validation.reads import Recorder, recording

    gone = tmp_path / "workspace"
    (gone / "deploy").mkdir(parents=True)
    (gone / "deploy" / "a.conf").write_text("x = 1\n")
    kept = tmp_path / "data.csv"
    kept.write_text("1,2\n")
    recorder = Recorder({__file__})
    with recording(recorder):
        shutil.rmtree(gone)  # opens each entry by name to unlink it: not a read
        kept.read_text()
    assert list(recorder.files) == [str(kept)]
