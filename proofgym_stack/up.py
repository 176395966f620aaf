"""`proofgym up`: the three services as local processes, the same topology as compose.yaml."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx

SERVICES = ("resources", "model", "agent")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


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

    def url(self, port: int) -> str:
        """The base URL of a port on this stack's host."""
        return f"http://{self.host}:{port}"

    @property
    def agent_url(self) -> str:
        """Where the agent listens."""
        return self.url(self.agent_port)

    def _spawn(self, name: str, port: int, extra: dict[str, str]) -> None:
        env = {
            **os.environ,
            **self.env,
            **extra,
            "PROOFGYM_HOST": self.host,
            "PROOFGYM_PORT": str(port),
        }
        cmd = [sys.executable, "-m", "proofgym_stack.cli", "serve", name]
        proc = subprocess.Popen(cmd, env=env, preexec_fn=_starter(self.nofile))
        self.processes.append(ServiceProcess(name, self.url(port), proc, cmd, env))

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

    def start(self, timeout: float = 60.0) -> None:
        """Start every service and wait until each answers /health; stop all on failure."""
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
        """Block until every service answers /health; RuntimeError if one dies or time runs out."""
        deadline = time.monotonic() + timeout
        pending = list(self.processes)
        with httpx.Client(timeout=2.0) as client:
            while pending:
                for svc in list(pending):
                    if svc.process.poll() is not None:
                        raise RuntimeError(f"{svc.name} exited with {svc.process.returncode}")
                    with contextlib.suppress(httpx.HTTPError):
                        if client.get(f"{svc.url}/health").status_code == 200:
                            pending.remove(svc)
                if pending and time.monotonic() > deadline:
                    raise RuntimeError("not healthy in time: " + ", ".join(s.name for s in pending))
                if pending:
                    time.sleep(0.1)

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
