"""blind_gritting: plan a gritter's route from the salt depot to a priority site."""

from __future__ import annotations

import heapq
import random
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_gritting"
MAX_STOPS = 30


class Road(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    km: float = Field(gt=0)


class GrittingTask(BaseModel):
    """The road network, the depot, the priority site and the gritter's range."""

    model_config = ConfigDict(extra="forbid")

    depot: str
    site: str
    roads: list[Road] = Field(min_length=1)
    max_km: float = Field(gt=0)


class Desk:
    """One session's planning desk: the network and the route submitted."""

    def __init__(self, roads: list[Road]) -> None:
        self.roads = roads
        self.route: list[str] | None = None


def road_lengths(roads: list[Road]) -> dict[frozenset[str], float]:
    return {frozenset((r.a, r.b)): r.km for r in roads}


def shortest(roads: list[Road], start: str, end: str) -> list[str]:
    """Dijkstra: the shortest route from `start` to `end` as a list of stops."""
    graph: dict[str, list[tuple[str, float]]] = {}
    for r in roads:
        graph.setdefault(r.a, []).append((r.b, r.km))
        graph.setdefault(r.b, []).append((r.a, r.km))
    heap: list[tuple[float, str, list[str]]] = [(0.0, start, [start])]
    seen: set[str] = set()
    while heap:
        d, node, path = heapq.heappop(heap)
        if node == end:
            return path
        if node in seen:
            continue
        seen.add(node)
        for nxt, km in graph.get(node, []):
            if nxt not in seen:
                heapq.heappush(heap, (d + km, nxt, [*path, nxt]))
    raise ValueError("no route")


class Twin(Environment[Desk, GrittingTask]):
    """Route the gritter from the depot to the site along roads, within its range."""

    name = NAME
    description = "Plan a gritter's route from the salt depot to a priority site."
    reward_range = (0.0, 1.0)
    task_data_model = GrittingTask
    success_words = ("planned", "submitted")

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk(self.data(task).roads)

    def instructions(self, task: Task) -> str:
        return (
            "You plan gritting runs. A route is the list of places the gritter passes, starting "
            "at the salt depot and ending at the priority site; consecutive places must be "
            "joined by a road (`roads` lists them, both directions), and the total length must "
            "not exceed the gritter's range. `submit_route` replaces any earlier route."
        )

    @tool(inline=True, observes=True)
    def roads(self, state: Desk) -> str:
        """List the road network: each road's two ends and its length in km."""
        return "\n".join(f"{r.a} - {r.b}: {r.km} km" for r in state.roads)

    @tool(inline=True)
    def submit_route(self, state: Desk, stops: list[str]) -> str:
        """Submit the gritter's route: the places it passes, from the depot to the site.

        Args:
            stops: place names in order (at most 30).
        """
        if not 1 <= len(stops) <= MAX_STOPS:
            raise ToolError("a route has 1 to 30 stops", "bad_route")
        state.route = [s.strip()[:60] for s in stops]
        return f"route of {len(stops)} stops submitted"

    def _route_checks(self, data: GrittingTask, stops: list[str]) -> list[Check]:
        lengths = road_lengths(data.roads)
        legs = list(pairwise(stops))
        bad = [f"{a}-{b}" for a, b in legs if frozenset((a, b)) not in lengths]
        total = sum(lengths.get(frozenset(leg), 0.0) for leg in legs)
        return [
            Check(name="starts_at_depot", passed=stops[0] == data.depot, detail=stops[0]),
            Check(name="ends_at_site", passed=stops[-1] == data.site, detail=stops[-1]),
            Check(name="legs_are_roads", passed=not bad, detail=f"not roads: {bad}"),
            Check(
                name="within_range", passed=total <= data.max_km + 1e-9, detail=f"{total:.1f} km"
            ),
        ]

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        if state.route is None:
            checks = [Check(name="route_submitted", passed=False)]
        else:
            checks = [
                Check(name="route_submitted", passed=True),
                *self._route_checks(data, state.route),
            ]
        ok = all(c.passed for c in checks)
        return all_or_nothing(
            [*checks, claim_check(final_message(response), ok, words=self.success_words)]
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        best = shortest(data.roads, data.depot, data.site)
        done = say(f"Route planned and submitted: {' -> '.join(best)}.")
        lengths = road_lengths(data.roads)
        # a jump along no road: the depot straight to the site's neighbour on the best route
        hop = next(
            (
                [data.depot, n, data.site]
                for n in best[1:-1]
                if frozenset((data.depot, n)) not in lengths
            ),
            [data.depot, data.site],
        )
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("roads"), call("submit_route", stops=best), done],
            ),
            Control(
                name="violation_off_road_leg",
                expect="fail",
                description="a leg between two places no road joins",
                script=[call("roads"), call("submit_route", stops=hop), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    """The environment as its author shipped it."""

    def _route_checks(self, data: GrittingTask, stops: list[str]) -> list[Check]:
        lengths = road_lengths(data.roads)
        legs = list(pairwise(stops))
        bad = [f"{a}-{b}" for a, b in legs if frozenset((a, b)) not in lengths]
        total = sum(lengths.get(frozenset(leg), 0.0) for leg in legs)
        return [
            Check(name="ends_at_site", passed=stops[-1] == data.site, detail=stops[-1]),
            Check(name="legs_are_roads", passed=not bad, detail=f"not roads: {bad}"),
            Check(
                name="within_range", passed=total <= data.max_km + 1e-9, detail=f"{total:.1f} km"
            ),
        ]


PLACES = (
    "Mill Lane",
    "Station Road",
    "Kings Cross Roads",
    "Hill Top",
    "Ferry Bridge",
    "Oak Green",
    "Market Square",
    "Quarry Junction",
    "Chapel End",
    "Low Moor",
    "Ash Corner",
    "Bridge End",
)
SITES = ("General Hospital", "Riverside School", "Fire Station", "Care Home", "Health Centre")


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` connected networks; the range is the shortest route's length plus 10 to 25%."""
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        depot, site = "Salt Depot", rng.choice(SITES)
        mids = rng.sample(PLACES, rng.randint(4, 6))
        nodes = [depot, *mids, site]
        order = [depot, *rng.sample(mids, len(mids)), site]
        edges: dict[frozenset[str], float] = {}
        for k in range(1, len(order)):
            edges[frozenset((order[k], rng.choice(order[max(0, k - 2) : k])))] = 0.0
        while len(edges) < len(nodes) + 2:
            a, b = rng.sample(nodes, 2)
            if frozenset((a, b)) != frozenset((depot, site)):
                edges[frozenset((a, b))] = 0.0
        roads = []
        for pair in edges:
            a, b = sorted(pair)
            roads.append(Road(a=a, b=b, km=round(rng.uniform(1.0, 6.0), 1)))
        best = shortest(roads, depot, site)
        lengths = road_lengths(roads)
        km = sum(lengths[frozenset(leg)] for leg in pairwise(best))
        assert len(best) >= 3
        max_km = round(km * rng.uniform(1.1, 1.25) + 0.05, 1)
        prompt = (
            f"Plan tonight's gritting run from the {depot} to the {site}. The gritter's range "
            f"is {max_km} km."
        )
        data = {
            "depot": depot,
            "site": site,
            "roads": [r.model_dump() for r in roads],
            "max_km": max_km,
        }
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list[Any]:
    """The one-stop route: the site alone."""
    site = task.task_data["site"]
    return [call("submit_route", stops=[site]), say(f"Route planned and submitted: {site}.")]
