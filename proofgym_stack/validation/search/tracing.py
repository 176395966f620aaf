"""What `verify` did on each rollout: the lines it ran, the world it was handed, what it raised.

`VerifyTrace` wraps one environment instance's `verify` (the instance `validate` owns, served
in-process) while the search runs: each call records the lines of the environment's own
package and of the verifier library that ran (coverage.py's API: each call its own dynamic
context of a measurement the trace keeps, measured on the thread that verifies), the
fingerprint of the state it judged, and the exception that escaped it, if any. The search
plays one rollout at a time, so the last record is its rollout's; a lock keeps two verifies
from sharing one measurement.
"""

from __future__ import annotations

import inspect
import re
import sys
import sysconfig
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import coverage

from proofgym_stack.validation.search.world import World, fingerprint

VERIFIERS = Path(__file__).resolve().parents[3] / "resources_servers" / "verifiers"

Line = tuple[str, int]

#: verifies one coverage measurement records before a fresh one takes over
CALLS_PER_MEASUREMENT = 256


@dataclass
class VerifyRecord:
    """One call of `verify`: the lines it ran, the world it read, and what it raised."""

    lines: frozenset[Line] = frozenset()
    world: World = field(default_factory=dict)
    error: str | None = None


def source_files(env: Any) -> list[str]:
    """The files whose lines count as the verifier's: the package of each class of the
    environment outside the framework and the standard library, and the verifier library."""
    files: set[Path] = {VERIFIERS}
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    for cls in type(env).__mro__:
        module = sys.modules.get(cls.__module__)
        path = getattr(module, "__file__", None)
        if path is None or cls.__module__.startswith("resources_servers.base"):
            continue
        here = Path(path).resolve()
        if here.is_relative_to(stdlib) or "site-packages" in here.parts:
            continue
        package = here.parent
        own = "." in cls.__module__ and (package / "__init__.py").exists()
        files.add(package if own and package.name != "resources_servers" else here)
    return [str(p / "*") if p.is_dir() else str(p) for p in sorted(files)]


class VerifyTrace:
    """Records each call of `env.verify` while installed (a context manager)."""

    def __init__(self, env: Any, lines: bool = True) -> None:
        self.env = env
        self.records: list[VerifyRecord] = []
        self.include = source_files(env) if lines else []
        self._lock = threading.Lock()
        self._original: Callable[..., Any] | None = None
        self._cov: coverage.Coverage | None = None

    def __enter__(self) -> VerifyTrace:
        self._original = self.env.verify
        self.env.verify = self._traced
        return self

    def __exit__(self, *exc: object) -> None:
        if self._original is not None:
            self.env.verify = self._original

    def _coverage(self) -> coverage.Coverage | None:
        """The one measurement of this trace (each verify its own dynamic context): a new
        `Coverage` per call would scan the interpreter's install paths every time."""
        if not self.include:
            return None
        # a fresh one now and then: its data (every call's lines) would grow without end
        if self._cov is None or len(self.records) % CALLS_PER_MEASUREMENT == 0:
            self._cov = coverage.Coverage(data_file=None, include=self.include, config_file=False)
            # the tracing core: sys.monitoring's (the default on newer Pythons) records no
            # dynamic contexts, which tell one call's lines from the next's
            self._cov.set_option("run:core", "ctrace")
        return self._cov

    def last(self) -> VerifyRecord | None:
        """The record of the latest verify (None before the first)."""
        return self.records[-1] if self.records else None

    def _traced(self, state: Any, task: Any, response: Any) -> Any:
        assert self._original is not None
        with self._lock:
            record = VerifyRecord()
            try:
                record.world = fingerprint(state)
            except Exception as exc:  # a state we cannot walk is no reason to fail verify
                record.world = {".": f"<unwalkable: {type(exc).__name__}>"}
            cov = self._coverage()
            context = f"verify-{len(self.records)}"
            try:
                if cov is not None:
                    cov.start()
                    cov.switch_context(context)
                try:
                    return self._original(state, task, response)
                finally:
                    if cov is not None:
                        cov.stop()
                        record.lines = _lines_of(cov, context)
            except Exception as exc:
                record.error = describe(exc)
                raise
            finally:
                self.records.append(record)


def _lines_of(cov: coverage.Coverage, context: str) -> frozenset[Line]:
    """The lines `cov` measured under dynamic context `context` alone."""
    data = cov.get_data()
    data.set_query_contexts([f"^{re.escape(context)}$"])
    try:
        return frozenset((f, n) for f in data.measured_files() for n in data.lines(f) or ())
    finally:
        data.set_query_contexts(None)


def describe(exc: BaseException) -> str:
    """`ZeroDivisionError: division by zero (env.py:42 in verify)`: the exception and the
    innermost line of the environment's code it came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    for frame in reversed(frames):
        if "/proofgym_stack/" not in frame.filename:
            where = f" ({Path(frame.filename).name}:{frame.lineno} in {frame.name})"
            break
    return f"{type(exc).__name__}: {exc}"[:200] + where


def is_async(fn: Any) -> bool:
    """Whether `fn` is a coroutine function (a verify we cannot wrap as a plain call)."""
    return inspect.iscoroutinefunction(fn)
