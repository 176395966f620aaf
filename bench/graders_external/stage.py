"""One dataset of the labelled set, in a process of its own (`run.py` starts one per dataset).

    python -m bench.graders_external.stage DATASET --per-dataset 8 --seed 45 --rows FILE

1. the tasks `proofgym validate rg_<dataset>` uses (its generator, seed 0, 8 tasks);
2. the mutants drawn (`mutation.mutants_of`, `--per-dataset` of them, seeded);
3. each mutant labelled by the differential check (`answers`, `labels`), here in this
   process: the mutated module registered in reasoning-gym, every candidate answer of every
   task scored by the sound and the mutant grader (2 s per answer at most);
4. the sound grader, then each mutant that is not equivalent, as the `rg_<dataset>`
   environment: `validate_env` (what `proofgym validate` runs) with the environment's grading
   workers started with the mutant's preload file, after a liveness check through those
   workers (the witnesses score there as they did in the labelling); and falsepass 0.11.0's
   probe run on the same grader (`fp_reward.py`, its own virtualenv, the same workers).
Each grader's row is appended to `--rows` as it finishes; rows already there are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.graders_external import mutation
from bench.graders_external.answers import Candidate, candidates
from bench.graders_external.labels import WITNESS_CHARS, Scored, classify

ROOT = mutation.ROOT
WORK = ROOT / "runs" / "graders_external"
FALSEPASS_SITE = os.environ.get("FALSEPASS_VENV", "/work/peers/fp")
#: the gate falsepass's README puts in CI: a known-bad completion paid over 0.1, or scoring raised
FALSEPASS_GATE = ("ceiling>0.1", "errors>0")
ANSWER_TIMEOUT_S = 2.0
VALIDATE_TIMEOUT_S = 300.0
#: grading workers per validation: one (each imports reasoning-gym: seconds of CPU on a
#: shared machine); graders answer in milliseconds, so the verdicts are the same
POOL_SIZE = 1
MAX_MESSAGE_CHARS = 20_000


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def env_reward(grade: Callable[[str | None], Any], text: str) -> float:
    """What an `rg_*` environment pays for `text` with this grader: 0 for a message over the
    length guard, a grader that raises or hangs, or a reward that is no number in [0, 1]."""
    from reasoning_gym.utils import extract_answer

    if len(text) > MAX_MESSAGE_CHARS:
        return 0.0
    try:
        with _deadline(ANSWER_TIMEOUT_S):
            reward = grade(extract_answer(text))
    except Exception:  # the grader's fault: 0, as verify scores it
        return 0.0
    if not isinstance(reward, int | float) or isinstance(reward, bool):
        return 0.0
    value = float(reward)
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else 0.0


def score_all(
    dataset: str, tasks: list[dict[str, Any]], answers: list[list[Candidate]]
) -> list[list[float]]:
    """Every answer of every task scored by the grader reasoning-gym's registry holds now."""
    import reasoning_gym

    out = []
    for data, mine in zip(tasks, answers, strict=True):
        try:
            with _deadline(10.0):
                grader = reasoning_gym.create_dataset(dataset, **data["config"], size=1)
        except Exception:  # the grader cannot even be built: every answer scores 0
            out.append([0.0] * len(mine))
            continue
        out.append([env_reward(functools.partial(grader.score_answer, entry=data["entry"]), c.text)
                    for c in mine])  # fmt: skip
    return out


@contextlib.contextmanager
def mutant_installed(module: str, path: str, code: str) -> Iterator[None]:
    """reasoning-gym's registry with the mutant's classes, restored afterwards."""
    from reasoning_gym.factory import DATASETS

    saved = dict(DATASETS)
    try:
        mutation.install_mutant(module, path, code)
        yield
    finally:
        DATASETS.clear()
        DATASETS.update(saved)


def done_ids(rows: Path) -> set[str]:
    if not rows.is_file():
        return set()
    return {json.loads(line)["id"] for line in rows.read_text().splitlines() if line.strip()}


def append(rows: Path, row: dict[str, Any]) -> None:
    with rows.open("a") as f:
        f.write(json.dumps(row) + "\n")


def pool_for(preload: Path | None) -> Any:
    """Grading workers for an `rg_*` environment, started with `preload` (the sound grader
    when None), installed as the pool every `rg_*` environment of this process grades with."""
    import interop.reasoning_gym.env as rg_env
    from interop.reasoning_gym.grader import GraderPool

    for old in rg_env._POOL:
        old.close()
    pool = GraderPool(size=POOL_SIZE, preload=(str(preload),) if preload else ())
    rg_env._POOL[:] = [pool]
    return pool


def validate(env: Any, tasks: list[Any], pool: Any) -> dict[str, Any]:
    """`validate_env` (what `proofgym validate` runs) on the environment, graded by `pool`."""
    from proofgym_stack.validation import validate_env

    assert pool is pool_installed(), "the environment must grade with this pool"
    start = time.perf_counter()
    try:
        report = asyncio.run(asyncio.wait_for(validate_env(env, tasks), VALIDATE_TIMEOUT_S))
    except TimeoutError:
        return {"timeout": True, "failed": [], "seconds": round(time.perf_counter() - start, 1)}
    finally:
        pool.close()
    return {
        "failed": sorted({v.name for v in report.verdicts if not v.passed}),
        "verdicts": len(report.verdicts),
        "seconds": round(time.perf_counter() - start, 1),
    }


def pool_installed() -> Any:
    from interop.reasoning_gym.env import grader_pool

    return grader_pool()


def live(dataset: str, tasks: list[dict[str, Any]], pool: Any, witnesses: list[Any]) -> bool | None:
    """Whether the environment's grading workers (`pool`, started with the mutant's preload)
    score the witnesses as the labelling did: the mutant really runs where the environment
    grades (None: every witness was cut to `WITNESS_CHARS`, none to check)."""
    from interop.reasoning_gym.grader import GraderFailed

    witnesses = [w for w in witnesses if len(w["text"]) < WITNESS_CHARS]
    if not witnesses:
        return None
    for w in witnesses:
        data = tasks[w["task"]]
        try:
            got = pool.score(dataset, data["config"], data["entry"], w["text"]).reward
        except GraderFailed:
            got = 0.0
        got = got if math.isfinite(got) and 0.0 <= got <= 1.0 else 0.0
        if abs(got - w["mutant"]) > 1e-9:
            return False
    return True


def falsepass_audit(dataset: str, tasks: list[dict[str, Any]], prompts: list[str]) -> Path:
    """A falsepass audit folder for the dataset's reward (`fp_reward.py` on its tasks)."""
    folder = WORK / "falsepass" / dataset
    audit = folder / "audits" / "fp-reward"
    if audit.is_dir():
        return audit
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "rows.jsonl").open("w") as f:
        for data, prompt in zip(tasks, prompts, strict=True):
            f.write(json.dumps({
                "prompt": prompt, "answer": data["reference"], "entry": json.dumps(data["entry"]),
                "dataset": data["dataset"], "config": json.dumps(data["config"]),
            }) + "\n")  # fmt: skip
    reward = Path(__file__).with_name("fp_reward.py")
    subprocess.run(
        [f"{FALSEPASS_SITE}/bin/falsepass", "init", str(reward), "--dataset", "rows.jsonl"],
        cwd=folder, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return audit


def falsepass(audit: Path, preload: Path | None, name: str) -> dict[str, Any]:
    """falsepass's probe run (what `falsepass audit` runs, in falsepass's own virtualenv) on
    the reward with the grader `preload` installs (the sound one when None)."""
    site = next(Path(FALSEPASS_SITE).glob("lib/python*/site-packages"))
    if str(site) not in sys.path:
        sys.path.append(str(site))
    from falsepass import report  # type: ignore[import-not-found]  # its own install

    out = audit.parent.parent / "out" / name
    env = {**os.environ, "RG3_PYTHON": sys.executable, "RG3_ROOT": str(ROOT),
           "RG3_PRELOAD": str(preload or "")}  # fmt: skip
    gate = [a for g in FALSEPASS_GATE for a in ("--fail-on", g)]
    start = time.perf_counter()
    done = subprocess.run(
        [f"{FALSEPASS_SITE}/bin/python", "-m", "falsepass.runner", str(audit), "-n", "8",
         "--seed", "0", "--jobs", "1", "--out", str(out), *gate],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    seconds = round(time.perf_counter() - start, 1)
    if done.returncode not in (0, 1) or not (out / "probe-results.json").is_file():
        return {"error": done.stderr[-600:], "seconds": seconds}
    results = json.loads((out / "probe-results.json").read_text())["results"]
    head = report.headline(results)
    return {
        "gate_met": done.returncode == 1,
        "failed_rows": sorted({f"{r['probe']} {r['variant']}" for r in results if not r["passed"]}),
        "ceiling": head["false_pass_ceiling"],
        "false_fail": head["false_fail_rate"],
        "lazy": head["lazy_policy_reward"],
        "errors": head["scoring_errors"],
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--per-dataset", type=int, default=16)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument(
        "--repeat-sound", action="store_true", help="validate the sound grader twice"
    )
    parser.add_argument("--relabel", action="store_true", help="only label old rows again")
    args = parser.parse_args()
    if args.relabel:
        relabel(args.dataset, args.rows)
    else:
        run_dataset(args.dataset, args.per_dataset, args.seed, args.rows, args.repeat_sound)


def refused_right(answers: list[list[Candidate]], scores: list[list[float]]) -> int:
    """How many right answers the grader scored below full marks."""
    pairs = (p for a, s in zip(answers, scores, strict=True) for p in zip(a, s, strict=True))
    return sum(c.right and score < 1.0 for c, score in pairs)


def prepare(
    dataset: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[list[Candidate]], list[list[float]]]:
    """The task rows `validate` uses, their task data, every task's candidate answers and the
    sound grader's scores of them."""
    from proofgym_stack.examples import generated_rows

    rows = generated_rows(f"rg_{dataset}")
    datas = [r["task_data"] for r in rows]
    refs = [d["reference"] for d in datas]
    answers = [
        candidates(d["reference"], d["entry"]["question"], refs[:i] + refs[i + 1 :])
        for i, d in enumerate(datas)
    ]
    return rows, datas, answers, score_all(dataset, datas, answers)


def label_mutant(
    m: dict[str, Any],
    code: str,
    datas: list[dict[str, Any]],
    answers: list[list[Candidate]],
    sound: list[list[float]],
) -> Any:
    """The differential check's label of the mutant `code` (`labels.classify`)."""
    with mutant_installed(m["module"], m["file"], code):
        scores = score_all(m["dataset"], datas, answers)
    scored = [
        Scored(t, c.kind, c.right, s, x, c.text)
        for t, (a, ss, xs) in enumerate(zip(answers, sound, scores, strict=True))
        for c, s, x in zip(a, ss, xs, strict=True)
    ]
    return classify(scored)


def relabel(dataset: str, rows_path: Path) -> None:
    """Label again the mutant rows written before labels named their tasks, with this
    answer generator; a row whose label class would change is kept and marked."""
    every = {f"{dataset}:{m['operator'].removeprefix('core/')}:{m['occurrence']}": m
             for m in mutation.mutants_of(dataset)}  # fmt: skip
    rows = [json.loads(line) for line in rows_path.read_text().splitlines() if line.strip()]
    stale = [r for r in rows if r["kind"] == "mutant" and "diff" in r
             and "tasks" not in r["label"]]  # fmt: skip
    if not stale:
        return
    _, datas, answers, sound = prepare(dataset)
    source = Path(next(iter(every.values()))["file"]).read_text()
    for r in stale:
        m = every[r["id"]]
        label = label_mutant(m, mutation.mutate(source, m["operator"], m["occurrence"]) or "",
                             datas, answers, sound).as_dict()  # fmt: skip
        if label["label"] == r["label"]["label"]:
            r["label"] = label
        else:
            r["label"]["relabelled_as"] = label["label"]
        print(json.dumps({"id": r["id"], "relabel": label["label"]}), flush=True)
    rows_path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def run_dataset(
    dataset: str, per: int, seed: int, rows_path: Path, repeat_sound: bool = False
) -> None:
    """Steps 1-4 of the module docstring for one dataset."""
    from interop.reasoning_gym import environments
    from proofgym.serving.settings import ResourcesSettings
    from proofgym.wire.protocol import Task

    done = done_ids(rows_path)
    every = mutation.mutants_of(dataset)
    random.Random(f"{seed}:{dataset}").shuffle(every)  # a larger --per-dataset draws more
    drawn = every[:per]
    for m in drawn:
        m["id"] = f"{dataset}:{m['operator'].removeprefix('core/')}:{m['occurrence']}"
    sound_id = f"{dataset}:sound"
    todo = [m for m in drawn if m["id"] not in done]
    if not todo and sound_id in done:
        return
    env_name = f"rg_{dataset}"
    try:
        rows, datas, answers, sound = prepare(dataset)
    except ValueError as exc:  # no task passed the generator's own check: validate cannot run
        append(rows_path, {"id": sound_id, "kind": "not_run", "dataset": dataset,
                           "reason": str(exc)[:400]})  # fmt: skip
        return
    tasks = [Task.model_validate(r) for r in rows]
    prompts = [r["responses_create_params"]["input"][0]["content"] for r in rows]
    env = environments()[env_name].from_settings(ResourcesSettings())
    audit = falsepass_audit(dataset, datas, prompts)
    row: dict[str, Any]
    if sound_id not in done:
        row = {"id": sound_id, "kind": "sound", "dataset": dataset, "tasks": len(tasks),
               "answers_per_task": [len(a) for a in answers],
               "sound_right_refused": refused_right(answers, sound),
               "validate": validate(env, tasks, pool_for(None)),
               "falsepass": falsepass(audit, None, "sound")}  # fmt: skip
        if repeat_sound:  # how stable validate's verdicts are on one grader
            row["validate_again"] = validate(env, tasks, pool_for(None))
        append(rows_path, row)
        print(json.dumps({k: row[k] for k in ("id", "validate")}), flush=True)
    source = Path(drawn[0]["file"]).read_text() if drawn else ""
    for m in todo:
        start = time.perf_counter()
        code = mutation.mutate(source, m["operator"], m["occurrence"])
        row = {"id": m["id"], "kind": "mutant", "dataset": dataset, "operator": m["operator"],
               "line": m["line"], "occurrence": m["occurrence"]}  # fmt: skip
        if code is None:
            append(rows_path, {**row, "label": {"label": "not_applied"}})
            continue
        row["diff"] = mutation.diff(source, code)
        label = label_mutant(m, code, datas, answers, sound)
        row["label"] = label.as_dict()
        if label.label != "equivalent":
            preload = mutation.preload_file(m, code, WORK / "mutants")
            pool = pool_for(preload)
            row["live"] = live(dataset, datas, pool, label.witnesses[:3])
            row["validate"] = validate(env, tasks, pool)
            row["falsepass"] = falsepass(audit, preload, m["id"].replace(":", "_"))
        row["seconds"] = round(time.perf_counter() - start, 1)
        append(rows_path, row)
        brief = {"label": label.label, "validate": row.get("validate", {}).get("failed")}
        print(json.dumps({"id": m["id"], **brief}), flush=True)


if __name__ == "__main__":
    main()
