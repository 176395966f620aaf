"""An objective the task's words state (`objective`), read off blind batch 05k (roofquotes), and a
band they keep values out of (05l micfreq: "never inside 606-614 MHz"):
a feasible option paid in place of the cheapest is accused; the sound twin, which pays only
the cheapest, is not; and a value left out of the report of an action taken is advisory."""

from __future__ import annotations

from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.objective import chosen_noun, objectives, worse_option
from proofgym_stack.validation.search.rules import bounds, crossed
from proofgym_stack.validation.search.stated import _unit_of
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

LISTING = ["Q-1 | Apex | GBP 5200 | scaffolding: yes", "Q-2 | Kite | GBP 3900 | scaffolding: yes"]


def test_an_option_worse_on_the_stated_objective_is_not_the_one_asked_for() -> None:
    words = "Accept the cheapest quote that includes scaffolding."
    assert objectives(words)[0][1:] == (("money:",), "min")
    assert worse_option("Q-2", "Q-1", LISTING, words, "quote") is not None
    assert (
        worse_option("Q-1", "Q-2", LISTING, words, "quote") is None
    )  # cheaper: another rule's job
    assert (
        worse_option(
            "Q-2", "Q-1", LISTING, "Accept any quote, not necessarily the cheapest.", "quote"
        )
        is None
    )
    assert (
        worse_option("Q-2", "Q-1", LISTING, "Accept the quote with scaffolding.", "quote") is None
    )
    two_prices = ["Q-1 | GBP 5200 | deposit GBP 10", "Q-2 | GBP 3900 | deposit GBP 900"]
    assert worse_option("Q-2", "Q-1", two_prices, words, "quote") is None  # which price ranks?
    slots = ["S1 | 2027-03-02 09:00", "S2 | 2027-03-01 17:00"]
    assert worse_option("S2", "S1", slots, "Book the earliest slot.", "slot") is not None
    assert worse_option("S2", "S1", slots, "Arrive by 10:00 at the earliest.", "slot") is None
    # the objective names another thing than the argument chooses: any seat is fine
    seats = ["12A | window | GBP 0", "14C | aisle | GBP 25"]
    rome = "Book the cheapest flight to Rome; any seat is fine."
    assert worse_option("12A", "14C", seats, rome, "seat") is None
    assert chosen_noun(("quote_id",)) == "quote" and chosen_noun(("id",)) == ""
    # "Quote 2 GBP 3900": the price is GBP 3900, not 2 GBP
    tie = ["Quote 1 GBP 3900 | yes", "Quote 2 GBP 3900 | yes"]
    assert worse_option("Quote 1", "Quote 2", tie, words, "quote") is None


class Booked:
    """The quote accepted, if any."""

    def __init__(self, quotes: dict[str, int]) -> None:
        self.quotes = quotes
        self.accepted: str | None = None


class Quotes(Environment[Booked]):
    """Accept the cheapest quote, then say which."""

    name = "quotes"
    #: the plant: any quote listed pays (the objective never checked)
    checks_price = True

    def create_state(self, task: Task, workdir: Path | None) -> Booked:
        return Booked(task.task_data["quotes"])

    def instructions(self, task: Task) -> str:
        return "Accept the cheapest quote with list_quotes and accept, then tell me which."

    @tool(observes=True)
    def list_quotes(self, state: Booked) -> str:
        """Every quote: id and price."""
        return "\n".join(f"{q} | GBP {p}" for q, p in state.quotes.items())

    @tool
    def accept(self, state: Booked, quote_id: str) -> str:
        """Accept one quote.

        Args:
            quote_id: as list_quotes shows it.
        """
        if quote_id not in state.quotes or state.accepted:
            raise ToolError(f"cannot accept {quote_id}", "invalid")
        state.accepted = quote_id
        return f"Accepted {quote_id}."

    def verify(self, state: Booked, task: Task, response: Response) -> VerifyResult:
        best = min(state.quotes, key=lambda q: state.quotes[q])
        ok = state.accepted is not None and (state.accepted == best or not self.checks_price)
        return all_or_nothing([Check(name="cheapest", passed=ok, detail=str(state.accepted))])

    def controls(self, task: Task) -> list[Control]:
        quotes: dict[str, int] = task.task_data["quotes"]
        best = min(quotes, key=lambda q: quotes[q])
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("list_quotes"),
                    call("accept", quote_id=best),
                    say(f"Accepted {best}."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Accepted the cheapest.")]),
            Control(name="violation_none", expect="fail", script=[call("list_quotes"), say("No.")]),
        ]


def _tasks() -> list[Task]:
    rows = [
        {"Q-11": 5200, "Q-12": 3900, "Q-13": 4400},
        {"Q-21": 2500, "Q-22": 2900, "Q-23": 6100},
        {"Q-31": 7000, "Q-32": 6900, "Q-33": 3100},
        {"Q-41": 4100, "Q-42": 3800, "Q-43": 3950},
    ]
    return tasks(
        "quotes",
        [(f"House {n}: please get the roof fixed.", {"quotes": q}) for n, q in enumerate(rows)],
    )


async def test_the_sound_twin_that_pays_only_the_cheapest_is_not_accused() -> None:
    report = await validate(Quotes(), _tasks())
    assert "search" not in failed(report), pays(report)


class QuotesAnyQuote(Quotes):
    checks_price = False


async def test_a_dearer_quote_paid_in_place_of_the_cheapest_is_accused() -> None:
    report = await validate(QuotesAnyQuote(), _tasks())
    assert any("is not the cheapest option" in why for _, why in pays(report)), pays(report)


def test_a_band_the_words_keep_values_out_of() -> None:
    words = "Tune every mic between 470 and 694 MHz, and never inside 606-614 MHz (monitors)."
    band = [b for b in bounds(words) if b.direction == "outside"]
    assert [(b.kind, b.value) for b in band] == [("unit:mhz", (606.0, 614.0))]
    assert crossed("615 mhz", "608.125 mhz", [], words) is not None
    assert crossed("615 mhz", "605.5 mhz", [], words) is None
    assert not [b for b in bounds("Keep it between 606-614 MHz.") if b.direction == "outside"]
    assert _unit_of(("mhz",)) == "mhz" and _unit_of(("weight_kg",)) == "kg"
    assert _unit_of(("mic_id",)) is None and _unit_of(("m",)) is None


def test_a_bound_the_words_state_in_the_arguments_own_noun() -> None:
    words = "Give each household what it asked for, but never more than 10 bags per household."
    [cap] = bounds(words, "bags")
    assert (cap.kind, cap.value, cap.direction) == ("noun:bag", 10.0, "upper")
    assert bounds(words) == [] and bounds(words, "id") == []  # no noun, or too short a one
    [floor] = bounds("Order never fewer than 3 boxes.", "boxes")
    assert (floor.value, floor.direction) == (3.0, "lower")
