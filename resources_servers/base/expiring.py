"""A small mapping whose entries expire: kept for `ttl_s`, at most `most` of them, the oldest
forgotten first. What a server remembers of sessions past their end (their verdicts, their
closed ids) must stay bounded whatever callers do."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Expiring(Generic[K, V]):
    """Entries by key, each forgotten `ttl_s` after it was put, at most `most` at once."""

    def __init__(self, ttl_s: float, most: int) -> None:
        self.ttl_s, self.most = ttl_s, most
        self._entries: OrderedDict[K, tuple[V, float]] = OrderedDict()

    def put(self, key: K, value: V) -> None:
        """Remember `value` under `key`, from now."""
        # what expired goes on every put too: a map only ever written stays bounded by age
        self._expire()
        self._entries.pop(key, None)
        self._entries[key] = (value, time.monotonic())
        while len(self._entries) > self.most:
            self._entries.popitem(last=False)

    def get(self, key: K) -> V | None:
        """The value under `key`, unless none was put or it expired."""
        self._expire()
        entry = self._entries.get(key)
        return None if entry is None else entry[0]

    def __contains__(self, key: object) -> bool:
        self._expire()
        return key in self._entries

    def pop(self, key: K) -> None:
        """Forget `key`."""
        self._entries.pop(key, None)

    def __len__(self) -> int:
        self._expire()
        return len(self._entries)

    def _expire(self) -> None:
        now = time.monotonic()
        while self._entries:
            oldest, (_, when) = next(iter(self._entries.items()))
            if now - when <= self.ttl_s:
                return
            del self._entries[oldest]
