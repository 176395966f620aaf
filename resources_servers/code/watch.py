"""Limits for a whole run, not each of its processes: a watched process tree, and uid ranges
of their own for each server process.

`setrlimit` limits one process: a submission that forks eight children gets eight times the
memory and CPU of its "per-run" limit (one run held 2.6 GB under a 512 MB limit). `TreeWatch`
measures every process of a run together (their proportional memory, their CPU time, their
tasks) and says when the run is over its limits, so the sandbox kills the whole run.

Runs drop to a uid of their own per slot, and `RLIMIT_NPROC` counts per uid: two server
processes on one host that numbered their slots from the same base shared those counts, so a
hostile run in one made an honest run in the other fail. `claim_uid_base` gives each server
process a range no other process on the host holds, for as long as it lives (an flock).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from resources_servers.code.cgroups import RunCgroup

PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def tree(root: int) -> list[int]:
    """`root` and every process it started, still alive."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += _children(pid)
    return found


def _memory(pid: int) -> int:
    """Proportional set size in bytes (shared pages split between their holders: a fork's
    copy-on-write pages count once), else the resident set."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _cpu_and_tasks(pid: int) -> tuple[float, int]:
    """CPU seconds of the process and of its reaped children, and its thread count."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0, 0
    # fields from state (3rd in man proc): utime 14, stime 15, cutime 16, cstime 17, threads 20
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / TICKS, int(fields[17])


class TreeWatch:
    """The processes of one run, measured together against the run's limits. With the run's
    cgroup (`group`), its CPU time is the kernel's count for the whole run: children that
    lived shorter than one look and were reaped count too."""

    def __init__(
        self,
        root: int,
        *,
        memory_mb: int,
        cpu_s: float,
        tasks: int,
        group: RunCgroup | None = None,
    ) -> None:
        self.root = root
        self.memory = memory_mb * 1024 * 1024
        self.cpu_s = cpu_s
        self.tasks = tasks
        self.group = group
        self.peak_memory = 0

    def over(self) -> str | None:
        """Why the run is over a limit, all its processes together; None while within them."""
        pids = tree(self.root)
        memory = sum(_memory(p) for p in pids)
        cpu, tasks = 0.0, 0
        for p in pids:
            c, t = _cpu_and_tasks(p)
            cpu, tasks = cpu + c, tasks + t
        if self.group is not None:
            cpu = max(cpu, self.group.cpu_seconds())
        self.peak_memory = max(self.peak_memory, memory)
        if memory > self.memory:
            return (
                f"the run used {memory >> 20} MB, over its {self.memory >> 20} MB limit "
                f"(all its {len(pids)} processes together)"
            )
        if cpu > self.cpu_s:
            return (
                f"the run used {cpu:.1f} s of CPU, over its {self.cpu_s:g} s limit (all together)"
            )
        if tasks > self.tasks:
            return f"the run had {tasks} processes and threads, over its limit of {self.tasks}"
        return None


def claim_uid_base(slots: int, first: int = 61000, ranges: int = 64) -> tuple[int, int | None]:
    """A uid base no other live process on this host holds, and the descriptor of the lock
    that holds it (keep it open; it is released when the process dies). Falls back to `first`
    with no lock when no range is free or locks cannot be taken."""
    folder = Path("/run/lock") if os.access("/run/lock", os.W_OK) else Path(tempfile.gettempdir())
    for k in range(ranges):
        base = first + k * slots
        try:
            fd = os.open(folder / f"proofgym-uids-{base}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            return first, None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return base, fd
    return first, None
