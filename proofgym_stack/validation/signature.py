"""When two verdicts are the same verdict: what determinism and isolation compare."""

from __future__ import annotations

from typing import Any

from proofgym.wire.protocol import RunResult


def signature(result: RunResult | dict[str, Any]) -> tuple[Any, ...]:
    """What must be equal for two verdicts to be the same (of a RunResult or a VerifyResult):
    the reward and its components (to 9 places), each check's name, outcome and detail, and
    whether it was masked."""
    data = result.model_dump() if isinstance(result, RunResult) else result
    components = tuple(sorted((k, round(v, 9)) for k, v in data["reward_components"].items()))
    checks = tuple((c["name"], c["passed"], c.get("detail", "")) for c in data["checks"])
    return (round(data["reward"], 9), components, checks, bool(data.get("mask_sample")))
