"""Another row of a list the prompt gives, every field taken from its own row.

A sign-up sheet, a manifest, a rota: the prompt lists one thing a line ("3. Efe: Suspicious
Minds"), and honest play's call sends one line's fields (`singer` Efe, `song` Suspicious
Minds). A policy that acts on another line sends that line's fields together (Hana and
Valerie), not one field of it beside honest play's others (Efe singing Valerie, a request
nobody made). `row_filled` reads the other line by the shape of honest play's line: the
text around the fields kept, numbers read as any number.
"""

from __future__ import annotations

import re
from typing import Any

#: the longest line and the most fields a row is read by (a longer one is prose, and its
#: pattern's lazy groups would backtrack)
MAX_LINE = 160
MAX_FIELDS = 4


def _template(line: str, fields: dict[str, str]) -> re.Pattern[str] | None:
    """A pattern of `line` with each field's value a named group (the longest first), the
    rest kept as written, its numbers any number; None where a value is not in the line."""
    if len(line) > MAX_LINE or not 1 <= len(fields) <= MAX_FIELDS:
        return None
    spans: list[tuple[int, int, str]] = []
    for key, value in sorted(fields.items(), key=lambda kv: -len(kv[1])):
        m = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", line)
        if m is None or any(a < m.end() and m.start() < b for a, b, _ in spans):
            return None
        spans.append((m.start(), m.end(), key))
    out, at = "", 0
    for start, end, key in sorted(spans):
        out += re.sub(r"\\d+|\d+", r"\\d+", re.escape(line[at:start])) + f"(?P<{key}>.+?)"
        at = end
    out += re.sub(r"\\d+|\d+", r"\\d+", re.escape(line[at:]))
    try:
        return re.compile(rf"^\s*{out}\s*$")
    except re.error:
        return None


def row_filled(args: dict[str, Any], key: str, other: str, prompt: str) -> dict[str, Any]:
    """`args` with `key` set to `other` and, where the prompt gives the honest value and
    `other` one line each of the same shape, the call's other text fields read from
    `other`'s line; else `key` alone changed."""
    plain = {**args, key: other}
    lines = [line for line in prompt.splitlines() if line.strip()]
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        return plain
    own = [ln for ln in lines if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", ln)]
    theirs = [ln for ln in lines if re.search(rf"(?<!\w){re.escape(other)}(?!\w)", ln)]
    if len(own) != 1 or len(theirs) != 1 or own == theirs:
        return plain
    fields = {
        k: v
        for k, v in args.items()
        if isinstance(v, str) and v.strip() and k.isidentifier() and v in own[0]
    }
    pattern = _template(own[0], fields)
    match = pattern.match(theirs[0]) if pattern is not None and len(theirs[0]) <= MAX_LINE else None
    if match is None or key not in fields or match.group(key).strip() != other.strip():
        return plain
    return {**args, **{k: match.group(k).strip() for k in fields}}


def other_rows(args: dict[str, Any], prompt: str) -> list[dict[str, str]]:
    """The fields of every other line of the prompt shaped like the one line that gives
    honest play's call two or more of its text values (the rest of the sign-up sheet)."""
    fields = {
        k: v for k, v in args.items() if isinstance(v, str) and v.strip() and k.isidentifier()
    }
    lines = [line for line in prompt.splitlines() if line.strip()]
    own = [ln for ln in lines if sum(v in ln for v in fields.values()) >= 2]
    if len(fields) < 2 or len(own) != 1:
        return []
    named = {k: v for k, v in fields.items() if v in own[0]}
    pattern = _template(own[0], named)
    if pattern is None:
        return []
    found = [
        m
        for ln in lines
        if ln != own[0] and len(ln) <= MAX_LINE and (m := pattern.match(ln)) is not None
    ]
    return [{k: m.group(k).strip() for k in named} for m in found]


def line_of(value: str, prompt: str) -> int | None:
    """The index of the one line of the prompt that names `value` as a word, or None."""
    lines = [line for line in prompt.splitlines() if line.strip()]
    at = [n for n, ln in enumerate(lines) if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", ln)]
    return at[0] if len(at) == 1 else None
