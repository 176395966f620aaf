"""Sticky routing: which of several upstreams a key (a session, a rollout) always meets."""

from __future__ import annotations

import hashlib


def sticky(urls: list[str], key: str) -> str:
    """The member of `urls` that `key` always maps to while the list stays the same."""
    digest = int(hashlib.sha1(key.encode()).hexdigest()[:12], 16)
    return urls[digest % len(urls)]
