"""The `key = value` config format file_edit tasks edit.

Lines are split on "\\n" alone and whitespace around `=` is spaces and tabs alone: a carriage
return, a Unicode line separator or any other character stays part of its line and so counts as
a change. Bytes are bytes: only the lines that assign the key may differ.
"""

from __future__ import annotations

import re

_BLANK = "[ \t]"


def _line_re(key: str) -> re.Pattern[str]:
    return re.compile(rf"^({_BLANK}*{re.escape(key)}{_BLANK}*={_BLANK}*)(.*?)({_BLANK}*)$")


def unquote(value: str) -> str:
    """A value without surrounding spaces or tabs or one pair of matching quotes."""
    value = value.strip(" \t")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def values_of(text: str, key: str) -> list[str]:
    """Every value assigned to `key` in `text`, in order."""
    pattern = _line_re(key)
    return [unquote(m.group(2)) for line in text.split("\n") if (m := pattern.match(line))]


def same_except_key(before: str, after: str, key: str) -> bool:
    """Whether `after` has exactly the lines of `before`, in place, except lines that assign
    `key` in both (an edit of `key` may change those lines and nothing else)."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) != len(new):
        return False
    pattern = _line_re(key)
    return all(
        a == b or bool(pattern.match(a) and pattern.match(b)) for a, b in zip(old, new, strict=True)
    )


def set_value(text: str, key: str, value: str) -> str:
    """`text` with every assignment of `key` set to `value`, formatting kept."""
    pattern = _line_re(key)
    out = []
    for line in text.split("\n"):
        m = pattern.match(line)
        out.append(f"{m.group(1)}{value}{m.group(3)}" if m else line)
    return "\n".join(out)
