"""The trusted harness that runs a submission inside the sandbox (standard library only).

Started as `python -I -S -B harness.py CONFIG_JSON` with:
- stdin: `{"function": NAME, "cases": [[arg, ...], ...]}`: arguments only; the expected values
  never enter the sandbox;
- descriptor `CONFIG.channel_fd`: the result channel, read by the server;
- the submission at `CONFIG.solution`.

The harness forks. The child closes the result channel before it touches the submission, sets
the resource limits, drops to the run's unprivileged uid (when started as root), imports the
submission and calls it on every case, and writes what it computed to a pipe of its own. The
parent, which the submission cannot reach (another uid when started as root, and not dumpable,
so its descriptors cannot be opened through /proc), reads that pipe with a size limit,
checks its shape, and writes one result line to the channel. Whatever the submission prints,
forges or corrupts, it can only change the values it is judged on, which it could have
returned anyway; a malformed answer is reported as such, never passed on.
"""

import ctypes
import json
import os
import resource
import signal
import sys
from typing import Any

MAX_ANSWER_BYTES = 8 * 1024 * 1024
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
libc = ctypes.CDLL(None, use_errno=True)


def limit(cfg: dict[str, Any]) -> None:
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
    """Become `uid` with no supplementary groups: from root, that also clears every capability."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def child(cfg: dict[str, Any], spec: dict[str, Any], out: int) -> None:
    """Run the submission on every case; write `{"results": [...]}` or `{"import_error"}`."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    limit(cfg)
    if cfg.get("drop_to") is not None:
        drop(cfg["drop_to"])
    workdir = os.path.dirname(cfg["solution"])
    os.chdir(workdir)
    sys.path[:] = [workdir] + [p for p in sys.path if p.startswith(sys.base_prefix)]

    def emit(payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        while data:
            data = data[os.write(out, data) :]

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


def read_answer(fd: int) -> bytes | None:
    """Everything the child wrote, or None past MAX_ANSWER_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            return None
        chunks.append(chunk)


def judge_answer(raw: bytes | None, cases: int, exit_code: int) -> dict[str, Any]:
    """The one result line for the server, from what the child wrote (hostile data)."""

    def died() -> dict[str, Any]:
        why = f"exit code {exit_code}"
        if exit_code < 0:
            why = f"killed by signal {signal.Signals(-exit_code).name}"
        return {"status": "crashed", "detail": why}

    if raw is None:
        return {"status": "protocol_error", "detail": f"answer over {MAX_ANSWER_BYTES} bytes"}
    if not raw.strip():
        return died()
    try:
        answer = json.loads(raw)
    except (ValueError, RecursionError):
        return {"status": "protocol_error", "detail": "the submission's process wrote non-JSON"}
    if isinstance(answer, dict) and set(answer) == {"import_error"}:
        return {"status": "import_error", "detail": str(answer["import_error"])[:400]}
    results = answer.get("results") if isinstance(answer, dict) else None
    if (
        not isinstance(results, list)
        or len(results) != cases
        or not all(_well_formed(r) for r in results)
    ):
        return {"status": "protocol_error", "detail": "the submission's process forged its answer"}
    if exit_code != 0:
        return died()
    return {"status": "ok", "results": results}


def _well_formed(result: object) -> bool:
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        return False
    if result["ok"]:
        return set(result) == {"ok", "value"}
    return set(result) == {"ok", "error"} and isinstance(result["error"], str)


def main() -> None:
    cfg = json.loads(sys.argv[1])
    channel = os.fdopen(cfg["channel_fd"], "w")
    spec = json.loads(sys.stdin.buffer.read())
    read_fd, write_fd = os.pipe()
    # Not dumpable before the fork, not after it: otherwise, in the window before the parent
    # got to it, a submission of the same uid could open the parent's channel via /proc.
    libc.prctl(PR_SET_DUMPABLE, 0)
    pid = os.fork()
    if pid == 0:
        try:
            channel.close()  # before anything of the submission runs
            os.close(read_fd)
            child(cfg, spec, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    if cfg.get("parent_uid") is not None:
        drop(cfg["parent_uid"])
    raw = read_answer(read_fd)
    if raw is None:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    verdict = judge_answer(raw, len(spec["cases"]), os.waitstatus_to_exitcode(status))
    channel.write(json.dumps(verdict))
    channel.close()


if __name__ == "__main__":
    main()
