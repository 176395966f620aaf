"""One stable face for environment authors (issue 43): `resources_servers.sdk` exports what the
guide documents, the guide's code imports only from it, `new-env` writes only imports of it,
and code written against the previous release's paths still imports and plays, warned."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import proofgym.serving
import resources_servers.sdk as sdk
from proofgym.moved import MOVED
from proofgym.serving import server
from proofgym_stack.scaffold import write
from proofgym_stack.testing import in_process_stack

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "environments.md"
FACE = "resources_servers.sdk"
PROJECT = ("proofgym", "proofgym_stack", "resources_servers", "agent_server", "model_interface")
#: every old path, the resources package's own move included
OLD_PATHS = {**MOVED, "resources_servers.math.calculator": "resources_servers.verifiers.arithmetic"}


def python_blocks(markdown: str) -> list[str]:
    """The ```python code blocks of a Markdown text."""
    return re.findall(r"```python\n(.*?)```", markdown, re.S)


def stable_api_table(markdown: str) -> list[str]:
    """The names in the first column of the guide's table of the stable API, in order."""
    section = markdown.split("## The stable API", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`(\w+)`", line.split("|")[1])
    return names


def project_imports(source: str) -> list[tuple[str, list[str]]]:
    """(module, names) of every import of a project module in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in PROJECT:
                found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.split(".")[0] in PROJECT]
    return found


def test_all_is_the_documented_list() -> None:
    documented = stable_api_table(GUIDE.read_text())
    assert len(documented) == len(set(documented)), "a name is listed twice"
    assert set(documented) == set(sdk.__all__)
    missing = [name for name in sdk.__all__ if not hasattr(sdk, name)]
    assert not missing, missing


def test_the_guide_imports_only_from_the_face_and_every_name_resolves() -> None:
    blocks = python_blocks(GUIDE.read_text())
    assert len(blocks) >= 4
    shown: set[str] = set()
    for block in blocks:
        tree = ast.parse(block)  # every block is Python
        imported: set[str] = set()
        for module, names in project_imports(block):
            assert module == FACE, f"the guide imports {module}, not the face"
            face = importlib.import_module(module)
            for name in names:
                assert hasattr(face, name), f"the guide imports {name!r}, not in the face"
            imported.update(names)
        # a block that uses a name of the face imports it (the code can be pasted)
        names = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
        local = {n.id for n in names if isinstance(n.ctx, ast.Store)}  # the block's own `diff`
        used = {n.id for n in names if isinstance(n.ctx, ast.Load)} - local
        assert used & set(sdk.__all__) <= imported, (used & set(sdk.__all__)) - imported
        shown |= imported
    assert {"Environment", "tool", "call", "say", "Control", "Task", "VerifyResult"} <= shown
    assert {"Check", "final_message", "all_or_nothing", "claim_check"} <= shown


def test_the_table_rule_sees_a_missing_and_an_undocumented_name() -> None:
    guide = "## The stable API\n\n| names | what |\n|---|---|\n| `Environment`, `tool` | x |\n"
    assert stable_api_table(guide + "\n## Next\n| `later` | y |\n") == ["Environment", "tool"]
    assert project_imports("from proofgym.wire.protocol import Task\nimport os\n") == [
        ("proofgym.wire.protocol", ["Task"])
    ]


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_is_the_new_module_with_a_warning_naming_it(
    old: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = OLD_PATHS[old]
    monkeypatch.delitem(sys.modules, old, raising=False)  # the warning comes on first import
    with pytest.warns(DeprecationWarning, match=re.escape(f"import {new} instead")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_a_submodule_of_an_old_package_is_the_new_one(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("proofgym.validation", "proofgym.validation.runner"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.warns(DeprecationWarning, match=r"proofgym_stack\.validation") as caught:
        from proofgym.validation.runner import validate_env
    assert any("proofgym_stack.validation.runner" in str(w.message) for w in caught)
    runner = importlib.import_module("proofgym_stack.validation.runner")
    assert validate_env is runner.validate_env
    assert sys.modules["proofgym.validation.runner"] is runner  # never a second copy
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("proofgym.validation.no_such_module")


def test_the_old_serving_module_names_answer_from_the_package() -> None:
    with pytest.warns(DeprecationWarning, match=r"proofgym\.serving\.server\.serve"):
        serve = proofgym.serving.serve
    assert serve is server.serve
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # submodules and the package's own names never warn
        from proofgym.serving import settings, timeouts

        assert settings.__name__ == "proofgym.serving.settings" and timeouts
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = proofgym.serving.no_such_name


def test_no_old_path_shadows_a_real_module() -> None:
    """The finder answers before the file system does: an old path that is a real module again
    (a new `proofgym/store.py`) would be hidden behind its alias."""
    for old in OLD_PATHS:
        relative = Path(*old.split("."))
        assert not (ROOT / relative.with_suffix(".py")).exists(), old
        assert not (ROOT / relative / "__init__.py").exists(), old
    for new in OLD_PATHS.values():  # nor does a new path lie under an old one (a loop)
        assert not any(new == old or new.startswith(old + ".") for old in OLD_PATHS), new


LEGACY_ENV = '''
"""A small environment as an author wrote it against the previous release's layout."""

from pathlib import Path

from openai.types.responses import Response

from proofgym.protocol import Check, Control, Task, VerifyResult
from proofgym.responses import final_message
from resources_servers.base import Environment, call, say, tool
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing


class Box:
    def __init__(self) -> None:
        self.word = ""


class LegacyEnv(Environment[Box]):
    name = "legacy"
    description = "Put the asked word in the box."
    reward_range = (0.0, 1.0)

    def create_state(self, task: Task, workdir: Path | None) -> Box:
        return Box()

    @tool(inline=True)
    def put(self, state: Box, word: str) -> str:
        """Put a word in the box.

        Args:
            word: the word.
        """
        state.word = word
        return "in the box"

    def verify(self, state: Box, task: Task, response: Response) -> VerifyResult:
        placed = state.word == task.task_data["word"]
        return all_or_nothing(
            [
                Check(name="word_placed", passed=placed),
                claim_check(final_message(response), achieved=placed),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        done = say("Done: the word is in the box.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("put", word=task.task_data["word"]), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]
'''


def legacy_task(word: str) -> dict[str, Any]:
    return {
        "task_id": f"legacy-example-0-{word}",
        "env": "legacy",
        "responses_create_params": {"input": f"Put the word {word} in the box."},
        "task_data": {"word": word},
    }


async def test_an_environment_written_against_the_previous_layout_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "legacy_env.py").write_text(textwrap.dedent(LEGACY_ENV))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("legacy_env", "proofgym.protocol", "proofgym.responses"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.warns(DeprecationWarning) as caught:
        legacy = importlib.import_module("legacy_env")
    said = [(str(w.message), Path(w.filename).name) for w in caught]
    # each old path named with its new one, at the author's import line
    assert any("proofgym.wire.protocol" in m and f == "legacy_env.py" for m, f in said), said
    assert any("proofgym.wire.responses" in m and f == "legacy_env.py" for m, f in said), said
    assert all(FACE in m for m, _ in said), said  # and where an author imports from now
    async with in_process_stack(envs={"legacy": legacy.LegacyEnv()}) as stack:
        info = (await stack.client.get("http://resources/legacy/info")).json()
        assert [t["name"] for t in info["tools"]] == ["put"]
        played = {}
        for control in ("reference", "noop_claim"):
            answer = await stack.run({"task": legacy_task("apple"), "control": control})
            assert answer.status_code == 200, answer.text
            played[control] = answer.json()
    assert played["reference"]["reward"] == 1.0
    assert played["reference"]["env_version"] == legacy.LegacyEnv.version()
    assert played["noop_claim"]["reward"] == 0.0
    assert not played["reference"]["mask_sample"] and not played["noop_claim"]["mask_sample"]


def test_the_skeleton_imports_only_from_the_face(tmp_path: Path) -> None:
    (tmp_path / "resources_servers" / "base").mkdir(parents=True)
    (tmp_path / "sdg").mkdir()
    written = write(tmp_path, "inventory")
    env_files = [p for p in written if "resources_servers" in p.parts]
    assert env_files
    for path in env_files:
        for module, names in project_imports(path.read_text()):
            if module.startswith("resources_servers.inventory"):
                continue
            assert module == FACE, f"{path.name} imports {module}"
            assert set(names) <= set(sdk.__all__), set(names) - set(sdk.__all__)
    test_file = next(p for p in written if p.name == "test_inventory.py")
    imported = dict(project_imports(test_file.read_text()))
    assert imported.get(FACE) == ["Task"] and "proofgym.wire.protocol" not in imported
    # the skeleton's environment imports and builds with the face alone
    spec = importlib.util.spec_from_file_location("skeleton_env", tmp_path / env_files[1])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    env = module.InventoryEnv()
    assert {c.name for c in env.controls(sdk.Task.model_validate(_counter_task()))} >= {
        "reference",
        "noop_claim",
    }


def _counter_task() -> dict[str, Any]:
    return {
        "task_id": "inventory-example-0-00000",
        "env": "inventory",
        "responses_create_params": {"input": "Bring it to 12."},
        "task_data": {"start": 2, "target": 12},
    }


def test_importing_the_face_does_not_load_the_server() -> None:
    """An environment imported alone (a script, a trainer's process) pays for the face, not for
    the resources server: the settings, and with them FastAPI, load when first named."""
    import os
    import subprocess

    code = (
        "import sys\nimport resources_servers.sdk as sdk\nbefore = 'fastapi' in sys.modules\n"
        "sdk.ResourcesSettings\nprint(before, 'fastapi' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr
