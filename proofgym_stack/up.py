"""`proofgym up`: the three services as local processes, the same topology as compose.yaml."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

SERVICES = ("resources", "model", "agent")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(host: str, port: int) -> bool:
    """Whether nothing listens on `port` (a bind that would succeed, as the service's will)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _die_with_parent() -> None:
    # Children get SIGTERM if `proofgym up` dies, even by SIGKILL: no orphan services.
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _starter(nofile: int | None) -> Callable[[], None]:
    """What runs in a child before it execs: die with us; start under `nofile` open files
    (the soft limit, as a machine's default would impose; the service raises it itself)."""

    def start() -> None:
        _die_with_parent()
        if nofile is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(nofile, hard), hard))

    return start


@dataclass
class ServiceProcess:
    """One started service, and how to start it again."""

    name: str
    url: str
    process: subprocess.Popen[bytes]
    cmd: list[str]
    env: dict[str, str]
    restarts: int = 0


def spawn_service(
    name: str, host: str, port: int, env: dict[str, str], instance: str, nofile: int | None = None
) -> ServiceProcess:
    """Service NAME (as `proofgym serve NAME`) as a child process bound to host:port, with
    `env` over ours and `instance` as the id its /health answers; it dies with this process."""
    env = {
        **os.environ,
        **env,
        "PROOFGYM_HOST": host,
        "PROOFGYM_PORT": str(port),
        "PROOFGYM_INSTANCE": instance,
    }
    # not through the CLI: a service process never loads Typer and the command modules
    cmd = [sys.executable, "-m", "proofgym_stack.service_main", name]
    proc = subprocess.Popen(cmd, env=env, preexec_fn=_starter(nofile))
    return ServiceProcess(name, f"http://{host}:{port}", proc, cmd, env)


def wait_healthy(services: list[ServiceProcess], instance: str, timeout: float) -> None:
    """Block until every service answers /health with `instance` as its id; RuntimeError if
    one dies, another process answers on its port, or time runs out."""
    deadline = time.monotonic() + timeout
    pending = list(services)
    while pending:
        for svc in list(pending):
            if svc.process.poll() is not None:
                raise RuntimeError(f"{svc.name} exited with {svc.process.returncode}")
            answer = health(svc.url)
            if answer is not None:
                if answer.get("instance") != instance:
                    raise RuntimeError(
                        f"{svc.url} answers /health, but not as the {svc.name} "
                        "just started (another process holds the port)"
                    )
                pending.remove(svc)
        if pending and time.monotonic() > deadline:
            raise RuntimeError(
                f"not healthy within {timeout:g}s: "
                + ", ".join(s.name for s in pending)
                + " (a model that loads slowly needs a longer --start-timeout)"
            )
        if pending:
            time.sleep(0.1)


def health(url: str) -> dict[str, Any] | None:
    """The JSON object `url`/health answers with a 200, or None (no answer yet, an error,
    not an object). The standard library's client: the supervisor loads nothing more."""
    import urllib.request  # here: every other command does without it

    # no proxy for the services we started ourselves, whatever HTTP_PROXY says
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(f"{url}/health", timeout=2.0) as answer:
            body = json.loads(answer.read()) if answer.status == 200 else None
    except (OSError, ValueError):  # refused, reset, timed out, an error status, not JSON
        return None
    return body if isinstance(body, dict) else None


@dataclass
class Stack:
    """The services `proofgym up` runs, with their URLs."""

    host: str = "127.0.0.1"
    agent_port: int = 8000
    resources_ports: list[int] = field(default_factory=lambda: [8001])
    model_port: int = 8002
    env: dict[str, str] = field(default_factory=dict)
    model_env: dict[str, str] = field(default_factory=dict)  # e.g. the backend to serve
    model_url: str | None = None  # a model interface running elsewhere (a trainer's live one)
    nofile: int | None = None  # start services under this soft open-files limit (benchmarks)
    processes: list[ServiceProcess] = field(default_factory=list)
    # what this stack's services answer in /health: a healthy answer from another process
    # (another stack on a port this one could not bind) is never taken for ours
    instance: str = field(default_factory=lambda: secrets.token_hex(8))

    def url(self, port: int) -> str:
        """The base URL of a port on this stack's host."""
        return f"http://{self.host}:{port}"

    @property
    def agent_url(self) -> str:
        """Where the agent listens."""
        return self.url(self.agent_port)

    def _spawn(self, name: str, port: int, extra: dict[str, str]) -> None:
        env = {**self.env, **extra}
        self.processes.append(spawn_service(name, self.host, port, env, self.instance, self.nofile))

    def restart_dead(self) -> list[ServiceProcess]:
        """Start again every service whose process has exited; return those restarted.

        A restarted resources server has lost its sessions: rollouts that were using them end
        as masked `resources_error`, and a rerun of the collection completes them.
        """
        restarted = []
        for svc in self.processes:
            if svc.process.poll() is not None:
                svc.process = subprocess.Popen(
                    svc.cmd, env=svc.env, preexec_fn=_starter(self.nofile)
                )
                svc.restarts += 1
                restarted.append(svc)
        return restarted

    def ports(self) -> list[int]:
        """The ports this stack's own services will listen on."""
        model = [] if self.model_url is not None else [self.model_port]
        return [*self.resources_ports, *model, self.agent_port]

    def check_ports_free(self) -> None:
        """RuntimeError naming every port of this stack that something already listens on."""
        busy = [port for port in self.ports() if not port_free(self.host, port)]
        if busy:
            raise RuntimeError(
                f"port{'s' if len(busy) > 1 else ''} {', '.join(map(str, busy))} on {self.host} "
                "already in use (another proofgym up?); stop it or choose other ports"
            )

    def start(self, timeout: float = 60.0) -> None:
        """Start every service and wait until each answers /health as this stack's own; stop
        all on failure. RuntimeError when a port is taken, a service exits, or time runs out."""
        self.check_ports_free()
        resources = [self.url(p) for p in self.resources_ports]
        try:
            for port in self.resources_ports:
                self._spawn("resources", port, {})
            if self.model_url is None:
                self._spawn("model", self.model_port, self.model_env)
            self._spawn(
                "agent",
                self.agent_port,
                {
                    "PROOFGYM_RESOURCES_URLS": json.dumps(resources),
                    "PROOFGYM_MODEL_URL": self.model_url or self.url(self.model_port),
                },
            )
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise

    def wait_healthy(self, timeout: float) -> None:
        """Block until every service answers /health with this stack's instance id;
        RuntimeError if one dies, another process answers on its port, or time runs out."""
        wait_healthy(self.processes, self.instance, timeout)

    def stop(self, grace: float = 10.0) -> None:
        """Stop every service: SIGTERM, then SIGKILL after `grace` seconds."""
        for svc in self.processes:
            if svc.process.poll() is None:
                svc.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for svc in self.processes:
            try:
                svc.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                svc.process.kill()
                svc.process.wait()
        self.processes.clear()

    @contextlib.contextmanager
    def running(self, timeout: float = 60.0) -> Iterator[Stack]:
        """Start, yield, and always stop."""
        self.start(timeout)
        try:
            yield self
        finally:
            self.stop()
