"""Colliding sessions: state kept by the process, not the session, is found without luck.

Module-level state keyed by something in the task (a file name, a customer id, the task id)
only shows when two live sessions share that key with different values. Sampled tasks rarely
do, so this check makes them: for each sampled task it builds variants whose `task_data` keeps
some of the task's values and takes others from another task, or changes one value, under the
same `task_id`. Each pair is then played by hand on the resources server: the same reference
trajectory in each session alone, then in both at once, seeded one after the other, tool calls
interleaved, verified one after the other. Each session must get exactly what it got alone.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.responses import function_calls
from proofgym_stack.validation.sessions import HandSession
from proofgym_stack.validation.signature import signature

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

Path = tuple[str | int, ...]
MAX_PAIRS = 10


def _paths(value: Any, prefix: Path = ()) -> dict[Path, Any]:
    """Every scalar leaf of `value`, by its path of keys and indices."""
    if isinstance(value, dict):
        out: dict[Path, Any] = {}
        for k, v in value.items():
            out.update(_paths(v, (*prefix, k)))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(_paths(v, (*prefix, i)))
        return out
    return {prefix: value}


def _set(data: Any, path: Path, value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def _mutated(value: Any) -> Any:
    """Another value of the same type: what a second task set might hold for the same key."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value[:-1] + ("b" if value[-1:] == "a" else "a") if value else "a"
    return value


def variants(
    anchor: Task,
    others: list[Task],
    rng: random.Random,
    used: frozenset[str] = frozenset(),
    most: int = 5,
) -> list[Task]:
    """Tasks that share `anchor`'s `task_id` and some of its values and differ in others, most
    telling first: two of its values swapped (customers swapped, a wanted slot made a taken
    one), a mix of its values and another task's, another task's data under its id, one value
    changed. Swaps that move a value the trajectory passes to a tool (`used`, as JSON) come
    before the others."""
    base = _paths(anchor.task_data)
    if not base:
        return []
    swaps, mixes, mutations = [], [], []
    leaves = list(base)
    same_type = [
        (p, q)
        for i, p in enumerate(leaves)
        for q in leaves[i + 1 :]
        if type(base[p]) is type(base[q]) and base[p] != base[q]
    ]
    rng.shuffle(same_type)
    same_type.sort(key=lambda pq: not ({json.dumps(base[pq[0]]), json.dumps(base[pq[1]])} & used))
    for p, q in same_type[:3]:
        data = copy.deepcopy(anchor.task_data)
        _set(data, p, copy.deepcopy(base[q]))
        _set(data, q, copy.deepcopy(base[p]))
        swaps.append(data)
    for other in others:
        theirs = _paths(other.task_data)
        common = [p for p in base if p in theirs and theirs[p] != base[p]]
        for parity in (0, 1):  # two complementary mixes
            data = copy.deepcopy(anchor.task_data)
            for i, path in enumerate(common):
                if i % 2 == parity:
                    _set(data, path, copy.deepcopy(theirs[path]))
            mixes.append(data)
        mixes.append(copy.deepcopy(other.task_data))  # the other's data under the anchor's id
    for path in rng.sample(leaves, min(len(leaves), 2)):
        data = copy.deepcopy(anchor.task_data)
        _set(data, path, _mutated(base[path]))
        mutations.append(data)
    rng.shuffle(mixes)
    ordered = [
        d
        for group in itertools.zip_longest(swaps, mixes, mutations)
        for d in group
        if d is not None
    ]
    unique: list[dict[str, Any]] = []
    for data in ordered:
        if data != anchor.task_data and data not in unique:
            unique.append(data)
    return [anchor.model_copy(update={"task_data": d}) for d in unique[:most]]


@dataclass
class _Played:
    outputs: list[str]
    verdict: dict[str, Any]


class _Session(HandSession):
    """One session on the resources server, played by hand, keeping what its tools showed."""

    def __init__(self, v: Context, task: Task) -> None:
        super().__init__(v.stack.client, v.base, task, "collide")
        self.outputs: list[str] = []

    async def play(self, name: str, args: dict[str, Any]) -> None:
        answer = await self.call(name, args)
        self.outputs.append(str(answer.get("output", "")))


def _calls(v: Context, task: Task, run: RunResult) -> list[tuple[str, dict[str, Any]]]:
    tools = {t["name"] for t in v.env.task_tool_schemas(task)}
    calls = []
    for call in function_calls(run.response):
        try:
            args = loads_limited(call.get("arguments") or "{}")
        except ValueError:
            continue
        if isinstance(args, dict) and call.get("name") in tools:
            calls.append((str(call["name"]), args))
    return calls


async def _alone(v: Context, task: Task, run: RunResult) -> _Played | None:
    s = _Session(v, task)
    if not await s.seed():
        return None
    try:
        for name, args in _calls(v, task, run):
            await s.play(name, args)
        try:
            verdict = await s.verify(run.response.model_dump(mode="json"))
        except RuntimeError:
            return None  # a variant its verifier cannot judge even alone: nothing to compare
        return _Played(s.outputs, verdict)
    finally:
        await s.close()


async def _together(v: Context, first: Task, second: Task, run: RunResult) -> list[_Played]:
    a, b = _Session(v, first), _Session(v, second)
    await a.seed()
    await b.seed()
    try:
        for name, args in _calls(v, first, run):
            await a.play(name, args)
            await b.play(name, args)
        response = run.response.model_dump(mode="json")
        played_a = _Played(a.outputs, await a.verify(response))
        return [played_a, _Played(b.outputs, await b.verify(response))]
    finally:
        await a.close()
        await b.close()


async def check_colliding_sessions(v: Context) -> None:
    """Sessions whose task data collide on purpose get, side by side, what they get alone."""
    rng = random.Random(f"{v.seed}:collide")
    per_task = []
    for task in v.tasks:
        run = v.reference_result(task.task_id)
        if run is None:
            continue
        others = [t for t in v.tasks if t.task_id != task.task_id]
        used = frozenset(
            json.dumps(value) for _, args in _calls(v, task, run) for value in args.values()
        )
        per_task.append([(task, variant, run) for variant in variants(task, others, rng, used)])
    # the most telling variant of every task first, then the next of each
    pairs = [p for group in itertools.zip_longest(*per_task) for p in group if p is not None]
    tried, problems = 0, []
    for anchor, variant, run in itertools.islice(pairs, MAX_PAIRS):
        alone_a, alone_b = await _alone(v, anchor, run), await _alone(v, variant, run)
        if alone_a is None or alone_b is None:
            continue  # the environment refused the variant as a task: nothing to compare
        tried += 1
        for order in ((anchor, variant), (variant, anchor)):
            try:
                together = await _together(v, *order, run)
            except RuntimeError as exc:  # judged alone, it failed beside the other session
                problems.append(f"{anchor.task_id}: side by side, a session failed: {exc}"[:300])
                continue
            for task, got in zip(order, together, strict=True):
                alone = alone_a if task is anchor else alone_b
                same = signature(got.verdict) == signature(alone.verdict)
                if same and v.env.deterministic_tools:
                    same = got.outputs == alone.outputs
                if not same:
                    who = "the task" if task is anchor else "a colliding variant"
                    problems.append(
                        f"{anchor.task_id}: {who} got reward {got.verdict['reward']:g} beside "
                        f"another session with the same keys, {alone.verdict['reward']:g} alone"
                        + ("" if got.outputs == alone.outputs else "; its tool outputs differ")
                    )
    if not tried:
        v.not_applicable(
            "isolation_colliding", "no colliding variant of the sampled tasks was accepted"
        )
        return
    detail = (
        "; ".join(problems[:3])
        if problems
        else f"{tried} pairs of sessions with colliding task data, each as alone"
    )
    v.verdict("isolation_colliding", not problems, detail)
