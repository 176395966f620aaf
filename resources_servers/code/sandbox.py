"""Runs untrusted Python in a subprocess sandbox (see sandbox_child.py for what runs inside).

What protects the host, by mode:
- `full` (the server runs as root and may create namespaces; used here and in CI): a new
  network namespace (no network at all), a new mount namespace whose only writable places are
  16 MB tmpfs mounts private to the run, a new PID namespace (every process the submission
  starts dies with it), a uid of its own (no access to other sessions' files, which live in
  root-only folders), and resource limits: CPU seconds, address space, file size, processes,
  open files. A wall-clock timeout kills the whole run.
- `limited` (not root, or namespaces refused, as in a default Docker container): resource
  limits, a process group killed at the end, a wall-clock timeout and a scrubbed environment,
  but the submission can reach the network and read what the server's user can read. Run the
  resources server as root in its own VM or container if submissions are hostile.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from resources_servers.base.scratch import private_dir

CHILD = Path(__file__).with_name("sandbox_child.py")
MARK = "@@proofgym-result@@"
Status = Literal["ok", "timeout", "crashed", "import_error"]


@dataclass
class SandboxResult:
    """What one run produced: a status, one result per case, and the tail of stderr."""

    status: Status
    results: list[dict[str, Any]] = field(default_factory=list)
    detail: str = ""


def _probe_isolation() -> bool:
    """Whether a sandbox child can create its namespaces here."""
    if os.geteuid() != 0:
        return False
    code = (
        "import ctypes,os,sys\nlibc=ctypes.CDLL(None,use_errno=True)\n"
        "sys.exit(0 if libc.unshare(0x00020000|0x40000000|0x20000000)==0 else 1)"
    )
    try:
        return subprocess.run([sys.executable, "-I", "-c", code], timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


class Sandbox:
    """A pool of sandbox slots; `run` blocks (call it off the event loop)."""

    def __init__(
        self,
        *,
        cpu_s: int = 5,
        wall_s: float = 10.0,
        memory_mb: int = 512,
        file_mb: int = 4,
        nproc: int = 64,
        tmpfs_mb: int = 16,
        slots: int = 16,
        uid_base: int = 61000,
    ) -> None:
        self.limits = {
            "cpu_s": cpu_s,
            "memory_mb": memory_mb,
            "file_mb": file_mb,
            "nproc": nproc,
            "tmpfs_mb": tmpfs_mb,
        }
        self.wall_s = wall_s
        self.mode: Literal["full", "limited"] = "full" if _probe_isolation() else "limited"
        # One uid per slot: a run's process limit and its files are its own.
        self._uids: queue.Queue[int] = queue.Queue()
        for i in range(slots):
            self._uids.put(uid_base + i)
        self.root = private_dir("sandbox")  # 0700, the server's own
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.root, True)

    def run(self, source: str, function: str, cases: list[list[Any]]) -> SandboxResult:
        """Import `source` as `solution` and call `function(*args)` for each case."""
        uid = self._uids.get()
        scratch = Path(tempfile.mkdtemp(dir=self.root))
        try:
            (scratch / "solution.py").write_text(source)
            (scratch / "cases.json").write_text(json.dumps({"function": function, "cases": cases}))
            return self._run(scratch, uid)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            self._uids.put(uid)

    def _run(self, scratch: Path, uid: int) -> SandboxResult:
        cfg = {**self.limits, "uid": uid, "isolate": self.mode == "full"}
        if self.mode == "limited":
            os.chmod(scratch, 0o700)
        out_path, err_path = scratch / ".stdout", scratch / ".stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-B", str(CHILD), json.dumps(cfg)],
                cwd=scratch,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"},
                start_new_session=True,
            )
            try:
                code = proc.wait(timeout=self.wall_s)
            except subprocess.TimeoutExpired:
                self._kill(proc)
                return SandboxResult("timeout", detail=f"killed after {self.wall_s:g}s")
            finally:
                self._kill(proc)
        stdout = out_path.read_bytes()[-65536:].decode(errors="replace")
        stderr = err_path.read_bytes()[-2000:].decode(errors="replace")
        lines = [ln for ln in stdout.splitlines() if ln.startswith(MARK)]
        if not lines:
            why = f"exit code {code}" + (
                f" ({signal.Signals(code - 128).name})"
                if code > 128 and code - 128 in signal.valid_signals()
                else ""
            )
            return SandboxResult("crashed", detail=f"{why}; stderr: {stderr[-300:]}")
        payload = json.loads(lines[0][len(MARK) :])
        if "import_error" in payload:
            return SandboxResult("import_error", detail=payload["import_error"])
        return SandboxResult("ok", results=payload["results"], detail=stderr[-300:])

    @staticmethod
    def _kill(proc: subprocess.Popen[bytes]) -> None:
        # The process group: in limited mode, whatever the submission started; in full mode the
        # launcher, whose death takes the PID namespace with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def close(self) -> None:
        """Remove the sandbox's scratch root (also done when the sandbox is collected)."""
        self._cleanup()
