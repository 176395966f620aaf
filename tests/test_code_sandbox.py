"""The code sandbox attacked the way a policy would: each escape class ends scored 0, unmasked,
with the host untouched; honest code that uses the standard library scores 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import patience

from proofgym.serving.settings import ResourcesSettings
from proofgym_stack.testing import InProcessStack, in_process_stack
from resources_servers.code.cgroups import CgroupSupport
from resources_servers.code.env import CodeEnv
from resources_servers.code.exploits import FORGED_RESULT, MALFORMED_RESULT
from resources_servers.code.sandbox import Sandbox
from resources_servers.code.watch import claim_uid_base
from sdg.code import generate

ROOT = Path(__file__).resolve().parent.parent
TASKS = generate(6, seed=21)
TASK_FILE = ROOT / "tasks" / "code" / "example.jsonl"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox(wall_s=6, cpu_s=3, memory_mb=256)
    assert box.mode == "bwrap", box.problem  # the project installs bubblewrap: no excuses here
    yield box
    box.close()


@pytest.fixture
async def stack(sandbox: Sandbox) -> AsyncIterator[InProcessStack]:
    async with in_process_stack(envs={"code": CodeEnv(sandbox)}) as s:
        yield s


def solution(task: dict[str, Any], body: str, prelude: str = "") -> str:
    """A module defining the task's function with `body` (and `prelude` at import time)."""
    name = task["task_data"]["function"]
    return (
        textwrap.dedent(prelude)
        + f"\ndef {name}(*args):\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


def script(source: str, *extra: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    write = {
        "type": "function_call",
        "name": "write_file",
        "arguments": json.dumps({"path": "solution.py", "content": source}),
    }
    done = {"type": "message", "content": "Done: implemented, all tests pass."}
    return [[write], *extra, [done]]


async def rollout(stack: InProcessStack, task: dict[str, Any], steps: Any) -> dict[str, Any]:
    body = {"task": task, "model_params": {"model": "scripted", "script": steps}}
    r = await stack.run(body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def hidden(result: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in result["checks"] if c["name"] == "hidden_tests_pass")


def scored_zero(result: dict[str, Any]) -> bool:
    return result["reward"] == 0.0 and not result["mask_sample"] and not hidden(result)["passed"]


# A lookup table built from whatever holds the expected values: a task file on the host. It
# scored 1.0 on every example task when the sandbox could read the host's files.
HOST_FILES = """
import glob, json, os
TABLE = {}
for path in glob.glob("/**/*.jsonl", recursive=True) + [TASK_FILE]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        try:
            row = json.loads(line)
            for case in row["task_data"]["hidden_tests"]:
                TABLE[json.dumps(case["args"])] = case["expected"]
        except Exception:
            pass
"""


async def test_host_task_files_are_out_of_reach(stack: InProcessStack) -> None:
    rows = [json.loads(line) for line in TASK_FILE.read_text().splitlines() if line.strip()]
    for task in rows[:3]:
        source = solution(
            task,
            "return TABLE.get(json.dumps(list(args)))",
            HOST_FILES.replace("TASK_FILE", repr(str(TASK_FILE))),
        )
        result = await rollout(stack, task, script(source))
        assert scored_zero(result), result["checks"]


async def test_host_processes_are_invisible(stack: InProcessStack) -> None:
    task = TASKS[0]
    os.environ["PROOFGYM_TEST_CANARY"] = canary = "canary-" + os.urandom(8).hex()
    try:
        body = """
        import os
        seen = []
        for pid in os.listdir('/proc'):
            if pid.isdigit():
                for part in ('cmdline', 'environ'):
                    try:
                        raw = open(f'/proc/{pid}/{part}', 'rb').read()
                        seen.append(raw.decode(errors='replace'))
                    except OSError:
                        pass
        return ' '.join(seen)
        """
        result = await rollout(stack, task, script(solution(task, body)))
    finally:
        del os.environ["PROOFGYM_TEST_CANARY"]
    text = json.dumps(result)
    assert scored_zero(result)
    assert canary not in text and "pytest" not in hidden(result)["detail"]


async def test_the_server_cannot_be_killed_or_called(stack: InProcessStack) -> None:
    task = TASKS[0]
    me = os.getpid()
    body = f"""
    import os, signal, socket
    out = []
    for pid in ({me}, os.getppid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
            out.append(f'killed {{pid}}')
        except OSError as exc:
            out.append(type(exc).__name__)
    try:
        socket.create_connection(('127.0.0.1', 8001), timeout=1)
        out.append('connected')
    except OSError as exc:
        out.append(type(exc).__name__)
    return out
    """
    result = await rollout(stack, task, script(solution(task, body)))
    assert scored_zero(result)
    assert os.getpid() == me  # still here to assert it
    assert (await stack.client.get("http://resources/health")).status_code == 200


def _processes_of(uids: range, marker: str) -> list[int]:
    """The processes run as one of `uids` whose command line holds `marker`: this test's own
    (the suite's other workers run programs as the sandbox's users at the same time)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
        if int(uid_line.split()[1]) in uids and marker in cmdline:
            found.append(int(pid))
    return found


async def test_nothing_outlives_the_run(stack: InProcessStack) -> None:
    task = TASKS[0]
    marker = f"outlives-{uuid.uuid4().hex}"
    # the grandchild, in a session of its own, becomes a sleeper named by `marker`
    prelude = f"""
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            sleeper = "import time; time.sleep(60)"
            os.execv(sys.executable, [sys.executable, "-c", sleeper, "{marker}"])
        os._exit(0)
    """
    result = await rollout(stack, task, script(solution(task, "return None", prelude)))
    assert scored_zero(result)
    deadline = time.monotonic() + patience(5)
    while _processes_of(range(61000, 61100), marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_of(range(61000, 61100), marker) == []


@pytest.mark.parametrize(
    "prelude", [FORGED_RESULT, MALFORMED_RESULT], ids=["forged_pass", "malformed"]
)
async def test_forged_or_malformed_results_score_zero(stack: InProcessStack, prelude: str) -> None:
    for task in TASKS[:2]:
        result = await rollout(stack, task, script(solution(task, "return None", prelude)))
        assert scored_zero(result), result


async def test_no_host_path_is_writable_and_nothing_persists(stack: InProcessStack) -> None:
    task = TASKS[0]
    marker = "persist-" + os.urandom(6).hex()
    places = ["/run/lock", "/var/lock", "/var/tmp", "/dev/shm", "/tmp", "/work", "/root", "/"]
    body = f"""
    import os
    wrote = []
    for place in {places!r}:
        try:
            with open(os.path.join(place, {marker!r}), 'w') as f:
                f.write('x')
            wrote.append(place)
        except OSError:
            pass
    return wrote
    """
    first = await rollout(stack, task, script(solution(task, body)))
    assert scored_zero(first)
    for place in places:
        assert not Path(place, marker).exists(), place
    look = f"""
    import os
    return [p for p in {places!r} if os.path.exists(os.path.join(p, {marker!r}))]
    """
    second = await rollout(stack, task, script(solution(task, look)))
    assert "got []" in hidden(second)["detail"]  # a later run sees nothing of an earlier one


async def test_honest_code_using_the_standard_library_passes(stack: InProcessStack) -> None:
    for task in TASKS[:3]:
        data = task["task_data"]
        source = "import hashlib, queue, uuid, pprint, sqlite3, decimal\n\n" + data["solution"]
        scratch = {
            "type": "function_call",
            "name": "write_file",
            "arguments": json.dumps({"path": "tests_scratch.py", "content": "print(1)\n"}),
        }
        result = await rollout(stack, task, script(source, [scratch]))
        assert result["reward"] == 1.0, result["checks"]


def test_every_standard_library_module_imports(sandbox: Sandbox) -> None:
    probe = textwrap.dedent(
        """
        import importlib, sys
        def f():
            bad = []
            for name in sorted(sys.stdlib_module_names):
                try:
                    importlib.import_module(name)
                except Exception as exc:
                    bad.append(name)
            return bad
        """
    )
    outside = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe + "\nprint(' '.join(f()))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    inside = sandbox.run(probe, "f", [[]])
    assert inside.status == "ok", inside.detail
    assert set(inside.results[0]["value"]) <= set(outside)


def test_without_bwrap_the_environment_refuses_and_says_what_to_grant(tmp_path: Path) -> None:
    box = Sandbox(program=str(tmp_path / "no-bwrap-here"))
    assert box.mode == "unavailable"
    assert "bubblewrap" in box.describe() and "unsafe-no-isolation" in box.describe()
    with pytest.raises(Exception, match="unavailable"):
        box.run("def f():\n    return 1\n", "f", [[]])
    box.close()


async def test_an_unavailable_sandbox_refuses_sessions_with_503(tmp_path: Path) -> None:
    env = CodeEnv(Sandbox(program="/bin/false"))
    async with in_process_stack(envs={"code": env}) as s:
        info = (await s.client.get("http://resources/code/info")).json()
        assert info["sandbox"].startswith("unavailable")
        seeded = await s.client.post(
            "http://resources/code/seed_session",
            json={"session_id": "refused-session-0001", "task": TASKS[0]},
        )
        assert seeded.status_code == 503
        assert seeded.json()["error"]["kind"] == "sandbox_unavailable"
        assert "unsafe-no-isolation" in seeded.json()["error"]["message"]
    env.sandbox.close()


async def test_the_setting_picks_the_mode_and_info_shows_it() -> None:
    for mode, shown in (("bwrap", "bwrap:"), ("unsafe-no-isolation", "unsafe-no-isolation")):
        settings = ResourcesSettings(envs=["code"], code_sandbox=mode)  # type: ignore[arg-type]
        async with in_process_stack(resources_settings=settings) as s:
            info = (await s.client.get("http://resources/code/info")).json()
            assert info["sandbox"].startswith(shown)
            file_edit = (await s.client.get("http://resources/envs")).json()
            assert all(e["sandbox"] is None for e in file_edit if e["name"] != "code")


UNPRIVILEGED = """
import json, sys
from resources_servers.code.sandbox import Sandbox
box = Sandbox(memory_mb=256)
steal = '''
import os
def f():
    got = []
    for pid in os.listdir('/proc'):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                for fd in os.listdir(f'/proc/{pid}/fd'):
                    os.open(f'/proc/{pid}/fd/{fd}', os.O_WRONLY)
                    if int(pid) == os.getppid() or int(fd) > 2:  # the harness, or no stdio
                        got.append((pid, fd))
            except OSError:
                pass
    import ctypes
    # inherited from the harness: it was not dumpable before it forked (no race to win)
    dumpable = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)
    return [got, os.path.exists(%r), dumpable]
'''
honest = box.run("import hashlib\\ndef f(a):\\n    return a * 2\\n", "f", [[2]])
thief = box.run(steal % sys.argv[1], "f", [[]])
print(json.dumps([box.describe(), honest.status, honest.results, thief.status, thief.results]))
"""


def test_an_unprivileged_server_gets_the_full_sandbox_too() -> None:
    # The resources server in a container runs as a plain user: bwrap then makes a user
    # namespace and the harness cannot change uid, so its channel is guarded by not being
    # dumpable. Run that path for real, as `nobody`, with the system's interpreter (ours may
    # live under a 0700 /root).
    system_python = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if os.geteuid() != 0 or not system_python.exists():
        pytest.skip("needs root (to become nobody) and a system Python of this version")
    site = next(p for p in sys.path if p.endswith("site-packages"))
    out = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "env",
            "-i",
            "PATH=/usr/bin:/bin",
            f"PYTHONPATH={ROOT}:{site}",
            str(system_python),
            "-c",
            UNPRIVILEGED,
            str(TASK_FILE),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )
    assert out.returncode == 0, out.stderr[-2000:]
    mode, honest, honest_results, thief, thief_results = json.loads(out.stdout)
    assert mode.startswith("bwrap") and "user namespace" in mode
    assert (honest, honest_results) == ("ok", [{"ok": True, "value": 4}])
    assert thief == "ok"
    # no writable channel, no host task file, and the harness was not dumpable before it forked
    assert thief_results[0]["value"] == [[], False, 0]


# --- limits hold per run, not per process ------------------------------------------------------

FORK_AND_HOLD = """
import os, time
def f(*args):
    for _ in range(4):
        if os.fork() == 0:
            block = bytearray(90 * 1024 * 1024)  # each child under its own limit
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(30)
            os._exit(0)
    block = bytearray(90 * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(30)
    return 1
"""

FORK_AND_SPIN = """
import os
def f(*args):
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass
    while True:
        pass
"""


@pytest.mark.parametrize(("source", "limit"), [(FORK_AND_HOLD, "MB"), (FORK_AND_SPIN, "CPU")])
def test_a_run_that_forks_is_held_to_the_run_s_limits_together(source: str, limit: str) -> None:
    box = Sandbox(wall_s=20, cpu_s=2, memory_mb=200)
    try:
        result = box.run(source, "f", [[]])
    finally:
        box.close()
    assert result.status == "crashed", result
    assert limit in result.detail and "together" in result.detail


def test_each_server_process_gets_a_uid_range_of_its_own() -> None:
    one, two = Sandbox(slots=4), Sandbox(slots=4)
    try:
        assert one.uid_base != two.uid_base
        assert abs(one.uid_base - two.uid_base) >= 4  # the ranges do not overlap
    finally:
        one.close()
        two.close()
    # the claiming itself, on ranges of this test's own: another suite running beside this one
    # claims the shared default ranges, so which one is free there is not this test's to know
    first = 62000 + (os.getpid() % 400) * 8
    base, fd = claim_uid_base(4, first=first, ranges=2)
    assert base == first and fd is not None
    try:
        second, fd2 = claim_uid_base(4, first=first, ranges=2)
        assert second == first + 4 and fd2 is not None  # held: the next range
        os.close(fd2)
        # another server process on the host gets another range while this one holds its own
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                "from resources_servers.code.watch import claim_uid_base; "
                f"print(claim_uid_base(4, first={first}, ranges=2)[0])",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        assert other.returncode == 0, other.stderr
        assert int(other.stdout) == first + 4
    finally:
        os.close(fd)
    again, fd3 = claim_uid_base(4, first=first, ranges=2)  # a released range is free again
    assert again == first and fd3 is not None
    os.close(fd3)


# --- what belongs to no live process: counted by the run's cgroup -------------------------------

SHM_LEFT_BEHIND = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
libc.shmat.restype = ctypes.c_void_p
def f(*args):
    for _ in range(36):  # 36 x 64 MB of SysV shared memory, each left by a child that exits
        pid = os.fork()
        if pid == 0:
            segment = libc.shmget(0, 64 << 20, 0o1600)
            ctypes.memset(libc.shmat(segment, None, 0), 1, 64 << 20)
            os._exit(0)
        os.waitpid(pid, 0)
    return 1
"""

SHORT_CHILDREN_REAPED = """
import os, signal, time
def f(*args):
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # reaped by the kernel, never waited for
    start, n = time.time(), 0
    while time.time() - start < 8:
        if os.fork() == 0:  # each child spins for less than one look of a process watcher
            end = time.process_time() + 0.03
            while time.process_time() < end:
                pass
            os._exit(0)
        time.sleep(0.035)
        n += 1
    return n
"""


@pytest.mark.parametrize(
    ("source", "limit"),
    [(SHM_LEFT_BEHIND, "memory limit"), (SHORT_CHILDREN_REAPED, "s of CPU")],
    ids=["shared memory left by exited children", "short children reaped unwaited"],
)
def test_what_no_live_process_holds_is_counted_by_the_run_s_cgroup(source: str, limit: str) -> None:
    support = CgroupSupport.detect()
    box = Sandbox(wall_s=15, cpu_s=2, memory_mb=256)
    try:
        if not support.usable:  # then the sandbox must say so, never claim the limit
            assert "no cgroup" in box.describe() and "not counted" in box.describe()
            return
        assert "by the kernel (cgroup" in box.describe()
        result = box.run(source, "f", [[]])
        assert result.status == "crashed", result
        assert limit in result.detail, result.detail
        honest = box.run("def f(a):\n    return a + 1\n", "f", [[1]])
        assert honest.status == "ok" and honest.results == [{"ok": True, "value": 2}]
    finally:
        box.close()
    mine = f"proofgym-run-{os.getpid()}-*"
    leftovers = [g for _, parent in support.parents for g in parent.glob(mine)]
    assert leftovers == []  # every run's group removed


def test_the_groups_of_a_server_killed_mid_run_are_swept(tmp_path: Path) -> None:
    support = CgroupSupport.detect()
    if not support.usable:
        assert not support.sweep_stale()
        return
    dead = subprocess.Popen(["true"])
    dead.wait()
    name = f"proofgym-run-{dead.pid}-abcdef"
    for _, parent in support.parents:
        (parent / name).mkdir()
    Sandbox(wall_s=5).close()  # a new server sweeps what the dead one left
    assert not any((parent / name).exists() for _, parent in support.parents)


def test_cgroup_support_is_read_from_what_the_host_mounts(tmp_path: Path) -> None:
    own = Path("/proc/self/cgroup").read_text()
    # v1: memory, pids and cpuacct mounted (and this process's own groups in each)
    v1 = tmp_path / "v1"
    paths = {
        name: path for _, names, path in (line.split(":", 2) for line in own.splitlines())
        for name in names.split(",")
    }  # fmt: skip
    for name in ("memory", "pids", "cpuacct"):
        (v1 / name).mkdir(parents=True)
        (v1 / name / "cgroup.procs").write_text("")
        (v1 / name / paths.get(name, "/").lstrip("/")).mkdir(parents=True, exist_ok=True)
    found = CgroupSupport.detect(v1)
    assert found.version == 1 and [c for c, _ in found.parents] == ["memory", "pids", "cpuacct"]
    # only memory mounted: none, and why
    partial = tmp_path / "partial"
    (partial / "memory" / paths.get("memory", "/").lstrip("/")).mkdir(parents=True)
    (partial / "memory" / "cgroup.procs").write_text("")
    none = CgroupSupport.detect(partial)
    assert not none.usable and "not delegated" in none.problem
    # v2 with memory and pids delegated to this process's group
    v2 = tmp_path / "v2"
    base = v2 / paths.get("", "/").lstrip("/")
    base.mkdir(parents=True, exist_ok=True)
    (v2 / "cgroup.controllers").write_text("cpu memory pids")
    (base / "cgroup.subtree_control").write_text("cpu memory pids")
    delegated = CgroupSupport.detect(v2)
    assert delegated.version == 2 and delegated.parents == (("", base),)
    (base / "cgroup.subtree_control").write_text("cpu")  # not delegated: v2 is not used
    assert not CgroupSupport.detect(v2).usable
