"""Resources replicas learned from a Ray cluster: `ray-actors://GCS/NAMESPACE/GROUP`.

Such a URL stands for every live named actor `GROUP-*` of Ray namespace NAMESPACE on the
cluster whose GCS listens at GCS (host:port), each asked for its service's URL (as
`proofgym up --ray` starts them: proofgym_stack.ray_stack.ServiceHost). An actor that does not
answer within `timeout_s` (restarting, or on a node that is gone but not yet declared dead) is
left out until it answers again. This is proofgym's own URL form, not Ray Client's `ray://`.

Ray is imported, and this process joins the cluster as a driver, on the first lookup only.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Any

SCHEME = "ray-actors://"


@dataclass(frozen=True)
class RayGroup:
    """A parsed `ray-actors://` URL."""

    address: str
    namespace: str
    group: str

    @classmethod
    def parse(cls, url: str) -> RayGroup:
        """The parts of `url`; ValueError naming what is missing."""
        rest = url.removeprefix(SCHEME)
        parts = rest.split("/")
        if not url.startswith(SCHEME) or len(parts) != 3 or not all(parts):
            raise ValueError(f"{url!r}: expected {SCHEME}GCS_HOST:PORT/NAMESPACE/GROUP")
        return cls(*parts)


_lock = threading.Lock()


def _ray(address: str) -> Any:
    import ray

    with _lock:
        if not ray.is_initialized():
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    return ray


def live_urls(group: RayGroup, timeout_s: float = 2.0) -> list[str]:
    """The URLs the group's live actors answer within `timeout_s` (blocking: Ray calls)."""
    ray = _ray(group.address)
    names = [
        a["name"]
        for a in ray.util.list_named_actors(all_namespaces=True)
        if a.get("namespace") == group.namespace and a["name"].startswith(f"{group.group}-")
    ]
    refs = []
    for name in names:
        try:
            refs.append(ray.get_actor(name, namespace=group.namespace).url.remote())
        except (ValueError, ray.exceptions.RayError):
            continue  # gone between listing and lookup
    return sorted(str(url) for url in answered(ray, refs, timeout_s).values())


def answered(ray: Any, refs: list[Any], timeout_s: float) -> dict[int, Any]:
    """The values of the actor calls `refs` that answered within `timeout_s`, by position (a
    call to an actor that is restarting, dead or on a lost node is left out)."""
    if not refs:
        return {}
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
    done = set(ready)
    values = {}
    for i, ref in enumerate(refs):
        if ref in done:
            try:
                values[i] = ray.get(ref)
            except ray.exceptions.RayError:
                continue
    return values


async def lookup(url: str) -> list[str]:
    """`live_urls` for a `ray-actors://` URL, off the event loop."""
    return await asyncio.to_thread(live_urls, RayGroup.parse(url))
