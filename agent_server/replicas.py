"""Which resources replica serves a session.

A session stays on one replica for its whole life (a stable hash of its id over the sorted
replica list), so replicas share no state. A URL of the form `dns+http://name:port` stands
for every address `name` resolves to: Docker Compose gives a scaled service one DNS name with
one address per replica, and this turns them into distinct, sticky replicas.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from proofgym.routing import sticky

__all__ = ["ReplicaSet", "resolve_all", "sticky"]

Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve_all(host: str, port: int) -> list[str]:
    """Every address of `host`, sorted (resolution runs off the event loop)."""
    infos = await asyncio.to_thread(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def _host_port(address: str, port: int, scheme: str) -> str:
    host = f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
    return f"{scheme}://{host}:{port}"


class ReplicaSet:
    """Expands configured URLs into replica URLs, re-resolving DNS entries every `ttl_s`."""

    def __init__(
        self, urls: list[str], resolver: Resolver = resolve_all, ttl_s: float = 5.0
    ) -> None:
        if not urls:
            raise ValueError("at least one resources URL is needed")
        self.configured = [u.rstrip("/") for u in urls]
        self.resolver = resolver
        self.ttl_s = ttl_s
        self._cache: tuple[float, list[str]] | None = None

    async def urls(self) -> list[str]:
        """The current replica URLs, sorted."""
        now = time.monotonic()
        if self._cache is not None and now - self._cache[0] < self.ttl_s:
            return self._cache[1]
        expanded: list[str] = []
        for url in self.configured:
            if not url.startswith("dns+"):
                expanded.append(url)
                continue
            parts = urlsplit(url[4:])
            port = parts.port or (443 if parts.scheme == "https" else 80)
            try:
                addresses = await self.resolver(parts.hostname or "", port)
            except OSError:
                addresses = []
            expanded += [_host_port(a, port, parts.scheme) + parts.path for a in addresses]
        if not expanded and self._cache is not None:
            return self._cache[1]  # a DNS hiccup keeps the last known replicas
        result = sorted(set(expanded))
        self._cache = (now, result)
        return result

    async def pick(self, key: str) -> str | None:
        """The replica for `key`, or None when there is none."""
        urls = await self.urls()
        return sticky(urls, key) if urls else None
