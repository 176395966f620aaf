"""What a session's world is, as the verifier was handed it: a flat fingerprint of the state.

`fingerprint(state)` walks the state object the environment's `verify` receives (dicts, lists,
sets, dataclasses and plain objects, an SQLite connection's rows, a workspace folder's files)
into `{path: value}` strings, bounded in depth and size. Two worlds differ where their
fingerprints differ; `differences` says where. Nothing here knows any environment: the search
calibrates which differences are noise (a rerun), honest freedom (another pass control) and
bookkeeping (a log that grows with every call) by experiment, never by name.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import fractions
import hashlib
import re
import sqlite3
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

MAX_DEPTH = 8
_INDEX = re.compile(r"\[\d+\]")
MAX_LEAVES = 4000
MAX_FILES = 200
MAX_FILE_BYTES = 1 << 20

World = dict[str, str]


#: the packages whose objects are connections to something else, read as one opaque leaf
TRANSPORTS = frozenset(
    {"httpx", "httpcore", "requests", "urllib3", "aiohttp", "websockets", "socket", "ssl"}
)


#: the standard library's value types: each one value, whose `repr` says all it holds
_VALUES = (
    datetime.date,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    fractions.Fraction,
    uuid.UUID,
    enum.Enum,
    complex,
)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def fingerprint(state: Any) -> World:
    """The state as `{path: value}`; a part past the bounds is cut (`<...>` at its path)."""
    out: World = {}
    _walk(state, "", out, 0, set())
    return out


def _leaf(out: World, path: str, value: str) -> bool:
    if len(out) >= MAX_LEAVES:
        return False
    out[path or "."] = value
    return True


def _walk(obj: Any, path: str, out: World, depth: int, seen: set[int]) -> None:
    if obj is None or isinstance(obj, (bool, int, float, str)):
        _leaf(out, path, repr(obj))
        return
    if isinstance(obj, (bytes, bytearray)):
        _leaf(out, path, "bytes:" + hashlib.sha256(obj).hexdigest()[:16])
        return
    if isinstance(obj, _VALUES):  # a moment, an amount, an id: one value, read whole
        _leaf(out, path, _ADDRESS.sub("", repr(obj)))  # an object's address differs each run
        return
    if depth >= MAX_DEPTH or id(obj) in seen or len(out) >= MAX_LEAVES:
        _leaf(out, path, "<...>")
        return
    seen = seen | {id(obj)}
    if isinstance(obj, dict):
        for key in sorted(obj, key=repr):
            _walk(obj[key], f"{path}.{key}", out, depth + 1, seen)
        if not obj:
            _leaf(out, path, "{}")
    elif isinstance(obj, (list, tuple)):
        _leaf(out, path + ".#", str(len(obj)))
        for i, item in enumerate(obj):
            _walk(item, f"{path}[{i}]", out, depth + 1, seen)
    elif isinstance(obj, (set, frozenset)):  # members, as a list's: one added loses nothing
        _leaf(out, path + ".#", str(len(obj)))
        for i, item in enumerate(sorted(obj, key=repr)):
            _walk(item, f"{path}[{i}]", out, depth + 1, seen)
    elif isinstance(obj, sqlite3.Connection):
        _rows(obj, path, out)
    elif type(obj).__module__.split(".", 1)[0] in TRANSPORTS:
        # a line to a world kept elsewhere (a bridge's HTTP client and its cookie jar), not
        # the world: its cookies' clocks and pooled connections are no state the verifier reads
        _leaf(out, path, f"<{type(obj).__name__}>")
    elif isinstance(obj, Path):
        _files(obj, path, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _walk(getattr(obj, f.name, None), f"{path}.{f.name}", out, depth + 1, seen)
    elif hasattr(obj, "__dict__") or hasattr(type(obj), "__slots__"):
        names = list(getattr(obj, "__dict__", {}))
        for cls in type(obj).__mro__:
            names += [n for n in getattr(cls, "__slots__", ()) if isinstance(n, str)]
        for name in dict.fromkeys(names):
            value = getattr(obj, name, None)
            if not callable(value) or isinstance(value, Path):
                _walk(value, f"{path}.{name}", out, depth + 1, seen)
    else:
        _leaf(out, path, f"<{type(obj).__name__}>")


def _rows(conn: sqlite3.Connection, path: str, out: World) -> None:
    """An SQLite database: each row of each table as a leaf named by its content, so a row
    added is a path added and a row changed or deleted is a path lost."""
    try:
        for line in conn.iterdump():
            if line.startswith("INSERT") and not _leaf(out, f"{path}.sql:{line[:300]}", "row"):
                return
    except sqlite3.Error as exc:  # another thread's connection, a closed one
        _leaf(out, path, f"<sqlite: {type(exc).__name__}>")


def _files(root: Path, path: str, out: World) -> None:
    """A folder (or file): each file's content hash under its relative path."""
    try:
        if root.is_file():
            _leaf(out, path, _digest(root))
            return
        if not root.is_dir():
            _leaf(out, path, repr(str(root)))
            return
        files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        for p in files[:MAX_FILES]:
            _leaf(out, f"{path}/{p.relative_to(root).as_posix()}", _digest(p))
    except OSError as exc:
        _leaf(out, path, f"<{type(exc).__name__}>")


def _digest(p: Path) -> str:
    with p.open("rb") as f:
        return hashlib.sha256(f.read(MAX_FILE_BYTES)).hexdigest()[:16]


def differences(a: World, b: World) -> set[str]:
    """The paths where two worlds differ (present in one only, or with another value)."""
    return {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}


def changed(world: World, honest: World) -> set[str]:
    """The paths of the honest world whose value `world` changed or lacks (a list's length
    among them): what a spray of answers into one slot changes; a new file beside it is not."""
    return {p for p, v in honest.items() if world.get(p) != v}


def lost(world: World, honest: World, ignored: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """What the honest world holds that `world` changed or lacks, by path (list members read
    as a multiset under their list's path, so a member appended or moved loses nothing and a
    member dropped or changed is lost; a list's length is not itself a loss). A path only
    `world` has is an addition, such as a scratch file, and is not counted: what the honest
    world holds is what the task asked for."""
    mine = members(world, ignored)
    return {p for p, values in members(honest, ignored).items() if _short_of(values, mine.get(p))}


def _short_of(wanted: list[str], have: list[str] | None) -> bool:
    """Whether `have`, read as a multiset, lacks one of `wanted`'s values."""
    left = list(have or [])
    for value in wanted:
        if value not in left:
            return True
        left.remove(value)
    return False


def undone(
    world: World, honest: World, initial: World, ignored: set[str] | frozenset[str] = frozenset()
) -> set[str]:
    """What honest play did that `world` takes back, by path: fewer copies of a list member
    honest play added than honest play left, or a value honest play changed that `world`
    holds as it was before any call (a record removed again, a flag set back). A value moved
    on elsewhere (more stock ordered after the fitting) takes nothing back."""
    mine, theirs, before = members(world, ignored), members(honest, ignored), members(initial)
    out: set[str] = set()
    for path, values in theirs.items():
        was = before.get(path, [])
        if "[]" not in path:  # one value: taken back only where it is as it was
            if sorted(values) != sorted(was) and sorted(mine.get(path, [])) == sorted(was):
                out.add(path)
            continue
        left, made = Counter(mine.get(path, [])), Counter(values)
        if any(left[v] < made[v] for v in made - Counter(was)):
            out.add(path)
    return out


def members(world: World, ignored: set[str] | frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """The world's values by path, a list's members gathered under their list's path
    (`.bookings[].flight_id`), as `lost` reads them."""
    out: dict[str, list[str]] = {}
    for path, value in world.items():
        if path in ignored or path.endswith(".#"):
            continue
        out.setdefault(_INDEX.sub("[]", path), []).append(value)
    return out


def as_sets(
    world: World, ignored: set[str] | frozenset[str] = frozenset()
) -> dict[str, frozenset[str]]:
    """The world with every list read as the set of its members: what a repeated identical
    action (the same record written twice, an article read twice) leaves unchanged."""
    out: dict[str, set[str]] = {}
    for path, value in world.items():
        if path in ignored or path.endswith(".#"):
            continue
        out.setdefault(_INDEX.sub("[]", path), set()).add(value)
    return {k: frozenset(v) for k, v in out.items()}


def passed_over(
    world: World,
    honest: World,
    initial: World,
    item: str,
    ignored: set[str] | frozenset[str] = frozenset(),
) -> set[str]:
    """Where `world` holds a record naming `item` that the honest world lacks, beside records
    honest play itself wrote (a member of the same list, a key of the same object): the
    action honest play took on its siblings, taken on a thing it looked at and left alone."""
    mine, theirs, before = members(world, ignored), members(honest, ignored), members(initial)
    changed = {p for p, values in theirs.items() if sorted(values) != sorted(before.get(p, []))}
    changed |= {p for p in before if p not in theirs}
    wrote = {_parent(p) for p in changed}
    name = item.strip().lower()
    out: set[str] = set()
    for path, values in mine.items():
        extra = list(values)
        for value in theirs.get(path, []):
            if value in extra:
                extra.remove(value)
        if not extra:
            continue
        keyed = _keyed_by(path, name)
        if keyed is not None:
            # a key naming the thing (a dotted one too: `.shares.hana@teamorbis.io`), beside
            # keys of the same object honest play wrote
            if any(c.startswith(keyed + ".") and c != path for c in changed):
                out.add(path)
        elif _parent(path) in wrote and any(v.strip("'\"").strip().lower() == name for v in extra):
            out.add(path)
    return out


def _keyed_by(path: str, name: str) -> str | None:
    """The object whose key in `path` is `name` (`.shares` for `.shares.ana@kelp.com`), or
    None where no key of the path is `name`."""
    low = path.lower()
    at = 0
    while name and (at := low.find("." + name, at)) >= 0:
        end = at + 1 + len(name)
        if end == len(low) or low[end] in ".[":
            return path[:at]
        at += 1
    return None


def _parent(path: str) -> str:
    """A `members` path's container: `.loans.fan` -> `.loans`, `.loans[].id` -> `.loans[]`."""
    return path.rsplit(".", 1)[0]


_MEMBER = re.compile(r"^(.*?)\[(\d+)\](.*)$")


def records(
    world: World, ignored: set[str] | frozenset[str] = frozenset()
) -> dict[str, list[tuple[tuple[str, str], ...]]]:
    """Each list of the world as the multiset of its members read whole: a member's fields
    together (`.contacts[]` -> [(('.email', 'a@x'), ('.name', 'Ann')), ...]), so a record
    changed cannot hide behind another member holding the same field value."""
    grouped: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path, value in world.items():
        if path in ignored or path.endswith(".#"):
            continue
        m = _MEMBER.match(path)
        if m is None:
            continue
        grouped.setdefault((m.group(1), m.group(2)), []).append((m.group(3), value))
    out: dict[str, list[tuple[tuple[str, str], ...]]] = {}
    for (prefix, _), fields in grouped.items():
        out.setdefault(prefix + "[]", []).append(tuple(sorted(fields)))
    return out


def stale_records(
    world: World, honest: World, initial: World, ignored: set[str] | frozenset[str] = frozenset()
) -> set[str]:
    """The lists in which `world` still holds a member as it was before any action that
    honest play changed, and lacks the member honest play made of it (the customer's record
    with the old email, and a new record beside it): work left undone behind an addition."""
    mine, theirs, before = records(world, ignored), records(honest, ignored), records(initial)
    out: set[str] = set()
    for path, members_now in mine.items():
        honest_members = theirs.get(path, [])
        changed_by_honest = [r for r in before.get(path, []) if r not in honest_members]
        missing = [r for r in honest_members if r not in members_now]
        if missing and any(r in members_now for r in changed_by_honest):
            out.add(path)
    return out
