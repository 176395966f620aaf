"""Item ids (`proofgym.wire.responses.new_id`) never repeat: not after a caller reseeds `random`,
not across forked services."""

from __future__ import annotations

import os
import random
import re

from proofgym.wire.responses import new_id


def test_an_id_looks_like_openais() -> None:
    assert re.fullmatch(r"fc_[0-9a-f]{32}", new_id("fc"))


def test_reseeding_the_random_module_does_not_repeat_ids() -> None:
    random.seed(1234)
    first = [new_id("msg") for _ in range(3)]
    random.seed(1234)  # a trainer or a test seeding Python's random for reproducibility
    again = [new_id("msg") for _ in range(3)]
    assert not set(first) & set(again)


def test_a_forked_child_and_its_parent_name_items_apart() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, then out at once
        try:
            os.write(write, " ".join(new_id("fc") for _ in range(5)).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 4096).decode().split()
    os.close(read)
    parent = [new_id("fc") for _ in range(5)]
    assert len(child) == 5
    assert not set(child) & set(parent)
