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
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nemo_gym_report import (  # noqa: E402
    Row,
    classify,
    markdown,
    needs_model,
    reclassified,
    unreproduced,
)
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

    env = bridge_class(bridge, f"nemo-gym+{url}")()
    task = Task.from_row(row)
    return played_through(env, task, task.task_data["controls"][0]["script"])


def _cut(item: dict[str, Any], chars: int = 1500) -> dict[str, Any]:
    key = "content" if item.get("type") == "message" else "arguments"
    text = item.get(key)
    return {**item, key: text[:chars]} if isinstance(text, str) and len(text) > chars else item


def played_through(env: Any, task: Any, script: list[list[dict[str, Any]]]) -> str | None:
    """Play `script` on `task` straight through a bridged environment, outside `validate`
    (a fresh session: seed, each call, verify): None when it earns the top of the reward
    range, else what it got (a reward, a mask, a seed that failed)."""
    from proofgym.wire.responses import (
        assistant_message,
        build_response,
        function_call,
        function_call_output,
    )

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
    top = env.reward_range[1]
    return None if verdict.reward >= top - 1e-9 else f"reward {verdict.reward:g}"


def replayed(
    bridge: str, url: str, rows: list[dict[str, Any]], report: dict[str, Any] | None
) -> list[dict[str, Any] | None]:
    """Each finding of a report that pays, replayed afresh against the server while it still
    runs (outside `validate`, in sessions of its own; `confirmed`); None for the others. The
    audit draws only the findings that reproduce."""
    found = (report or {}).get("findings", []) if "error" not in (report or {}) else []
    if not any(f.get("severity") == "pays" and f.get("minimal") for f in found):
        return [None] * len(found)
    from interop.bridges import bridge_class
    from proofgym.wire.protocol import Task

    env = bridge_class(bridge, f"nemo-gym+{url}")()
    tasks = {t["task_id"]: Task.from_row(t) for t in rows}
    return [
        confirmed(env, tasks, f) if f.get("severity") == "pays" and f.get("minimal") else None
        for f in found
    ]


def confirmed(env: Any, tasks: dict[str, Any], finding: dict[str, Any]) -> dict[str, Any]:
    """A `pays` finding replayed against the real server, outside `validate`: its minimal
    trajectory played afresh on its task (and, for another truth, on the task whose truth
    differs, named in its `why`). `reproduces` is true when every replay earned the top of
    the range; `saw` says what each got."""
    script = finding.get("minimal") or []
    targets = [str(finding.get("task_id"))]
    why = str(finding.get("why", ""))
    if finding.get("oracle") == "another_truth" and "[target " in why:
        targets.append(why.rsplit("[target ", 1)[-1].split("]", 1)[0])
    saw = []
    for tid in targets:
        task = tasks.get(tid)
        problem = "not among the tasks" if task is None else played_through(env, task, script)
        saw.append(f"{tid}: {problem or 'paid'}")
    return {"reproduces": all(s.endswith(": paid") for s in saw), "saw": "; ".join(saw)}


def validate(bridge: str, url: str, tasks: Path, work: Path) -> dict[str, Any] | None:
    env = {
        **os.environ,
        "PROOFGYM_BRIDGES": json.dumps({bridge: f"nemo-gym+{url}"}),
        "PROOFGYM_PROOFS_DIR": str(work / "proofs"),
        "HOME": str(work),
        # this checkout's validator, whatever checkout the venv was installed from
        "PYTHONPATH": str(ROOT),
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
        replays = replayed(bridge, url, tasks, report)
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
        # each finding of the search, with its severity and the minimal trajectory that
        # reproduces it: what the audit (bench/NEMO_AUDIT.md) reads
        # each rollout that had to fail and was paid, whole (the audit reads what a
        # verdict's detail shortens), its messages cut at 1,500 characters
        row.paid = [
            {**p, "script": [[_cut(item) for item in turn] for turn in p.get("script", [])]}
            for p in report.get("paid", [])[:30]
        ]
        row.findings = [
            {
                "oracle": f.get("oracle"),
                "severity": f.get("severity"),
                "task_id": f.get("task_id"),
                "site": f.get("site"),
                "count": f.get("count", 1),
                "what": str(f.get("what", ""))[:300],
                "why": str(f.get("why", ""))[:400],
                "minimal": f.get("minimal"),
            }
            for f in report.get("findings", [])
        ]
        for f, again in zip(row.findings, replays, strict=True):
            if again is not None:
                f["replayed"] = again
        row.status, row.reason = classify(row)


#: how a verify that called our no-model endpoint reads (its URL, its 503)
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
    # the servers run from their own folders: a relative --peers would point nowhere there
    args.peers = args.peers.resolve()
    if not (args.peers / "nemo" / "bin" / "python").exists():
        print(
            f"no NeMo Gym venv at {args.peers}/nemo (`make peer-table` builds one)", file=sys.stderr
        )
        return 2
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
