"""`proofgym up --ray`: the three services as Ray actors spread over a cluster's nodes.

Each actor starts its service as a child process on the node Ray placed it on, bound to that
node's address, exactly as `proofgym up` starts it locally; the actor dies when its service
does, and Ray starts it again (on another node when its node is gone). The resources replicas
are named actors `resources-<i>` in the stack's own Ray namespace, and the agent learns their
URLs from Ray itself (`ray-actors://GCS/NAMESPACE/resources`, see agent_server.ray_replicas):
a replica that is gone drops out of its routing and a restarted one joins it.

Placement: replica i prefers the i-th alive node (round robin, a soft preference: Ray puts it
elsewhere when that node is lost); the agent and the model interface prefer the node of the
process that starts the stack, which holds the actors (they go when it goes).

Ray is an optional extra (`pip install 'proofgym[ray]'`), and proofgym must be installed in
the same environment on every node.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from proofgym_stack.up import ServiceProcess, spawn_healthy

RESOURCES = "resources"


class ServiceHost:
    """One proofgym service, run as a child process on the node this actor landed on.

    Used as a Ray actor class (`ray.remote(ServiceHost)`); the constructor returns once the
    service answers /health as the process it started."""

    def __init__(
        self,
        service: str,
        env: dict[str, str],
        port: int | None = None,
        timeout: float = 120.0,
        bind: str | None = None,
    ) -> None:
        import ray

        self.node_id = ray.get_runtime_context().get_node_id()
        self.host: str = node_address(ray, self.node_id)
        listen = bind or self.host
        # bound to every interface: reached at the node's own address
        reached = self.host if listen in ("0.0.0.0", "::") else None
        try:
            self.service: ServiceProcess = spawn_healthy(
                service, listen, port, env, timeout, reached
            )
        except RuntimeError as exc:
            raise RuntimeError(f"{exc} on {self.host} (its output: this actor's Ray log)") from None
        self.stopping = False
        threading.Thread(target=self._exit_with_service, daemon=True).start()

    def _exit_with_service(self) -> None:
        # A service that dies takes its actor with it: Ray then restarts both (max_restarts).
        self.service.process.wait()
        if not self.stopping:
            os._exit(1)

    def url(self) -> str:
        """Where the service answers."""
        return self.service.url

    def where(self) -> dict[str, Any]:
        """The service's URL, the Ray node it runs on and its process id."""
        return {"url": self.service.url, "node": self.node_id, "pid": self.service.process.pid}

    def stop(self) -> None:
        """Stop the service (SIGTERM, then SIGKILL after 10 s); the actor stays, idle."""
        self.stopping = True
        proc = self.service.process
        proc.terminate()
        try:
            proc.wait(10)
        except Exception:
            proc.kill()


LOOPBACK = "127.0.0.1"


def loopback_if_one_machine(nodes: list[dict[str, Any]], here: str) -> str | None:
    """127.0.0.1 when every node of the cluster runs on this process's machine (they all have
    its node's address), else None (each service serves on its node's address).

    Ray 2.60 records a node started with `--node-ip-address 127.0.0.1` under the machine's
    network address, so the address a cluster on one machine was started with is not in
    Ray; what is, is that all its nodes share one machine: its services then talk over
    loopback only, and a client on 127.0.0.1 finds them."""
    mine = next((n.get("NodeManagerAddress") for n in nodes if n.get("NodeID") == here), None)
    if mine and all(n.get("NodeManagerAddress") == mine for n in nodes):
        return LOOPBACK
    return None


def node_address(ray: Any, node_id: str) -> str:
    """The address node `node_id` was started with (`ray start --node-ip-address`), from the
    node's own record in Ray. `ray.util.get_node_ip_address()` answers the machine's network
    address instead (Ray 2.60), so a cluster on 127.0.0.1 would serve on an address a client
    on loopback never reaches; it stays the fallback where the record cannot be read."""
    try:
        for node in ray.nodes():
            if node.get("NodeID") == node_id and node.get("NodeManagerAddress"):
                return str(node["NodeManagerAddress"])
    except Exception:  # a GCS that does not answer: the machine's address is still an address
        pass
    return str(ray.util.get_node_ip_address())


def ray_module() -> Any:
    """Ray, or a RuntimeError that says how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("Ray is not installed: pip install 'proofgym[ray]'") from None
    return ray


def _check_reachable(address: str) -> None:
    """RuntimeError unless something accepts TCP connections at `address` (host:port)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except (OSError, ValueError) as exc:
        raise RuntimeError(
            f"no Ray cluster answers at {address} ({exc}); give the address `ray start "
            "--head` printed (host:port of its GCS), or 'auto' on a node of the cluster"
        ) from None


@dataclass
class RayStack:
    """The agent, the model interface and `replicas` resources servers as actors on a Ray
    cluster; `agent_url` is where rollouts are sent.

    `address` is the cluster to join (`ray start --head` printed it; "auto" finds a local one);
    None uses this process's connection when it has one, else "auto". Settings reach the
    services through `env` (PROOFGYM_* variables, the token included) and the model
    interface's through `model_env`; `model_url` uses a model interface running elsewhere
    instead of starting one.
    """

    address: str | None = None
    replicas: int = 1
    agent_port: int = 8000
    agent_host: str | None = None  # the agent's bind address (default: its node's address)
    env: dict[str, str] = field(default_factory=dict)
    model_env: dict[str, str] = field(default_factory=dict)
    model_url: str | None = None
    model_options: dict[str, Any] = field(default_factory=dict)  # e.g. {"num_gpus": 1}
    namespace: str = field(default_factory=lambda: f"proofgym-{secrets.token_hex(4)}")
    # the bearer token of every service: the services listen on the nodes' addresses, so
    # one is always set (PROOFGYM_TOKEN from `env` or this process, else a new one)
    token: str = ""
    actors: dict[str, Any] = field(default_factory=dict)
    agent_url: str = ""
    _connected_here: bool = False

    def _connect(self) -> Any:
        ray = ray_module()
        if ray.is_initialized():
            return ray
        address = self.address or "auto"
        if address != "auto" and "://" not in address:
            _check_reachable(address)  # Ray itself retries an absent GCS for minutes
        try:
            ray.init(
                address=address,
                namespace=self.namespace,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except (ConnectionError, ValueError) as exc:
            raise RuntimeError(f"cannot join the Ray cluster at {address}: {exc}") from None
        self._connected_here = True
        return ray

    def _options(self, name: str, node: str) -> dict[str, Any]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return {
            "name": name,
            "namespace": self.namespace,
            "max_restarts": -1,  # a lost node's actor is started again elsewhere
            # a token share of a CPU: the services are not Ray's CPU work, but Ray 2.60 ignores
            # a soft node preference for an actor that asks for no resource at all
            "num_cpus": 0.01,
            "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node, soft=True),
        }

    def start(self, timeout: float = 120.0) -> RayStack:
        """Place every actor and wait until each service is healthy; stop all on failure.
        RuntimeError when Ray is missing or a service does not start in time."""
        self.token = (
            self.token
            or self.env.get("PROOFGYM_TOKEN")
            or os.environ.get("PROOFGYM_TOKEN")
            or secrets.token_hex(16)
        )
        self.env = {**self.env, "PROOFGYM_TOKEN": self.token}
        ray = self._connect()
        host_cls = ray.remote(ServiceHost)
        here = ray.get_runtime_context().get_node_id()
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        alive = sorted(n["NodeID"] for n in nodes)
        bind = loopback_if_one_machine(nodes, here)
        # round robin from this node, so one replica shares the node of the agent at most
        order = alive[alive.index(here) + 1 :] + alive[: alive.index(here) + 1]
        gcs = ray.get_runtime_context().gcs_address
        try:
            for i in range(self.replicas):
                name = f"{RESOURCES}-{i}"
                self.actors[name] = host_cls.options(
                    **self._options(name, order[i % len(order)])
                ).remote("resources", self.env, None, timeout, bind)
            if self.model_url is None:
                self.actors["model"] = host_cls.options(
                    **{**self._options("model", here), **self.model_options}
                ).remote("model", {**self.env, **self.model_env}, None, timeout, bind)
            urls = {
                name: ray.get(a.url.remote(), timeout=timeout) for name, a in self.actors.items()
            }
            model = self.model_url or urls["model"]
            agent_env = {
                **self.env,
                "PROOFGYM_RESOURCES_URLS": json.dumps(
                    [f"ray-actors://{gcs}/{self.namespace}/{RESOURCES}"]
                ),
                "PROOFGYM_MODEL_URL": model,
            }
            self.actors["agent"] = host_cls.options(**self._options("agent", here)).remote(
                "agent", agent_env, self.agent_port, timeout, self.agent_host or bind
            )
            self.agent_url = ray.get(self.actors["agent"].url.remote(), timeout=timeout)
        except BaseException as exc:
            self.stop()
            # a RayError: a service failed or timed out; a ValueError: a name already taken
            # in this namespace (another stack's)
            if isinstance(exc, ray.exceptions.RayError | ValueError):
                raise RuntimeError(f"the services did not start on Ray: {exc}") from None
            raise
        return self

    def where(self) -> dict[str, dict[str, Any]]:
        """Each actor's service URL, node and process id (a restarting one is left out)."""
        from agent_server.ray_replicas import answered

        names = list(self.actors)
        refs = [self.actors[name].where.remote() for name in names]
        return {names[i]: v for i, v in answered(ray_module(), refs, 10.0).items()}

    def stop(self) -> None:
        """Stop every service and its actor (and leave Ray if this stack joined it)."""
        ray = ray_module()
        stops = []
        for actor in self.actors.values():
            with contextlib.suppress(Exception):
                stops.append(actor.stop.remote())
        with contextlib.suppress(Exception):
            if stops:
                ray.wait(stops, num_returns=len(stops), timeout=15)
        for actor in self.actors.values():
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        self.actors.clear()
        if self._connected_here:
            ray.shutdown()
            self._connected_here = False

    @contextlib.contextmanager
    def running(self, timeout: float = 120.0) -> Iterator[RayStack]:
        """Start, yield, and always stop."""
        self.start(timeout)
        try:
            yield self
        finally:
            self.stop()
