"""Proof certificates: which environment versions passed `proofgym validate`, and the gate
that keeps rollouts of any other version from a trainer.

`validate` writes one certificate per environment version that passed every check, as
`<dir>/<env>/<version>.json` (the verdicts, and what they were run with). An environment's
version is the hash of every source file that decides its rewards, so a verifier fix makes a
new version that has to be proven again. `export`, `learn` and the trainer adapters pass
their rollouts through `admit`: a rollout whose version has no certificate (or that names no
version) is refused unless the caller asked, by name, to allow unproven rollouts; then each
one is marked. Collecting, profiling and viewing stay free of the gate: that is how an
author works on an environment before it passes.

The directory is `runs/proofs` unless `PROOFGYM_PROOFS_DIR` (read by the command line and the
services at start) or the caller names another.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofgym.rollouts.safe_files import read_json_file, sweep_stale_temps
from proofgym.wire.protocol import RunResult

DEFAULT_DIR = Path("runs/proofs")
#: an environment name or version as a file name: no separator, no dot-dot
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$")
ALLOW_FLAG = "--allow-unproven"
#: a certificate's temp file older than this is a killed write's, swept (a write takes < 1 s)
STALE_TEMP_S = 300.0


def _plain(value: str, what: str) -> str:
    if not _PLAIN.match(value) or ".." in value:
        raise ValueError(f"{what} {value!r} cannot name a proof file")
    return value.replace(":", "_")


class UnprovenRollouts(Exception):
    """Rollouts of environment versions that never passed `validate` reached a trainer."""

    def __init__(self, unproven: Counter[tuple[str, str | None]], where: Path) -> None:
        self.unproven = unproven
        shown = ", ".join(
            f"{env} {version or '(no version recorded)'}" + (f": {n} rollouts" if n else "")
            for (env, version), n in sorted(unproven.items(), key=lambda kv: str(kv[0]))
        )
        envs = " ".join(sorted({env for env, _ in unproven}))
        super().__init__(
            f"refused: rollouts of environment versions that never passed `proofgym validate` "
            f"({shown}; proofs read from {where}). Prove them (`proofgym validate {envs}`, "
            f"then re-verify the store if the verifier changed: `proofgym reverify`), or train "
            f"on them anyway, marked, with {ALLOW_FLAG} (allow_unproven=True)"
        )


@dataclass(frozen=True)
class Proof:
    """One certificate: an environment version that passed every check of `validate`."""

    env: str
    version: str
    created_at: float
    path: Path


class ProofBook:
    """The certificates in one directory."""

    def __init__(self, root: Path | str = DEFAULT_DIR) -> None:
        self.root = Path(root)
        sweep_stale_temps(self.root, ".proof-", STALE_TEMP_S, levels=1)  # killed writes' temps

    def path_of(self, env: str, version: str) -> Path:
        """Where the certificate of `env` at `version` is (or would be)."""
        return self.root / _plain(env, "environment") / f"{_plain(version, 'version')}.json"

    def certify(self, env: str, version: str, report: dict[str, Any]) -> Path:
        """Record that `env` at `version` passed, with the validation's `report` (JSON-able);
        written whole or not at all."""
        path = self.path_of(env, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {"env": env, "version": version, "created_at": time.time(), "report": report}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".proof-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(body, out, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def is_proven(self, env: str, version: str | None) -> bool:
        """Whether `env` at `version` has a certificate (never for an unnamed version)."""
        if not version:
            return False
        try:
            path = self.path_of(env, version)
        except ValueError:
            return False
        try:
            body = read_json_file(path)
        except (OSError, ValueError):
            return False
        return isinstance(body, dict) and body.get("env") == env and body.get("version") == version

    def require(self, env: str, version: str | None) -> None:
        """UnprovenRollouts unless `env` at `version` is proven: for a caller about to play
        it (`learn`), before anything runs."""
        if not self.is_proven(env, version):
            raise UnprovenRollouts(Counter({(env, version): 0}), self.root)

    def proofs(self) -> list[Proof]:
        """Every certificate, newest first."""
        found = []
        for path in self.root.glob("*/*.json"):
            try:
                body = read_json_file(path)
                found.append(Proof(body["env"], body["version"], float(body["created_at"]), path))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # a file that is not a certificate proves nothing
        return sorted(found, key=lambda p: -p.created_at)

    def admit(
        self, results: Sequence[RunResult], allow_unproven: bool = False
    ) -> list[tuple[RunResult, bool]]:
        """Each result with whether its environment version is proven; UnprovenRollouts when
        any is not, unless `allow_unproven` (then the unproven ones come back marked False)."""
        cache: dict[tuple[str, str | None], bool] = {}
        out = []
        for r in results:
            key = (r.env, r.env_version)
            if key not in cache:
                cache[key] = self.is_proven(*key)
            out.append((r, cache[key]))
        unproven = Counter((r.env, r.env_version) for r, ok in out if not ok)
        if unproven and not allow_unproven:
            raise UnprovenRollouts(unproven, self.root)
        return out


def unproven_count(admitted: Iterable[tuple[RunResult, bool]]) -> int:
    """How many admitted rollouts are unproven (allowed by the caller, marked)."""
    return sum(1 for _, ok in admitted if not ok)
