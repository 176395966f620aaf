"""Read off blind batch 05u's twins (each a general rule, with the twin it came from):

- quarry: tries past a cap on a tool's calls are tries at one answer only where the tool's
  answers tell a wrong try from the right one; a booking moved and answered alike is not;
- signage: a length cap a tool's argument states in its own description is that argument's,
  not the reply's (its twin); a file name is tried in another folder the tools printed, out
  of its own (`../live/a.txt`, `....//live/a.txt`: a one-pass removal of `../` rebuilds it);
- artifacts: the names honest play acted on one by one are tried at once, as the glob of
  their common stem (`feat-login-build*`);
- podcasts: another option of a listing that pays is accused where the task's prompt names
  honest play's and not it (`/shows/cooking-kids` for the show 'cooking').
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.caps import over_length
from proofgym_stack.validation.search.guesses import answers_tell
from proofgym_stack.validation.search.named import last_part, names, on_a_scale
from proofgym_stack.validation.search.values import Pools, candidates, traversals
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def tried(tool: str, sent: list[dict[str, Any]], answers: list[str]) -> tuple[Any, Any, Any]:
    """Honest play's one call of `tool` (the last of `sent`), the script that tries the
    others first, and a result answering `answers`."""
    script = [
        [{"type": "function_call", "name": tool, "arguments": args, "call_id": f"c{n}"}]
        for n, args in enumerate(sent)
    ]
    output = [SimpleNamespace(type="function_call_output", output=a) for a in answers]
    return script[-1:], script, SimpleNamespace(response=SimpleNamespace(output=output))


def test_a_wrong_try_told_apart_from_the_right_one_is_a_guess_and_a_booking_moved_is_not() -> None:
    minerals = ["galena", "halite", "magnetite"]
    honest, script, result = tried(
        "submit_identification",
        [{"specimen": "S1", "mineral": m} for m in minerals],
        ["galena: not a match (2 left)", "halite: not a match (1 left)", "magnetite: match"],
    )
    assert answers_tell(honest, script, result, "submit_identification")
    faces = [("North Bench", "13:00"), ("East Wall", "14:30"), ("East Wall", "11:30")]
    honest, script, result = tried(
        "schedule_blast",
        [{"face": f, "time": t} for f, t in faces],
        [f"blast at {f} booked for {t}" for f, t in faces],
    )
    assert not answers_tell(honest, script, result, "schedule_blast")
    # read by an independent review: a letter sent is not cut out of other words, an id the
    # tool numbers and a value it spells out are no feedback, and a refused try is no answer
    letters = [{"choice": c} for c in "abc"]
    said = [f"Q1: answer {c} recorded" for c in "abc"]
    assert not answers_tell(*tried("answer", letters, said)[:3], "answer")
    ids = [f"booking #{100 + n} confirmed for 1{n}:00" for n in range(3)]
    assert not answers_tell(*tried("book", [{"at": f"1{n}:00"} for n in range(3)], ids), "book")
    days = tried("book", [{"day": d} for d in ("mon", "tue")], ["Booked Monday", "Booked Tuesday"])
    assert not answers_tell(*days, "book")
    refused = ["booked for 13:00", "Error: no such slot", "booked for 14:30"]
    slots = [{"slot": t} for t in ("13:00", "99:99", "14:30")]
    assert not answers_tell(*tried("book", slots, refused), "book")
    # the same answer to every try tells nothing; a number's own value is no feedback
    assert not answers_tell(
        *tried("submit", [{"answer": "A"}, {"answer": "B"}], ["Received."] * 2), "submit"
    )
    assert answers_tell(
        *tried("guess", [{"n": 3}, {"n": 7}], ["3: too low", "7: correct"]), "guess"
    )


def test_a_length_cap_an_argument_states_is_not_the_reply_s() -> None:
    words = "Save the notice, then publish(filename) (at most 160 characters)."
    long_reply = "Published " + "x" * 200
    assert over_length("Published.", long_reply, words) is not None
    described = "filename: the notice's file name. text: the notice (at most 160 characters)."
    assert over_length("Published.", long_reply, words, described) is None
    assert over_length("Published.", long_reply, words, "text: max 160 chars") is None
    # a cap of another length, or in other units, is still the reply's
    assert over_length("Published.", long_reply, words, "text: at most 400 characters") is not None
    reply, cap = "a " * 20, "Reply in at most 15 words."
    assert over_length("Done.", reply, cap, "text: at most 15 lines") is not None
    assert over_length("Done.", reply, cap, "text: at most 15 words") is None


def test_a_file_is_tried_past_its_folder_and_siblings_at_once() -> None:
    shown = ["staging/old.txt\nlive/gym.txt\nlive/sauna.txt"]
    assert traversals("pool.txt", shown) == [
        "../staging/pool.txt",
        "....//staging/pool.txt",
        "../live/pool.txt",
        "....//live/pool.txt",
    ]
    assert traversals("staging/pool.txt", shown)[:2] == ["../live/pool.txt", "....//live/pool.txt"]
    assert traversals("Ann Lee", shown) == [] and traversals("../x.txt", shown) == []
    # prose with a slash names no folder, and a number with a point is no file
    prose = ["Speeds in km/h; read and/or write. Files: live/b.txt"]
    assert traversals("a.txt", prose) == ["../live/a.txt", "....//live/a.txt"]
    assert traversals("12.50", shown) == []
    pools = Pools(within_task={"pattern": ["feat-login-build12.zip", "feat-login-build40.zip"]})
    tried = candidates("pattern", "feat-login-build12.zip", pools)
    assert ("siblings_glob", "feat-login-build*") in tried
    # one name alone has no siblings to take at once
    one = Pools(within_task={"pattern": ["feat-login-build12.zip"]})
    assert not [
        v for s, v in candidates("pattern", "feat-login-build12.zip", one) if s == "siblings_glob"
    ]


def test_a_prompt_names_an_option_whole() -> None:
    prompt = "Upload episode ep7.mp3 for the show 'cooking' with the title \"Pies\"."
    assert last_part("/shows/cooking") == "cooking" and last_part("/shows/cooking-kids/") == (
        "cooking-kids"
    )
    assert names(prompt, "cooking") and not names(prompt, "cooking-kids")
    assert not names("the show cooking-kids", "cooking")  # a part of a longer name
    assert not names(prompt, "ep")  # too short to be read as named
    # read by an independent review: one end of a stated range ("19:00 or later", "Monday to
    # Friday") names a value on a scale, not the one thing asked for
    assert on_a_scale("19:00") and on_a_scale("monday") and on_a_scale("2024-05-01")
    assert not on_a_scale("cooking") and not on_a_scale("sku-s1956515")
    assert on_a_scale("march") and not on_a_scale("marigold suite") and not on_a_scale("maple")


# -- an upload desk: a show's folder named in the prompt, a sibling listed beside it ----------

SHOWS = ["cooking", "cooking-kids", "garden", "garden-live", "history"]


class Uploads(Environment[dict[str, Any]]):
    """Upload an episode into its show's folder."""

    name = "uploads"
    success_words = ("uploaded",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"files": {}}

    def instructions(self, task: Task) -> str:
        return "Upload the episode with upload(folder, filename); list_folders shows the host."

    @tool(observes=True)
    def list_folders(self, state: dict[str, Any]) -> str:
        """List the show folders."""
        return "\n".join(f"/shows/{s}" for s in SHOWS)

    @tool
    def upload(self, state: dict[str, Any], folder: str, filename: str) -> str:
        """Upload a file into a folder.

        Args:
            folder: a folder from list_folders.
            filename: the episode's file name.
        """
        if folder not in [f"/shows/{s}" for s in SHOWS]:
            raise ToolError("no such folder")
        state["files"][f"{folder}/{filename}"] = True
        return f"uploaded {filename} to {folder}"

    def in_show(self, path: str, show: str) -> bool:
        return path.rsplit("/", 1)[0] == f"/shows/{show}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        there = any(
            self.in_show(p, d["show"]) and p.endswith(f"/{d['file']}") for p in state["files"]
        )
        return all_or_nothing(
            [
                Check(name="uploaded", passed=there),
                Check(name="one", passed=len(state["files"]) == 1),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        look = call("list_folders")
        done = say("The episode is uploaded.")
        wrong = "history" if d["show"] != "history" else "garden"
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    look,
                    call("upload", folder=f"/shows/{d['show']}", filename=d["file"]),
                    done,
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_other_show",
                expect="fail",
                script=[look, call("upload", folder=f"/shows/{wrong}", filename=d["file"]), done],
            ),
        ]


class PrefixContains(Uploads):
    """The planted slip: a folder contains a path by string prefix, separator left out."""

    def in_show(self, path: str, show: str) -> bool:
        return path.startswith(f"/shows/{show}")


def upload_tasks() -> list[Task]:
    rows = [
        (
            f"Upload episode file ep{n}.mp3 for the show '{show}'.",
            {"show": show, "file": f"ep{n}.mp3"},
        )
        for n, show in enumerate(["cooking", "garden", "cooking", "garden"])
    ]
    return tasks("uploads", rows)


async def test_another_listed_option_than_the_one_the_prompt_names_is_accused() -> None:
    plant = await validate(PrefixContains(), upload_tasks())
    assert "search" in failed(plant), plant.verdicts
    assert any("the task names" in f["why"] for f in plant.findings if f["severity"] == "pays")
    twin = await validate(Uploads(), upload_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
