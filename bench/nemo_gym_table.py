"""The peer table: `proofgym validate`, through the NeMo Gym bridge, on every resources server
the NeMo Gym 0.7.0 wheel ships (`make peer-table`).

    .venv/bin/python bench/nemo_gym_table.py [--peers .interop] [--only NAME ...] [--jobs 2]

For each server folder of the wheel, in order:
1. its config (`configs/*.yaml`, the entry that names it under `resources_servers`) is given
   its host and port; a model server it refers to (a judge) is pointed at a port where nothing
   listens, so a verify that needs one shows it instead of calling out;
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


ERROR_LINE = re.compile(r"(\w+(Error|Exception|Exit)\b.*|.*(No module named|not found|denied).*)")


def last_error(log: Path) -> str:
    """The line of a log that says why the process died: the last exception line."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    hits = [ln.strip() for ln in lines if ERROR_LINE.match(ln.strip())]
    text = hits[-1] if hits else (lines[-1].strip() if lines else "no output")
    return text[:240]


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


def survey(name: str, site: Path, python: Path, out: Path, dead: int) -> Row:
    """One server through every step; the row says where it stopped and why."""
    row, began = Row(name), time.monotonic()
    folder = site / "resources_servers" / name
    work = out / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        _survey(row, folder, python, work, dead)
    finally:
        row.seconds = round(time.monotonic() - began, 1)
    return row


def _survey(row: Row, folder: Path, python: Path, work: Path, dead: int) -> None:
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
    with started([str(python), "app.py"], log, cwd=folder, env=env) as proc:
        if not wait_http(f"{url}/openapi.json", START_S, proc):
            row.status, row.reason = "did not start", last_error(log)
            return
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
        tasks = task_rows(
            bridge,
            read_jsonl(examples.read_text()) if examples.exists() else [],
            read_jsonl(rollouts.read_text()) if rollouts.exists() else [],
        )
        if not tasks:
            row.status = "no reference"
            row.reason = "no example row has a full-reward example rollout to replay"
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
        row.status, row.reason = classify(row, dead)


def classify(row: Row, dead: int) -> tuple[str, str]:
    """What a finished validation says about the server. Its verdicts are findings only when
    the peer's own reference replayed to its reward: a reference masked by the model server it
    needs (ours answers 503) says the peer needs a judge; one that earned less says the
    recorded rollout does not reproduce (tools that answer differently, time, randomness)."""
    ref = row.failed.get("control:reference")
    if ref is None:
        return "validated", ""
    if f":{dead}/" in ref:
        return "needs a model", "its verify calls a model server (" + (
            ", ".join(row.model_refs) or "a judge"
        ) + "): none that judges runs on this CPU-only machine"
    return "reference not reproduced", ref[:240]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=ROOT / ".interop")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "NEMO_GYM_TABLE.json")
    args = parser.parse_args()
    site = next((args.peers / "nemo/lib").glob("python3.*/site-packages"))
    python = args.peers / "nemo" / "bin" / "python"
    names = sorted(
        p.name
        for p in (site / "resources_servers").iterdir()
        if p.is_dir() and not p.name.startswith("_") and (p / "app.py").exists()
    )
    if args.only:
        names = [n for n in names if n in set(args.only)]
    scratch = Path(tempfile.mkdtemp(prefix="peer-table-"))
    rows: list[Row] = []
    no_model = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NoModel)
    threading.Thread(target=no_model.serve_forever, daemon=True).start()
    dead = int(no_model.server_address[1])
    if True:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(survey, n, site, python, scratch, dead): n for n in names}
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
