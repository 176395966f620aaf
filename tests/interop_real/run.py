"""The real peers, every direction (`make test-interop`): OpenEnv 0.10.0, NeMo Gym 0.7.0 and
skyrl-gym 0.4.0 with their own clients and servers, on loopback.

    .venv/bin/python tests/interop_real/run.py [--peers .interop]

Needs the peers' venvs (`make test-interop` builds them): PEERS/openenv (Python 3.11 with
openenv), PEERS/nemo (Python 3.13 with nemo-gym, installed with --ignore-requires-python), and
skyrl-gym in this venv (the `skyrl` extra). Prints one line per check and a closing
`N passed, N failed`; exits 1 when any check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PROOFGYM = str(ROOT / ".venv" / "bin" / "proofgym")
RESULTS: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    RESULTS.append((name, ok, detail))
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}"[:300], flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, seconds: float = 90, proc: subprocess.Popen[bytes] | None = None) -> bool:
    """Whether `url` answers within `seconds` (False at once if `proc` exits first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            time.sleep(0.3)
    return False


def post(url: str, body: Any) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


@contextlib.contextmanager
def started(cmd: list[str], log: Path, **kw: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A process in its own group, stopped (TERM, then KILL) on the way out."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kw
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_in(
    python: Path, script: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", script, *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def stored(db: Path) -> list[dict[str, Any]]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as c:
        return [json.loads(r[0]) for r in c.execute("select record from rollouts")]


# --- 1. OpenEnv clients play `proofgym serve openenv` ------------------------------------------

OPENENV_CLIENT = r"""
import json, sys
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient
from openenv.core.env_server.mcp_types import CallToolAction
url, r0, r1 = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
out = {}
with GenericEnvClient(base_url=url).sync() as env:
    res = env.reset(task=r0)
    out["reset"] = (not res.done and r0["responses_create_params"]["input"][0]["content"] in res.observation["prompt"]
                    and {t["name"] for t in res.observation["tool_schemas"]} >= {"calculator", "final_answer"})
    res = env.step({"type": "call_tool", "tool_name": "calculator", "arguments": {"expression": r0["task_data"]["expression"]}})
    out["calculator"] = (not res.done) and str(r0["task_data"]["answer"]) in json.dumps(res.observation)
    res = env.step({"type": "call_tool", "tool_name": "final_answer", "arguments": {"message": "\\boxed{%s}" % r0["task_data"]["answer"]}})
    out["final_right"] = res.done and res.reward == 1.0 and "checks" in json.dumps(res.metadata)
    env.reset(task=r0)
    res = env.step({"type": "call_tool", "tool_name": "final_answer", "arguments": {"message": "Answer: %s" % (r0["task_data"]["answer"] + 1)}})
    out["final_wrong"] = res.done and res.reward == 0.0
with MCPToolClient(base_url=url).sync() as env:
    res = env.reset(task_id=r1["task_id"])
    out["mcp_reset"] = r1["responses_create_params"]["input"][0]["content"] in json.dumps(res.observation.model_dump())
    out["mcp_tools"] = {"calculator", "final_answer"} <= {t.name for t in env.list_tools()}
    got = env.call_tool("calculator", expression=r1["task_data"]["expression"])
    out["mcp_call"] = str(r1["task_data"]["answer"]) in json.dumps(got)
    res = env.step(CallToolAction(tool_name="final_answer", arguments={"message": "Answer: %s" % r1["task_data"]["answer"]}))
    out["mcp_final"] = res.done and res.reward == 1.0
print(json.dumps(out))
"""


def direction_openenv_clients(peers: Path, work: Path) -> None:
    tasks = work / "math2.jsonl"
    tasks.write_text(
        "\n".join((ROOT / "tasks/math/example.jsonl").read_text().splitlines()[:2]) + "\n"
    )
    r0, r1 = rows(tasks)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [
        PROOFGYM,
        "serve",
        "openenv",
        "--env",
        "math",
        "--tasks",
        str(tasks),
        "--port",
        str(port),
    ]
    with started(cmd, work / "serve-openenv.log"):
        check("openenv: serve openenv is healthy", wait_http(f"{url}/health"))
        for route in ("metadata", "schema"):
            with urllib.request.urlopen(f"{url}/{route}") as answer:
                body = json.loads(answer.read())
            ok = "name" in body if route == "metadata" else {"action", "observation"} <= set(body)
            check(f"openenv: GET /{route}", ok)
        result = run_in(
            peers / "openenv/bin/python", OPENENV_CLIENT, url, json.dumps(r0), json.dumps(r1)
        )
        try:
            outcome = json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            outcome = {}
            check("openenv: OpenEnv's clients ran", False, result.stderr[-500:])
        for name, ok in outcome.items():
            check(f"openenv: {name} (OpenEnv's own client)", bool(ok))
        sys.path.insert(0, str(ROOT))
        from transformers.utils import get_json_schema

        from interop.trl_env import trl_env_class

        env_class = trl_env_class(url)
        schemas = [get_json_schema(getattr(env_class, n)) for n in ("calculator", "final_answer")]
        check("trl: tool schemas from get_json_schema", all(s["function"]["name"] for s in schemas))
        env = env_class()
        env.reset(prompt=[{"role": "user", "content": "?"}], task_id=r0["task_id"])
        env.calculator(expression=r0["task_data"]["expression"])  # type: ignore[attr-defined]
        env.final_answer(message=f"Answer: {r0['task_data']['answer']}")
        right = env.get_reward()
        env.reset(task_id=r0["task_id"])
        env.final_answer(message="Answer: 1")
        check("trl: environment_factory class", right == 1.0 and env.get_reward() == 0.0)


# --- 2 and 4. proofgym runs and validates the peers' servers ---------------------------------

ECHO_PREFLIGHT = r"""
import json, sys
from openenv.core.generic_client import GenericEnvClient
with GenericEnvClient(base_url=sys.argv[1]).sync() as env:
    env.reset()
    a = env.step({"message": "hello world!"}).reward
    env.reset()
    b = env.step({"message": "hi"}).reward
print(json.dumps([a, b]))
"""


def echo_tasks(path: Path) -> None:
    def turn(message: str) -> list[Any]:
        call = {
            "type": "function_call",
            "name": "step",
            "arguments": json.dumps({"message": message}),
        }
        return [[call], [{"type": "message", "content": "done"}]]

    lines = []
    for i in range(3):
        lines.append(json.dumps({
            "task_id": f"echo-{i:04d}", "env": "echo", "split": "example",
            "responses_create_params": {"input": [{"role": "user", "type": "message", "content":
                f"Task {i}: use the step tool to send a message of at least 10 characters, then say done."}]},
            "task_data": {"reset": {"seed": i}, "controls": [
                {"name": "reference", "expect": "pass", "script": turn("hello world!")},
                {"name": "short_message", "expect": "fail", "script": turn("hi")}]}}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n")


WEATHER_PREFLIGHT = r"""
import json, sys, urllib.request, http.cookiejar
url, row = sys.argv[1], json.loads(sys.argv[2])
def session():
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
def post(opener, path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.loads(opener.open(req).read())
claim = {"type": "message", "role": "assistant", "id": "m", "status": "completed",
         "content": [{"type": "output_text", "text": "Done. I have completed the task successfully and verified the result.", "annotations": []}]}
def response(items):
    return {"id": "r", "object": "response", "created_at": 0, "model": "m", "output": items,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
s = session(); post(s, "/seed_session", row)
out = post(s, "/get_weather", {"city": "qz/._x"})
call = {"type": "function_call", "name": "get_weather", "arguments": json.dumps({"city": "qz/._x"}), "call_id": "c", "id": "f", "status": "completed"}
ret = {"type": "function_call_output", "call_id": "c", "output": json.dumps(out)}
a = post(s, "/verify", {**row, "response": response([call, ret, claim])})["reward"]
s = session(); post(s, "/seed_session", row)
b = post(s, "/verify", {**row, "response": response([claim])})["reward"]
print(json.dumps([a, b]))
"""


def weather_tasks(source: Path, path: Path) -> None:
    call = {
        "type": "function_call",
        "name": "get_weather",
        "arguments": json.dumps({"city": "San Francisco"}),
    }
    lines = []
    for i, row in enumerate(rows(source)):
        row.update(env="weather", task_id=f"weather-{i}", controls=[
            {"name": "reference", "expect": "pass", "script": [[call], [{"type": "message", "content": "It is cold."}]]},
            {"name": "no_tool", "expect": "fail", "script": [[{"type": "message", "content": "Probably nice."}]]}])  # fmt: skip
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")


def nemo_config(**servers: dict[str, Any]) -> str:
    return json.dumps(
        {"head_server": {"host": "127.0.0.1", "port": free_port()}, "dry_run": False, **servers}
    )


def validate(name: str, tasks: Path, env: dict[str, str], work: Path) -> dict[str, bool]:
    result = subprocess.run(
        [PROOFGYM, "validate", name, "--tasks", str(tasks), "--sample", "2", "--parallel", "8", "--json"],
        capture_output=True, text=True, env=env, timeout=600, cwd=work,
    )  # fmt: skip
    try:
        report = json.loads(result.stdout)[0]
    except (ValueError, IndexError):
        check(f"{name}: validate ran", False, result.stderr[-400:])
        return {}
    print(f"      validate {name} exited {result.returncode}")
    return {v["name"]: v["passed"] for v in report["verdicts"]}


def rollout(
    tasks: Path, policy: str, agent: str, env: dict[str, str], work: Path
) -> list[dict[str, Any]]:
    db = work / f"{tasks.stem}-{policy}.db"
    subprocess.run(
        [PROOFGYM, "rollout", str(tasks), "--db", str(db), "--agent-url", agent, "--policy", policy],
        capture_output=True, text=True, env=env, timeout=600, cwd=work,
    )  # fmt: skip
    return stored(db)


def directions_bridges_and_nemo(peers: Path, work: Path) -> None:
    site = next((peers / "nemo/lib").glob("python3.*/site-packages"))
    nemo_python = peers / "nemo/bin/python"
    echo_dir = work / "echo_env"
    subprocess.run([str(peers / "openenv/bin/openenv"), "init", "echo_env"], cwd=work, check=True,
                   capture_output=True)  # fmt: skip
    app_py = echo_dir / "server" / "app.py"
    app_py.write_text(
        app_py.read_text().replace("max_concurrent_envs=1,", "max_concurrent_envs=64,")
    )
    echo_port, weather_port = free_port(), free_port()
    weather_cfg = nemo_config(weather_rs={"resources_servers": {"example_single_tool_call": {
        "entrypoint": "app.py", "domain": "agent", "verified": False, "description": "weather",
        "host": "127.0.0.1", "port": weather_port}}})  # fmt: skip
    weather_dir = site / "resources_servers/example_single_tool_call"
    echo_cmd = [str(peers / "openenv/bin/python"), "-m", "uvicorn", "server.app:app", "--host", "127.0.0.1",
                "--port", str(echo_port)]  # fmt: skip
    weather_env = {
        **os.environ,
        "NEMO_GYM_CONFIG_DICT": weather_cfg,
        "NEMO_GYM_CONFIG_PATH": "weather_rs",
    }
    with (
        started(echo_cmd, work / "echo.log", cwd=echo_dir),
        started(
            [str(nemo_python), "app.py"], work / "weather.log", cwd=weather_dir, env=weather_env
        ),
    ):
        echo_url, weather_url = f"http://127.0.0.1:{echo_port}", f"http://127.0.0.1:{weather_port}"
        check("openenv bridge: the echo env is up", wait_http(f"{echo_url}/health"))
        check(
            "nemo bridge: example_single_tool_call is up", wait_http(f"{weather_url}/openapi.json")
        )
        pre = run_in(peers / "openenv/bin/python", ECHO_PREFLIGHT, echo_url)
        check("openenv bridge: preflight, OpenEnv's client gets 1.0 and 0.2", pre.stdout.strip() == "[1.0, 0.2]",
              pre.stdout.strip() or pre.stderr[-300:])  # fmt: skip
        source = weather_dir / "data/example.jsonl"
        pre = run_in(nemo_python, WEATHER_PREFLIGHT, weather_url, json.dumps(rows(source)[1]))
        check("nemo bridge: preflight, nonsense call + claim = 1.0, claim alone = 0.0 (claim confirmed)",
              pre.stdout.strip() == "[1.0, 0.0]", pre.stdout.strip() or pre.stderr[-300:])  # fmt: skip
        echo_jsonl, weather_jsonl = work / "echo.jsonl", work / "weather.jsonl"
        echo_tasks(echo_jsonl)
        weather_tasks(source, weather_jsonl)
        bridges = json.dumps({"echo": f"openenv+{echo_url}", "weather": f"nemo-gym+{weather_url}"})
        env = {**os.environ, "PROOFGYM_BRIDGES": bridges}
        agent_port, res_port, model_port = free_port(), free_port(), free_port()
        up = [PROOFGYM, "up", "--agent-port", str(agent_port), "--resources-port", str(res_port),
              "--model-port", str(model_port)]  # fmt: skip
        with started(up, work / "up.log", env=env):
            agent = f"http://127.0.0.1:{agent_port}"
            check("proofgym up with both bridges", wait_http(f"{agent}/health", 120))
            ref = rollout(echo_jsonl, "reference", agent, env, work)
            check("openenv bridge: reference rollouts unmasked, reward 1, the peer echoed",
                  bool(ref) and all(r["reward"] == 1.0 and not r["mask_sample"] for r in ref)
                  and "hello world!" in json.dumps(ref[0]["response"]["output"]))  # fmt: skip
            short = rollout(echo_jsonl, "short_message", agent, env, work)
            check("openenv bridge: short_message rollouts unmasked, reward < 1",
                  bool(short) and all(r["reward"] < 1.0 and not r["mask_sample"] for r in short))  # fmt: skip
            ref = rollout(weather_jsonl, "reference", agent, env, work)
            check("nemo bridge: reference rollouts unmasked, reward 1, the server's own output",
                  bool(ref) and all(r["reward"] == 1.0 and not r["mask_sample"] for r in ref)
                  and "The weather in San Francisco is cold." in json.dumps(ref[0]["response"]["output"]))  # fmt: skip
            none = rollout(weather_jsonl, "no_tool", agent, env, work)
            check(
                "nemo bridge: no_tool rollouts reward 0",
                bool(none) and all(r["reward"] == 0.0 for r in none),
            )
            sky_check(f"http://127.0.0.1:{res_port}", work)
        got = validate("echo", echo_jsonl, env, work)
        for name in ("control:reference", "control:short_message", "negative:empty_answer",
                     "negative:garbage_text", "negative:claim_without_action", "determinism"):  # fmt: skip
            check(f"openenv bridge: validate {name} passed", got.get(name) is True)
        print(
            f"      (reported) negative:random_tool_calls passed={got.get('negative:random_tool_calls')}"
        )
        got = validate("weather", weather_jsonl, env, work)
        for name in ("control:reference", "control:no_tool", "negative:empty_answer",
                     "negative:garbage_text", "negative:claim_without_action"):  # fmt: skip
            check(f"nemo bridge: validate {name} passed", got.get(name) is True)
        check("nemo bridge: validate flags random_tool_calls (the example pays any get_weather call)",
              got.get("negative:random_tool_calls") is False)  # fmt: skip
    nemo_agent(peers, nemo_python, site, work)


FAKE_POLICY = str(HERE / "fake_policy.py")


def nemo_agent(peers: Path, nemo_python: Path, site: Path, work: Path) -> None:
    math = work / "math2.jsonl"
    nemo_rows = work / "math-nemo.jsonl"
    subprocess.run(
        [PROOFGYM, "nemo-rows", str(math), "--out", str(nemo_rows)], check=True, capture_output=True
    )
    converted = rows(nemo_rows)
    check("nemo agent: nemo-rows keeps task_id and inlines tools",
          all(r["task_id"] and r["responses_create_params"]["tools"] for r in converted))  # fmt: skip
    scripts = {}
    for i, row in enumerate(converted):
        data = row["task_data"]
        final = f"\\boxed{{{data['answer']}}}" if i == 0 else f"Answer: {data['answer'] + 1}"
        question = row["responses_create_params"]["input"][0]["content"]
        scripts[question] = [[{"type": "function_call", "name": "calculator",
                               "arguments": {"expression": data["expression"]}}],
                             [{"type": "message", "content": final}]]  # fmt: skip
    (work / "scripts.json").write_text(json.dumps(scripts))
    rp, mp, ap = free_port(), free_port(), free_port()
    config = nemo_config(
        policy_model={"responses_api_models": {"openai_model": {"entrypoint": "app.py", "host": "127.0.0.1", "port": mp}}},
        env_resources={"resources_servers": {"proofgym": {"entrypoint": "app.py", "domain": "agent", "verified": False,
                                                          "description": "proofgym", "host": "127.0.0.1", "port": rp}}},
        pg_simple_agent={"responses_api_agents": {"simple_agent": {
            "entrypoint": "app.py", "host": "127.0.0.1", "port": ap,
            "resources_server": {"type": "resources_servers", "name": "env_resources"},
            "model_server": {"type": "responses_api_models", "name": "policy_model"}}}},
    )  # fmt: skip
    agent_env = {
        **os.environ,
        "NEMO_GYM_CONFIG_DICT": config,
        "NEMO_GYM_CONFIG_PATH": "pg_simple_agent",
    }
    with (
        started([PROOFGYM, "serve", "nemo-gym", "--env", "math", "--port", str(rp)], work / "serve-nemo.log"),
        started([str(nemo_python), FAKE_POLICY, str(work / "scripts.json"), str(mp)], work / "policy.log"),
        started([str(nemo_python), "app.py"], work / "simple_agent.log",
                cwd=site / "responses_api_agents/simple_agent", env=agent_env),
    ):  # fmt: skip
        check("nemo agent: serve nemo-gym is healthy", wait_http(f"http://127.0.0.1:{rp}/health"))
        check("nemo agent: simple_agent is up", wait_http(f"http://127.0.0.1:{ap}/docs"))
        for i, row in enumerate(converted):
            try:
                out = post(f"http://127.0.0.1:{ap}/run", row)
            except OSError as exc:
                check(f"nemo agent: /run row {i}", False, str(exc))
                continue
            outputs = [
                x.get("output")
                for x in out["response"]["output"]
                if x.get("type") == "function_call_output"
            ]
            want = 1.0 if i == 0 else 0.0
            shown = str(row["task_data"]["answer"]) in json.dumps(outputs)
            check(f"nemo agent: simple_agent /run row {i} -> reward {want}", out["reward"] == want and shown,
                  f"reward {out['reward']}")  # fmt: skip


# --- 5. SkyRL ---------------------------------------------------------------------------------


def sky_check(resources_url: str, work: Path) -> None:
    import httpx
    import pyarrow.parquet as pq
    import skyrl_gym

    import interop.skyrl_env  # noqa: F401  registers "proofgym"

    tasks = work / "all-envs.jsonl"
    firsts = [(ROOT / f"tasks/{e}/example.jsonl").read_text().splitlines()[0]
              for e in ("code", "file_edit", "game", "letters", "math", "support", "workflow")]  # fmt: skip
    tasks.write_text("\n".join(firsts) + "\n")
    out = work / "skyrl.parquet"
    subprocess.run(
        [PROOFGYM, "skyrl-rows", str(tasks), "--out", str(out)], check=True, capture_output=True
    )
    for row in pq.read_table(out).to_pylist():
        task = json.loads(row["extra_info"]["task"])
        controls = httpx.post(f"{resources_url}/{task['env']}/controls", json={"task": task}).json()
        got = {}
        for name in ("reference", "noop_claim"):
            script = next(c["script"] for c in controls["controls"] if c["name"] == name)
            got[name] = play(skyrl_gym, resources_url, row, script)
        ref, noop = got["reference"], got["noop_claim"]
        ok = all(r.get("done") and not r["metadata"]["mask_sample"] for r in (ref, noop))
        check(
            f"skyrl: {task['env']} from a Parquet row to proofgym's reward",
            bool(ok) and ref["reward"] > noop["reward"],
            f"reference {ref.get('reward')}, noop_claim {noop.get('reward')}",
        )


def play(skyrl_gym: Any, resources_url: str, row: dict[str, Any], script: list[Any]) -> Any:
    """Play a control's script as model text through skyrl_gym.make("proofgym")."""
    env = skyrl_gym.make("proofgym", env_config={"resources_url": resources_url}, extras=row)
    env.init(row["prompt"])
    result: dict[str, Any] = {}
    for turn in script:
        parts = []
        for i in turn:
            if i["type"] == "function_call":
                args = (
                    json.loads(i["arguments"])
                    if isinstance(i["arguments"], str)
                    else i["arguments"]
                )
                parts.append(
                    "<tool_call>"
                    + json.dumps({"name": i["name"], "arguments": args})
                    + "</tool_call>"
                )
            else:
                parts.append(i["content"])
        result = env.step("".join(parts))
        if result["done"]:
            break
    env.close()
    return result


def counter_tasks(source: Path, path: Path) -> None:
    """NeMo Gym's example_session_state_mgmt rows ("add 1 then add 2 then get the count") with a
    reference, a violation that adds only once, and a no-op claim."""
    lines = []
    for i, row in enumerate(rows(source)):
        text = row["responses_create_params"]["input"][0]["content"]
        first, second = (int(n) for n in re.findall(r"\d+", text)[:2])

        def add(n: int) -> list[dict[str, Any]]:
            return [
                {
                    "type": "function_call",
                    "name": "increment_counter",
                    "arguments": json.dumps({"count": n}),
                }
            ]

        get = [{"type": "function_call", "name": "get_counter_value", "arguments": "{}"}]
        done = [{"type": "message", "content": f"The count is {row['expected_count']}."}]
        row.update(env="counter", task_id=f"counter-{i}", observes=["get_counter_value"], controls=[
            {"name": "reference", "expect": "pass", "script": [add(first), add(second), get, done]},
            {"name": "violation_adds_once", "expect": "fail", "script": [add(first), get, done]},
            {"name": "noop_claim", "expect": "fail", "script": [done]}])  # fmt: skip
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")


def nemo_counter(peers: Path, work: Path) -> None:
    """NeMo Gym's example_session_state_mgmt through the bridge: every verdict of validate is
    its own business; none may be a false alarm on this sound server (its two addends swapped
    are the same sum, which the plausible-wrong-arguments attack once took for a cheat)."""
    site = next((peers / "nemo/lib").glob("python3.*/site-packages"))
    folder = site / "resources_servers/example_session_state_mgmt"
    port = free_port()
    cfg = nemo_config(counter_rs={"resources_servers": {"example_session_state_mgmt": {
        "entrypoint": "app.py", "domain": "agent", "verified": False, "description": "counter",
        "host": "127.0.0.1", "port": port}}})  # fmt: skip
    env = {**os.environ, "NEMO_GYM_CONFIG_DICT": cfg, "NEMO_GYM_CONFIG_PATH": "counter_rs"}
    with started(
        [str(peers / "nemo/bin/python"), "app.py"], work / "counter.log", cwd=folder, env=env
    ):
        url = f"http://127.0.0.1:{port}"
        check("nemo bridge: example_session_state_mgmt is up", wait_http(f"{url}/openapi.json"))
        tasks = work / "counter.jsonl"
        counter_tasks(folder / "data/example.jsonl", tasks)
        bridges = {**os.environ, "PROOFGYM_BRIDGES": json.dumps({"counter": f"nemo-gym+{url}"})}
        got = validate("counter", tasks, bridges, work)
        failed = sorted(name for name, ok in got.items() if not ok)
        check("nemo bridge: example_session_state_mgmt validates with no false alarm",
              bool(got) and not failed, ", ".join(failed))  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=ROOT / ".interop")
    args = parser.parse_args()
    args.peers = args.peers.resolve()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="proofgym-interop-") as tmp:
        work = Path(tmp)
        steps: list[Callable[[Path, Path], None]] = [
            direction_openenv_clients,
            directions_bridges_and_nemo,
            nemo_counter,
        ]
        for step in steps:
            try:
                step(args.peers, work)
            except Exception as exc:  # one direction that crashes fails, the rest still run
                check(f"{step.__name__} ran", False, f"{type(exc).__name__}: {exc}")
        for log in sorted(work.glob("*.log")):
            if any(not ok for _, ok, _ in RESULTS):
                print(f"--- {log.name} (tail)\n{log.read_text(errors='replace')[-1500:]}")
    passed = sum(ok for _, ok, _ in RESULTS)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
