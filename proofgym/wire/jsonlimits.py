"""JSON from hostile sources, parsed with limits: size, nesting depth, valid text.

Python's own `json.loads` recurses once per nesting level, so a policy's tool arguments nested
10,000 deep raise RecursionError (not ValueError) deep inside a service: a 500, or a masked
rollout that the policy chose. Every parse of policy content goes through `loads_limited`,
whose errors are all ValueError subclasses that callers turn into a scored outcome.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
MAX_BYTES = 8 * 1024 * 1024
#: a JSON string, closed (the unrolled loop: a run of plain bytes, then escapes each followed
#: by another run, which the regex engine matches far faster than one byte at a time)
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
#: "[" and "{" to the signed byte 1, "]" and "}" to -1
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


class JSONTooDeep(ValueError):
    """The document nests arrays and objects deeper than allowed."""


class JSONTooLarge(ValueError):
    """The document is longer than allowed."""


def depth(raw: bytes) -> int:
    """How deep arrays and objects nest in `raw` (brackets inside strings do not count).

    At C speed: strings cut out, the brackets left turned into steps of +1 and -1 (signed
    bytes), and the deepest running sum taken; the request guard runs it on every body."""
    brackets = _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    steps = memoryview(brackets.translate(_STEPS)).cast("b")
    return max(0, max(accumulate(steps)))


def loads_limited(
    text: str | bytes, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES
) -> Any:
    """`json.loads` that raises ValueError (JSONTooDeep, JSONTooLarge, or a parse error) for
    anything too large, too deep or malformed, and never RecursionError."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(raw) > max_bytes:
        raise JSONTooLarge(f"JSON of {len(raw)} bytes, over the limit of {max_bytes}")
    try:
        value = json.loads(raw)
    except RecursionError:
        raise JSONTooDeep(f"JSON nested deeper than {max_depth} levels") from None
    # Scanned only once the text is known to be valid JSON: every string is closed, so the
    # scan is linear.
    # Fewer brackets than the limit cannot nest past it: skip the scan (the common case).
    brackets = raw.count(b"[") + raw.count(b"{")
    if isinstance(value, list | dict) and brackets > max_depth and depth(raw) > max_depth:
        raise JSONTooDeep(f"JSON nested deeper than {max_depth} levels")
    return value


def scrub_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings replaced by U+FFFD: such strings cannot
    be encoded as UTF-8, so one in policy output would break every later hop."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value) if _LONE_SURROGATE.search(value) else value
    if isinstance(value, list):
        return [scrub_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    return value
