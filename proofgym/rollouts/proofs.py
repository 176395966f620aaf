"""Proof certificates: which environment versions passed `proofgym validate`, with what, and
the gate that keeps every other rollout from a trainer.

`validate` writes one certificate per environment version, judge and reward settings that
passed every check, as `<dir>/<env>/<version>/<inputs>.json`: the verdicts and everything they
ran with (the version, the judge's identity, the declared settings' digest, the tasks' digest,
the sample, proofgym's version), signed with the operator's proof key
(`proofgym.rollouts.signing`). An environment's version is the hash of every source file, data
file and declared setting name that decides its rewards, so a verifier fix makes a new version
that has to be proven again.

`export`, `learn` and the trainer adapters pass their rollouts through `admit`. A rollout is
admitted only when the agent's signature on it holds (no field edited, no row written by
anything but the services) and a certificate exists whose signature holds, whose verdicts
passed, and whose version, judge and settings digest are the ones the rollout was judged
with. Any other rollout is refused, with the reason, unless the caller asked by name to allow
unproven rollouts; then each one is marked. Collecting, profiling and viewing stay free of the
gate: that is how an author works on an environment before it passes.

The directory is `runs/proofs` unless `PROOFGYM_PROOFS_DIR` (read by the command line and the
services at start) or the caller names another.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proofgym.rollouts.safe_files import sweep_stale_temps
from proofgym.rollouts.signing import (
    NotReadable,
    load_key,
    mac,
    mac_matches,
    read_json_file,
    row_body,
)
from proofgym.wire.protocol import RewardInputs, RunResult

if TYPE_CHECKING:
    from proofgym.serving.settings import ProofSettings

DEFAULT_DIR = Path("runs/proofs")
#: an environment name or version as a file name: no separator, no dot-dot
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$")
ALLOW_FLAG = "--allow-unproven"
#: a certificate's temp file older than this is a killed write's, swept (a write takes < 1 s)
STALE_TEMP_S = 300.0
#: certificates of one version looked at when saying why a rollout is not admitted
_MAX_LISTED = 256


def _plain(value: str, what: str) -> str:
    if not _PLAIN.match(value) or ".." in value:
        raise ValueError(f"{what} {value!r} cannot name a proof file")
    return value.replace(":", "_")


def inputs_key(judge: str | None, settings_digest: str | None) -> str:
    """The file name (without `.json`) of the certificate for one judge and settings digest."""
    body = json.dumps([judge, settings_digest or ""])
    return hashlib.sha256(body.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Identity:
    """What a rollout was judged with, as the gate matches it against a certificate."""

    env: str
    version: str | None
    judge: str | None = None
    settings_digest: str | None = None

    @classmethod
    def of(cls, result: RunResult) -> Identity:
        """The identity a rollout row is stamped with."""
        return cls(result.env, result.env_version, result.judge, result.settings_digest)

    @classmethod
    def serving(cls, env: str, version: str, inputs: RewardInputs) -> Identity:
        """The identity of an environment instance's rollouts (its version and inputs)."""
        return cls(env, version, inputs.judge, inputs.settings_digest())

    def shown(self) -> str:
        """`math 0e71415df7a161b7`, with the judge when there is one."""
        text = f"{self.env} {self.version or '(no version recorded)'}"
        return text + (f" judged by {self.judge}" if self.judge else "")


class RunWith(BaseModel):
    """Everything the verdicts of one certificate ran with."""

    model_config = ConfigDict(extra="forbid")

    judge: str | None = None
    #: the declared settings' names (values are not kept: one may be a secret)
    settings: list[str] = Field(default_factory=list)
    settings_digest: str
    tasks: str = ""
    tasks_digest: str = ""
    sample: int = 0
    proofgym: str = ""


class Certificate(BaseModel):
    """One certificate as stored: the verdicts, what they ran with, and the MAC of the rest."""

    model_config = ConfigDict(extra="forbid")

    env: str
    version: str
    created_at: float
    passed: bool
    run_with: RunWith
    report: dict[str, Any] = Field(default_factory=dict)
    #: `proofgym learn --control`'s comparison, when one was attached (`attach_learnability`)
    learnability: dict[str, Any] | None = None
    signature: str

    def failed_checks(self) -> list[str]:
        """The names of the report's verdicts that failed (a certificate with one is void)."""
        rows = self.report.get("verdicts")
        if not isinstance(rows, list):
            return []
        return [
            str(r.get("name", "?"))
            for r in rows
            if isinstance(r, dict) and (r.get("outcome") == "fail" or r.get("passed") is False)
        ]


@dataclass(frozen=True)
class Proof:
    """One certificate whose signature holds and whose verdicts passed."""

    env: str
    version: str
    created_at: float
    path: Path
    judge: str | None = None
    settings_digest: str = ""


class UnprovenRollouts(Exception):
    """Rollouts that no passing certificate covers reached a trainer; `reasons` says why
    for each (identity, reason) with how many rollouts."""

    def __init__(self, unproven: Counter[tuple[Identity, str]], where: Path) -> None:
        self.unproven = unproven
        shown = "; ".join(
            f"{ident.shown()}: {why}" + (f" ({n} rollouts)" if n else "")
            for (ident, why), n in sorted(unproven.items(), key=lambda kv: str(kv[0]))
        )
        envs = " ".join(sorted({ident.env for ident, _ in unproven}))
        super().__init__(
            f"refused: rollouts no passing certificate covers ({shown}; proofs read from "
            f"{where}). Prove them (`proofgym validate {envs}` with the judge and settings the "
            f"rollouts run with, then re-verify the store if the verifier changed: `proofgym "
            f"reverify`), or train on them anyway, marked, with {ALLOW_FLAG} "
            "(allow_unproven=True)"
        )


class ProofBook:
    """The certificates in one directory, checked with the operator's proof key (`key`: the
    `PROOFGYM_PROOF_KEY` value; None: the key file in the directory)."""

    def __init__(self, root: Path | str = DEFAULT_DIR, key: str | None = None) -> None:
        self.root = Path(root)
        sweep_stale_temps(self.root, ".proof-", STALE_TEMP_S, levels=2)  # killed writes' temps
        self._given = key

    @classmethod
    def from_settings(cls, settings: ProofSettings) -> ProofBook:
        """The book the settings name (`proofs_dir`, `proof_key`)."""
        key = settings.proof_key.get_secret_value() if settings.proof_key else None
        return cls(settings.proofs_dir, key)

    def agent_env(self) -> dict[str, str]:
        """The variables that point an agent this process starts at this book, so that the
        rows it signs are the rows this book admits."""
        out = {"PROOFGYM_PROOFS_DIR": str(self.root.resolve())}
        if self._given:
            out["PROOFGYM_PROOF_KEY"] = self._given
        return out

    def key(self, create: bool = False) -> bytes | None:
        """The proof key (generated into the directory when `create` and there is none)."""
        return load_key(self.root, self._given, create=create)

    def path_of(self, env: str, version: str, judge: str | None, settings_digest: str) -> Path:
        """Where the certificate of `env` at `version` with these inputs is (or would be)."""
        folder = self.root / _plain(env, "environment") / _plain(version, "version")
        return folder / f"{inputs_key(judge, settings_digest)}.json"

    def certify(
        self,
        env: str,
        version: str,
        inputs: RewardInputs,
        report: dict[str, Any],
        **run_with: Any,
    ) -> Path:
        """Record the validation of `env` at `version` under `inputs` with its `report` (JSON:
        `passed` and the verdicts) and what else it ran with (`tasks`, `tasks_digest`,
        `sample`, `proofgym`: RunWith's fields), signed; written whole or not at all."""
        digest = inputs.settings_digest()
        path = self.path_of(env, version, inputs.judge, digest)
        key = self.key(create=True)
        assert key is not None  # created when missing
        body = {
            "env": env,
            "version": version,
            "created_at": time.time(),
            "passed": bool(report.get("passed")),
            "run_with": RunWith(
                judge=inputs.judge,
                settings=sorted(inputs.settings),
                settings_digest=digest,
                **run_with,
            ).model_dump(mode="json"),
            "report": report,
        }
        body["signature"] = mac(key, body)
        return self._write(path, body)

    def attach_learnability(self, ident: Identity, section: dict[str, Any]) -> Path | None:
        """Add `section` (`learnability_section`'s: real vs control, gap, interval, p-value) to
        the passing certificate that covers `ident`, signed again; None when none covers it
        (a learnability run is evidence about a proven version, never a proof of its own)."""
        if self.why_not(ident) is not None or ident.version is None:
            return None
        path = self.path_of(ident.env, ident.version, ident.judge, ident.settings_digest or "")
        key = self.key()
        cert, _ = self._read(path, key)
        if cert is None or key is None:
            return None
        body = cert.model_dump(mode="json", exclude={"signature"})
        body["learnability"] = section
        body["signature"] = mac(key, body)
        return self._write(path, body)

    def _write(self, path: Path, body: dict[str, Any]) -> Path:
        """`body` written at `path` whole or not at all (a temp file, then a rename)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".proof-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(body, out, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def _read(self, path: Path, key: bytes | None) -> tuple[Certificate | None, str]:
        """The certificate at `path` and "" when it holds, else None and why not."""
        try:
            body = read_json_file(path)
        except FileNotFoundError:
            return None, "no certificate"
        except NotReadable as exc:
            return None, f"the certificate is not readable: {exc}"
        if not isinstance(body, dict):
            return None, f"{path} is not a certificate"
        if key is None:
            return None, f"no proof key in {self.root} (nor PROOFGYM_PROOF_KEY) to check it"
        unsigned = {k: v for k, v in body.items() if k != "signature"}
        if not mac_matches(key, unsigned, body.get("signature")):
            return None, (
                f"the certificate's signature is invalid ({path}): written by hand, edited, "
                "or signed with another proof key"
            )
        try:
            cert = Certificate.model_validate(body)
        except ValidationError as exc:
            return None, f"{path} is not a certificate: {exc.errors()[0]['msg']}"
        failed = cert.failed_checks()
        if not cert.passed or failed:
            return None, "its validation failed" + (f": {', '.join(failed[:8])}" if failed else "")
        return cert, ""

    def why_not(self, ident: Identity) -> str | None:
        """None when a passing certificate covers `ident`, else why not, in one sentence."""
        if not ident.version:
            return "no version recorded"
        try:
            path = self.path_of(ident.env, ident.version, ident.judge, ident.settings_digest or "")
        except ValueError as exc:
            return str(exc)
        key = self.key()
        cert, why = self._read(path, key)
        if cert is not None:
            if (cert.env, cert.version) != (ident.env, ident.version) or (
                cert.run_with.judge,
                cert.run_with.settings_digest,
            ) != (ident.judge, ident.settings_digest or ""):
                return f"the certificate at {path} is for another environment, version or judge"
            return None
        if why != "no certificate":
            return why
        others = self._of_version(ident.env, ident.version, key)
        if not others:
            return "no certificate: never passed `proofgym validate`"
        judges = sorted({str(c.run_with.judge) for c in others})
        if ident.judge not in {c.run_with.judge for c in others}:
            return f"proven only under another judge ({', '.join(judges)}), not {ident.judge}"
        return (
            f"proven only with other reward settings (digest {others[0].run_with.settings_digest}"
            f", not {ident.settings_digest})"
        )

    def _of_version(self, env: str, version: str, key: bytes | None) -> list[Certificate]:
        try:
            folder = self.root / _plain(env, "environment") / _plain(version, "version")
        except ValueError:
            return []
        found = []
        for path in sorted(folder.glob("*.json"))[:_MAX_LISTED]:
            cert, _ = self._read(path, key)
            if cert is not None and (cert.env, cert.version) == (env, version):
                found.append(cert)
        return found

    def is_proven(self, ident: Identity) -> bool:
        """Whether a passing certificate covers `ident` (never for an unnamed version)."""
        return self.why_not(ident) is None

    def require(self, ident: Identity) -> None:
        """UnprovenRollouts unless `ident` is proven: for a caller about to play it (`learn`),
        before anything runs."""
        why = self.why_not(ident)
        if why is not None:
            raise UnprovenRollouts(Counter({(ident, why): 0}), self.root)

    def proofs(self) -> list[Proof]:
        """Every certificate whose signature holds and whose verdicts passed, newest first."""
        key = self.key()
        found = []
        for path in self.root.glob("*/*/*.json"):
            cert, _ = self._read(path, key)
            if cert is not None:
                found.append(
                    Proof(
                        cert.env,
                        cert.version,
                        cert.created_at,
                        path,
                        cert.run_with.judge,
                        cert.run_with.settings_digest,
                    )
                )
        return sorted(found, key=lambda p: -p.created_at)

    def row_why_not(self, result: RunResult, key: bytes | None) -> str | None:
        """None when the row's signature holds, else why not (an older row has none)."""
        if result.signature is None:
            return (
                "the row carries no signature (collected before rows were signed, or by an "
                "agent without the proof key)"
            )
        if key is None or not mac_matches(key, row_body(result), result.signature):
            return (
                "the row's signature is invalid: edited, written by anything but the "
                "services, or signed with another proof key"
            )
        return None

    def admit(
        self, results: Sequence[RunResult], allow_unproven: bool = False
    ) -> list[tuple[RunResult, bool]]:
        """Each result with whether it is admitted (its signature holds and a passing
        certificate covers what it was judged with); UnprovenRollouts, with the reasons,
        when any is not, unless `allow_unproven` (then those come back marked False)."""
        key = self.key()
        cache: dict[Identity, str | None] = {}
        out = []
        refused: Counter[tuple[Identity, str]] = Counter()
        for r in results:
            ident = Identity.of(r)
            if ident not in cache:
                cache[ident] = self.why_not(ident)
            why = cache[ident] or self.row_why_not(r, key)
            out.append((r, why is None))
            if why is not None:
                refused[(ident, why)] += 1
        if refused and not allow_unproven:
            raise UnprovenRollouts(refused, self.root)
        return out


def unproven_count(admitted: Iterable[tuple[RunResult, bool]]) -> int:
    """How many admitted rollouts are unproven (allowed by the caller, marked)."""
    return sum(1 for _, ok in admitted if not ok)
