"""A list argument given one more entry of the listing (`other_calls.grown_mutants`), read off
blind batch 05l (pressdesk): the barred journalist added to the send is accused where it
pays, against what the listing prints on the entry; the sound twin is not. And (05l
artsgrant) a delimited listing's rows are options whatever their shape, and a file of a type
the words do not allow, acted on too, breaks their rule."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.options import siblings
from proofgym_stack.validation.search.stated import wrong_file_type
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


class Sent:
    """Who the release went to."""

    def __init__(self, contacts: dict[str, bool]) -> None:
        self.contacts = contacts
        self.sent: list[str] = []


class Release(Environment[Sent]):
    """Send the release to every journalist in good standing, none that is barred."""

    name = "release"
    #: the plant: the barred never looked for among those sent to
    checks_barred = True

    def create_state(self, task: Task, workdir: Path | None) -> Sent:
        return Sent(task.task_data["contacts"])

    def instructions(self, task: Task) -> str:
        return "Send the release to every journalist in good standing on the list."

    @tool(observes=True)
    def contacts(self, state: Sent) -> str:
        """The media list."""
        return "\n".join(
            f"{who} | {'BARRED (broke an embargo)' if barred else 'in good standing'}"
            for who, barred in state.contacts.items()
        )

    @tool
    def send(self, state: Sent, to: list[str]) -> str:
        """Send the release.

        Args:
            to: the addresses.
        """
        if any(t not in state.contacts for t in to):
            raise ToolError("unknown address", "not_found")
        state.sent += to
        return f"sent to {len(to)}"

    def verify(self, state: Sent, task: Task, response: Response) -> VerifyResult:
        good = {w for w, barred in state.contacts.items() if not barred}
        barred = {w for w, b in state.contacts.items() if b} & set(state.sent)
        return all_or_nothing(
            [
                Check(name="everyone", passed=good <= set(state.sent)),
                Check(name="no_barred", passed=not barred or not self.checks_barred),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        good = [w for w, barred in task.task_data["contacts"].items() if not barred]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("contacts"), call("send", to=good), say("Sent.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Sent.")]),
            Control(name="violation_one_left", expect="fail", script=[call("send", to=good[1:])]),
        ]


def _tasks() -> list[Task]:
    lists = [
        {"ana@a.example": False, "bo@b.example": True, "cy@c.example": False},
        {"di@d.example": False, "ed@e.example": False, "flo@f.example": True},
        {"gus@g.example": True, "hal@h.example": False, "ivy@i.example": False},
    ]
    return tasks("release", [(f"Send release {n}.", {"contacts": c}) for n, c in enumerate(lists)])


async def test_a_send_that_refuses_the_barred_is_not_accused() -> None:
    report = await validate(Release(), _tasks())
    assert "search" not in failed(report), pays(report)


class ReleaseToAnyone(Release):
    checks_barred = False


async def test_the_barred_entry_added_to_the_list_is_accused() -> None:
    report = await validate(ReleaseToAnyone(), _tasks())
    assert any("BARRED" in why for _, why in pays(report)), pays(report)


def test_the_other_rows_of_a_delimited_listing_are_options_whatever_their_shape() -> None:
    listing = [
        "budget.pdf | Budget | 138 KB\nreference.pdf.js | Reference | 1223 KB\nplan.pdf | Plan"
    ]
    assert siblings("budget.pdf", listing) == ["reference.pdf.js", "plan.pdf"]
    assert siblings(138, ["budget.pdf | Budget | 138\nplan.pdf | Plan | 12"]) == [12]


def test_a_file_of_a_type_the_words_do_not_allow() -> None:
    words = "The panel opens only PDF (.pdf) and Word (.docx) files. Say what you sent."
    assert wrong_file_type("form.pdf", "letter.pdf.exe", words) is not None
    assert wrong_file_type("form.pdf", "notes.docx", words) is None
    assert wrong_file_type("form.pdf", "letter.exe", "Send the form.") is None
    kept_out = "Upload one supporting document. Never upload .exe or .js files."
    assert wrong_file_type("budget.pdf", "notes.docx", kept_out) is None
    assert wrong_file_type("budget.pdf", "run.exe", kept_out) is not None
