"""Start several services from one process that loaded what they share once, then forked.

Every service imports the same ~730 modules (FastAPI, pydantic, uvicorn, openai's Responses
types, proofgym's serving layers) before it builds its app: about 0.35 s of CPU each. `proofgym
up` starts three at once on a machine that may have two cores, so it waited on the same imports
three times. Here one short-lived process (`python -m proofgym_stack.forkstart`) imports them
once and forks each service; the services then only build their own apps.

Each forked service is a child of the supervisor as if it had been spawned:

- the supervisor marks itself a child subreaper (Linux's `PR_SET_CHILD_SUBREAPER`) for the
  start, so when the forking process exits, its children are re-parented to the supervisor,
  which can then wait on them (`Adopted` has the part of `subprocess.Popen` the stack uses);
- each service asks to die with the supervisor (`PR_SET_PDEATHSIG`) once it is the
  supervisor's child, so a killed supervisor leaves no orphan, as with a spawned service;
- each service gets its own environment (ports, instance id, settings) before it reads it,
  `/dev/null` as stdin, and the soft open-files limit asked for.

`proofgym up` launches the forking process before Typer parses its options (`prestart`), so
the imports load while the command line still works; the supervisor it execs into takes that
process over (`take_prestarted`), or closes it when the stack does not fork.

`start_forked` answers None wherever this cannot be had (not Linux, no `prctl`, the forking
process failed, services that would load different code): the caller then spawns each
service as before. A service that dies later is
restarted the plain way (`subprocess.Popen`): that path is rare and needs no speed.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ADOPTION_WAIT_S = 10.0  # how long a forked service waits to become the supervisor's child
# uvicorn, FastAPI, pydantic and the settings; the guard, fast routes and metrics; openai's
# Response; and pydantic.v1, which FastAPI imports when a service declares its first route
SHARED = (
    "proofgym.serving.server",
    "proofgym.serving.service",
    "proofgym.wire.output_items",
    "pydantic.v1",
)
HANDOVER_ENV = "PROOFGYM_FORKER"  # prestart's forking process, handed over across the exec
LOADING = ("PYTHON", "LD_")  # the variables that decide what code a process loads
ARGS = [sys.executable, "-m", "proofgym_stack.forkstart"]


def prctl(option: int, value: int) -> bool:
    """Linux's prctl(option, value); False where it failed or does not exist."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent() -> None:
    """Ask for SIGTERM when the parent dies, even by SIGKILL: no orphan services."""
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def soft_nofile(nofile: int | None) -> None:
    """Lower the soft open-files limit to `nofile` (None: leave it), as a machine's default
    would impose; a service raises it again itself."""
    if nofile is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(nofile, hard), hard))


class Adopted:
    """A service forked by `forkstart` and re-parented to this process: the methods and
    attributes of `subprocess.Popen` the stack uses (`pid`, `returncode`, `poll`, `wait`,
    `send_signal`, `terminate`, `kill`), with the same meanings."""

    def __init__(self, pid: int, args: list[str]) -> None:
        self.pid = pid
        self.args = args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status once the process has ended (reaping it), else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: gone, status unknown
                self.returncode = -1
                return self.returncode
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit status, waiting at most `timeout` seconds (subprocess.TimeoutExpired)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            time.sleep(0.01)
        return code

    def send_signal(self, sig: int) -> None:
        """Signal the process unless it has already been reaped (its pid may be reused)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)


@dataclass
class Forker:
    """A forking process, started and waiting on its stdin for the services to fork."""

    pid: int
    spec_fd: int  # the write end of its stdin
    report_fd: int  # where it writes each forked pid, a line each, until it exits
    inner_report_fd: int  # that pipe's write end as the forking process numbers it
    env: dict[str, str]  # what it was started with
    popen: subprocess.Popen[bytes] | None = None  # held, so subprocess never reaps it for us

    def close(self) -> None:
        """Give up on it: it reads an empty spec, exits, and is reaped."""
        for fd in (self.spec_fd, self.report_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        handle = Adopted(self.pid, ARGS)
        try:
            handle.wait(5.0)
        except subprocess.TimeoutExpired:
            handle.kill()
            handle.wait()


def launch(env: dict[str, str]) -> Forker:
    """Start a forking process with `env`; it loads the shared imports while it waits."""
    spec_read, spec_write = os.pipe()
    report_read, report_write = os.pipe()
    try:
        popen = subprocess.Popen(
            ARGS,
            stdin=spec_read,
            env=env,
            pass_fds=(report_write,),
            preexec_fn=die_with_parent,
        )
    except BaseException:
        for fd in (spec_write, report_read):
            os.close(fd)
        raise
    finally:
        os.close(spec_read)
        os.close(report_write)
    return Forker(popen.pid, spec_write, report_read, report_write, env, popen)


def prestart() -> None:
    """Called by `proofgym up` before it parses its options: launch the forking process now,
    so that it loads the services' imports while the command line checks the options, and
    hand it over, across the exec, to the supervisor (`take_prestarted`)."""
    forker = launch(dict(os.environ))
    os.set_inheritable(forker.spec_fd, True)
    os.set_inheritable(forker.report_fd, True)
    handover = [forker.pid, forker.spec_fd, forker.report_fd, forker.inner_report_fd]
    os.environ[HANDOVER_ENV] = json.dumps(handover)


_prestarted: Forker | None = None


def take_prestarted() -> None:
    """In the supervisor, first thing: take over the forking process `prestart` launched, if
    any (and keep its variable out of the services' environment)."""
    global _prestarted
    raw = os.environ.pop(HANDOVER_ENV, None)
    try:
        pid, spec_fd, report_fd, inner = json.loads(raw) if raw else (None, -1, -1, -1)
        if pid is None:
            return
        for fd in (spec_fd, report_fd):
            os.fstat(fd)
            os.set_inheritable(fd, False)
    except (ValueError, TypeError, OSError):
        return  # not ours to use: a started stack spawns its services then
    _prestarted = Forker(int(pid), spec_fd, report_fd, inner, dict(os.environ))


def discard_prestarted() -> None:
    """Close the prestarted forking process if the start did not use it."""
    global _prestarted
    if _prestarted is not None:
        _prestarted.close()
        _prestarted = None


def cancel_prestart() -> None:
    """In the command line, when `up` will not exec a supervisor (`--ray`): close the forking
    process `prestart` launched, and keep its variable from whatever starts next."""
    take_prestarted()
    discard_prestarted()


def start_forked(
    services: list[tuple[str, dict[str, str]]], nofile: int | None, timeout: float = 60.0
) -> list[Adopted] | None:
    """Fork each (name, environment) of `services` from one process that loaded their shared
    imports once (the prestarted one when it loads the same code); their handles, in order.
    None when forking cannot be used here (see the module): nothing was started then."""
    global _prestarted
    forker, _prestarted = _prestarted, None
    env = forker_env([env for _, env in services])
    if forker is not None and (env is None or forker_env([forker.env, env]) is None):
        forker.close()  # it would load other code than the services ask for
        forker = None
    if env is None or not sys.platform.startswith("linux"):
        return None
    if not prctl(PR_SET_CHILD_SUBREAPER, 1):
        if forker is not None:
            forker.close()
        return None
    try:
        forker = forker or launch(env)
        spec = {
            "supervisor": os.getpid(),
            "report_fd": forker.inner_report_fd,
            "nofile": nofile,
            "services": [{"name": name, "env": env} for name, env in services],
        }
        _write_all(forker.spec_fd, json.dumps(spec).encode())  # read once it has loaded
        os.close(forker.spec_fd)
        forker.spec_fd = -1
        report = _read_until_closed(forker.report_fd, time.monotonic() + timeout)
        code = Adopted(forker.pid, ARGS).wait(timeout)
        pids = [int(line) for line in report.split()]
        adopted = [
            Adopted(pid, [*ARGS, name]) for pid, (name, _) in zip(pids, services, strict=False)
        ]
        if code != 0 or len(pids) != len(services):
            for child in adopted:
                child.kill()
                child.wait()
            return None
        return adopted
    except (OSError, ValueError, subprocess.TimeoutExpired):
        if forker is not None:
            forker.close()
        return None
    finally:
        if forker is not None:
            with contextlib.suppress(OSError):
                os.close(forker.report_fd)
        # from now on an orphan of a service (a sandbox's process) goes to init as before
        prctl(PR_SET_CHILD_SUBREAPER, 0)


def forker_env(envs: list[dict[str, str]]) -> dict[str, str] | None:
    """The environment the forking process starts with: the services' own, when they agree on
    every variable that decides what Python imports and which libraries load (PYTHON*, LD_*);
    None when they do not, since one process cannot load two sets of modules for them."""
    if not envs:
        return None
    loading = [{k: v for k, v in env.items() if k.startswith(LOADING)} for env in envs]
    if any(vars != loading[0] for vars in loading[1:]):
        return None
    return envs[0]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_until_closed(fd: int, deadline: float) -> bytes:
    """All `fd` gives until every writer has closed it; TimeoutExpired past `deadline`."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise subprocess.TimeoutExpired(ARGS, 0.0)
        chunk = os.read(fd, 4096)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def preload() -> None:
    """Import what every service imports before building its app (measured: ~730 modules)."""
    from proofgym.serving.lean_imports import openai_types_only

    openai_types_only()
    with warnings.catch_warnings():  # as FastAPI imports pydantic.v1: quietly
        warnings.simplefilter("ignore")
        for name in SHARED:
            importlib.import_module(name)


def _become_service(service: dict[str, Any], supervisor: int, nofile: int | None) -> int:
    """In a forked child: this service's environment and limits; adoption by the supervisor;
    then serve. The exit status."""
    import random

    random.seed()  # not the forking process's state, shared by every sibling
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.environ.clear()
    os.environ.update(service["env"])
    soft_nofile(nofile)
    deadline = time.monotonic() + ADOPTION_WAIT_S
    while os.getppid() != supervisor:  # the forking process exits once all are forked
        if time.monotonic() > deadline:
            return 1
        time.sleep(0.001)
    die_with_parent()
    if os.getppid() != supervisor:  # it died between the check and the request
        return 1
    from proofgym_stack.service_main import main as service_main

    return service_main([service["name"]])


def main() -> None:
    """The forking process: read the spec from stdin, load the shared imports, fork each
    service, report each pid (a line each) and exit."""
    preload()  # while the supervisor (or the command line before it) gets ready
    raw = sys.stdin.buffer.read()
    if not raw:  # given up on: `up` stopped at its options, or the stack does not fork
        os._exit(0)
    spec = json.loads(raw)
    report_fd = int(spec["report_fd"])
    sys.stdout.flush()
    sys.stderr.flush()
    for service in spec["services"]:
        pid = os.fork()
        if pid == 0:
            os.close(report_fd)
            code = 1
            try:
                code = _become_service(service, int(spec["supervisor"]), spec["nofile"])
            except SystemExit as exc:  # uvicorn exits so when it cannot bind
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.write(report_fd, f"{pid}\n".encode())
    os._exit(0)


if __name__ == "__main__":
    main()
