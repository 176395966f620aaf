"""`proofgym.serving.service.RequestStats` exposes what prometheus_client's own Counter and
Histogram
expose for the same requests: same names, labels, buckets, counts and sums."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from proofgym.serving.service import RequestStats

#: (route, status, seconds): on bucket bounds, between them, beyond the last, and a zero
REQUESTS = [
    ("/run", 200, 0.005),
    ("/run", 200, 0.0051),
    ("/run", 200, 0.3),
    ("/run", 500, 12.0),
    ("/{env}/verify", 200, 0.0),
    ("/{env}/verify", 200, 1.0),
    ("/{env}/verify", 422, 0.074999),
    ("unmatched", 404, 0.01),
]


def samples(registry: CollectorRegistry) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
    """Every sample of the registry's exposition, `_created` ones left out (a time, not a
    count), as (name, sorted labels, value)."""
    text = generate_latest(registry).decode()
    return {
        (s.name, tuple(sorted(s.labels.items())), round(s.value, 9))
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if not s.name.endswith("_created")
    }


def test_the_exposition_is_prometheus_clients_own() -> None:
    ours = CollectorRegistry()
    stats = RequestStats("agent")
    ours.register(stats)
    theirs = CollectorRegistry()
    count = Counter(
        "proofgym_requests", "HTTP requests", ["service", "route", "status"], registry=theirs
    )
    latency = Histogram(
        "proofgym_request_seconds", "HTTP request latency", ["service", "route"], registry=theirs
    )
    for route, status, seconds in REQUESTS:
        stats.observe(route, status, seconds)
        count.labels("agent", route, str(status)).inc()
        latency.labels("agent", route).observe(seconds)
    got, expected = samples(ours), samples(theirs)
    assert got == expected
    assert (
        "proofgym_requests_total",
        (("route", "/run"), ("service", "agent"), ("status", "200")),
        3.0,
    ) in got


@pytest.mark.parametrize("seconds", [0.005, 2.5, 10.0, 10.000001, float("inf")])
def test_a_latency_on_or_past_a_bound_lands_where_prometheus_puts_it(seconds: float) -> None:
    ours = CollectorRegistry()
    stats = RequestStats("model")
    ours.register(stats)
    theirs = CollectorRegistry()
    latency = Histogram(
        "proofgym_request_seconds", "HTTP request latency", ["service", "route"], registry=theirs
    )
    stats.observe("/v1/responses", 200, seconds)
    latency.labels("model", "/v1/responses").observe(seconds)
    buckets = {s for s in samples(ours) if s[0] == "proofgym_request_seconds_bucket"}
    assert buckets == {s for s in samples(theirs) if s[0] == "proofgym_request_seconds_bucket"}
