"""The hops' JSON codec reads and writes what the `json` module does, only faster."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from proofgym.wire.codec import decode, encode

VALUES: list[Any] = [
    {"a": 1, "b": [1.5, -2, None, True, False], "c": {"d": "é ✓ 𝄞"}},
    [2**80, -(2**70), 1e-300, 0.1],
    {"tool": {"arguments": '{"expression": "6*7"}'}, "empty": {}, "list": []},
    "plain",
    "",
    0,
    None,
]


@pytest.mark.parametrize("value", VALUES)
def test_what_is_written_reads_back_as_json_reads_it(value: Any) -> None:
    data = encode(value)
    assert json.loads(data) == value
    assert decode(data) == value
    assert decode(json.dumps(value).encode()) == value


def test_a_lone_surrogate_is_written_and_read_as_json_does() -> None:
    data = encode({"text": "a\ud800b"})
    assert data == b'{"text":"a\\ud800b"}'
    assert decode(data) == {"text": "a\ud800b"}


def test_non_finite_numbers_are_written_as_json_writes_them() -> None:
    data = encode([math.nan, math.inf, -math.inf])
    assert data == b"[NaN,Infinity,-Infinity]"
    got = decode(data)
    assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf]


def test_what_json_cannot_hold_or_read_is_an_error() -> None:
    with pytest.raises(TypeError):
        encode({"x": object()})
    for bad in (b"{not json", b"", b'{"a": 1', b"[1,]"):
        with pytest.raises(ValueError):
            decode(bad)
