"""A mix of environments with weights, as `learn`, `eval` and `profile` take it.

Written `letters`, `letters,math` (equal weights) or `letters=3,math=1`. In `learn` a weight
is the environment's share of the training tasks; in `eval` and `profile` it is its share of
the mix's score (the weighted mean of the environments' mean rewards), so that one
environment with many tasks does not stand for the whole mix.
"""

from __future__ import annotations

import math
import re

from pydantic import BaseModel, Field

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class MixError(ValueError):
    """A mix written wrong: the message says which part and why."""


class Mix(BaseModel):
    """Environments by name, each with a positive weight (shares sum to 1)."""

    weights: dict[str, float] = Field(min_length=1)

    @classmethod
    def parse(cls, text: str) -> Mix:
        """The mix `text` names (see the module); MixError for an empty part, a name that is
        no environment's form, a weight that is not a positive number, or a name twice."""
        weights: dict[str, float] = {}
        parts = [p.strip() for p in text.split(",")]
        if not text.strip() or any(not p for p in parts):
            raise MixError(f"mix {text!r}: an empty part (write env or env=weight, by commas)")
        for part in parts:
            name, _, raw = part.partition("=")
            name = name.strip()
            if not _NAME.match(name):
                raise MixError(f"mix {text!r}: {name!r} is not an environment name")
            if name in weights:
                raise MixError(f"mix {text!r}: {name} named twice")
            try:
                weight = float(raw) if raw else 1.0
            except ValueError:
                raise MixError(f"mix {text!r}: weight {raw!r} of {name} is not a number") from None
            if not math.isfinite(weight) or weight <= 0:
                raise MixError(f"mix {text!r}: weight of {name} must be a positive number")
            weights[name] = weight
        return cls(weights=weights)

    @property
    def envs(self) -> list[str]:
        """The environments, in the order written."""
        return list(self.weights)

    def share(self, env: str) -> float:
        """`env`'s weight as a share of the whole (0 for an environment not in the mix)."""
        return self.weights.get(env, 0.0) / sum(self.weights.values())

    def counts(self, total: int) -> dict[str, int]:
        """`total` items split by weight, each environment at least one (largest remainder:
        the counts sum to `total` whenever `total` is at least the number of environments)."""
        total = max(total, len(self.weights))
        exact = {env: self.share(env) * total for env in self.weights}
        counts = {env: max(1, int(x)) for env, x in exact.items()}
        by_remainder = sorted(
            self.weights, key=lambda e: (counts[e] - exact[e], self.envs.index(e))
        )
        i = 0
        while sum(counts.values()) < total:
            counts[by_remainder[i % len(by_remainder)]] += 1
            i += 1
        while sum(counts.values()) > total:
            env = max((e for e in counts if counts[e] > 1), key=lambda e: counts[e] - exact[e])
            counts[env] -= 1
        return counts

    def score(self, means: dict[str, float | None]) -> float | None:
        """The weighted mean of the environments' mean rewards; None when one has none."""
        if any(means.get(env) is None for env in self.weights):
            return None
        return sum(self.share(env) * float(means[env] or 0.0) for env in self.weights)

    def label(self) -> str:
        """The mix as written back: `letters` alone, else `letters=3,math=1`."""
        if len(self.weights) == 1:
            return self.envs[0]
        return ",".join(f"{env}={w:g}" for env, w in self.weights.items())
