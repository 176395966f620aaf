"""The trajectory viewer: a local web page over a rollout store, offline, read-only.

`create_viewer(path)` is a small app: `GET /` the page (one file, no CDN), `GET /api/rollouts`
a filtered, paged list, `GET /api/rollouts/{id}` one rollout with its turns and which tokens the
model generated and which the environment inserted, `GET /api/groups/{task_id}` the rollouts of
one task (its group) with the best and the worst of them, `GET /report` the profile report
beside the store (`RUNS.html`) when there is one.

The page has a URL per view: `/#<rollout_id>` one rollout, `/#compare=<id>,<id>` two rollouts
side by side turn by turn, `/#group=<task_id>` the best and the worst of a task's group side
by side (what a person debugging a reward wants to see first).

Every request reads the store afresh, read-only, so it works on a store that `proofgym
rollout` is still writing, and pages through 100,000 rows with SQL, never loading them all.
`proofgym view RUNS.db` serves it; the agent serves it under /ui when `PROOFGYM_UI_STORE`
names a store.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query
from fastapi.responses import FileResponse, HTMLResponse

from proofgym.serving.service import install_common
from proofgym.wire.errors import NotFound

PAGE = Path(__file__).with_name("viewer.html")
MAX_PAGE = 200


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise NotFound(f"no rollout store at {path}", kind="not_found")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    conn.row_factory = sqlite3.Row
    return conn


def _where(
    env: str | None,
    task: str | None,
    min_reward: float | None,
    max_reward: float | None,
    failure: str | None,
    check: str | None,
) -> tuple[str, list[Any]]:
    """The WHERE clause of a list query and its parameters (never formatted into the SQL)."""
    parts: list[str] = ["1 = 1"]
    params: list[Any] = []
    if env:
        parts.append("env = ?")
        params.append(env)
    if task:
        parts.append("task_id LIKE ? ESCAPE '\\'")
        params.append(
            "%" + task.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
    if min_reward is not None:
        parts.append("reward >= ? AND mask_sample = 0")
        params.append(min_reward)
    if max_reward is not None:
        parts.append("reward <= ? AND mask_sample = 0")
        params.append(max_reward)
    if failure == "none":
        parts.append("mask_sample = 0")
    elif failure:
        parts.append("failure_kind = ?")
        params.append(failure)
    if check:
        parts.append(
            "EXISTS (SELECT 1 FROM json_each(record, '$.checks') AS c WHERE "
            "json_extract(c.value, '$.name') = ? AND json_extract(c.value, '$.passed') = 0)"
        )
        params.append(check)
    return " AND ".join(parts), params


def turns(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The rollout's items grouped by turn (what the model emitted, then the tool outputs the
    environment answered), with the tokens of each: `generated` by the model, `inserted` by the
    environment since the previous turn (tool outputs, templates), `prompt` the whole prompt.
    Without token data (an OpenAI endpoint) the counts are null."""
    groups: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    closed = after_output = False
    for item in (record.get("response") or {}).get("output") or []:
        is_output = item.get("type") == "function_call_output"
        if current and not is_output and (closed or after_output):
            groups.append(current)
            current, closed = [], False
        current.append(item)
        closed = closed or _has_tokens(item)
        after_output = is_output
    if current:
        groups.append(current)
    out, previous_end = [], None
    for items in groups:
        turn = _turn(items, previous_end)
        previous_end = turn.pop("_end")
        out.append(turn)
    return out


def _has_tokens(item: dict[str, Any]) -> bool:
    return isinstance(item.get("generation_token_ids"), list)


def _turn(items: list[dict[str, Any]], previous_end: int | None) -> dict[str, Any]:
    marked = next((i for i in reversed(items) if _has_tokens(i)), None)
    if marked is None:
        return {"items": items, "prompt": None, "generated": None, "inserted": None, "_end": None}
    prompt = len(marked.get("prompt_token_ids") or [])
    generated = len(marked.get("generation_token_ids") or [])
    inserted = None if previous_end is None else prompt - previous_end
    return {
        "items": items,
        "prompt": prompt,
        "generated": generated,
        "inserted": inserted,
        "_end": prompt + generated,
    }


def create_viewer(path: Path) -> FastAPI:
    """The viewer app over the store at `path` (mount it, or serve it on its own). Long on
    purpose: its routes are closures over the one store they read."""
    app = FastAPI(title="proofgym viewer", docs_url=None, redoc_url=None, openapi_url=None)
    install_common(app, "viewer", None)  # /health, /metrics, errors in the protocol's shape
    report = path.with_suffix(".html")

    @app.get("/", response_class=HTMLResponse)
    async def page() -> HTMLResponse:
        return HTMLResponse(PAGE.read_text())

    @app.get("/report", response_model=None)
    async def report_page() -> FileResponse:
        if not report.is_file():
            raise NotFound(
                f"no report beside the store: run proofgym profile {path} --out {report}"
            )
        return FileResponse(report, media_type="text/html")

    @app.get("/api/rollouts")
    def rollouts(
        env: str | None = None,
        task: str | None = None,
        min_reward: float | None = None,
        max_reward: float | None = None,
        failure: str | None = None,
        check: str | None = None,
        offset: int = Query(0, ge=0),
        limit: int = Query(50, ge=1, le=MAX_PAGE),
    ) -> dict[str, Any]:
        where, params = _where(env, task, min_reward, max_reward, failure, check)
        with _connect(path) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM rollouts WHERE {where}", params).fetchone()
            rows = conn.execute(
                "SELECT rollout_id, task_id, repeat, env, reward, failure_kind, mask_sample, "
                "trainable, json_extract(record, '$.num_steps') AS num_steps, "
                "(SELECT group_concat(json_extract(c.value, '$.name'), ', ') FROM "
                "json_each(record, '$.checks') AS c WHERE json_extract(c.value, '$.passed') = 0)"
                f" AS failed FROM rollouts WHERE {where} ORDER BY created_at DESC, rollout_id "
                "LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
            envs = [r[0] for r in conn.execute("SELECT DISTINCT env FROM rollouts ORDER BY env")]
            failures = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT failure_kind FROM rollouts WHERE failure_kind IS NOT NULL"
                )
            ]
        return {
            "total": total[0],
            "offset": offset,
            "rows": [dict(r) for r in rows],
            "envs": envs,
            "failures": failures,
            "report": report.is_file(),
        }

    @app.get("/api/rollouts/{rollout_id}")
    def rollout(rollout_id: str) -> dict[str, Any]:
        with _connect(path) as conn:
            row = conn.execute(
                "SELECT record FROM rollouts WHERE rollout_id = ?", [rollout_id]
            ).fetchone()
            history = []
            if (
                row is not None
                and conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reverified'"
                ).fetchone()
            ):
                history = [
                    dict(h)
                    for h in conn.execute(
                        "SELECT reverified_at, outcome, env_version_before, env_version, "
                        "reward_before, reward, mask_before, mask_sample, checks_moved "
                        "FROM reverified WHERE rollout_id = ? ORDER BY id",
                        [rollout_id],
                    )
                ]
        if row is None:
            raise NotFound(f"no rollout {rollout_id!r} in {path.name}", kind="not_found")
        record = json.loads(row[0])
        # `reverified`: the verdicts `proofgym reverify` replaced, oldest first
        return {"record": record, "turns": turns(record), "reverified": history}

    @app.get("/api/groups/{task_id}")
    def group(task_id: str) -> dict[str, Any]:
        with _connect(path) as conn:
            rows = conn.execute(
                "SELECT rollout_id, repeat, reward, failure_kind, mask_sample FROM rollouts "
                "WHERE task_id = ? ORDER BY repeat, rollout_id",
                [task_id],
            ).fetchall()
        if not rows:
            raise NotFound(f"no rollouts of task {task_id!r} in {path.name}", kind="not_found")
        return {"task_id": task_id, "rows": [dict(r) for r in rows], **extremes(rows)}

    return app


def extremes(rows: list[sqlite3.Row]) -> dict[str, str | None]:
    """The best and the worst scored rollout of a group (masked ones have no score), or None
    when none was scored. Among equals the best is the earliest repeat and the worst the
    latest, so a group that scored alike still shows two of its rollouts side by side."""
    scored = [r for r in rows if not r["mask_sample"] and r["reward"] is not None]
    if not scored:
        return {"best": None, "worst": None}
    best = max(scored, key=lambda r: r["reward"])  # max and min keep the first of equals
    worst = min(reversed(scored), key=lambda r: r["reward"])
    return {"best": best["rollout_id"], "worst": worst["rollout_id"]}
