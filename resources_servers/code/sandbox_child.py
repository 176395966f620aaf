"""Runs inside the sandbox: isolate, drop privileges, import the submission, call it.

Started as `python -I -B sandbox_child.py CONFIG_JSON` with the scratch folder (holding
`solution.py` and `cases.json`) as working directory; prints one result line to stdout.

As root it isolates first: new mount, network and PID namespaces; fresh small tmpfs over /tmp,
/var/tmp and /dev/shm (the only writable places); the files copied into /tmp/work; then a
child that is PID 1 of the new namespace (so every process the submission starts dies with it)
sets resource limits and switches to an unprivileged uid of its own before importing anything
of the submission. Without root it can only set the resource limits.
"""

# Imported before privileges are dropped: afterwards the interpreter's own folder may be
# unreadable (it lives under /root on some machines). A submission may use any of these.
import abc  # noqa: F401
import array  # noqa: F401
import bisect  # noqa: F401
import cmath  # noqa: F401
import collections
import collections.abc  # noqa: F401
import copy  # noqa: F401
import ctypes
import dataclasses  # noqa: F401
import datetime  # noqa: F401
import decimal  # noqa: F401
import encodings.idna  # noqa: F401  (socket needs it for host names)
import enum  # noqa: F401
import fractions  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import json
import math  # noqa: F401
import numbers  # noqa: F401
import operator  # noqa: F401
import os
import random  # noqa: F401
import re  # noqa: F401
import resource
import signal
import socket  # noqa: F401  (so a test of the network namespace is a real one)
import statistics  # noqa: F401
import string  # noqa: F401
import sys
import textwrap  # noqa: F401
import typing  # noqa: F401
import unicodedata  # noqa: F401

MARK = "@@proofgym-result@@"
CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID = 0x00020000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def isolate(files: dict[str, str], uid: int, tmpfs_mb: int) -> None:
    """New namespaces, private writable places, the files in /tmp/work owned by `uid`."""
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID), "unshare")
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    opts = f"size={tmpfs_mb}m,mode=1777".encode()
    for place in (b"/tmp", b"/var/tmp", b"/dev/shm"):
        if os.path.isdir(place):
            _check(libc.mount(b"tmpfs", place, b"tmpfs", MS_NOSUID | MS_NODEV, opts), "mount")
    os.mkdir("/tmp/work", 0o700)
    for name, content in files.items():
        with open(f"/tmp/work/{name}", "w") as f:
            f.write(content)
        os.chown(f"/tmp/work/{name}", uid, uid)
    os.chown("/tmp/work", uid, uid)
    os.chdir("/tmp/work")


def limit(cfg: dict[str, int]) -> None:
    """Resource limits of the submission's process and everything it starts."""
    mb = 1024 * 1024
    for which, value in (
        (resource.RLIMIT_CPU, cfg["cpu_s"]),
        (resource.RLIMIT_AS, cfg["memory_mb"] * mb),
        (resource.RLIMIT_FSIZE, cfg["file_mb"] * mb),
        (resource.RLIMIT_NPROC, cfg["nproc"]),
        (resource.RLIMIT_NOFILE, 64),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(which, (value, value))


def drop(uid: int) -> None:
    """Become `uid`, with no supplementary groups: no way back to root."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def emit(payload: dict[str, object]) -> None:
    out = sys.__stdout__
    assert out is not None
    out.write("\n" + MARK + json.dumps(payload) + "\n")
    out.flush()


def harness() -> None:
    """Import the submission and call its function on every case (arguments only: the
    expected values never enter the sandbox, so a submission cannot fake a pass)."""
    with open("cases.json") as f:
        spec = json.load(f)
    sys.path[:] = [os.getcwd()] + [p for p in sys.path if p.startswith(sys.base_prefix)]
    try:
        import solution  # type: ignore[import-not-found]

        fn = getattr(solution, spec["function"])
    except BaseException as exc:
        emit({"import_error": f"{type(exc).__name__}: {str(exc)[:300]}"})
        return
    results = []
    for args in spec["cases"]:
        try:
            value = fn(*args)
            json.dumps(value)
            results.append({"ok": True, "value": value})
        except BaseException as exc:
            results.append({"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
    emit({"results": results})


def main() -> None:
    cfg = json.loads(sys.argv[1])
    if cfg["isolate"]:
        files: dict[str, str] = {}
        for name in ("solution.py", "cases.json"):
            with open(name) as f:
                files[name] = f.read()
        isolate(files, cfg["uid"], cfg["tmpfs_mb"])
        pid = os.fork()  # PID 1 of the new namespace: when it ends, everything in it ends
        if pid == 0:
            libc.prctl(1, signal.SIGKILL)  # and it ends if we are killed
            limit(cfg)
            drop(cfg["uid"])
            harness()
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        sys.exit(code if code >= 0 else 128 - code)
    limit(cfg)
    harness()


if __name__ == "__main__":
    main()
