"""A judge's preflight: before a model grades rollouts, learn in seconds whether it can.

`check_judge(judge, cases)` asks the judge about a handful of fixed cases whose right verdict is
known (an environment supplies them: `resources_servers.support.judge_cases`): a correct answer
that must pass; a wrong answer, an instruction to the grader and an empty answer that must fail;
each twice without the cache, and reports:

- **valid**: the share of asks answered with a well-formed verdict (the rest would mask their
  rollouts as `verify_error`);
- **agreement**: the share of cases whose verdicts both came out as expected;
- **deterministic**: the share of cases judged the same both times;
- **seconds per verdict**, and whether the judge is fit (all three at 1.0 by default).

A 135M model is expected to fail this: the point is that a user learns it before training on
its rewards, not after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from resources_servers.verifiers.judge import Judge, JudgeFailed


@dataclass(frozen=True)
class JudgeCase:
    """One fixed question: a candidate answer and whether a fit judge passes it."""

    name: str
    question: str
    reference: str
    candidate: str
    should_pass: bool


@dataclass
class CaseResult:
    """How the judge did on one case: each ask's reward (None: no valid verdict)."""

    name: str
    should_pass: bool
    rewards: list[float | None] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class JudgeReport:
    """What `check_judge` measured; `fit` is the one-line answer."""

    judge: str
    asks: int
    valid: float
    agreement: float
    deterministic: float
    seconds_per_verdict: float
    pass_threshold: float
    fit: bool
    cases: list[CaseResult]

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data."""
        return asdict(self)


def check_judge(
    judge: Judge,
    cases: Sequence[JudgeCase],
    *,
    pass_threshold: float,
    repeats: int = 2,
    on_ask: Callable[[str], None] | None = None,
) -> JudgeReport:
    """Ask `judge` about every case `repeats` times (no cache) and report how it did."""
    results: list[CaseResult] = []
    started = time.perf_counter()
    asks = 0
    for case in cases:
        result = CaseResult(case.name, case.should_pass)
        for _ in range(repeats):
            if on_ask:
                on_ask(case.name)
            asks += 1
            try:
                verdict = judge.score(
                    case.question, case.reference, case.candidate, use_cache=False
                )
                result.rewards.append(sum(judge.components(verdict).values()))
            except JudgeFailed as exc:
                result.rewards.append(None)
                result.errors.append(str(exc)[:200])
        results.append(result)
    seconds = time.perf_counter() - started
    valid = sum(r is not None for c in results for r in c.rewards) / max(1, asks)
    agree = sum(
        all(r is not None and (r >= pass_threshold) == c.should_pass for r in c.rewards)
        for c in results
    ) / max(1, len(results))
    same = sum(
        all(r is not None for r in c.rewards) and len(set(c.rewards)) == 1 for c in results
    ) / max(1, len(results))
    return JudgeReport(
        judge=judge.backend.name,
        asks=asks,
        valid=valid,
        agreement=agree,
        deterministic=same,
        seconds_per_verdict=seconds / max(1, asks),
        pass_threshold=pass_threshold,
        fit=valid == 1.0 and agree == 1.0 and same == 1.0,
        cases=results,
    )
