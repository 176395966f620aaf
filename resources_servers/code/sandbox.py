"""Runs untrusted Python: under bubblewrap, or not at all unless the operator says it is unsafe.

Modes:
- `bwrap` (the default): each run is a bubblewrap sandbox (see bwrap.py for what it sees and
  what it does not); the harness (harness.py) reports on a channel the submission cannot
  write. When bwrap is missing or cannot make its namespaces here, the sandbox is
  *unavailable*: `run` raises SandboxUnavailable, whose message says what to install or grant.
  Nothing falls back to weaker isolation by itself.
- `unsafe-no-isolation`: only when the operator asks for it by that name
  (`PROOFGYM_CODE_SANDBOX=unsafe-no-isolation`). Resource limits, a process group killed at
  the end, a wall-clock timeout and an empty environment, but the submission can read what
  the server's user can read and reach the network: for trusted submissions only.

Whatever a submission does, `run` answers a SandboxResult (never raises for it): `ok` with one
result per case, or `timeout`, `crashed`, `import_error` or `protocol_error` with a reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from resources_servers.code import bwrap
from resources_servers.code.cgroups import CgroupSupport, RunCgroup
from resources_servers.code.watch import TreeWatch, claim_uid_base
from resources_servers.sdk import JSONTooDeep, SandboxUnavailable, loads_limited, private_dir

log = logging.getLogger("proofgym.code")
SandboxMode = Literal["bwrap", "unsafe-no-isolation"]
Status = Literal["ok", "timeout", "crashed", "import_error", "protocol_error"]
NOBODY = 65534
WATCH_EVERY_S = 0.05  # how often a run's process tree is measured
# the harness, bwrap and the interpreter before the submission: not the submission's to spend
WATCH_SLACK_MB = 64
#: processes and threads of bwrap, the namespace's init and the harness, beyond the run's own
PIDS_SLACK = 8
MAX_CHANNEL_BYTES = 16 * 1024 * 1024


@dataclass
class SandboxResult:
    """What one run produced: a status, one result per case, and a reason."""

    status: Status
    results: list[dict[str, Any]] = field(default_factory=list)
    detail: str = ""


class Sandbox:
    """A pool of sandbox slots, each with a uid of its own; `run` blocks (call it off the loop)."""

    def __init__(
        self,
        *,
        mode: SandboxMode = "bwrap",
        cpu_s: int = 5,
        wall_s: float = 10.0,
        memory_mb: int = 512,
        file_mb: int = 4,
        nproc: int = 64,
        tmpfs_mb: int = 16,
        slots: int = 16,
        uid_base: int | None = None,
        program: str | None = None,
        cgroups: CgroupSupport | None = None,
    ) -> None:
        self.limits = {
            "cpu_s": cpu_s,
            "memory_mb": memory_mb,
            "file_mb": file_mb,
            "nproc": nproc,
        }
        self.tmpfs_mb = tmpfs_mb
        self.wall_s = wall_s
        self.requested: SandboxMode = mode
        self.privileged = os.geteuid() == 0
        # One uid per slot: a run's process limit is its own, and no run can signal another;
        # a range of its own per server process, so another server's runs never share a uid.
        self._uid_lock: int | None = None
        if uid_base is None:
            uid_base, self._uid_lock = claim_uid_base(slots)
        self.uid_base = uid_base
        self._uids: queue.Queue[int] = queue.Queue()
        for i in range(slots):
            self._uids.put(uid_base + i)
        self.root = private_dir("sandbox")  # 0700, the server's own
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.root, True)
        self.program = program or bwrap.bwrap_path()
        # the kernel's accounting of each run, where the host offers it (cgroups.py)
        self.cgroups = cgroups or CgroupSupport.detect()
        if not self.cgroups.usable:
            log.warning("code sandbox: %s", self.cgroups.describe())
        self.cgroups.sweep_stale()  # groups of servers killed mid-run
        self._mounts = bwrap.mount_args() if mode == "bwrap" else []
        # The probe is a real sandboxed run (0.1-0.4 s): it runs beside the rest of the
        # server's start, and whatever needs its answer waits for it (`problem`).
        self._problem: str | None = None
        self._probing: threading.Thread | None = None
        if mode == "bwrap":
            self._probing = threading.Thread(target=self._record_probe, daemon=True)
            self._probing.start()

    def _record_probe(self) -> None:
        self._problem = self._probe()

    @property
    def problem(self) -> str | None:
        """Why submissions cannot run here (None: they can); waits for the start's probe."""
        if self._probing is not None:
            self._probing.join()
        return self._problem

    @property
    def mode(self) -> str:
        """`bwrap`, `unsafe-no-isolation`, or `unavailable` (see `problem`)."""
        return "unavailable" if self.problem else self.requested

    def describe(self) -> str:
        """One line for /info and `proofgym envs`: the mode and what it means."""
        if self.problem:
            return f"unavailable: {self.problem}"
        limits = self.cgroups.describe()
        if self.requested == "unsafe-no-isolation":
            return f"unsafe-no-isolation: submissions can read the host; {limits}"
        how = "a uid of its own per run" if self.privileged else "a user namespace"
        return f"bwrap: no network, no host files, fresh /proc and IPC, {how}; {limits}"

    def _probe(self) -> str | None:
        """Why bwrap cannot run submissions here, or None when a real run works."""
        if self.program is None:
            return (
                "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap); "
                "or set PROOFGYM_CODE_SANDBOX=unsafe-no-isolation for trusted code only"
            )
        try:
            result = self._run("def probe():\n    return 42\n", "probe", [[]], wall_s=30.0)
        except OSError as exc:
            result = SandboxResult("crashed", detail=f"{self.program}: {exc}")
        if result.status == "ok" and result.results == [{"ok": True, "value": 42}]:
            return None
        return (
            f"bubblewrap cannot create its sandbox here ({result.status}: "
            f"{result.detail.strip()[-300:]}); it needs user namespaces (or root), and in a "
            "container the seccomp, AppArmor and /proc settings of compose.yaml's resources "
            "service; or set PROOFGYM_CODE_SANDBOX=unsafe-no-isolation for trusted code only"
        )

    def run(self, source: str, function: str, cases: list[list[Any]]) -> SandboxResult:
        """Import `source` as `solution` and call `function(*args)` for each case."""
        if self.problem:
            raise SandboxUnavailable(f"the code sandbox is unavailable: {self.problem}")
        return self._run(source, function, cases)

    def _run(
        self, source: str, function: str, cases: list[list[Any]], wall_s: float | None = None
    ) -> SandboxResult:
        uid = self._uids.get()
        scratch = Path(tempfile.mkdtemp(dir=self.root))
        group = None
        try:
            if self.cgroups.usable:  # the run's own cgroup: the kernel counts all of it
                memory = (self.limits["memory_mb"] + WATCH_SLACK_MB) * 1024 * 1024
                group = RunCgroup(self.cgroups, memory, self.limits["nproc"] + PIDS_SLACK)
            spec = json.dumps({"function": function, "cases": cases}).encode()
            return self._launch(scratch, uid, source, spec, wall_s or self.wall_s, group)
        finally:
            if group is not None:
                group.kill()  # whatever of the run is left, wherever it went
                group.remove()
            shutil.rmtree(scratch, ignore_errors=True)
            self._uids.put(uid)

    def _launch(
        self,
        scratch: Path,
        uid: int,
        source: str,
        spec: bytes,
        wall_s: float,
        group: RunCgroup | None,
    ) -> SandboxResult:
        """One run of `source` on `spec` in `scratch`, as `uid`, under `group`'s limits. Long on
        purpose: every file descriptor, process and group it opens is closed in this one
        function, in an order that leaves nothing behind on any path out."""
        cfg: dict[str, Any] = {**self.limits}
        stdin = _memfile("cases", spec)
        solution = _memfile("solution", source.encode(errors="surrogatepass"))
        read_end, write_end = os.pipe()
        cfg["channel_fd"] = write_end
        if self.requested == "bwrap":
            if self.privileged:
                cfg.update(drop_to=uid, parent_uid=NOBODY)
            cfg["solution"] = bwrap.INSIDE_SOLUTION
            argv = bwrap.command(
                self.program or "bwrap",
                privileged=self.privileged,
                tmpfs_mb=self.tmpfs_mb,
                solution_fd=solution,
                config=json.dumps(cfg),
                mounts=self._mounts,
            )
        else:
            os.chmod(scratch, 0o700)
            (scratch / "solution.py").write_bytes(source.encode(errors="surrogatepass"))
            cfg["solution"] = str(scratch / "solution.py")
            argv = [bwrap.executable(), "-I", "-S", "-B", str(bwrap.HARNESS), json.dumps(cfg)]
        if group is not None:
            argv = group.wrap(argv)
        err_path = scratch / ".stderr"
        try:
            with open(err_path, "wb") as err:
                proc = subprocess.Popen(
                    argv,
                    cwd=scratch,
                    stdin=stdin,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"},
                    start_new_session=True,
                    pass_fds=(solution, write_end),
                )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            for fd in (stdin, solution, write_end):
                os.close(fd)
        deadline = time.monotonic() + wall_s
        # the run's processes together: setrlimit holds each one, not a run that forks
        watch = TreeWatch(
            proc.pid,
            memory_mb=self.limits["memory_mb"] + WATCH_SLACK_MB,
            cpu_s=self.limits["cpu_s"],
            tasks=self.limits["nproc"],
            group=group,
        )
        try:
            raw = _read_until_eof(read_end, deadline, watch)
            code = proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raw = None
        except OverLimit as exc:
            _kill(proc)
            return SandboxResult("crashed", detail=f"killed: {exc}")
        finally:
            os.close(read_end)
            _kill(proc)
        if group is not None and group.memory_killed():
            limit = self.limits["memory_mb"] + WATCH_SLACK_MB
            why = f"over its {limit} MB memory limit (all its memory together, the kernel's count)"
            return SandboxResult("crashed", detail=f"killed: {why}")
        over = watch.over()  # CPU its reaped children spent since the last look counts too
        if over is not None and group is not None:
            return SandboxResult("crashed", detail=f"killed: {over}")
        stderr = err_path.read_bytes()[-2000:].decode(errors="replace")
        if raw is None:
            return SandboxResult("timeout", detail=f"killed after {wall_s:g}s")
        return _judge(raw, code, stderr)

    def close(self) -> None:
        """Remove the sandbox's scratch root (also done when the sandbox is collected) and
        give its uid range back (after the start's probe, which uses both)."""
        if self._probing is not None:
            self._probing.join()
        self._cleanup()
        if self._uid_lock is not None:
            os.close(self._uid_lock)
            self._uid_lock = None


def _memfile(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding `data`, positioned at its start."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class OverLimit(Exception):
    """The run, all its processes together, went over a limit."""


def _read_until_eof(fd: int, deadline: float, watch: TreeWatch | None = None) -> bytes | None:
    """What the harness wrote on the channel, or None when the deadline passed first; raises
    OverLimit when `watch` finds the run over its limits meanwhile."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], min(left, WATCH_EVERY_S))
        if not ready:
            reason = watch.over() if watch is not None else None
            if reason is not None:
                raise OverLimit(reason)
            if deadline - time.monotonic() <= 0:
                return None
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size <= MAX_CHANNEL_BYTES:
            chunks.append(chunk)


def _judge(raw: bytes, code: int, stderr: str) -> SandboxResult:
    """The SandboxResult of what the harness said (or failed to say)."""
    tail = stderr.strip()[-300:]
    if not raw.strip():
        why = f"exit code {code}"
        if code < 0 or code > 128:
            number = -code if code < 0 else code - 128
            if number in signal.valid_signals():
                why += f" ({signal.Signals(number).name})"
        return SandboxResult("crashed", detail=f"the harness said nothing: {why}; stderr: {tail}")
    try:
        answer = loads_limited(raw, max_bytes=MAX_CHANNEL_BYTES, max_depth=256)
    except (ValueError, JSONTooDeep) as exc:
        return SandboxResult("protocol_error", detail=f"unreadable result: {exc}")
    status = answer.get("status") if isinstance(answer, dict) else None
    if status == "ok" and isinstance(answer.get("results"), list):
        return SandboxResult("ok", results=answer["results"], detail=tail)
    if status in ("crashed", "import_error", "protocol_error"):
        detail = str(answer.get("detail", ""))[:400]
        return SandboxResult(status, detail=f"{detail}; stderr: {tail}" if tail else detail)
    return SandboxResult("protocol_error", detail="the harness answered an unknown status")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    # The process group: bwrap (whose death takes its PID namespace with it), or in the unsafe
    # mode the harness and whatever the submission started.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
