"""An environment is one folder: of the project it imports only the authors' face
(`resources_servers.sdk`) and its own modules, never the base, the verifier library or the core
directly, another environment, a service or the composition root."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"proofgym", "proofgym_stack", "sdg", "agent_server", "resources_servers"}
PROJECT |= {"model_interface"}
ENVS = sorted(
    p.name
    for p in (ROOT / "resources_servers").iterdir()
    if p.is_dir() and (p / "__init__.py").exists() and p.name not in ("base", "verifiers")
)


def imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("env", ENVS)
def test_an_environment_imports_only_what_it_may(env: str) -> None:
    own = f"resources_servers.{env}"
    bad = []
    for path in (ROOT / "resources_servers" / env).rglob("*.py"):
        for name in imports(path):
            if name.split(".")[0] not in PROJECT or name == own or name.startswith(own + "."):
                continue
            if name != "resources_servers.sdk":
                bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert not bad, bad


def test_the_rule_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("from resources_servers.math.calculator import f\nimport agent_server\n")
    assert imports(sample) == ["resources_servers.math.calculator", "agent_server"]
