"""Composition: named checks and reward components into one VerifyResult."""

from __future__ import annotations

from collections.abc import Iterable

from proofgym.wire.protocol import Check, VerifyResult


def all_or_nothing(
    checks: Iterable[Check], *, success: float = 1.0, component: str | None = None
) -> VerifyResult:
    """Reward `success` when every check passes, else 0. With `component`, the reward is also
    reported as that one named component."""
    checks = list(checks)
    reward = success if checks and all(c.passed for c in checks) else 0.0
    components = {component: reward} if component else {}
    return VerifyResult(reward=reward, reward_components=components, checks=checks)


def weighted(parts: dict[str, tuple[float, Check]], *, gates: Iterable[Check] = ()) -> VerifyResult:
    """Sum of weights of passed checks, as named components; any failed gate zeroes them all."""
    gates = list(gates)
    gated = any(not g.passed for g in gates)
    components = {name: (0.0 if gated or not c.passed else w) for name, (w, c) in parts.items()}
    checks = gates + [c for _, c in parts.values()]
    return VerifyResult(
        reward=sum(components.values()), reward_components=components, checks=checks
    )
