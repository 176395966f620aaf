"""A cgroup per sandbox run: the kernel counts what no process watcher can see.

`TreeWatch` (watch.py) measures the processes of a run that are alive when it looks, every
50 ms. What belongs to no live process escapes it: SysV shared memory or tmpfs pages left by
children that exited (one run held 2.3 GB against a 576 MB limit), and CPU spent by children
shorter than one sample and already reaped (17 CPU-s against a 5 s limit). A cgroup charges
all of it to the run: its memory limit is the kernel's (the run is killed by the kernel's OOM
killer inside its own group), its process count is the kernel's (`pids.max`), and its CPU
time is the group's whole usage, reaped children included.

Two layouts, whichever the host gives:
- **v2** where the host delegates a subtree to this process's cgroup (`memory` and `pids`
  in its `cgroup.subtree_control`): one group per run under it;
- **v1** where the `memory`, `pids` and `cpuacct` hierarchies are mounted and writable (root
  on hosts that mount v1, as these machines do): one group per run in each, under this
  process's own group.

Where neither is usable, `CgroupSupport.detect()` says why, the sandbox says so in its
description (`/info`, `proofgym envs`, `validate`), and the run falls back to the process
watcher alone: no limit is claimed that the kernel does not hold.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct")


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """This process's cgroup path in each hierarchy ("" for v2), from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


@dataclass(frozen=True)
class CgroupSupport:
    """Where runs' cgroups go on this host: `version` 1 or 2 and the parent of each run's group
    (one per controller for v1), or `version` 0 and `problem` saying why there are none."""

    version: int
    parents: tuple[tuple[str, Path], ...] = ()
    problem: str = ""

    @classmethod
    def detect(cls, root: Path = ROOT) -> CgroupSupport:
        """The layout this host gives a process like this one (see the module docstring)."""
        try:
            own = _own_paths(Path("/proc/self/cgroup").read_text())
        except OSError as exc:
            return cls(0, problem=f"cannot read /proc/self/cgroup: {exc}")
        v2 = cls._v2(root, own)
        if v2 is not None:
            return v2
        parents = []
        for name in V1_CONTROLLERS:
            mount = root / name
            if not (mount / "cgroup.procs").exists():
                break
            parent = mount / own.get(name, "/").lstrip("/")
            if not _writable_dir(parent):
                return cls(0, problem=f"the cgroup v1 {name} hierarchy is not writable here")
            parents.append((name, parent))
        if len(parents) == len(V1_CONTROLLERS):
            return cls(1, tuple(parents))
        return cls(
            0,
            problem="no cgroup to account runs in: cgroup v2 is not delegated to this process "
            "(memory and pids in its cgroup.subtree_control) and v1 memory, pids and cpuacct "
            "are not all mounted writable",
        )

    @classmethod
    def _v2(cls, root: Path, own: dict[str, str]) -> CgroupSupport | None:
        for mount in (root / "unified", root):
            if not (mount / "cgroup.controllers").exists():
                continue
            base = mount / own.get("", "/").lstrip("/")
            try:
                enabled = (base / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if {"memory", "pids"} <= set(enabled) and _writable_dir(base):
                return cls(2, (("", base),))
        return None

    @property
    def usable(self) -> bool:
        """Whether runs get a cgroup of their own here."""
        return self.version in (1, 2)

    def sweep_stale(self) -> list[Path]:
        """Remove the run groups of server processes that are gone (killed mid-run, they
        could not); return them. A group is named with its server's process id."""
        swept = []
        for _, parent in self.parents:
            for group in parent.glob("proofgym-run-*"):
                owner = group.name.split("-")[2]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    stale = RunCgroup.adopt(self, group.name)
                    stale.kill()
                    stale.remove()
                    swept.append(group)
        return swept

    def describe(self) -> str:
        """One phrase for the sandbox's description: what holds a run's limits."""
        if self.usable:
            return f"limits per run by the kernel (cgroup v{self.version}: memory, pids, cpu)"
        return (
            "limits per process tree only (no cgroup: shared memory, tmpfs pages and reaped "
            f"children are not counted; {self.problem})"
        )


class RunCgroup:
    """The cgroup(s) of one run: made with its limits, entered by the run's first process,
    read while it runs, emptied and removed after."""

    def __init__(self, support: CgroupSupport, memory_bytes: int, pids: int) -> None:
        self.support = support
        name = f"proofgym-run-{os.getpid()}-{secrets.token_hex(6)}"
        self.groups = {ctl: parent / name for ctl, parent in support.parents}
        for group in self.groups.values():
            group.mkdir()
        try:
            if support.version == 2:
                group = self.groups[""]
                (group / "memory.max").write_text(str(memory_bytes))
                with contextlib.suppress(OSError):  # swap, where the host has it
                    (group / "memory.swap.max").write_text("0")
                (group / "pids.max").write_text(str(pids))
            else:
                memory = self.groups["memory"]
                (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
                with contextlib.suppress(OSError):
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
                (self.groups["pids"] / "pids.max").write_text(str(pids))
        except BaseException:
            self.remove()
            raise

    @classmethod
    def adopt(cls, support: CgroupSupport, name: str) -> RunCgroup:
        """The existing groups called `name` (to empty and remove them), made by no one here."""
        group = cls.__new__(cls)
        group.support = support
        group.groups = {ctl: parent / name for ctl, parent in support.parents}
        return group

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` run by a shell that first moves itself into the run's groups: every process
        of the run is born inside them, none can fork before it is counted."""
        targets = [str(g / "cgroup.procs") for g in self.groups.values()]
        moves = " && ".join(f'echo $$ > "${i + 1}"' for i in range(len(targets)))
        script = f'{moves} && shift {len(targets)} && exec "$@"'
        return ["/bin/sh", "-c", script, "sh", *targets, *argv]

    def cpu_seconds(self) -> float:
        """CPU time of every process the run ever had, reaped children included."""
        try:
            if self.support.version == 2:
                for line in (self.groups[""] / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec"):
                        return int(line.split()[1]) / 1e6
                return 0.0
            return int((self.groups["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return 0.0

    def memory_killed(self) -> bool:
        """Whether the kernel killed a process of the run for going over its memory limit."""
        group = self.groups["" if self.support.version == 2 else "memory"]
        name = "memory.events" if self.support.version == 2 else "memory.oom_control"
        try:
            for line in (group / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def _pids(self) -> list[int]:
        group = next(iter(self.groups.values()))
        try:
            return [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """Kill every process of the run, wherever it went (a new session, a double fork)."""
        if self.support.version == 2:
            with contextlib.suppress(OSError):
                (self.groups[""] / "cgroup.kill").write_text("1")
        for _ in range(50):
            pids = self._pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Remove the run's groups (after `kill`; a group with a process in it stays)."""
        for group in self.groups.values():
            for _ in range(20):
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # its last processes are still being reaped
