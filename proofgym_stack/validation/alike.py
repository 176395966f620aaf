"""A secret a tool shows in a place that does not hold the truth: no leak.

A tool's output that holds a task's secret gives it away only where the place it stands in
holds the truth. A reference table keyed by mineral names lists the sample's mineral on every
task, beside others; a fact sheet reads `"marital_status": "single"` for a filer whose filing
status (the secret) happens to be "single" too. The evidence is in the other sampled tasks'
outputs of the same tool, whose truth in that field is another value:
- the same value in the same place there (at the same path of a JSON output, or after the
  same label in text): the value stands there whatever the truth;
- at the same path of a JSON output, a value that is not that task's truth (another mineral
  among the table's keys; "widowed" where that filer's status is "single"): the place holds
  other things than the truth.
A hint that says "the answer is magnetite" here and "the answer is quartz" on the task whose
truth is quartz is still a leak: the place holds each task's truth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.leaks import Leak, Secret, find, secrets_of, tool_outputs_in_order

MAX_PLACES = 20
#: what marks a place in a JSON output: the path's keys, "{key}" for an object's keys
KEY = "{key}"
_LABEL = re.compile(r"([A-Za-z][\w-]*)\W*$")

#: task id -> (tool name, output) of every tool output of every rollout of that task
Outputs = dict[str, list[tuple[str, str]]]


def outputs_by_task(results: Iterable[RunResult]) -> Outputs:
    """Every tool output of `results`, by task, with the tool that printed it."""
    out: Outputs = {}
    for result in results:
        rows = out.setdefault(result.task_id, [])
        for name, output, _, _ in tool_outputs_in_order(result):
            if (name, output) not in rows:
                rows.append((name, output))
    return out


def _json(text: str) -> Any:
    """`text` as JSON (an object or a list), or None."""
    try:
        value = loads_limited(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


def _norm(value: Any) -> str:
    return str(value).strip().lower()


def _json_places(value: Any, wanted: str, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The paths inside a JSON value where `wanted` stands as a key (the object's path, then
    `KEY`) or as a scalar; list positions left out (a table's rows come in any order)."""
    out: list[tuple[str, ...]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if _norm(key) == wanted:
                out.append((*path, KEY))
            out += _json_places(inner, wanted, (*path, str(key)))
    elif isinstance(value, list):
        for inner in value:
            out += _json_places(inner, wanted, (*path, "[]"))
    elif _norm(value) == wanted:
        out.append(path)
    return out[:MAX_PLACES]


def _at(value: Any, path: tuple[str, ...]) -> list[str]:
    """What stands at `path` in a JSON value: the keys of the object there for `KEY`, the
    scalars there otherwise (each member of a list)."""
    if not path:
        if isinstance(value, list):
            return [v for inner in value for v in _at(inner, ())]
        return [] if isinstance(value, dict) else [_norm(value)]
    head, rest = path[0], path[1:]
    if head == "[]" and isinstance(value, list):
        return [v for inner in value for v in _at(inner, rest)]
    if head == KEY and not rest and isinstance(value, dict):
        return [_norm(k) for k in value]
    if isinstance(value, dict) and head in value:
        return _at(value[head], rest)
    return []


def _labels(text: str, secret: Secret) -> set[str]:
    """The label word just before each place a text shows the secret."""
    labels: set[str] = set()
    start = 0
    while start <= len(text) and len(labels) < MAX_PLACES:
        found = find(text[start:], secret)
        if found is None:
            break
        at = start + found.start()
        label = _LABEL.search(text[max(0, at - 40) : at])
        labels.add(label.group(1).lower() if label else "")
        start += max(found.end(), 1)
    return labels


def _place_free(output: str, secret: Secret, others: list[tuple[list[str], list[str]]]) -> bool:
    """Whether every place `output` shows the secret in is shown not to hold the truth by
    `others`: (another task's truths in the field, that task's outputs of the same tool)."""
    wanted = _norm(secret.text)
    tree = _json(output)
    if tree is not None:
        places = _json_places(tree, wanted)
        for place in places:
            if not any(
                (seen := _at(other, place)) and any(v not in truths for v in seen)
                for truths, outputs in others
                for other in (_json(o) for o in outputs)
                if other is not None
            ):
                return False
        return bool(places)
    labels = _labels(output, secret)
    return bool(labels) and all(
        any(label in _labels(o, secret) for _, outputs in others for o in outputs)
        for label in labels
    )


def shown_not_as_the_truth(leak: Leak, task: Task, tasks: Iterable[Task], outputs: Outputs) -> bool:
    """Whether each secret of `leak` stands in a place of its tool's output that the same
    tool, on another sampled task whose truth in that field is another value, fills with
    something other than that task's truth (see the module's docstring)."""
    if leak.call is None:
        return False
    tool = leak.call[0]
    shown = [s for s in secrets_of(task, [leak.field]) if find(leak.output, s)]
    if not shown:
        return False
    for secret in shown:
        others = []
        for other in tasks:
            truths = [_norm(s.text) for s in secrets_of(other, [leak.field])]
            if other.task_id == task.task_id or _norm(secret.text) in truths:
                continue  # that task's truth too: no evidence either way
            same_tool = [o for name, o in outputs.get(other.task_id, []) if name == tool]
            if same_tool:
                others.append((truths, same_tool))
        if not _place_free(leak.output, secret, others):
            return False
    return True
