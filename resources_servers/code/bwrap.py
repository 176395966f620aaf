"""The bubblewrap command line that runs one submission, and what it lets the submission see.

Inside, the submission sees only:
- the interpreter, its standard library (with any `site-packages` inside it covered by an
  empty tmpfs) and the system's shared libraries, all read-only;
- `/work` (its own copy of `solution.py`), `/tmp` and `/dev/shm`: small private tmpfs mounts,
  the only writable places, gone when the run ends;
- a minimal `/dev` and a fresh `/proc` of its own PID namespace (no host process is visible);
- no network (a new, empty network namespace), no IPC, no host name, an empty environment.

As root, bwrap keeps only CAP_SETUID and CAP_SETGID for the harness, which drops to the run's
own uid before the submission is imported (so the submission holds no capability and no
privilege). Without root, bwrap makes a user namespace, drops every capability and forbids
nested user namespaces.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

HARNESS = Path(__file__).with_name("harness.py")
SYSTEM_LIBS = ("/lib", "/lib32", "/lib64", "/libx32", "/usr/lib", "/usr/lib32", "/usr/lib64")
INSIDE_HARNESS = "/harness.py"
INSIDE_SOLUTION = "/work/solution.py"


def executable() -> str:
    """The real interpreter behind `sys.executable` (a venv's python is a link to it)."""
    return os.path.realpath(sys.executable)


def _interpreter_paths() -> tuple[list[str], list[str]]:
    """What to bind read-only for the interpreter to start, and what to cover with tmpfs."""
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    binds = [executable(), stdlib]
    dynload = sysconfig.get_config_var("DESTSHARED")
    if dynload and os.path.isdir(dynload):
        binds.append(os.path.realpath(dynload))
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
        if libdir and soname and os.path.exists(os.path.join(libdir, soname)):
            binds.append(os.path.realpath(os.path.join(libdir, soname)))
    covers = [
        os.path.join(stdlib, name)
        for name in ("site-packages", "dist-packages")
        if os.path.isdir(os.path.join(stdlib, name))
    ]
    return binds, covers


def mount_args() -> list[str]:
    """The bwrap arguments that build the sandbox's file system (parents before children)."""
    mounts: list[tuple[str, str, str]] = []  # (option, source, destination)
    for path in SYSTEM_LIBS:
        if os.path.islink(path):
            mounts.append(("--symlink", os.readlink(path), path))
        elif os.path.isdir(path):
            mounts.append(("--ro-bind", path, path))
    if os.path.isfile("/etc/ld.so.cache"):  # how the loader finds libraries outside /usr/lib
        mounts.append(("--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"))
    binds, covers = _interpreter_paths()
    for path in sorted(set(binds), key=lambda p: p.count("/")):
        if not any(_inside(path, dest) for _, _, dest in mounts):
            mounts.append(("--ro-bind", path, path))
    # The folders on the way to each mount are made 0755: bwrap makes them 0700 when it runs
    # as root, and the run's own uid must reach the libraries it loads after the drop.
    folders: list[str] = []
    for _, _, dest in mounts:
        for parent in reversed(Path(dest).parents[:-1]):
            folder = str(parent)
            if folder not in folders and not any(_inside(folder, d) for _, _, d in mounts):
                folders.append(folder)
    args: list[str] = []
    for folder in folders:
        args += ["--perms", "0755", "--dir", folder]
    for option, source, dest in mounts:
        args += [option, source, dest]
    for path in covers:
        args += ["--tmpfs", path]
    return args


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def command(
    program: str,
    *,
    privileged: bool,
    tmpfs_mb: int,
    solution_fd: int,
    config: str,
    mounts: list[str],
) -> list[str]:
    """The whole bwrap command line for one run; `solution_fd` is copied to /work/solution.py."""
    size = str(tmpfs_mb * 1024 * 1024)
    if privileged:
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        namespaces += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
        namespaces += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        namespaces = ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    return [
        program,
        *namespaces,
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        "--hostname",
        "sandbox",
        *mounts,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *("--perms", "1777", "--size", size, "--tmpfs", "/tmp"),
        *("--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"),
        *("--perms", "1777", "--size", size, "--tmpfs", "/work"),
        *("--perms", "0644", "--file", str(solution_fd), INSIDE_SOLUTION),
        *("--ro-bind", str(HARNESS), INSIDE_HARNESS),
        *("--chdir", "/work"),
        "--",
        executable(),
        "-I",
        "-S",
        "-B",
        INSIDE_HARNESS,
        config,
    ]


def bwrap_path() -> str | None:
    """Where the bwrap program is, or None."""
    return shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin:" + os.environ.get("PATH", ""))
