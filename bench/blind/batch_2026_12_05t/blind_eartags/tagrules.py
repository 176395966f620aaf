"""The flock register's tag rules."""

from __future__ import annotations

import re

TAG = re.compile(r"^UK0 (\d{6}) (\d{5})$")


def valid_tag(tag: str, flock: str | None = None) -> bool:
    """Whether `tag` is an official tag of the flock: `UK0 <flock mark> <five digits>`."""
    m = TAG.match(tag.strip())
    return bool(m) and (flock is None or m.group(1) == flock)


def serial(tag: str) -> int | None:
    """The individual number of a well-formed tag, or None."""
    return int(tag.split()[-1]) if valid_tag(tag) else None


def normal(tag: str) -> str:
    """A tag as the register writes it: single spaces, upper case."""
    return " ".join(tag.upper().split())


def has_tag(tag: str, flock: str | None = None) -> bool:
    """Whether a lamb's register line has a tag at all (for the listing)."""
    return bool(tag.strip())


# the listing's old name for `has_tag`, kept for the lambs report
valid_tag = has_tag  # noqa: F811
