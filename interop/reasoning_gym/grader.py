"""reasoning-gym's graders behind a wall: each runs in a worker process with a deadline.

`GraderPool.score` sends a final message to a worker (`worker.py`), which reads the answer with
reasoning-gym's own `extract_answer` and scores it with the dataset's own `score_answer`. What
the grader does wrong is the grader's fault and comes back as `GraderFailed` (raised, hung past
the deadline, crashed, answered no number): the environment turns it into a reward of 0 with a
check that says so, never a masked sample, since the policy's answer caused it. A hung or
crashed worker is killed and replaced. Only a worker that cannot start at all (the extra is
broken) is an outage: `GraderUnavailable`.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interop.reasoning_gym import worker as worker_module

#: how long one grading may take; reasoning-gym's graders answer in milliseconds, a sympy
#: parse of a hostile expression may never answer
GRADER_TIMEOUT_S = 10.0
#: how long a worker may take to import reasoning-gym
START_TIMEOUT_S = 60.0
#: worker processes per pool (each holds reasoning-gym imported: about 150 MB)
POOL_SIZE = 2
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


class GraderFailed(Exception):
    """The grader raised, hung, crashed or answered no number on this answer."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class GraderUnavailable(Exception):
    """No worker could be started: an outage, not an answer's fault."""


@dataclass(frozen=True)
class Graded:
    """What the grader made of one final message."""

    answer: str | None  #: the text between the last <answer> tags, None when there is none
    reward: float  #: the grader's number, as it answered it (not yet checked against a range)


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        args = [sys.executable, "-m", worker_module.__name__]
        for path in preload:
            args += ["--preload", path]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(_PROJECT_ROOT), env.get("PYTHONPATH", "")) if p
        )
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
            encoding="utf-8",
        )
        ready = self._read(START_TIMEOUT_S)
        if not isinstance(ready, dict) or not ready.get("ready"):
            self.kill()
            error = ready.get("error") if isinstance(ready, dict) else ready
            raise GraderUnavailable(f"the reasoning-gym grading worker did not start: {error}")

    def _read(self, timeout_s: float) -> Any:
        """The worker's next line as JSON; the string 'timeout' or 'closed' when none came."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        if not ready:
            return "timeout"
        line = self.proc.stdout.readline()
        if not line:
            return "closed"
        try:
            return json.loads(line)
        except ValueError:
            return "closed"

    def ask(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and wait for its answer; GraderFailed (and this worker dead) when
        the worker hung past `timeout_s` or died."""
        assert self.proc.stdin is not None
        started = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill()
            raise GraderFailed("crashed", "the grading worker had died") from None
        reply = self._read(timeout_s)
        if reply == "timeout":
            self.kill()
            raise GraderFailed("timeout", f"no answer within {timeout_s:g} s (killed)")
        if not isinstance(reply, dict):
            code = self.proc.poll()
            self.kill()
            waited = time.monotonic() - started
            raise GraderFailed(
                "crashed", f"the grading worker died after {waited:.1f} s (exit code {code})"
            )
        return reply

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


class GraderPool:
    """Up to `size` grading workers, started on first use, shared by every `rg_*` environment
    of a process; each call holds one worker for its whole exchange."""

    def __init__(
        self,
        size: int = POOL_SIZE,
        timeout_s: float = GRADER_TIMEOUT_S,
        preload: tuple[str, ...] = (),
    ) -> None:
        self.timeout_s = timeout_s
        self.preload = preload
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def score(
        self, dataset: str, config: dict[str, Any], entry: dict[str, Any], text: str
    ) -> Graded:
        """`dataset`'s grader on `text` (reasoning-gym's extraction first), for `entry` made
        with `config`. GraderFailed: the grader's fault; GraderUnavailable: an outage."""
        request = {"dataset": dataset, "config": config, "entry": entry, "text": text}
        with self._slots:
            worker = self._take()
            try:
                reply = worker.ask(request, self.timeout_s)
            finally:
                self._give_back(worker)
        if not reply.get("ok"):
            raise GraderFailed("raised", str(reply.get("error"))[:2000])
        reward = reply.get("reward")
        if not isinstance(reward, int | float) or isinstance(reward, bool):
            raise GraderFailed("not_a_number", f"the grader answered {reply.get('raw')}")
        answer = reply.get("answer")
        return Graded(answer=answer if isinstance(answer, str) else None, reward=float(reward))

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
        return _Worker(self.preload)

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if worker.alive():
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        """Stop every idle worker (a later call starts new ones)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
