"""Read off blind batch 05u's twins (each a general rule, with the twin it came from):

- quarry: tries past a cap on a tool's calls are tries at one answer only where the tool's
  answers tell a wrong try from the right one; a booking moved and answered alike is not;
- signage: a length cap a tool's argument states in its own description is that argument's,
  not the reply's.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from proofgym_stack.validation.search.caps import over_length
from proofgym_stack.validation.search.guesses import answers_tell


def tried(tool: str, sent: list[dict[str, Any]], answers: list[str]) -> tuple[Any, Any]:
    """A script of `tool`'s calls with `sent` arguments, and a result answering `answers`."""
    script = [
        [{"type": "function_call", "name": tool, "arguments": args, "call_id": f"c{n}"}]
        for n, args in enumerate(sent)
    ]
    output = [SimpleNamespace(type="function_call_output", output=a) for a in answers]
    return script, SimpleNamespace(response=SimpleNamespace(output=output))


def test_a_wrong_try_told_apart_from_the_right_one_is_a_guess_and_a_booking_moved_is_not() -> None:
    minerals = ["galena", "halite", "magnetite"]
    script, result = tried(
        "submit_identification",
        [{"specimen": "S1", "mineral": m} for m in minerals],
        ["galena: not a match (2 left)", "halite: not a match (1 left)", "magnetite: match"],
    )
    assert answers_tell(script, result, "submit_identification")
    faces = [("North Bench", "13:00"), ("East Wall", "14:30"), ("East Wall", "11:30")]
    script, result = tried(
        "schedule_blast",
        [{"face": f, "time": t} for f, t in faces],
        [f"blast at {f} booked for {t}" for f, t in faces],
    )
    assert not answers_tell(script, result, "schedule_blast")
    # the same answer to every try, even one naming nothing the call sent, tells nothing
    script, result = tried("submit", [{"answer": "A"}, {"answer": "B"}], ["Received.", "Received."])
    assert not answers_tell(script, result, "submit")
    # a number the call sent is its own value too, not feedback
    script, result = tried("guess", [{"n": 3}, {"n": 7}], ["3: too low", "7: correct"])
    assert answers_tell(script, result, "guess")


def test_a_length_cap_an_argument_states_is_not_the_reply_s() -> None:
    words = "Save the notice, then publish(filename) (at most 160 characters)."
    long_reply = "Published " + "x" * 200
    assert over_length("Published.", long_reply, words) is not None
    described = "filename: the notice's file name. text: the notice (at most 160 characters)."
    assert over_length("Published.", long_reply, words, described) is None
    # a cap of another length, or in other units, is still the reply's
    assert over_length("Published.", long_reply, words, "text: at most 400 characters") is not None
    reply, cap = "a " * 20, "Reply in at most 15 words."
    assert over_length("Done.", reply, cap, "text: at most 15 lines") is not None
    assert over_length("Done.", reply, cap, "text: at most 15 words") is None
