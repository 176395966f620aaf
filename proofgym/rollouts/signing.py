"""The operator's proof key, and the MAC that signs certificates and stamped rollouts.

A certificate (`validate`) and a rollout row (the agent) carry an HMAC-SHA256 of their other
fields under one key the operator holds: `PROOFGYM_PROOF_KEY` when set, else a random key
generated on first use into the proofs folder (`<proofs>/.proof-key`, mode 0600, never in the
repository). The gate recomputes the MAC, so a certificate written by hand, a row edited after
the fact, or a row written by anything but the services does not pass. Stdlib only.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from proofgym.rollouts.safe_files import UnreadableFile, read_bytes
from proofgym.rollouts.safe_files import read_json_file as read_safely
from proofgym.wire.protocol import RunResult

KEY_FILE = ".proof-key"
#: a key file or a certificate past this size is not read (a certificate holds a report)
MAX_KEY_BYTES = 4096
MAX_CERTIFICATE_BYTES = 8 * 1024 * 1024


#: a file the gate will not read: not a regular file, too large, or not bounded JSON
NotReadable = UnreadableFile


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of `path` if it is a regular file (a link is not followed, a FIFO never
    blocks) of at most `limit` bytes; NotReadable otherwise (FileNotFoundError: absent)."""
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    return read_bytes(path, limit, follow_links=False)


def read_json_file(path: Path, limit: int = MAX_CERTIFICATE_BYTES) -> Any:
    """A JSON file read as `safe_files.read_json_file` reads one (a regular file, bounded in
    size and depth); FileNotFoundError when there is none (no certificate), NotReadable for
    anything else."""
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    return read_safely(path, max_bytes=limit)


def load_key(root: Path, given: str | None = None, create: bool = False) -> bytes | None:
    """The proof key: `given` (the operator's `PROOFGYM_PROOF_KEY`) when set, else the key
    file in `root`, generated there (0600) when `create` and none exists yet; None when
    there is none and `create` is False (then nothing was ever signed with it)."""
    if given:
        return given.encode()
    path = root / KEY_FILE
    try:
        return _read_key(path)
    except FileNotFoundError:
        if not create:
            return None
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".proof-key-{secrets.token_hex(8)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(32))
        # a hard link creates the key only where none is yet: two processes starting at
        # once agree on whichever got there first
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    key = read_bounded(path, MAX_KEY_BYTES).strip()
    if len(key) < 16:
        raise NotReadable(f"{path} holds no usable key (under 16 bytes)")
    return key


def canonical(body: dict[str, Any]) -> bytes:
    """The bytes a MAC covers: `body` as sorted, compact JSON."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def mac(key: bytes, body: dict[str, Any]) -> str:
    """The HMAC-SHA256 of `body` (its canonical JSON) under `key`, in hex."""
    return hmac.new(key, canonical(body), hashlib.sha256).hexdigest()


def mac_matches(key: bytes, body: dict[str, Any], signature: object) -> bool:
    """Whether `signature` is the MAC of `body` under `key` (compared in constant time)."""
    return isinstance(signature, str) and hmac.compare_digest(mac(key, body), signature)


def row_body(result: RunResult) -> dict[str, Any]:
    """What a rollout's signature covers: every field of the row but the signature."""
    return result.model_dump(mode="json", exclude={"signature"})


def sign_row(key: bytes, result: RunResult) -> RunResult:
    """`result` with its `signature` (the agent's stamp, made last)."""
    return result.model_copy(update={"signature": mac(key, row_body(result))})
