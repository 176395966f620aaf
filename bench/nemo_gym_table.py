"""The peer table: `proofgym validate`, through the NeMo Gym bridge, on every resources server
the NeMo Gym 0.7.0 wheel ships (`make peer-table`).

    .venv/bin/python bench/nemo_gym_table.py [--peers .interop] [--only NAME ...] [--jobs 2]

For each server folder of the wheel, in order:
1. its config (`configs/*.yaml`, the entry that names it under `resources_servers`) is given
   its host and port; a model server it refers to (a judge) is pointed at an endpoint that
   answers 503 and counts the calls, so a verify that needs one shows it instead of calling
   out (or, with `--model-url`, at a model server on loopback: proofgym's model interface);
2. it is started alone, from its folder, with the peer's own Python and a home of its own; a
   server that does not come up is listed with the last error line of its log (a missing
   package of its `requirements.txt`, a dataset it downloads, a GPU);
3. a server without NeMo's `/verify` (the Gymnasium servers: `/reset`, `/step`) is listed as
   not bridged;
4. its example rows that have a full-reward example rollout become tasks whose `reference`
   replays that rollout (`interop/nemo_controls.py`); no such row, no task, with the reason;
5. `proofgym validate` runs on them: every verdict is recorded. A failed verdict is a finding
   about the server (a reward hole, a leak, nondeterminism), except where the reason says the
   peer's own setup limited it (a judge it needs, its capacity).

Writes bench/NEMO_GYM_TABLE.json and docs/peers.md (the table and how to reproduce it).
Nothing leaves loopback; nothing is downloaded by the harness (a server that downloads at
start fails to start here, and is listed with that reason).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop.nemo_controls import read_jsonl, task_rows  # noqa: E402
from tests.interop_real.run import free_port, started, wait_http  # noqa: E402

PROOFGYM = str(ROOT / ".venv" / "bin" / "proofgym")
START_S = 90.0
VALIDATE_S = 480.0
#: a model server (a judge) a server names is pointed here: an endpoint that answers every
#: request 503 at once, so a verify that needs a model fails visibly and fast (NeMo Gym's
#: client retries a refused connection forever; it does not retry an answer)
DEAD_MODEL = "proofgym_unserved_model"


class _NoModel(http.server.BaseHTTPRequestHandler):
    def _refuse(self) -> None:
        self.server.calls += 1  # type: ignore[attr-defined]
        body = b'{"error": {"kind": "no_model", "message": "no model is served to this peer"}}'
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _refuse

    def log_message(self, *args: Any) -> None:
        pass


@dataclass
class Row:
    """One server's line of the table."""

    name: str
    status: str = "not run"  # validated | not bridged | did not start | no reference | error
    reason: str = ""
    tasks: int = 0
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    model_refs: list[str] = field(default_factory=list)
    #: recorded full-reward rollouts that earned less when replayed (left out of the tasks)
    unreproduced: list[str] = field(default_factory=list)
    #: the judge its model references were served by (`--model-url`), else empty: none
    judge: str = ""
    #: requests its verify or tools sent to the model server it names (ours answers 503)
    model_calls: int = 0
    #: started only once its requirements.txt was installed (`--install`)
    installed: bool = False
    seconds: float = 0.0


def server_config(folder: Path) -> tuple[str, dict[str, Any]] | None:
    """The config entry that declares this folder's resources server: (top key, entry)."""
    import yaml  # the peers' configs are YAML; PyYAML comes with the project's dev tools

    for path in sorted((folder / "configs").glob("*.yaml")):
        try:
            doc = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError:
            continue
        for key, value in doc.items():
            servers = value.get("resources_servers") if isinstance(value, dict) else None
            if isinstance(servers, dict) and folder.name in servers:
                return key, servers[folder.name]
    return None


def model_refs(entry: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every `{type: responses_api_models, name: ...}` reference in a config entry."""
    if isinstance(entry, dict):
        if entry.get("type") == "responses_api_models" and "name" in entry:
            yield path, entry
        for key, value in entry.items():
            yield from model_refs(value, f"{path}.{key}" if path else str(key))
    elif isinstance(entry, list):
        for i, value in enumerate(entry):
            yield from model_refs(value, f"{path}[{i}]")


def config_dict(name: str, key: str, entry: dict[str, Any], port: int, dead: int) -> str:
    entry = json.loads(json.dumps(entry))  # a copy to edit
    for _, ref in model_refs(entry):
        ref["name"] = DEAD_MODEL
    entry.update(host="127.0.0.1", port=port)
    model = {"entrypoint": "app.py", "host": "127.0.0.1", "port": dead}
    return json.dumps(
        {
            "head_server": {"host": "127.0.0.1", "port": free_port()},
            "dry_run": False,
            key: {"resources_servers": {name: entry}},
            DEAD_MODEL: {"responses_api_models": {"openai_model": model}},
        }
    )


#: an exception's header line (`pkg.mod.SomeError: what`), or a line that names what is missing
ERROR_LINE = re.compile(
    r"([\w.]*(Error|Exception|Exit)\b:?.*|.*(No module named|not found|denied).*)"
)


def last_error(log: Path) -> str:
    """The line of a log that says why the process died: the last exception line, with the
    two lines after it for a validation error (the field and what is wrong with it)."""
    lines = (
        [ln.strip() for ln in log.read_text(errors="replace").splitlines()] if log.exists() else []
    )
    hits = [i for i, ln in enumerate(lines) if ERROR_LINE.match(ln)]
    if not hits:
        return (lines[-1] if lines else "no output")[:240]
    last = hits[-1]
    text = lines[last]
    if "ValidationError" in text:
        text = " ".join([text, *lines[last + 1 : last + 3]])
    return text[:240]


#: a model server on loopback that judges call instead of our 503 endpoint (`--model-url`):
#: proofgym's model interface, say, serving a local model; and what it serves (the table
#: says which judge a server's verdicts were reached with)
JUDGE_PORT: int | None = None
JUDGE_NAME = ""

#: where each server's own requirements go when it needs some (`--install`): a venv layered
#: on the NeMo Gym venv (its site-packages on the path after the overlay's own)
OVERLAYS: Path | None = None
#: requirements that are no package of the index, or a stack this CPU machine does not run
OFF_INDEX = re.compile(r"git\+|https?://|^-e |^\.|^/")
HEAVY = re.compile(r"^(torch|vllm|tensorflow|jax|flash[-_]attn|deepspeed)\b", re.I)


def missing_module(reason: str) -> bool:
    return "No module named" in reason or "cannot import name" in reason


def with_requirements(folder: Path, work: Path) -> Path | str:
    """The Python of an overlay venv holding the server's `requirements.txt` (less NeMo
    Gym itself), or why there cannot be one here."""
    assert OVERLAYS is not None
    path = folder / "requirements.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    wanted = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
    wanted = [ln for ln in wanted if "nemo-gym" not in ln]
    if not wanted:
        return "its requirements.txt names nothing more to install"
    off = [ln for ln in wanted if OFF_INDEX.search(ln)]
    if off:
        return f"its requirements.txt needs what no package index serves: {off[0][:80]}"
    heavy = [ln for ln in wanted if HEAVY.match(ln)]
    if heavy:
        return f"its requirements.txt pulls a GPU stack ({heavy[0][:40]})"
    venv = OVERLAYS / folder.name
    python = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        nemo_site = next((OVERLAYS.parent / "nemo" / "lib").glob("python3.*/site-packages"))
        subprocess.run(
            [str(OVERLAYS.parent / "nemo" / "bin" / "python"), "-m", "venv", str(venv)],
            check=True,
        )
        site = next((venv / "lib").glob("python3.*/site-packages"))
        (site / "_nemo_gym_base.pth").write_text(str(nemo_site.resolve()) + "\n")
        try:
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "-q", *wanted],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            return "installing its requirements.txt ran past 600 s"
        (work / "pip.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            tail = [ln for ln in done.stderr.splitlines() if ln.strip()][-1:] or ["no output"]
            return f"its requirements.txt did not install: {tail[0][:160]}"
        (venv / ".installed").touch()
    return python


def reproduces(bridge: str, url: str, row: dict[str, Any]) -> str | None:
    """Play a task's reference straight through the bridge (seed, each call, verify): None
    when it earns the full reward again, else what it got. A recorded rollout that does not
    reproduce (a tool that answers otherwise now, a model-dependent verify) is no reference
    to attack from, so its task is left out rather than read as a finding."""
    from interop.bridges import bridge_class
    from proofgym.wire.protocol import Task
    from proofgym.wire.responses import (
        assistant_message,
        build_response,
        function_call,
        function_call_output,
    )

    env = bridge_class(bridge, f"nemo-gym+{url}")()
    task = Task.from_row(row)
    script = task.task_data["controls"][0]["script"]
    try:
        state = env.create_state(task, None)
    except Exception as exc:
        return f"the seed failed: {exc}"[:200]
    output: list[dict[str, Any]] = []
    try:
        for turn in script:
            for item in turn:
                if item["type"] != "function_call":
                    output.append(assistant_message(item["content"]))
                    continue
                call = function_call(item["name"], item["arguments"])
                try:
                    args = json.loads(item["arguments"] or "{}")
                    out = env.call_external(state, item["name"], args)
                except Exception as exc:  # what the policy would have seen
                    out = f"Error: {exc}"
                output += [call, function_call_output(call["call_id"], out)]
        response = build_response(output, model="scripted")
        verdict = env.verify(state, task, response)
    finally:
        env.close_state(state)
    if verdict.mask_sample:
        return f"masked: {verdict.failure_reason}"[:200]
    return None if verdict.reward >= 1.0 - 1e-9 else f"reward {verdict.reward:g}"


def validate(bridge: str, url: str, tasks: Path, work: Path) -> dict[str, Any] | None:
    env = {
        **os.environ,
        "PROOFGYM_BRIDGES": json.dumps({bridge: f"nemo-gym+{url}"}),
        "PROOFGYM_PROOFS_DIR": str(work / "proofs"),
        "HOME": str(work),
    }
    cmd = [PROOFGYM, "validate", bridge, "--tasks", str(tasks), "--sample", "3"]
    cmd += ["--parallel", "4", "--json"]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, env=env, timeout=VALIDATE_S, cwd=work
        )
    except subprocess.TimeoutExpired:
        return None
    (work / "validate.err").write_text(done.stderr)
    try:
        report = json.loads(done.stdout)[0]
    except (ValueError, IndexError, KeyError):
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:240]}
    return dict(report)


def survey(name: str, site: Path, python: Path, out: Path) -> Row:
    """One server through every step; the row says where it stopped and why."""
    row, began = Row(name), time.monotonic()
    folder = site / "resources_servers" / name
    work = out / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    no_model = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NoModel)
    no_model.calls = 0  # type: ignore[attr-defined]
    threading.Thread(target=no_model.serve_forever, daemon=True).start()
    # the model server a judge calls: one the caller serves (--model-url), else our 503
    model_port = JUDGE_PORT or int(no_model.server_address[1])
    row.judge = JUDGE_NAME if JUDGE_PORT else ""
    try:
        _survey(row, folder, python, work, model_port)
    except Exception as exc:  # one server's surprise is its row, never the whole table's end
        row.status, row.reason = "error", f"the harness failed on it: {type(exc).__name__}: {exc}"
    finally:
        no_model.shutdown()
        no_model.server_close()
        row.model_calls = no_model.calls  # type: ignore[attr-defined]
        if row.model_calls and row.status == "reference not reproduced":
            row.status, row.reason = needs_model(row)
        row.seconds = round(time.monotonic() - began, 1)
    return row


def _survey(row: Row, folder: Path, python: Path, work: Path, dead: int) -> None:
    if not (folder / "app.py").exists():
        readme = folder / "README.md"
        text = readme.read_text() if readme.exists() else ""
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n")[1:] if p.strip()]
        row.status = "not a server"
        row.reason = "no app.py" + (f": {paragraphs[0][:240]}" if paragraphs else "")
        return
    found = server_config(folder)
    if found is None:
        row.status, row.reason = "did not start", "no config declares it under resources_servers"
        return
    key, entry = found
    row.model_refs = [path for path, _ in model_refs(entry)]
    port = free_port()
    env = {
        **os.environ,
        "NEMO_GYM_CONFIG_PATH": key,
        "NEMO_GYM_CONFIG_DICT": config_dict(row.name, key, entry, port, dead),
        "HOME": str(work),
        "HF_HUB_OFFLINE": "1",
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1",
    }
    url = f"http://127.0.0.1:{port}"
    log = work / "server.log"
    with contextlib.ExitStack() as stack:
        proc = stack.enter_context(started([str(python), "app.py"], log, cwd=folder, env=env))
        if not wait_http(f"{url}/openapi.json", START_S, proc):
            row.status, row.reason = "did not start", last_error(log)
            overlay = OVERLAYS and missing_module(row.reason) and with_requirements(folder, work)
            if not isinstance(overlay, Path):
                if isinstance(overlay, str):
                    row.reason = f"{row.reason}; {overlay}"
                return
            stack.close()
            proc = stack.enter_context(started([str(overlay), "app.py"], log, cwd=folder, env=env))
            if not wait_http(f"{url}/openapi.json", START_S, proc):
                row.reason = f"with its requirements.txt installed: {last_error(log)}"
                return
            row.installed = True
        with urllib.request.urlopen(f"{url}/openapi.json", timeout=10) as answer:
            paths = set(json.loads(answer.read()).get("paths") or {})
        if "/verify" not in paths:
            shown = ", ".join(sorted(p for p in paths if p in ("/reset", "/step"))) or "none"
            row.status = "not bridged"
            row.reason = f"no /verify (a Gymnasium server: {shown}); the bridge plays /verify"
            return
        data = folder / "data"
        examples = data / "example.jsonl"
        rollouts = data / "example_rollouts.jsonl"
        bridge = f"ng_{row.name}"
        candidates = task_rows(
            bridge,
            read_jsonl(examples.read_text()) if examples.exists() else [],
            read_jsonl(rollouts.read_text()) if rollouts.exists() else [],
            limit=6,
        )
        if not candidates:
            row.status = "no reference"
            row.reason = "no example row has a full-reward example rollout to replay"
            return
        tasks, lost = [], []
        for candidate in candidates:
            problem = reproduces(bridge, url, candidate)
            if problem is None:
                tasks.append(candidate)
            else:
                lost.append(f"{candidate['task_id']}: {problem}")
            if len(tasks) == 3:
                break
        row.unreproduced = lost
        if not tasks:
            row.status, row.reason = unreproduced(row, lost)
            return
        row.tasks = len(tasks)
        path = work / "tasks.jsonl"
        path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
        report = validate(bridge, url, path, work)
    if report is None:
        row.status, row.reason = "error", f"validate ran past {VALIDATE_S:.0f} s"
    elif "error" in report:
        row.status, row.reason = "error", f"validate: {report['error']}"
    else:
        for verdict in report.get("verdicts", []):
            if verdict.get("passed"):
                row.passed.append(verdict["name"])
            elif verdict.get("passed") is False:
                row.failed[verdict["name"]] = str(verdict.get("detail", ""))[:300]
        row.status, row.reason = classify(row)


#: how a verify that called our no-model endpoint reads (its URL, its 503)
NO_MODEL = re.compile(r"127\.0\.0\.1:\d+/v1/(responses|chat/completions)|no model is served")


def unreproduced(row: Row, lost: list[str]) -> tuple[str, str]:
    """Why no recorded rollout could be the reference: a model it needs, or the replay."""
    if any(NO_MODEL.search(problem) for problem in lost):
        return needs_model(row)
    return "reference not reproduced", f"no full-reward rollout earns it again: {lost[0]}"[:300]


def needs_model(row: Row) -> tuple[str, str]:
    refs = ", ".join(row.model_refs) or "a judge"
    return "needs a model", f"its verify calls a model server ({refs}): none runs on this CPU"


def classify(row: Row) -> tuple[str, str]:
    """What a finished validation says about the server. Its verdicts are findings only when
    the peer's own reference replayed to its reward: a reference masked by the model server it
    needs (ours answers 503) says the peer needs a judge; one that earned less says the
    recorded rollout does not reproduce (tools that answer differently, time, randomness)."""
    ref = row.failed.get("control:reference")
    if ref is None:
        return "validated", ""
    if NO_MODEL.search(ref):
        return needs_model(row)
    return "reference not reproduced", ref[:240]


#: failed verdicts that say what the peer ships, not what its reward does
DECLARATIONS = frozenset({"violation_declared", "controls_declared"})
#: each finding's family, by the verdict's name (its prefix before ':', or the whole name)
FAMILIES = {
    "negative": "reward hole",
    "attack": "reward hole",
    "answer_slot": "reward hole",
    "steps": "reward hole",
    "floor": "reward hole",
    "replay": "reward hole",
    "information_flow": "reward hole",
    "floor_gap": "reward hole",
    "control": "reward hole",
    "adversarial": "crash or hole under hostile input",
    "reward_well_formed": "verify crashes (masked samples)",
    "determinism": "nondeterminism",
    "isolation_parallel": "isolation",
    "isolation_probe": "isolation",
    "isolation_colliding": "isolation",
    "no_ground_truth_leak": "leak",
    "honest_variant": "a wrong 0 for an honest answer",
    "honest_variants": "a wrong 0 for an honest answer",
}


def family(verdict: str) -> str:
    return FAMILIES.get(verdict.split(":", 1)[0], FAMILIES.get(verdict, "other"))


def findings(row: dict[str, Any]) -> dict[str, str]:
    """The failed verdicts that say something about the server's reward: not a control the
    peer does not ship, and not a rollout masked only because the judge it calls is not
    served here (those are listed as judged-away, not as findings)."""
    return {
        k: v for k, v in row["failed"].items() if k not in DECLARATIONS and not NO_MODEL.search(v)
    }


def judged_away(row: dict[str, Any]) -> list[str]:
    """Failed verdicts whose rollouts were masked by the missing judge."""
    return sorted(k for k, v in row["failed"].items() if NO_MODEL.search(v))


def markdown(table: dict[str, Any]) -> str:
    """docs/peers.md from the table's JSON."""
    rows = table["servers"]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    order = [
        "validated",
        "needs a model",
        "reference not reproduced",
        "no reference",
        "not bridged",
        "not a server",
        "did not start",
        "error",
    ]
    lines = [
        "# The peers' environments, validated in public",
        "",
        f"`proofgym validate`, through the NeMo Gym bridge, on every resources server the NeMo "
        f"Gym {table['nemo_gym']} wheel ships ({len(rows)} folders under `resources_servers/`). "
        "Reproduce:",
        "",
        "```bash",
        "make peer-table   # NeMo Gym in .interop/nemo, then bench/nemo_gym_table.py --install",
        "```",
        "",
        "How each server is run (bench/nemo_gym_table.py): alone, from its folder, with its own",
        "config; a model server it names (a judge) is pointed at an endpoint that answers 503,",
        "so a verify that needs one shows it. A server that misses a module gets its",
        "`requirements.txt` in a venv of its own (never a git or URL requirement: nothing but",
        "the package index is reachable here). Its tasks are its example rows that have a",
        "full-reward example rollout; that rollout, replayed action by action, is the",
        "`reference`, kept only if it earns the full reward again when replayed; the one",
        "control we add is `noop_claim` (success claimed, nothing done: must fail). No",
        "control names the peer's own rules, so `violation_declared` fails for every",
        "server and is not counted as a finding. What remains failed is what `validate`",
        "found: a reward paid to a trajectory that did not earn it, a verify that crashes",
        "(masked) on what a policy can send, state crossing sessions, a replay that differs.",
        "",
        "| result | servers |",
        "|---|---|",
    ]
    lines += [f"| {s} | {counts[s]} |" for s in order if s in counts]
    validated = [r for r in rows if r["status"] == "validated"]
    by_family: dict[str, int] = {}
    by_verdict: dict[str, int] = {}
    for row in validated:
        for name in findings(row):
            by_verdict[name] = by_verdict.get(name, 0) + 1
        for kind in {family(name) for name in findings(row)}:
            by_family[kind] = by_family.get(kind, 0) + 1
    common = sorted(by_verdict.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
    lines += [
        "",
        f"Of the {len(validated)} validated: "
        + ", ".join(f"{n} with a finding of kind {k!r}" for k, n in sorted(by_family.items()))
        + f"; {sum(1 for r in validated if not findings(r))} with none. Most common: "
        + ", ".join(f"`{k}` ({n})" for k, n in common)
        + ".",
    ]
    lines += [
        "",
        "| server | result | verdicts passed / failed | findings | note |",
        "|---|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda r: (order.index(r["status"]), r["name"])):
        found = findings(row)
        ran = row["status"] == "validated"
        counted = f"{len(row['passed'])} / {len(row['failed'])}" if row["passed"] else ""
        names = ", ".join(f"`{k}`" for k in sorted(found)) if ran else ""
        note = row["reason"].replace("|", "/").replace("\n", " ")
        if ran and row.get("unreproduced"):
            note = f"{len(row['unreproduced'])} recorded rollout(s) did not reproduce"
        away = judged_away(row) if ran else []
        if away:
            note = (note + "; " if note else "") + (
                f"its verify called a judge on some answers: {len(away)} verdict(s) masked "
                "by the missing judge, not counted"
            )
        if row.get("installed"):
            note = (note + "; " if note else "") + "requirements.txt installed"
        if row.get("judge") and row.get("model_refs"):
            note = (note + "; " if note else "") + f"judged by {row['judge']}"
        lines.append(f"| {row['name']} | {row['status']} | {counted} | {names} | {note} |")
    lines += ["", OPENENV.read_text()]
    if JUDGED.exists():  # the servers that need a judge, run with one (`--model-url`)
        judged = json.loads(JUDGED.read_text())["servers"]
        lines += [
            "## With a judge served by proofgym's model interface",
            "",
            f"`--model-url` pointed the judges at {judged[0]['judge'] or 'a model server'}"
            " (bench/NEMO_GYM_JUDGED.json):",
            "",
        ]
        for row in judged:
            lost = "; ".join(p[:160] for p in row["unreproduced"][:2])
            lines.append(
                f"- **{row['name']}**: {row['tasks']} task(s) whose recorded reference this "
                f"judge paid again; not again: {lost or 'none'}. Then: {row['status']}"
                + (f" ({row['reason'][:160]})" if row["status"] == "error" else "")
            )
        lines.append("")
    lines += ["## What validate found, server by server", ""]
    for row in rows:
        found = findings(row)
        if row["status"] != "validated":
            continue
        if not found:
            lines += [f"**{row['name']}**: every verdict passed.", ""]
            continue
        lines.append(f"**{row['name']}**")
        for name, detail in sorted(found.items()):
            shown = " ".join(detail.split())[:220].replace("|", "/")
            lines.append(f"- `{name}` ({family(name)}): {shown}")
        lines.append("")
    return "\n".join(lines) + "\n"


#: the OpenEnv environments the package index holds and how each fared here (hand-written:
#: each was read or installed by hand; bench/PEER_TABLE_OPENENV.md says how)
OPENENV = Path(__file__).with_name("PEER_TABLE_OPENENV.md")
#: the judge-needing servers run with a judge (`--model-url ... --out` this file)
JUDGED = Path(__file__).with_name("NEMO_GYM_JUDGED.json")


def reclassified(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row's status recomputed by this harness's rules (they may have grown)."""
    kept = Row(**{k: v for k, v in row.items() if k in Row.__dataclass_fields__})
    if kept.status in ("validated", "needs a model", "reference not reproduced"):
        if kept.tasks == 0 and kept.unreproduced:
            kept.status, kept.reason = unreproduced(kept, kept.unreproduced)
        elif kept.passed or kept.failed:
            kept.status, kept.reason = classify(kept)
        if kept.model_calls and kept.status == "reference not reproduced":
            kept.status, kept.reason = needs_model(kept)
    return asdict(kept)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=ROOT / ".interop")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "NEMO_GYM_TABLE.json")
    parser.add_argument(
        "--install",
        action="store_true",
        help="give a server that misses a module its requirements.txt, in a venv of its own",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        default=None,
        help="only write this Markdown table from --out's JSON (docs/peers.md)",
    )
    parser.add_argument(
        "--model-url",
        default=None,
        help="a model server on 127.0.0.1 (its /v1/responses) for the judges the servers name",
    )
    parser.add_argument("--model-name", default="", help="what --model-url serves (for the table)")
    args = parser.parse_args()
    global JUDGE_PORT, JUDGE_NAME
    if args.model_url:
        JUDGE_PORT = urllib.parse.urlsplit(args.model_url).port
        JUDGE_NAME = args.model_name or args.model_url
    if args.markdown is not None:
        table = json.loads(args.out.read_text())
        table["servers"] = [reclassified(r) for r in table["servers"]]
        args.markdown.write_text(markdown(table))
        print(f"wrote {args.markdown}")
        return 0
    global OVERLAYS
    if args.install:
        OVERLAYS = (args.peers / "overlays").resolve()
        OVERLAYS.mkdir(parents=True, exist_ok=True)
    site = next((args.peers / "nemo/lib").glob("python3.*/site-packages"))
    python = args.peers / "nemo" / "bin" / "python"
    names = sorted(
        p.name
        for p in (site / "resources_servers").iterdir()
        if p.is_dir() and not p.name.startswith("_")
    )
    if args.only:
        names = [n for n in names if n in set(args.only)]
    scratch = Path(tempfile.mkdtemp(prefix="peer-table-"))
    rows: list[Row] = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(survey, n, site, python, scratch): n for n in names}
        for number, future in enumerate(concurrent.futures.as_completed(futures), 1):
            row = future.result()
            rows.append(row)
            print(
                f"[{number}/{len(names)}] {row.name}: {row.status} "
                f"({len(row.passed)} passed, {len(row.failed)} failed) {row.reason[:120]}",
                flush=True,
            )
    rows.sort(key=lambda r: r.name)
    previous: dict[str, Any] = {}
    if args.only and args.out.exists():
        previous = {r["name"]: r for r in json.loads(args.out.read_text())["servers"]}
    merged = {**previous, **{r.name: asdict(r) for r in rows}}
    args.out.write_text(
        json.dumps({"nemo_gym": "0.7.0", "servers": [merged[n] for n in sorted(merged)]}, indent=1)
        + "\n"
    )
    print(f"wrote {args.out}; scratch (logs, tasks) in {scratch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
