"""Session registry of one environment: idempotent seed and close, idle TTL, capacity.

Every door (the resources server, `serve nemo-gym`, `serve openenv`) reaches sessions through
this class, so what it promises holds on all of them:
- a session id is checked here (`proofgym.wire.protocol.check_id`), whoever passed it on;
- no caller's string becomes a path: a session's workspace is named by the server;
- every session is owned: seeded without a key, it gets one minted here, and nothing touches
  it (tools, verify, close, renew) without that key.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import secrets
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from proofgym.wire.errors import AtCapacity, BadRequest, Conflict, NotFound
from proofgym.wire.protocol import Task, check_id
from resources_servers.base.environment import Environment

T = TypeVar("T")
#: how a registry runs a blocking step of one session (building or disposing of its state):
#: (the session's id, the step) -> its result. The resources server gives each environment's
#: registry its own fair pool (`FairExecutor`); alone, a registry uses a worker thread.
RunBlocking = Callable[[str, Callable[[], Any]], Awaitable[Any]]


async def in_a_thread(session_id: str, step: Callable[[], T]) -> T:
    """Run `step` in asyncio's default worker threads (a registry used on its own)."""
    return await asyncio.to_thread(step)


# what a task whose data the environment cannot use raises from create_state: the caller's to
# fix (400 invalid_task), not an outage to mask and retry. Only for an environment that checks
# no task data (no `task_data_model`): where the data passed its model, the same exception is
# the environment's own bug, a 500 the server logs (`task_fault`).
TASK_FAULTS = (KeyError, ValueError, TypeError, IndexError, OverflowError, AttributeError)


def task_fault(env: Any, exc: BaseException) -> bool:
    """Whether `exc`, raised by `env` building a session or its controls from a task, is the
    task's fault (unchecked data it cannot use) rather than the environment's own bug."""
    return isinstance(exc, TASK_FAULTS) and getattr(env, "task_data_model", None) is None


def same_key(key: str, given: str | None) -> bool:
    """Whether `given` is `key`, in constant time, whatever characters either holds (a header
    of non-ASCII bytes is refused, never a TypeError)."""
    if given is None:
        return False
    return hmac.compare_digest(_raw(key), _raw(given))


def _raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def mint_key() -> str:
    """A fresh session key: 192 random bits, URL-safe (it fits `check_id`)."""
    return secrets.token_urlsafe(24)


def checked_id(session_id: object) -> str:
    """`session_id` if it is a session id (`check_id`), else BadRequest `invalid_session_id`."""
    if not isinstance(session_id, str):
        raise BadRequest("a session id is a string", kind="invalid_session_id")
    try:
        return check_id(session_id)
    except ValueError as exc:
        raise BadRequest(f"session id: {exc}", kind="invalid_session_id") from None


class Session:
    """One live session. Slots keep an idle session small (see bench/RESULTS.md)."""

    __slots__ = (
        "key",
        "last_used",
        "lease_s",
        "ready",
        "session_id",
        "state",
        "task",
        "task_hash",
        "workdir",
    )

    def __init__(
        self,
        session_id: str,
        task: Task,
        task_hash: str,
        workdir: Path | None,
        lease_s: float | None = None,
    ) -> None:
        self.session_id = session_id
        self.lease_s = lease_s
        self.task = task
        self.task_hash = task_hash
        self.workdir = workdir
        self.state: Any = None
        self.ready: asyncio.Event | None = asyncio.Event()
        self.last_used = time.monotonic()
        self.key = ""  # the owner's capability, set by the registry at seed


class SessionRegistry:
    """The sessions of one environment.

    - Seeding the same id with the same task returns the existing session; with another task
      it is a Conflict (409). Seeding past `max_sessions` is AtCapacity (429).
    - Closing is idempotent. Sessions idle longer than `ttl_s`, or than their own lease when
      seeded with one (`renew` extends it), are reaped by `reap`, and their workdir removed.
    """

    def __init__(
        self,
        env: Environment[Any],
        root: Path,
        ttl_s: float,
        max_sessions: int,
        run_blocking: RunBlocking = in_a_thread,
    ) -> None:
        self.env = env
        self.root = root
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self.run_blocking = run_blocking
        self.sessions: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self.sessions)

    async def seed(
        self, session_id: str, task: Task, lease_s: float | None = None, key: str | None = None
    ) -> tuple[Session, bool]:
        """Return the session and whether it was created now. Every session is its seeder's
        alone: seeded without a `key`, it gets one minted (`session.key`, for the caller to
        keep); later calls need it, and a seed of its id with another key or none is a
        Conflict (`session_exists`), never a join. A lease never outlives the TTL."""
        session_id = checked_id(session_id)
        if key is not None:
            key = checked_id(key)
        task_hash = task.content_hash()
        if lease_s is not None:
            lease_s = min(lease_s, self.ttl_s)
        existing = self.sessions.get(session_id)
        if existing is not None and not same_key(existing.key, key):
            raise Conflict(f"session {session_id} already exists", kind="session_exists")
        if existing is not None:
            if existing.task_hash != task_hash:
                raise Conflict(
                    f"session {session_id} was seeded with another task", kind="session_conflict"
                )
            if existing.ready is not None:
                await existing.ready.wait()
                if session_id not in self.sessions:
                    raise Conflict(f"seeding session {session_id} failed", kind="seed_failed")
            existing.last_used = time.monotonic()
            return existing, False
        if len(self.sessions) >= self.max_sessions:
            raise AtCapacity(
                f"{self.env.name} holds {self.max_sessions} sessions, its maximum", retry_after=1.0
            )
        if task.env != self.env.name:
            raise BadRequest(
                f"task is for environment {task.env!r}, not {self.env.name!r}", kind="wrong_env"
            )
        if task.env_version is not None and task.env_version != self.env.version():
            raise Conflict(
                f"task was made for {self.env.name} version {task.env_version}, this server runs "
                f"{self.env.version()}",
                kind="env_version_mismatch",
            )
        try:
            self.env.validate_task(task)
        except ValueError as exc:
            raise BadRequest(f"task {task.task_id}: {exc}", kind="invalid_task") from None
        # named by the server: no caller's string ever becomes a path
        workdir = self.root / secrets.token_hex(16) if self.env.needs_workdir else None
        session = Session(session_id, task, task_hash, workdir, lease_s)
        session.key = key or mint_key()
        self.sessions[session_id] = session  # reserve before the first await
        try:
            if workdir is not None:
                build = functools.partial(self._create_in, workdir, task)
                session.state = await self.run_blocking(session_id, build)
            elif self._off_loop(session):
                build = functools.partial(self.env.create_state, task, None)
                session.state = await self.run_blocking(session_id, build)
            else:
                session.state = self.env.create_state(task, None)
        except BaseException as exc:
            self.sessions.pop(session_id, None)
            if workdir is not None:
                shutil.rmtree(workdir, ignore_errors=True)
            if task_fault(self.env, exc):  # unchecked task data cannot make a session
                raise BadRequest(
                    f"task {task.task_id}: {self.env.name} cannot build a session from it: "
                    f"{type(exc).__name__}: {str(exc)[:300]}",
                    kind="invalid_task",
                ) from None
            raise
        finally:
            assert session.ready is not None
            session.ready.set()
        session.ready = None
        return session, True

    def _create_in(self, workdir: Path, task: Task) -> Any:
        workdir.mkdir(parents=True, exist_ok=False)
        return self.env.create_state(task, workdir)

    def get(self, session_id: str, key: str | None = None) -> Session:
        """The live, fully seeded session, touched; NotFound otherwise, also for a session asked
        for without its key (which must not tell that it exists)."""
        session = self.sessions.get(session_id)
        if session is None or session.ready is not None or not same_key(session.key, key):
            shown = session_id[:128]
            raise NotFound(f"no session {shown!r} in {self.env.name}", kind="unknown_session")
        session.last_used = time.monotonic()
        return session

    async def close(self, session_id: str, key: str | None = None, *, force: bool = False) -> bool:
        """Close a session and remove its files; False when there was none (or `key` is not
        its key, unless the server itself closes it: `force`)."""
        session = self.sessions.get(session_id)
        if session is None:
            return False
        if not force and not same_key(session.key, key):
            return False
        if session.ready is not None:
            await session.ready.wait()
        if self.sessions.pop(session_id, None) is None:
            return False
        if self._off_loop(session):
            await self.run_blocking(session_id, functools.partial(self._dispose, session))
        else:
            self._dispose(session)  # an in-memory state, as it was built: nothing to wait on
        return True

    def _off_loop(self, session: Session) -> bool:
        """Whether building or disposing of this session's state waits on I/O (files, or an
        environment that says so), so it runs in a thread, never on the event loop."""
        return session.workdir is not None or self.env.blocking_state

    def _dispose(self, session: Session) -> None:
        try:
            if session.state is not None:
                self.env.close_state(session.state)
        finally:
            if session.workdir is not None:
                shutil.rmtree(session.workdir, ignore_errors=True)

    def renew(self, sessions: list[tuple[str, str]], now: float | None = None) -> list[str]:
        """Mark these (session id, key) pairs' sessions as in use now; return the ids not
        renewed: not open here, or not under that key (the two are not told apart)."""
        now = time.monotonic() if now is None else now
        unknown = []
        for session_id, key in sessions:
            session = self.sessions.get(session_id)
            if session is None or not same_key(session.key, key):
                unknown.append(session_id)
            else:
                session.last_used = now
        return unknown

    async def reap(self, now: float | None = None) -> list[str]:
        """Close every session idle past its lease, or past the TTL; return their ids."""
        now = time.monotonic() if now is None else now
        idle = [
            s.session_id
            for s in self.sessions.values()
            if s.ready is None and now - s.last_used > (s.lease_s or self.ttl_s)
        ]
        for session_id in idle:
            await self.close(session_id, force=True)
        return idle

    async def close_all(self) -> None:
        """Close every session (at shutdown)."""
        for session_id in list(self.sessions):
            await self.close(session_id, force=True)
