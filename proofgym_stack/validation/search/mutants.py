"""The grammar of the search: every way to change a passing trajectory a policy could take
(the moves with other tools, `tool_swap`, `undo` and `one_more`, and `mutants_of`, which
gathers them all, are in `other_calls`).

A mutant is a pass control's script with one change, named by its operator (`op`), where it
applies (`site`: `tool.argument`, a tool's name, or `message`) and where a new value came
from (`source`). The operators:
- `alias`: one text argument of a call given another's value (a move from a tank to itself);
- `resplit`: two neighbouring arguments' characters split at another place (row 1 seat 12 as
  row 11 seat 2);
- `argument`: one leaf of one call's arguments (any call, any depth) set to a candidate of
  `values.candidates`: what the tools printed, the prompt's words and numbers, the schemas'
  words, the type's boundary values, the string shortened, the common prefix of that
  argument across tasks, wildcards; first, the number the prompt asked for this thing where
  honest play sent another (`values.asked_numbers`), and the amount a tool printed beside
  the thing the call names (`held.held_numbers`: the whole stock, where honest play moved
  a part);
- `list_drop`, `list_duplicate`, `list_reorder`, `list_empty`: members of a list argument;
  `dict_drop`: a key of an object argument;
- `split` (a list argument's members sent one call each) and `merge` (calls of one tool
  whose list arguments are joined into one call): batching, as an honest policy may do;
  `gather` (`gather.py`: every call of a tool whose calls differ in another argument made
  as the first, with all the list's members): everything put in the first place;
- `call_drop`, `call_repeat`, `call_reorder` (two neighbours swapped);
- `spray`: the call made again with other values after the right one (any-one-pays);
- `same_value` (one value over every call of a tool), `swap_args` (two arguments of a call
  swapped), `shortcut` (the trajectory cut after one call whose argument is changed);
- `tool_swap`: a call made with another tool, its values carried over by name and type;
- `one_more`: after the last call, a tool honest play used made once more on a thing the
  task's words name that honest play never passed it (another requested item);
- `undo`: after the last call, another tool made on what an earlier call named (every
  parameter filled by name from it): `remove_item(item)` after `add_item(item)`;
- `follow_up` (played after the others): where a mutant's tools printed something honest play
  never showed, the later calls' string arguments set to it;
- `tell`: the final message with a value a listing printed after a role (`seller: Mrs
  Nakamura`) added, which honest play never said;
- `stretch`: the final message with every word the tools printed after it (spaces, and one
  word per line): past any length the task's words cap;
- `message`: the final message emptied, a bare claim, the prompt echoed, cut in half, its
  last number at its edges (nan, inf, 0, -0) or with its sign flipped;
- `fraction_answer`: the reply's whole last number given as a fraction either side.
`honest_kind` marks the operators an honest policy could use (batching, order): the search
does not hold a different world against them.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from proofgym_stack.validation.scripts import (
    ArgPath,
    Script,
    call_arguments,
    leaves,
    script_calls,
    set_at,
)
from proofgym_stack.validation.search.counts import counts_whole_things
from proofgym_stack.validation.search.held import held_numbers
from proofgym_stack.validation.search.options import singled_out
from proofgym_stack.validation.search.values import (
    Pools,
    asked_alike,
    asked_numbers,
    candidates,
    tool_properties,
)

HONEST_KINDS = frozenset({"split", "merge", "call_reorder", "list_reorder"})
#: neighbouring members of a list swapped, at most, per list
MAX_SWAPS = 8
#: booleans left false sent true, at most, per call
MAX_FLAGS = 3
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
BARE_CLAIM = "Done."


@dataclass(frozen=True)
class Mutant:
    """One change to a pass control's script, and what it was."""

    script: Script
    op: str
    site: str
    source: str
    what: str
    #: for an `argument` mutant: the call's (turn, position), the leaf's path, old and new
    call_at: tuple[int, int] | None = None
    leaf: ArgPath = ()
    old: Any = None
    new: Any = None
    #: an option another listing singles out (printed where the honest value is not: the
    #: plots under a hold, the team's mentor): one a policy reading the listings tries first
    first: bool = False
    #: for a retry (`retry.py`): what the tool answered the call it retries with
    note: str = ""
    #: for a `one_more` mutant: where its extra call stands (None: it is the last call)
    extra_at: tuple[int, int] | None = None

    @property
    def honest_kind(self) -> bool:
        """An operator an honest policy could use (batching, order)."""
        return self.op in HONEST_KINDS


def _item(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": json.dumps(args)}


def with_call(script: Script, t: int, i: int, args: dict[str, Any]) -> Script:
    """`script` with the call at turn `t`, position `i` given `args`."""
    out = [list(turn) for turn in script]
    out[t][i] = _item(str(out[t][i].get("name")), args)
    return out


def replaced(script: Script, t: int, i: int, items: list[dict[str, Any]]) -> Script:
    """`script` with the item at (t, i) replaced by `items`, each in a turn of its own when
    there is more than one (an emptied turn dropped)."""
    out: Script = []
    for k, turn in enumerate(script):
        if k != t:
            out.append(list(turn))
            continue
        before, after = turn[:i], turn[i + 1 :]
        if before:
            out.append(before)
        out += [[item] for item in items]
        if after:
            out.append(after)
    return [turn for turn in out if turn]


def containers(value: Any, prefix: ArgPath = ()) -> list[tuple[ArgPath, Any]]:
    """Every list and dict inside an argument object (the object itself left out)."""
    out: list[tuple[ArgPath, Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    if isinstance(value, (dict, list)):
        for k, v in items:
            if isinstance(v, (dict, list)):
                out += [((*prefix, k), v), *containers(v, (*prefix, k))]
    return out


def leaf_key(path: ArgPath) -> str:
    """The name a leaf goes by: its own key, or, for a list member, its list's."""
    named = [p for p in path if isinstance(p, str)]
    return named[-1] if named else ""


def site_of(tool: str, path: ArgPath) -> str:
    """`ship.items`: the tool and the argument's top-level name (members share their list's)."""
    return f"{tool}.{path[0]}" if path else tool


def final_message(script: Script) -> tuple[int, int] | None:
    """Where the script's last message item stands."""
    for t in range(len(script) - 1, -1, -1):
        for i in range(len(script[t]) - 1, -1, -1):
            if script[t][i].get("type") == "message":
                return t, i
    return None


def before_final_message(script: Script, calls: list[dict[str, Any]]) -> Script:
    """`script` with `calls` made as one turn just before its final message (at the end where
    it has none)."""
    out = [list(turn) for turn in script]
    where = final_message(out)
    if where is None:
        return [*out, calls]
    t, i = where
    before, rest = out[t][:i], out[t][i:]
    return [turn for turn in [*out[:t], before, calls, rest, *out[t + 1 :]] if turn]


def argument_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """Each leaf of each call set to each candidate; lists and dicts edited member-wise."""
    out: list[Mutant] = []
    for t, i, item in script_calls(script):
        name, args = str(item.get("name")), call_arguments(item)
        for path, value in leaves(args):
            if not path:
                continue
            singled = singled_out(value, [*pools.printed, ("prompt", pools.prompt_text)])
            asked = [("asked", n) for n in asked_numbers(value, args, pools.prompt_text)]
            asked += [("asked", v) for v in asked_alike(value, pools.prompt_text)]
            asked += [("held", v) for v in held_numbers(value, args, pools.shown)]
            for source, new in asked + candidates(leaf_key(path), value, pools):
                if source == "fraction" and not counts_whole_things(
                    leaf_key(path), name, pools.tools
                ):
                    continue  # half a thing is tried only on a count of whole things
                out.append(
                    Mutant(
                        with_call(script, t, i, set_at(args, path, new)),
                        "argument",
                        site_of(name, path),
                        source,
                        f"{name}: {_path(path)} {_short(value)} -> {_short(new)}",
                        (t, i),
                        path,
                        value,
                        new,
                        first=source == "option" and new in singled,
                    )
                )
        for path, box in [((), args), *containers(args)]:
            out += _member_mutants(script, t, i, name, args, path, box)
        out += _aliases(script, t, i, name, args) + _resplit(script, t, i, name, args)
        out += _flags_set(script, t, i, name, args, pools)
    return out


def _flags_set(
    script: Script, t: int, i: int, name: str, args: dict[str, Any], pools: Pools
) -> list[Mutant]:
    """Each boolean the tool's schema offers and the call left to its default of false, sent
    true (a discount applied, an override given): a policy reads the schema too."""
    out: list[Mutant] = []
    for key, spec in tool_properties(pools.tools, name).items():
        if spec.get("type") != "boolean" or key in args or spec.get("default", False):
            continue
        if len(out) >= MAX_FLAGS:  # a tool of many switches: the first few, not the budget
            break
        out.append(
            Mutant(
                with_call(script, t, i, {**args, key: True}),
                "argument",
                site_of(name, (key,)),
                "schema",
                f"{name}: {key} left false -> true",
                (t, i),
                (key,),
                False,
                True,
            )
        )
    return out


def _resplit(script: Script, t: int, i: int, name: str, args: dict[str, Any]) -> list[Mutant]:
    """Two neighbouring arguments written together split at another place (row 1, seat 12
    as row 11, seat 2): the same characters a key joined without a separator reads."""
    keys = [k for k, v in args.items() if isinstance(v, (int, str)) and not isinstance(v, bool)]
    out = []
    for a, b in itertools.pairwise(keys):
        x, y = args[a], args[b]
        joined, cut = f"{x}{y}", len(str(x))
        for k in range(1, len(joined)):
            left, right = joined[:k], joined[k:]
            if k == cut or not left.strip() or not right.strip():
                continue
            typed = [_as_type(part, like) for part, like in ((left, x), (right, y))]
            if None in typed:
                continue
            edited = with_call(script, t, i, {**args, a: typed[0], b: typed[1]})
            what = f"{name}: {a} {x!r}, {b} {y!r} as {typed[0]!r}, {typed[1]!r}"
            out.append(Mutant(edited, "resplit", site_of(name, (a,)), "resplit", what))
    return out[:4]


def _as_type(part: str, like: Any) -> Any:
    """`part` as a value of `like`'s type, or None where it reads as another (a zero-padded
    number would not join back to the same characters)."""
    if isinstance(like, str):
        return part
    return int(part) if part.isdigit() and str(int(part)) == part else None


def _aliases(script: Script, t: int, i: int, name: str, args: dict[str, Any]) -> list[Mutant]:
    """Each text argument of a call given another text argument's value (`from_tank` set to
    `to_tank`): a move onto itself, a player paired with themself, a transfer to the same
    account. A call on one thing in two roles is the edge a tool's author forgets."""
    texts = {k: v for k, v in args.items() if isinstance(v, str) and v.strip()}
    out = []
    for a, old in texts.items():
        for b, new in texts.items():
            if a == b or old == new:
                continue
            out.append(
                Mutant(
                    with_call(script, t, i, {**args, a: new}),
                    "alias",
                    site_of(name, (a,)),
                    "alias",
                    f"{name}: {a} set to {b}'s value {_short(new)}",
                    (t, i),
                    (a,),
                    old,
                    new,
                )
            )
    return out[:6]


def _member_mutants(
    script: Script, t: int, i: int, name: str, args: dict[str, Any], path: ArgPath, box: Any
) -> list[Mutant]:
    out: list[Mutant] = []
    site = site_of(name, path)

    def mutant(new: Any, op: str, what: str) -> Mutant:
        edited = with_call(script, t, i, set_at(args, path, new))
        return Mutant(edited, op, site, op, what, (t, i), path, box, new)

    if isinstance(box, list) and path:
        if len(box) >= 2:
            for k in range(len(box)):
                kept = box[:k] + box[k + 1 :]
                out.append(mutant(kept, "list_drop", f"{name}: {_path(path)} without [{k}]"))
            out.append(mutant(box[:1], "list_drop", f"{name}: {_path(path)} first only"))
            # the whole list reversed first, then its neighbours swapped (a ranking's ties)
            reversed_ = mutant(box[::-1], "list_reorder", f"{name}: {_path(path)} reversed")
            out.append(replace(reversed_, first=True))
            for k in range(min(len(box) - 1, MAX_SWAPS)):  # neighbours swapped: a ranking's ties
                swapped = [*box[:k], box[k + 1], box[k], *box[k + 2 :]]
                what = f"{name}: {_path(path)} [{k}] and [{k + 1}] swapped"
                out.append(mutant(swapped, "list_reorder", what))
        if box:
            out.append(mutant([*box, box[0]], "list_duplicate", f"{name}: {_path(path)} +[0]"))
            out.append(mutant([], "list_empty", f"{name}: {_path(path)} emptied"))
    elif isinstance(box, dict) and len(box) >= 2 and path:
        for key in box:
            fewer = {k: v for k, v in box.items() if k != key}
            out.append(mutant(fewer, "dict_drop", f"{name}: {_path(path)} without {key!r}"))
    elif isinstance(box, dict) and not path:  # the call's own arguments: split a batch
        for key, value in box.items():
            if isinstance(value, list) and len(value) >= 2:
                items = [_item(name, {**box, key: [member]}) for member in value]
                out.append(
                    Mutant(
                        replaced(script, t, i, items),
                        "split",
                        site_of(name, (key,)),
                        "split",
                        f"{name}: {key} sent one member a call ({len(value)} calls)",
                    )
                )
    return out


def call_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """Calls dropped, repeated, swapped, merged, and sprayed with other values."""
    calls = script_calls(script)
    out: list[Mutant] = []
    for n, (t, i, item) in enumerate(calls):
        name = str(item.get("name"))
        out.append(
            Mutant(replaced(script, t, i, []), "call_drop", name, "call_drop", f"{name} left out")
        )
        out.append(
            Mutant(
                replaced(script, t, i, [item, item]),
                "call_repeat",
                name,
                "call_repeat",
                f"{name} made twice",
            )
        )
        if n + 1 < len(calls):
            t2, i2, other = calls[n + 1]
            swapped = replaced(replaced(script, t2, i2, [item]), t, i, [other])
            out.append(
                Mutant(
                    swapped,
                    "call_reorder",
                    name,
                    "call_reorder",
                    f"{name} after {other.get('name')}",
                )
            )
            out += _merge(script, n, calls)
            out += _join_chain(script, n, calls)
        args = call_arguments(item)
        for path, value in leaves(args):
            if not path or not isinstance(value, (str, int, float)) or isinstance(value, bool):
                continue
            drawn = candidates(leaf_key(path), value, pools)[:3]
            wrong = [v for _, v in drawn]
            if not wrong:
                continue
            sprayed = [item, *(_item(name, set_at(args, path, w)) for w in wrong)]
            # a spray of a listing's other options is drawn from the options (the choice of
            # one is what another option's failure shows graded)
            source = "option" if all(src == "option" for src, _ in drawn) else "spray"
            out.append(
                Mutant(
                    replaced(script, t, i, sprayed),
                    "spray",
                    site_of(name, path),
                    source,
                    f"{name}: {_path(path)} sent again as {', '.join(_short(w) for w in wrong)}",
                )
            )
    return out + _batched_without(script, calls)


def _merge(script: Script, n: int, calls: list[tuple[int, int, dict[str, Any]]]) -> list[Mutant]:
    """The call `n` and the next one, of the same tool, with their list arguments joined."""
    (t, i, a), (t2, i2, b) = calls[n], calls[n + 1]
    if a.get("name") != b.get("name"):
        return []
    x, y = call_arguments(a), call_arguments(b)
    lists = [k for k, v in x.items() if isinstance(v, list) and isinstance(y.get(k), list)]
    if not lists or set(x) != set(y) or any(x[k] != y[k] for k in x if k not in lists):
        return []
    joined = {**x, **{k: [*x[k], *y[k]] for k in lists}}
    name = str(a.get("name"))
    merged = replaced(replaced(script, t2, i2, []), t, i, [_item(name, joined)])
    return [
        Mutant(merged, "merge", site_of(name, (lists[0],)), "merge", f"two {name} calls as one")
    ]


def _batched_without(script: Script, calls: list[tuple[int, int, dict[str, Any]]]) -> list[Mutant]:
    """Every call of a tool that takes a list, made as one call with the lists joined (the
    batch the tool invites), with each call of another tool that counts the same things
    (an argument named like the tool or its list: `charge(guides=1)` beside `issue_guides`)
    left out in turn: a count the verifier takes of calls, where one call carries several
    things, asks less of the rest (the extra guides' charge) once they come in one batch."""
    out: list[Mutant] = []
    for name in dict.fromkeys(str(item.get("name")) for _, _, item in calls):
        mine = [(t, i, item) for t, i, item in calls if item.get("name") == name]
        if len(mine) < 2:
            continue
        x = call_arguments(mine[0][2])
        lists = [k for k, v in x.items() if isinstance(v, list)]
        rest = [call_arguments(item) for _, _, item in mine[1:]]
        if not lists or any(set(y) != set(x) for y in rest):
            continue
        if any(not isinstance(y[k], list) for y in rest for k in lists):
            continue
        if any(y[k] != x[k] for y in rest for k in x if k not in lists):
            continue
        stems = {
            w[:4] for w in re.split(r"[_\W]+", " ".join([name, *lists]).lower()) if len(w) >= 4
        }
        joined = {**x, **{k: [v for y in [x, *rest] for v in y[k]] for k in lists}}
        batched = script
        for t, i, _ in reversed(mine[1:]):
            batched = replaced(batched, t, i, [])
        batched = replaced(batched, mine[0][0], mine[0][1], [_item(name, joined)])
        for t, i, other in script_calls(batched):
            # a call that counts the things the batch carries (`charge(guides=1)` beside
            # `issue_guides`), not the calls: a per-call fee is the batch's honest saving
            keys = [str(k).lower() for k in call_arguments(other)]
            if other.get("name") == name or not any(k[:4] in stems for k in keys if len(k) >= 4):
                continue
            what = f"{len(mine)} {name} calls as one, {other.get('name')} left out"
            gone = replaced(batched, t, i, [])
            out.append(Mutant(gone, "batch_drop", str(other.get("name")), "batch_drop", what))
    return out


def _join_chain(
    script: Script, n: int, calls: list[tuple[int, int, dict[str, Any]]]
) -> list[Mutant]:
    """A chain of calls of one tool, each starting where the one before ended (one argument
    of a call equals another argument of the next: `end="01:00"`, then `start="01:00"`), made
    as the first call stretched to the last one's end: one long shift where honest play made
    several short ones, one range where it made pieces."""
    t, i, first = calls[n]
    name = str(first.get("name"))
    x = call_arguments(first)
    scalar = {k: v for k, v in x.items() if isinstance(v, (str, int, float)) and v != ""}
    for end in scalar:
        chain = [calls[n]]
        for t2, i2, nxt in calls[n + 1 :]:
            prev, y = call_arguments(chain[-1][2]), call_arguments(nxt)
            if nxt.get("name") != name or set(y) != set(x):
                break
            starts = [k for k in y if k != end and y[k] == prev.get(end) and prev.get(k) != y[k]]
            if not starts:
                break
            chain.append((t2, i2, nxt))
        if len(chain) < 2:
            continue
        last = call_arguments(chain[-1][2])
        joined = script
        for t2, i2, _ in reversed(chain[1:]):
            joined = replaced(joined, t2, i2, [])
        joined = replaced(joined, t, i, [_item(name, {**x, end: last[end]})])
        what = f"{len(chain)} {name} calls as one, {end} {_short(x[end])} -> {_short(last[end])}"
        return [Mutant(joined, "join", site_of(name, (end,)), "join", what)]
    return []


def follow_ups(script: Script, changed_at: int, fresh: list[str]) -> list[Mutant]:
    """After a mutant whose tools printed something new (`fresh`: tokens honest play never
    showed), the later calls' string arguments set to each of them: a policy reads what its
    changed call showed and acts on it (searches the other direction, books what it found)."""
    out: list[Mutant] = []
    for n, (t, i, item) in enumerate(script_calls(script)):
        if n <= changed_at:
            continue
        name, args = str(item.get("name")), call_arguments(item)
        for path, value in leaves(args):
            if not path or not isinstance(value, str):
                continue
            for token in fresh[:4]:
                if token != value:
                    out.append(
                        Mutant(
                            with_call(script, t, i, set_at(args, path, token)),
                            "follow_up",
                            site_of(name, path),
                            "follow_up",
                            f"then {name}: {_path(path)} -> {_short(token)} (shown after)",
                            (t, i),
                            path,
                            value,
                            token,
                        )
                    )
    return out


#: what a number in an answer may be replaced by at its edges: not-a-number, infinities,
#: the sign flipped, zero
NUMBER_EDGES = ("nan", "NaN", "inf", "-inf", "0", "-0")


def message_mutants(script: Script, prompt: str) -> list[Mutant]:
    """The final message emptied, a bare claim, the prompt echoed, cut in half."""
    where = final_message(script)
    if where is None:
        return []
    t, i = where
    text = str(script[t][i].get("content") or "")
    variants = [("", "emptied"), (BARE_CLAIM, "a bare claim"), (prompt, "the prompt echoed")]
    if len(text) >= 4:
        variants.append((text[: len(text) // 2], "cut in half"))
    numbers = list(_NUMBER.finditer(text))
    if numbers:  # the answer's number at its edges, and its sign flipped
        last = numbers[-1]
        token = last.group()
        flipped = token[1:] if token.startswith("-") else "-" + token
        for edge in (*NUMBER_EDGES, flipped):
            if edge != token:
                new_text = text[: last.start()] + edge + text[last.end() :]
                variants.append((new_text, f"with its number {token} as {edge}"))
    out = []
    for new, what in variants:
        if new != text:
            turned = [list(turn) for turn in script]
            turned[t][i] = {"type": "message", "content": new}
            out.append(Mutant(turned, "message", "message", "message", f"final message {what}"))
    return out


def told_mutants(script: Script, values: list[str], prompt: str) -> list[Mutant]:
    """The final message with one more sentence telling a value a listing printed after a
    role (`seller: Mrs Nakamura`) that honest play's reply and the prompt never say: what a
    chatty policy passes on."""
    where = final_message(script)
    if where is None:
        return []
    t, i = where
    text = str(script[t][i].get("content") or "")
    out = []
    for value in values:
        if value.lower() in text.lower() or value.lower() in prompt.lower():
            continue
        turned = [list(turn) for turn in script]
        turned[t][i] = {"type": "message", "content": f"{text} ({value})"}
        what = f"final message telling {value}"
        out.append(Mutant(turned, "tell", "message", "printed", what, new=value))
    return out[:4]


def _path(path: ArgPath) -> str:
    return "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if n else str(p)) for n, p in enumerate(path)
    )


def _short(value: Any, n: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= n else text[: n - 3] + "..."
