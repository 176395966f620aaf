"""Files read back from proofgym's own folders, read as hostile: only regular files, bounded in
size and depth, each refusal a sentence; temp files of killed writes swept at the next start."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path

import pytest

from proofgym.rollouts.proofs import STALE_TEMP_S, Identity, ProofBook
from proofgym.rollouts.safe_files import (
    UnreadableFile,
    read_json_file,
    sweep_stale_temps,
    why_not_written,
)
from proofgym.wire.protocol import RewardInputs


def in_time(fn: object, seconds: float = 5.0) -> object:
    """`fn()` run in a thread; fails the test (instead of hanging it) past `seconds`."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = fn()  # type: ignore[operator]
        except BaseException as exc:  # the test inspects it
            out["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still blocked after {seconds}s"
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out.get("value")


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"env": "math", "nested": [[1, [2]]]}))
    assert read_json_file(path) == {"env": "math", "nested": [[1, [2]]]}
    link = tmp_path / "link.json"
    link.symlink_to(path)  # a link to a regular file is that file
    assert read_json_file(link) == {"env": "math", "nested": [[1, [2]]]}


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "c.json"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFile, match=r"c\.json: a FIFO, not a regular file: refused"):
        in_time(lambda: read_json_file(fifo))


def test_a_device_and_a_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile, match="a character device"):
        in_time(lambda: read_json_file("/dev/zero"))
    with pytest.raises(UnreadableFile, match=r"a folder|cannot be read"):
        read_json_file(tmp_path)


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as out:  # sparse: 2 GB that costs nothing on disk
        out.truncate(2 * 1024**3)
    started = time.perf_counter()
    with pytest.raises(UnreadableFile, match=r"2147483648 bytes, over the limit"):
        read_json_file(path)
    assert time.perf_counter() - started < 1.0
    small = tmp_path / "small.json"
    small.write_text(json.dumps(["x" * 100]))
    with pytest.raises(UnreadableFile, match="over the limit of 50"):
        read_json_file(small, max_bytes=50)


def test_deep_nesting_and_garbage_are_refused_with_why(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 10_000 + "]" * 10_000)
    with pytest.raises(UnreadableFile, match="nested deeper than 64 levels"):
        read_json_file(deep)
    medium = tmp_path / "medium.json"
    medium.write_text("[" * 100 + "]" * 100)  # parses, but past the limit
    with pytest.raises(UnreadableFile, match="nested deeper than 64"):
        read_json_file(medium)
    for name, raw in (("cut.json", b'{"env": '), ("latin.json", b'"\xff\xfe"')):
        (tmp_path / name).write_bytes(raw)
        with pytest.raises(UnreadableFile, match=f"{name}: not JSON"):
            read_json_file(tmp_path / name)
    with pytest.raises(UnreadableFile, match="cannot be read"):
        read_json_file(tmp_path / "absent.json")


def test_every_refusal_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 10_000 + "]" * 10_000)
    os.mkfifo(tmp_path / "fifo.json")
    for name in ("deep.json", "fifo.json", "absent.json"):
        with pytest.raises(UnreadableFile) as refused:
            in_time(lambda n=name: read_json_file(tmp_path / n))  # type: ignore[misc]
        assert "\n" not in str(refused.value) and str(tmp_path / name) in str(refused.value)


def old(path: Path, seconds: float) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_the_sweep_removes_only_stale_temps(tmp_path: Path) -> None:
    (tmp_path / "math").mkdir()
    stale = tmp_path / "math" / ".proof-abc.json"
    stale.write_bytes(b"x" * 1000)
    old(stale, 3600)
    fresh = tmp_path / "math" / ".proof-now.json"  # a write in progress
    fresh.write_text("{")
    cert = tmp_path / "math" / "v1.json"
    cert.write_text("{}")
    old(cert, 3600)
    deeper = tmp_path / "math" / "sub"
    deeper.mkdir()
    too_deep = deeper / ".proof-deep.json"
    too_deep.write_text("")
    old(too_deep, 3600)
    removed = sweep_stale_temps(tmp_path, ".proof-", 60, levels=1)
    assert removed == [stale]
    assert fresh.exists() and cert.exists() and too_deep.exists()
    assert sweep_stale_temps(tmp_path / "absent", ".proof-", 60) == []


def _ident(version: str) -> Identity:
    return Identity.serving("math", version, RewardInputs())


def test_a_proof_book_sweeps_a_killed_writes_temp_at_its_start(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    path = book.certify("math", "v1", RewardInputs(), {"passed": True})
    # what a kill -9 between the temp write and the rename leaves behind
    left = path.parent / ".proof-k1ll3d.json"
    left.write_text(json.dumps({"env": "math"})[:5])
    old(left, STALE_TEMP_S + 60)
    young = path.parent / ".proof-young.json"
    young.write_text("{")
    assert len(list(path.parent.glob(".proof-*"))) == 2
    again = ProofBook(tmp_path)  # the next start
    assert not left.exists() and young.exists() and path.exists()
    assert again.why_not(_ident("v1")) is None


def test_hostile_certificates_prove_nothing_and_hang_nothing(tmp_path: Path) -> None:
    book = ProofBook(tmp_path)
    book.certify("math", "good", RewardInputs(), {"passed": True})
    where = {
        v: book.path_of("math", v, None, RewardInputs().settings_digest())
        for v in ("fifo", "deep", "huge")
    }
    for path in where.values():
        path.parent.mkdir(parents=True)
    os.mkfifo(where["fifo"])
    where["deep"].write_text("[" * 10_000 + "]" * 10_000)
    with where["huge"].open("wb") as out:
        out.truncate(1024**3)
    proofs = in_time(book.proofs)
    assert [p.version for p in proofs] == ["good"]  # type: ignore[attr-defined]
    for version in ("fifo", "deep", "huge"):
        why = in_time(lambda v=version: book.why_not(_ident(v)))  # type: ignore[misc]
        assert why is not None and "not readable" in why


def test_why_not_written_names_the_cause() -> None:
    assert "read-only" in why_not_written(OSError(errno.EROFS, "Read-only file system"))
    assert "permission denied" in why_not_written(PermissionError(errno.EACCES, "denied"))
    assert why_not_written(OSError(errno.ENOSPC, "No space left")) == "the disk is full"
