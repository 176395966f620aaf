"""The `reads` check: every file and environment variable the environment reads while it plays
must be declared, since its version and certificate cover only what is declared.

An environment's version hashes its source closure and the data files it declares
(`Environment.data_files`); the values of the variables it declares (`reward_settings`) are
stamped on each rollout and matched by the gate. A file or a variable read by the
environment's code but not declared can move the reward while the version and the admitted
identity stay put, so the check replays the environment's controls (every control of the
first task, the reference of the others) and records, while they run:

- every file opened for reading (a `sys.addaudithook` hook on "open") whose opener is a
  module of the environment's source closure: the first frame below the opening call that is
  not the standard library's (so `Path.read_text` in a verifier counts; a library's own reads
  do not);
- every variable read through `os.environ` / `os.getenv` by such code (the audit events do
  not cover these: `os.environ` is replaced, only while the check runs, by a subclass that
  records the keys it is asked for).

Not findings: Python source and bytecode (the version hashes code), the sessions' folders and
any file or folder the process made while the check ran (scratch, not data), the kernel's
views (`/proc`, `/sys`, `/dev`), and the variables that locate programs and temporary space
(`PLATFORM_VARIABLES`). Reads at import time happen before the check and are not seen:
declare those files all the same.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from proofgym_stack.validation.context import Context

#: variables that say where programs and temporary space are: the platform's, not a reward's
PLATFORM_VARIABLES = frozenset({"PATH", "HOME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL"})
_SYSTEM_ROOTS = ("/proc/", "/sys/", "/dev/")
_STDLIB = tuple(
    {str(Path(sysconfig.get_paths()[k]).resolve()) + os.sep for k in ("stdlib", "platstdlib")}
)


def _is_stdlib(filename: str) -> bool:
    """Whether code at `filename` is the interpreter's own library (a virtualenv's `platstdlib`
    holds its `site-packages`: those are installed distributions, not the library)."""
    if filename.startswith("<"):  # frozen modules
        return True
    installed = "site-packages" in filename or "dist-packages" in filename
    return filename.startswith(_STDLIB) and not installed


class Recorder:
    """What the environment's code read while recording: path -> the reading line, and
    variable -> the reading line."""

    def __init__(self, code_files: set[str]) -> None:
        self.code_files = code_files
        self.files: dict[str, str] = {}
        self.variables: dict[str, str] = {}
        self.written: set[str] = set()
        self.folders: set[str] = set()
        self.lock = threading.Lock()

    def reader(self, frame: FrameType | None) -> str | None:
        """`file:line` of the environment's code that made the read starting at `frame` (the
        first frame outside the standard library and this module), or None when that frame is
        not the environment's."""
        while frame is not None:
            name = frame.f_code.co_filename
            if frame.f_code.co_name.lstrip("_").startswith("rmtree"):
                return None  # a folder removed (its entries opened by name to unlink): no read
            if name != __file__ and not _is_stdlib(name):
                return f"{name}:{frame.f_lineno}" if name in self.code_files else None
            frame = frame.f_back
        return None


_active: Recorder | None = None
_hooked = False


def _on_audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: a read-only open by the environment's code, while a recorder is on.
    No I/O here (an open inside the hook would call it again)."""
    recorder = _active
    if recorder is None or not args or not isinstance(args[0], (str, Path)):
        return
    if event == "os.mkdir":  # a folder made while recording is scratch, and all under it
        with recorder.lock:
            recorder.folders.add(os.fspath(args[0]))
        return
    if event != "open":
        return
    mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
    writes = (
        any(c in mode for c in "wax+")
        if isinstance(mode, str)
        else isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
    )
    if writes:  # a file this process writes is scratch, not data: its reads are not findings
        with recorder.lock:
            recorder.written.add(os.fspath(args[0]))
        return
    if isinstance(flags, int) and flags & getattr(os, "O_DIRECTORY", 0):
        return  # a folder listed (a tree walked or removed): the files read in it are seen
    where = recorder.reader(sys._getframe(1))
    if where is not None:
        with recorder.lock:
            recorder.files.setdefault(os.fspath(args[0]), where)


class _TracingEnviron(os._Environ):  # type: ignore[type-arg]
    """`os.environ` that records the keys the environment's code asks for; it shares the real
    mapping's storage, so writes through either are seen by both."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        super().__init__(
            inner._data, inner.encodekey, inner.decodekey, inner.encodevalue, inner.decodevalue
        )
        self._recorder = recorder

    def __getitem__(self, key: str) -> str:
        where = self._recorder.reader(sys._getframe(1))
        if where is not None:
            with self._recorder.lock:
                self._recorder.variables.setdefault(str(key), where)
        value: str = super().__getitem__(key)
        return value


@contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    """Record the environment's reads into `recorder` for the duration (one at a time)."""
    global _active, _hooked
    if not _hooked:  # an audit hook cannot be removed: one, idle unless a recorder is on
        sys.addaudithook(_on_audit)
        _hooked = True
    real = os.environ
    _active = recorder
    # not a new environment: the tracer shares the real one's storage (B003 is about clearing)
    os.environ = _TracingEnviron(real, recorder)  # noqa: B003
    try:
        yield recorder
    finally:
        os.environ = real  # noqa: B003
        _active = None


def _declared_files(env: Any) -> list[Path]:
    return [path for _, path in type(env).declared_data_files()]


def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _is_finding(path: str, declared: list[Path], workdirs: list[Path]) -> bool:
    if path.endswith((".py", ".pyc")) or path.startswith(_SYSTEM_ROOTS):
        return False
    resolved = Path(path).resolve()
    if any(resolved == d or resolved.is_relative_to(d) for d in declared):
        return False
    return not any(resolved.is_relative_to(w) for w in workdirs)


def undeclared(
    env: Any, recorder: Recorder, workdirs: list[Path]
) -> tuple[dict[str, str], dict[str, str]]:
    """(file -> reading line, variable -> reading line) of the reads `env` does not declare."""
    declared = _declared_files(env)
    names = {n.upper() for n in type(env).reward_settings} | PLATFORM_VARIABLES
    files = {
        p: w
        for p, w in recorder.files.items()
        if p not in recorder.written
        and _is_finding(p, declared, [*workdirs, *map(_resolved, recorder.folders)])
    }
    variables = {v: w for v, w in recorder.variables.items() if v.upper() not in names}
    return files, variables


async def check_reads(ctx: Context) -> None:
    """Replay the controls while recording the environment's reads; a file or a variable it
    reads without declaring it fails the check, named with the line that read it."""
    from resources_servers.base.identity import source_closure

    env = ctx.env
    code = {str(p) for p in source_closure(type(env)).values()}
    code |= {str(Path(p).resolve()) for p in code}
    plays = []
    for n, task in enumerate(ctx.tasks):
        controls = ctx.controls.get(task.task_id, [])
        plays += [(task, c) for c in controls if n == 0 or c.role == "reference"]
    if not plays:
        ctx.not_applicable("reads", "no control to replay")
        return
    with recording(Recorder(code)) as recorder:
        for task, control in plays:
            body = {
                "task": task.model_dump(mode="json"),
                "model_params": {"model": "scripted", "script": control.script},
            }
            await ctx.post("http://agent/run", body)
    workdirs = [Path(ctx.stack.resources.state.host.root).resolve()]  # the sessions' folders
    files, variables = undeclared(env, recorder, workdirs)
    found = [f"file {p} (read at {w})" for p, w in sorted(files.items())]
    found += [f"variable {v} (read at {w})" for v, w in sorted(variables.items())]
    if found:
        ctx.verdict(
            "reads",
            False,
            f"{len(found)} undeclared reads decide the reward unseen by the version: "
            + "; ".join(found[:6])
            + ". Declare the files in `data_files` and the variables in `reward_settings`",
        )
    else:
        ctx.verdict(
            "reads",
            True,
            f"{len(plays)} control replays read {len(recorder.files)} files and "
            f"{len(recorder.variables)} variables, all declared or the platform's",
        )
