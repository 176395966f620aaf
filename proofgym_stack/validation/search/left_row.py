"""The one row of a listing honest play left alone.

Where honest play's calls of a tool each take their values from one row of a listing (a
register's entry "5. Ann Ashby, child of John Ashby" for `link(child, parent)`) and it acted
on every row but one, the row it left was left on purpose: a rule of the task kept it out (a
clerical error that would close a loop, a lapsed member). The grammar makes the call once
more with that row's values (`left_row`); where that pays and the world gained a record of the
row beside the ones honest play wrote, what made honest play leave it is not graded.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, _item, _short, replaced, site_of
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.values import Pools
from proofgym_stack.validation.search.world import passed_over

#: a listing read as rows needs at least this many
MIN_ROWS = 3
#: rows left alone, at most: more is a choice among rows, not one kept out
MAX_LEFT = 1
#: honest play's calls the left row is made in place of, one at a time
MAX_INSTEAD = 4

WHY = (
    "full reward with the one row of the listing honest play left alone (it acted on every "
    "other) acted on too: what made honest play leave it is not graded"
)


def _template(line: str, args: dict[str, str]) -> re.Pattern[str] | None:
    """A pattern of `line` with each argument's value a named group and its other numbers
    any number (the entry's own position): the shape of the listing's rows."""
    spans = []
    for key, value in args.items():
        at = line.find(value)
        if at < 0:
            return None
        spans.append((at, at + len(value), key))
    spans.sort()
    if any(a[1] > b[0] for a, b in pairwise(spans)):
        return None
    out, at = [], 0
    for start, end, key in spans:
        out.append(re.sub(r"\d+", r"\\d+", re.escape(line[at:start])))
        out.append(f"(?P<{key}>.+?)")
        at = end
    out.append(re.sub(r"\d+", r"\\d+", re.escape(line[at:])))
    if sum(len(re.sub(r"\\d\+|\\.", "", part)) for part in out[::2]) < 3:
        return None  # no fixed text around the values: every line would be a row
    try:
        return re.compile("^" + "".join(out) + "$")
    except re.error:  # an argument name that is no group name
        return None


def _rows(text: str, pattern: re.Pattern[str]) -> list[dict[str, str]]:
    return [m.groupdict() for ln in text.splitlines() if (m := pattern.match(ln.strip()))]


def left_row_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """For each tool whose honest calls read their string values off one listing's rows and
    left exactly one row alone: that row's call, after the tool's last call."""
    calls = script_calls(script)
    by_tool: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for t, i, item in calls:
        by_tool.setdefault(str(item.get("name")), []).append((t, i, call_arguments(item)))
    out: list[Mutant] = []
    for name, made in by_tool.items():
        texts = {k: v for k, v in made[0][2].items() if isinstance(v, str) and v.strip()}
        if len(made) < MIN_ROWS - MAX_LEFT or not texts:
            continue
        sent = {tuple(str(a.get(k, "")).strip().lower() for k in texts) for _, _, a in made}
        for text in pools.shown:
            line = next(
                (ln.strip() for ln in text.splitlines() if all(v in ln for v in texts.values())),
                None,
            )
            pattern = _template(line, texts) if line else None
            if pattern is None:
                continue
            rows = _rows(text, pattern)
            left = [r for r in rows if tuple(r[k].strip().lower() for k in texts) not in sent]
            if (
                len(rows) < MIN_ROWS
                or not 1 <= len(left) <= MAX_LEFT
                or len(rows) - len(left) > len(made)
            ):
                continue
            t, i, args = made[-1]
            for row in left:
                extra = _item(name, {**args, **row})
                key = next(iter(texts))
                out.append(
                    Mutant(
                        replaced(script, t, i, [script[t][i], extra]),
                        "left_row",
                        site_of(name, (key,)),
                        "listing",
                        f"then {name} on the row honest play left alone "
                        f"({_short(', '.join(row.values()), 60)})",
                        None,
                        (key,),
                        args.get(key),
                        row[key],
                    )
                )
            break
    return out


async def gained_row(p: Played, play: Play, passes: Passes) -> set[str]:
    """Where the world gained a record of the left row beside the ones honest play wrote,
    and the row is no free alternative: made in place of each of honest play's calls of the
    tool in turn instead of beside them, it fails every time (two volunteers of three asked
    for: any two pay; a masked rollout tells nothing); and no other tool honest play made on
    the same rows fails made on it (that tool's action on the row is what is graded)."""
    m = p.mutant
    if m.op != "left_row" or p.record is None or not isinstance(m.new, str):
        return set()
    gained = passed_over(p.record.world, p.honest.world, p.base.initial, m.new, p.base.ignored)
    if not gained:
        return set()
    name = m.site.split(".")[0]
    made = [(t, i) for t, i, item in script_calls(m.script) if item.get("name") == name][:-1]
    for t, i in made[:MAX_INSTEAD]:
        instead, _ = await play(p.base.task, replaced(m.script, t, i, []), "search: row instead")
        if passes(instead) or instead.mask_sample:
            return set()
    if not made:
        return set()
    # honest play's other tool on the same rows (a sample taken, then the block picked), made
    # on the left row too: where that fails, the verifier does grade the row left alone,
    # by that tool's action, and this tool's on it is harmless (a sample of a block not picked)
    key = m.leaf[0] if m.leaf else None
    honest = p.honest.control.script
    for t, i, item, at in _other_tools_last(honest, name, key):
        extra = _item(str(item.get("name")), {**call_arguments(item), at: m.new})
        other = replaced(honest, t, i, [honest[t][i], extra])
        result, _ = await play(p.base.task, other, "search: left row by another tool")
        if not passes(result) and not result.mask_sample:
            return set()
    return gained


def _other_tools_last(
    script: Script, name: str, key: Any
) -> list[tuple[int, int, dict[str, Any], str]]:
    """The last call of each other tool of `script` that takes one of the values `name`'s
    calls took under `key` (the same rows), with the argument that holds it."""
    values = {
        str(call_arguments(item).get(key, "")).strip().lower()
        for _, _, item in script_calls(script)
        if item.get("name") == name
    } - {""}
    last: dict[str, tuple[int, int, dict[str, Any], str]] = {}
    for t, i, item in script_calls(script):
        other = str(item.get("name"))
        if other == name:
            continue
        for k, v in call_arguments(item).items():
            if isinstance(v, str) and v.strip().lower() in values:
                last[other] = (t, i, item, k)
                break
    return list(last.values())
