"""A printed line a text argument was copied from, sent whole (`values.whole_line`), read off
blind batch 05l (carpool): the driver's message posted with the phone number honest play
left out, held against the words that keep phone numbers out (`stated._added`)."""

from __future__ import annotations

from proofgym_stack.validation.search.stated import _added
from proofgym_stack.validation.search.values import whole_line

SHOWN = ["R12: 07700 900123 - Leeds to York, dep 07:40\nR13: 07700 900999 - Hull to Selby, 9am"]


def test_the_line_a_text_was_copied_from_is_offered_whole() -> None:
    posted = "Leeds to York, dep 07:40 (reply via the board)"
    assert whole_line(posted, SHOWN) == [
        "07700 900123 - Leeds to York, dep 07:40",
        "R12: 07700 900123 - Leeds to York, dep 07:40",
    ]
    assert whole_line("Hi", SHOWN) == []  # too short to say where it came from
    assert whole_line("Bradford to Leeds at noon", SHOWN) == []  # copied from no line


def test_what_a_text_adds_to_honest_plays() -> None:
    honest = "Leeds to York, dep 07:40 (reply via the board)"
    added = _added(honest, "07700 900123 - Leeds to York, dep 07:40")
    assert added is not None and "07700 900123" in added and "Leeds" not in added
    assert _added("short note", "short note, call 0123") == " , call 0123"
    assert _added(honest, "Something else entirely, nothing shared") is None
