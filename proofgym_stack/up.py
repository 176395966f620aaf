"""`proofgym up`: the three services as local processes, the same topology as compose.yaml."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from proofgym_stack.forkstart import Adopted, die_with_parent, soft_nofile, start_forked

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


def _starter(nofile: int | None) -> Callable[[], None]:
    """What runs in a child before it execs: die with us; start under `nofile` open files
    (the soft limit, as a machine's default would impose; the service raises it itself)."""

    def start() -> None:
        die_with_parent()
        soft_nofile(nofile)

    return start


QUICK_DEATH_S = 10.0


def restart_delay(quick_deaths: int) -> float:
    """Seconds before a dead service is started again: at once after a death that ended a
    good run or after the first quick one, then 0.5, 1, 2, ... up to 30."""
    return 0.0 if quick_deaths <= 1 else min(30.0, 0.5 * 2 ** (quick_deaths - 2))


@dataclass
class ServiceProcess:
    """One started service, and how to start it again."""

    name: str
    url: str
    process: subprocess.Popen[bytes] | Adopted  # Adopted: forked by proofgym_stack.forkstart
    cmd: list[str]
    env: dict[str, str]
    restarts: int = 0
    started_at: float = field(default_factory=time.monotonic)
    quick_deaths: int = 0  # deaths in a row, each within QUICK_DEATH_S of its start
    restart_at: float | None = None  # when a dead service is started again


def service_env(host: str, port: int, env: dict[str, str], instance: str) -> dict[str, str]:
    """The whole environment of a service bound to host:port: ours, then `env`, then its
    address and the `instance` id its /health answers."""
    return {
        **os.environ,
        **env,
        "PROOFGYM_HOST": host,
        "PROOFGYM_PORT": str(port),
        "PROOFGYM_INSTANCE": instance,
    }


def service_command(name: str) -> list[str]:
    """How a service process is started: not through the CLI, so that it never loads Typer
    and the command modules."""
    return [sys.executable, "-m", "proofgym_stack.service_main", name]


def spawn_service(
    name: str, host: str, port: int, env: dict[str, str], instance: str, nofile: int | None = None
) -> ServiceProcess:
    """Service NAME (as `proofgym serve NAME`) as a child process bound to host:port, with
    `env` over ours and `instance` as the id its /health answers; it dies with this process."""
    env = service_env(host, port, env, instance)
    cmd = service_command(name)
    return ServiceProcess(name, f"http://{host}:{port}", _popen(cmd, env, nofile), cmd, env)


def _popen(cmd: list[str], env: dict[str, str], nofile: int | None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, env=env, preexec_fn=_starter(nofile))


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
        if pending:  # a refused connection costs microseconds: ask often, say ready at once
            time.sleep(0.02)


PORT_TRIES = 3


def spawn_healthy(
    name: str,
    host: str,
    port: int | None,
    env: dict[str, str],
    timeout: float,
    reached_at: str | None = None,
    tries: int = PORT_TRIES,
) -> ServiceProcess:
    """Service NAME started on host:`port` (a free port when None) and healthy as the process
    it started, its URL naming `reached_at` (where a service bound to every interface is
    reached) or else `host`; RuntimeError (the process killed) when it does not start.

    A port chosen here can be taken by another process between the probe and the service's
    bind (other services start on this machine too): then another is chosen, up to `tries`
    starts. A port the caller named is the caller's to fix: one start."""
    for attempt in range(1 if port else tries):
        instance = secrets.token_hex(8)
        chosen = port or free_port(host)
        svc = spawn_service(name, host, chosen, env, instance)
        if reached_at:
            svc.url = f"http://{reached_at}:{chosen}"
        try:
            wait_healthy([svc], instance, timeout)
            return svc
        except RuntimeError as exc:
            svc.process.kill()
            if port or attempt + 1 >= tries or not _port_lost(exc):
                raise
    raise AssertionError("unreachable")  # the loop returns or raises


def _port_lost(exc: RuntimeError) -> bool:
    """Whether a start failed as a port taken after it was chosen does: another process
    answers there, or the service exited (its bind refused)."""
    said = str(exc)
    return "another process holds the port" in said or " exited with " in said


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
    fork: bool = True  # start the services forked from one loader (see proofgym_stack.forkstart)
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

    def _start_all(self, planned: list[tuple[str, int, dict[str, str]]]) -> None:
        """Start each planned (name, port, extra environment): forked from one process that
        loaded their shared imports once (proofgym_stack.forkstart) where that works, else
        each spawned on its own."""
        envs = [
            service_env(self.host, port, {**self.env, **extra}, self.instance)
            for _, port, extra in planned
        ]
        names = [name for name, _, _ in planned]
        forked: list[Adopted] | None = None
        if self.fork:
            forked = start_forked(list(zip(names, envs, strict=True)), self.nofile)
        for i, (name, port, _) in enumerate(planned):
            cmd = service_command(name)
            process = forked[i] if forked else _popen(cmd, envs[i], self.nofile)
            self.processes.append(ServiceProcess(name, self.url(port), process, cmd, envs[i]))

    def restart_dead(self) -> list[ServiceProcess]:
        """Start again every service whose process has exited; return those restarted.

        A restarted resources server has lost its sessions: rollouts that were using them end
        as masked `resources_error`, and a rerun of the collection completes them. A service
        that keeps dying as it starts (a port someone else took, a broken setting) is started
        again later each time (`restart_delay`), not five times a second.
        """
        restarted = []
        now = time.monotonic()
        for svc in self.processes:
            if svc.process.poll() is None:
                continue
            if svc.restart_at is None:
                svc.quick_deaths = (
                    svc.quick_deaths + 1 if now - svc.started_at < QUICK_DEATH_S else 0
                )
                svc.restart_at = now + restart_delay(svc.quick_deaths)
            if now < svc.restart_at:
                continue
            svc.process = _popen(svc.cmd, svc.env, self.nofile)
            svc.restarts += 1
            svc.started_at, svc.restart_at = now, None
            restarted.append(svc)
        return restarted

    def ports(self) -> list[int]:
        """The ports this stack's own services will listen on."""
        model = [] if self.model_url is not None else [self.model_port]
        return [*self.resources_ports, *model, self.agent_port]

    def check_ports_free(self) -> None:
        """RuntimeError naming a port given to two services, or every port of this stack that
        something already listens on."""
        ports = self.ports()
        twice = sorted({port for port in ports if ports.count(port) > 1})
        if twice:
            raise RuntimeError(
                f"port{'s' if len(twice) > 1 else ''} {', '.join(map(str, twice))} given to "
                "more than one service; give each service a port of its own"
            )
        busy = [port for port in ports if not port_free(self.host, port)]
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
        planned: list[tuple[str, int, dict[str, str]]] = [
            ("resources", port, {}) for port in self.resources_ports
        ]
        if self.model_url is None:
            planned.append(("model", self.model_port, self.model_env))
        planned.append(
            (
                "agent",
                self.agent_port,
                {
                    "PROOFGYM_RESOURCES_URLS": json.dumps(resources),
                    "PROOFGYM_MODEL_URL": self.model_url or self.url(self.model_port),
                },
            )
        )
        try:
            self._start_all(planned)
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
