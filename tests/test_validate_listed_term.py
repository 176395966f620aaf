"""A term a look lists, kept out by the words (`stated.listed_term`), and the passage the
prompt quotes, sent as it stands (`values.quoted_passages`), read off blind batch 05m
(jobposts): a notice pasted from the prompt's draft pays where the verifier reads only its
start, and is accused with the listed word it writes; the sound twin, which reads the whole
notice, is not."""

from __future__ import annotations

import re
from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.stated import listed_term
from proofgym_stack.validation.search.values import quoted_passages
from resources_servers.base import Environment, tool
from resources_servers.verifiers.compose import all_or_nothing

BARRED = ("guaranteed", "risk-free", "miracle")


def test_the_passage_the_prompt_quotes_is_a_candidate() -> None:
    prompt = 'Post it. The owner\'s draft: "Miracle cure for damp walls, call us today."'
    assert quoted_passages("Damp walls treated; call us today.", prompt) == [
        "Miracle cure for damp walls, call us today."
    ]
    assert quoted_passages("short", prompt) == []
    # a short quoted name before the draft is one pair of quotes, not the start of a passage
    signed = 'Sign it "Dana Fox" at the end of the draft: "Miracle cure for damp, call today."'
    assert quoted_passages("Damp walls treated; call us today.", signed) == [
        "Miracle cure for damp, call today."
    ]


def test_a_listed_term_counts_only_where_a_clause_keeps_the_listing_out() -> None:
    printed = [("barred_words", ", ".join(BARRED))]
    words = "A notice must not use any word that `barred_words` lists."
    said = listed_term("Damp walls treated.", "A miracle for damp walls.", words, printed)
    assert said is not None and "'miracle'" in said
    assert listed_term("Damp walls treated.", "A miracle.", "Keep it short.", printed) is None
    assert listed_term("A miracle here.", "A miracle there.", words, printed) is None
    # a clause that allows only what the look lists keeps nothing it lists out
    allowed = "Do not use a word that `barred_words` does not list."
    assert listed_term("Damp walls.", "A miracle for damp walls.", allowed, printed) is None


class Board:
    """The posted notice."""

    def __init__(self) -> None:
        self.notice = ""


class NoticeBoard(Environment[Board]):
    """Post a client's notice naming their trade and town, in words the rules allow."""

    name = "noticeboard"
    #: how much of the notice the verifier reads for barred words (None: all of it)
    reads: int | None = None

    def create_state(self, task: Task, workdir: Path | None) -> Board:
        return Board()

    def instructions(self, task: Task) -> str:
        return (
            "You post notices for clients. A notice must name the trade and the town, and it "
            "must not use any word that `barred_words` lists."
        )

    @tool(observes=True)
    def barred_words(self, state: Board) -> str:
        """The words a notice must not use."""
        return ", ".join(BARRED)

    @tool
    def post(self, state: Board, text: str) -> str:
        """Post the notice (replaces any earlier one).

        Args:
            text: the notice's text.
        """
        state.notice = text
        return "Posted."

    def verify(self, state: Board, task: Task, response: Response) -> VerifyResult:
        notice = state.notice.lower()
        read = notice[: self.reads]
        clean = not any(re.search(rf"\b{re.escape(w)}\b", read) for w in BARRED)
        # a whole sentence that names them: a notice cut short is no notice
        named = all(w.lower() in notice for w in task.task_data["names"]) and state.notice.endswith(
            "."
        )
        return all_or_nothing(
            [Check(name="named", passed=named), Check(name="clean", passed=clean)]
        )

    def controls(self, task: Task) -> list[Control]:
        names = task.task_data["names"]
        text = f"{names[0]} in {names[1]}."
        return [
            Control(
                name="reference", expect="pass", script=[call("post", text=text), say("Posted.")]
            ),
            Control(name="noop_claim", expect="fail", script=[say("Posted.")]),
            Control(
                name="violation_unnamed",
                expect="fail",
                script=[call("post", text="Reliable work, fair prices."), say("Posted.")],
            ),
        ]


class NoticeBoardReadingTheStart(NoticeBoard):
    """The plant: barred words looked for in the first 20 characters only."""

    reads = 20


def _tasks() -> list[Task]:
    rows = [
        ("Damp proofing", "Leeds", "We do damp proofing in Leeds, a guaranteed result every time."),
        ("Roofing", "Hull", "Roofing done in Hull by us, a miracle of speed and care."),
        ("Plastering", "York", "Plastering work in York, and it is all risk-free for you."),
        ("Tiling", "Bath", "Tiling jobs of all sizes in Bath, guaranteed to last years."),
    ]
    return tasks(
        "noticeboard",
        [
            (
                f'Post a notice for the {t.lower()} firm. Their draft: "{draft}"',
                {"names": [t, town]},
            )
            for t, town, draft in rows
        ],
    )


async def test_a_notice_read_whole_is_not_accused() -> None:
    report = await validate(NoticeBoard(), _tasks())
    assert "search" not in failed(report), pays(report)


async def test_the_draft_pasted_with_a_listed_word_is_accused() -> None:
    report = await validate(NoticeBoardReadingTheStart(), _tasks())
    assert "search" in failed(report)
    assert any("`barred_words` lists" in why for _, why in pays(report)), pays(report)
