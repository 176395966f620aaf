"""The `key = value` config format file_edit tasks edit."""

from __future__ import annotations

import re


def _line_re(key: str) -> re.Pattern[str]:
    return re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)(.*?)(\s*)$")


def unquote(value: str) -> str:
    """A value without surrounding whitespace or one pair of matching quotes."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def values_of(text: str, key: str) -> list[str]:
    """Every value assigned to `key` in `text`, in order."""
    pattern = _line_re(key)
    return [unquote(m.group(2)) for line in text.splitlines() if (m := pattern.match(line))]


def other_lines(text: str, key: str) -> list[str]:
    """Every line that does not assign `key` (what an edit of `key` must leave alone)."""
    pattern = _line_re(key)
    return [line for line in text.splitlines() if not pattern.match(line)]


def set_value(text: str, key: str, value: str) -> str:
    """`text` with every assignment of `key` set to `value`, formatting kept."""
    pattern = _line_re(key)
    lines = text.split("\n")
    out = []
    for line in lines:
        m = pattern.match(line)
        out.append(f"{m.group(1)}{value}{m.group(3)}" if m else line)
    return "\n".join(out)
