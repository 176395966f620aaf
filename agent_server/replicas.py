"""Which resources replica serves a session.

A session stays on one replica for its whole life (a stable hash of its id over the sorted
replica list), so replicas share no state. A URL of the form `dns+http://name:port` stands
for every address `name` resolves to: Docker Compose gives a scaled service one DNS name with
one address per replica, and this turns them into distinct, sticky replicas. A URL of the form
`ray-actors://GCS/NAMESPACE/GROUP` stands for the live replicas a Ray cluster holds
(agent_server.ray_replicas; `proofgym up --ray` configures it).

A replica list that changes moves only sessions not yet started: a rollout keeps the replica
it seeded on for its whole life.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from agent_server.ray_replicas import SCHEME, RayGroup, lookup
from proofgym.clients.routing import sticky

__all__ = ["TTL_S", "ReplicaSet", "resolve_all", "sticky"]

log = logging.getLogger(__name__)

Resolver = Callable[[str, int], Awaitable[list[str]]]
Lookup = Callable[[str], Awaitable[list[str]]]

#: how long a looked-up replica list is trusted before the next lookup
TTL_S = 5.0


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
        self,
        urls: list[str],
        resolver: Resolver = resolve_all,
        ttl_s: float = TTL_S,
        ray: Lookup = lookup,  # Ray itself is imported on the first lookup only
    ) -> None:
        if not urls:
            raise ValueError("at least one resources URL is needed")
        self.configured = [u.rstrip("/") for u in urls]
        for url in self.configured:
            if url.startswith(SCHEME):
                RayGroup.parse(url)  # a malformed one fails at start, not at the first rollout
        self.resolver = resolver
        self.ray = ray
        self.ttl_s = ttl_s
        self._cache: tuple[float, list[str]] | None = None
        self._refreshing = asyncio.Lock()  # one lookup at a time, not one per waiting rollout

    async def urls(self) -> list[str]:
        """The current replica URLs, sorted."""
        if self._cache is not None and time.monotonic() - self._cache[0] < self.ttl_s:
            return self._cache[1]
        async with self._refreshing:
            if self._cache is not None and time.monotonic() - self._cache[0] < self.ttl_s:
                return self._cache[1]  # another caller refreshed while this one waited
            return await self._refresh()

    async def _refresh(self) -> list[str]:
        now = time.monotonic()
        expanded: list[str] = []
        for url in self.configured:
            if url.startswith(SCHEME):
                try:
                    expanded += await self.ray(url)
                except Exception as exc:
                    log.warning("cannot look up the replicas of %s: %r", url, exc)
                continue
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

    def forget(self, url: str) -> bool:
        """Leave `url` out until the next lookup (a replica that refused a connection: a new
        session goes elsewhere, not to a node that is gone); whether another replica is left."""
        if self._cache is None:
            return False
        others = [u for u in self._cache[1] if u != url]
        if others:  # the last one is kept: a refused connection may be a passing one
            self._cache = (self._cache[0], others)
        return bool(others)

    async def pick(self, key: str) -> str | None:
        """The replica for `key`, or None when there is none."""
        urls = await self.urls()
        return sticky(urls, key) if urls else None
