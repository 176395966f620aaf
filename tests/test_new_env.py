"""`proofgym new-env NAME` writes an environment that passes `proofgym validate NAME` and its
own test as generated, in a copy of the checkout (nothing here changes)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proofgym_stack.scaffold import ScaffoldError, class_name, write

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.db", "runs", ".mypy_cache")


def test_a_new_environment_is_proven_as_generated(tmp_path: Path) -> None:
    checkout = tmp_path / "proofgym"
    shutil.copytree(ROOT, checkout, ignore=SKIP)
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # the copy, not this checkout

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "proofgym_stack.cli", *args],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    made = cli("new-env", "inventory")
    assert made.returncode == 0, made.stderr
    examples = checkout / "tasks" / "inventory" / "example.jsonl"
    assert examples.is_file()
    # the names and ids the guide and every generator use; the skeleton's text marked
    first_id = json.loads(examples.read_text().splitlines()[0])["task_id"]
    assert re.fullmatch(r"inventory-example-\d+-\d{5}", first_id), first_id
    # five files: the environment (two), its generator, its example tasks, its test
    assert (checkout / "sdg" / "inventory.py").is_file()
    assert (checkout / "tests" / "test_inventory.py").is_file()
    folder = checkout / "resources_servers" / "inventory"
    assert sorted(p.name for p in folder.glob("*.py")) == ["__init__.py", "env.py"]
    env_py = (folder / "env.py").read_text()
    assert "class InventoryTask(" in env_py  # the typed task_data beside the environment
    assert "def call(" not in env_py and "from resources_servers.sdk import (" in env_py
    assert "from proofgym" not in env_py and "from resources_servers.base" not in env_py
    docstrings = re.findall(r'"""(.*?)"""', env_py, re.S)
    assert docstrings and all(d.startswith("REWRITE") or "Args:" in d for d in docstrings)
    assert "inventory/example.jsonl" in (checkout / "tasks" / "manifest.json").read_text()
    proven = cli("validate", "inventory", "--parallel", "32")
    assert proven.returncode == 0, proven.stdout[-3000:]
    own_test = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_inventory.py"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert own_test.returncode == 0, own_test.stdout[-3000:]
    again = cli("new-env", "inventory")
    assert again.returncode == 2 and "exists already" in again.stderr
    assert not (ROOT / "resources_servers" / "inventory").exists()


@pytest.mark.parametrize("name", ["Bad", "1x", "base", "class", "a-b", "x" * 40])
def test_unusable_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ScaffoldError):
        write(tmp_path, name)


def test_outside_a_checkout_it_says_so(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="not a proofgym checkout"):
        write(tmp_path, "inventory")
    assert class_name("inventory") == "InventoryEnv" and class_name("my_env") == "MyEnv"


def test_shipped_environments_write_scripts_with_the_base_helpers() -> None:
    """`call`, `say` and their item forms live in resources_servers.base, once: no shipped
    environment keeps a copy (the next author copies what the examples do)."""
    import ast

    helpers = {"call", "say", "call_item", "say_item"}
    copies = []
    for path in sorted((ROOT / "resources_servers").glob("*/*.py")):
        if path.parent.name == "base":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in helpers:
                copies.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not copies, copies
