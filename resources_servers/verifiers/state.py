"""State matching over snapshots: mappings from a key (a path, a row id, a name) to a value."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from proofgym.wire.protocol import Check


@dataclass
class StateDiff:
    """What changed between two snapshots, key by key."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when nothing changed."""
        return not (self.added or self.removed or self.changed)

    def describe(self, limit: int = 10) -> str:
        """A readable one-line summary: `added: a; removed: b; changed: c`."""
        parts = []
        for label, keys in (
            ("added", self.added),
            ("removed", self.removed),
            ("changed", self.changed),
        ):
            if keys:
                shown = ", ".join(keys[:limit]) + (" ..." if len(keys) > limit else "")
                parts.append(f"{label}: {shown}")
        return "; ".join(parts) or "no change"


def diff(
    before: Mapping[str, Any], after: Mapping[str, Any], ignore: Collection[str] = ()
) -> StateDiff:
    """Key-by-key difference of two snapshots, leaving out the keys in `ignore`."""
    keys_b = set(before) - set(ignore)
    keys_a = set(after) - set(ignore)
    return StateDiff(
        added=sorted(keys_a - keys_b),
        removed=sorted(keys_b - keys_a),
        changed=sorted(k for k in keys_b & keys_a if before[k] != after[k]),
    )


def unchanged_except(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    allowed: Collection[str],
    name: str = "nothing_else_changed",
) -> Check:
    """Check that every key outside `allowed` is the same, none added and none removed."""
    d = diff(before, after, ignore=allowed)
    return Check(name=name, passed=d.empty, detail="" if d.empty else d.describe())


def matches(
    actual: Mapping[str, Any],
    expected: Mapping[str, Any],
    name: str = "goal_state",
    equal: Callable[[Any, Any], bool] = lambda a, b: bool(a == b),
) -> Check:
    """Check that every key of `expected` is in `actual` with an equal value."""
    wrong = [k for k, v in expected.items() if k not in actual or not equal(actual[k], v)]
    detail = "" if not wrong else "not as expected: " + ", ".join(sorted(wrong)[:10])
    return Check(name=name, passed=not wrong, detail=detail)
