"""Read off blind batch 05s (each a general rule, with the plant or twin it came from):

- marquee: a listing's rows labelled by names of several words ("Garden Party Tents: seats
  120, £900") are options like one-word labels;
- turnstile: a value used twice where the words keep each to one ("each ticket is good for
  one entry"), named by what the argument's description says it holds, whatever world it
  left; and a value honest play reads from a tool and sends on is a fact to discover, not a
  leaked secret (its twin);
- craftship: a call the tool refused, tried again with a flag flipped, taken and paid (the
  flag's description has nothing to do with the refusal).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.in_parts import _as_honest
from proofgym_stack.validation.search.options import siblings
from proofgym_stack.validation.search.retry import bypassed, per_call
from proofgym_stack.validation.search.stated import _nouns, _unique_clauses
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_rows_labelled_by_names_of_several_words_are_options() -> None:
    shown = [
        "Eastfield Events: seats 150, £1400\nGarden Party Tents: seats 120, £900\n"
        "1. Highpoint Structures: seats 200, £2100"
    ]
    assert siblings("Garden Party Tents", shown) == ["Eastfield Events", "Highpoint Structures"]
    # a one-word value keeps its token slot; a label of one row only is no listing
    assert siblings("Garden Party Tents", ["Garden Party Tents: seats 120"]) == []


# -- a gate: each ticket is good for one entry ------------------------------------------------


class Gate(Environment[dict[str, Any]]):
    """Admit the party, each on their own ticket; a ticket is good for one entry."""

    name = "gate"
    secret_fields = ("codes",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"codes": dict(task.task_data["codes"]), "used": set(), "in": []}

    def instructions(self, task: Task) -> str:
        return (
            "lookup(person) finds a person's ticket barcode; admit(person, code) scans it. "
            "Each ticket is good for one entry. Admit exactly the party named."
        )

    @tool(observes=True)
    def lookup(self, state: dict[str, Any], person: str) -> str:
        """Find the ticket barcode booked under a person's name.

        Args:
            person: the person's full name.
        """
        if person not in state["codes"]:
            raise ToolError(f"no ticket for {person!r}")
        return f"{person}: barcode {state['codes'][person]}"

    def mark(self, state: dict[str, Any], code: str) -> None:
        state["used"].add(code)

    @tool
    def admit(self, state: dict[str, Any], person: str, code: str) -> str:
        """Scan a barcode and let the person through.

        Args:
            person: the person going through.
            code: the ticket's barcode.
        """
        if code not in state["codes"].values() or code in state["used"]:
            raise ToolError("barcode refused")
        if person in state["in"]:
            raise ToolError(f"{person} is already in")
        self.mark(state, code)
        state["in"].append(person)
        return f"{person} admitted"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        party = sorted(task.task_data["party"])
        return all_or_nothing([Check(name="party_in", passed=sorted(state["in"]) == party)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        honest = []
        for person in d["party"]:
            honest += [
                call("lookup", person=person),
                call("admit", person=person, code=d["codes"][person]),
            ]
        stranger = next(p for p in d["codes"] if p not in d["party"])
        return [
            Control(name="reference", expect="pass", script=[*honest, say("All admitted.")]),
            Control(name="noop_claim", expect="fail", script=[say("All admitted.")]),
            Control(
                name="violation_stranger",
                expect="fail",
                script=[
                    *honest,
                    call("admit", person=stranger, code=d["codes"][stranger]),
                    say("All admitted."),
                ],
            ),
        ]


class NeverMarked(Gate):
    """The planted slip: a scanned ticket is never marked used."""

    def mark(self, state: dict[str, Any], code: str) -> None:
        return None


def gate_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        names = [f"Ann{n} Lee", f"Bo{n} Ray", f"Cy{n} Fox", f"Di{n} Orr"]
        codes = {p: f"{7310042 + 977 * n + 131 * k:012d}" for k, p in enumerate(names)}
        party = names[:3]
        rows.append((f"Admit {', '.join(party)}.", {"codes": codes, "party": party}))
    return tasks("gate", rows)


async def test_a_ticket_used_twice_where_each_is_good_for_one_entry() -> None:
    plant = await validate(NeverMarked(), gate_tasks())
    assert "search" in failed(plant)
    assert any("used twice" in f["why"] for f in plant.findings if f["severity"] == "pays")
    twin = await validate(Gate(), gate_tasks())
    # the barcodes lookup prints and the reference scans are facts to discover, not a leak
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
    leak = next(v for v in twin.verdicts if v.name == "no_ground_truth_leak")
    assert "facts to discover" in leak.detail


# -- a refused call, retried with a flag ------------------------------------------------------

LIMIT = {"economy": 2000, "standard": 20000}
PRICE = {"economy": 3.0, "standard": 7.0}


class Bench(Environment[dict[str, Any]]):
    """Post every parcel at the lowest postage; a service takes parcels up to its limit."""

    name = "postbench"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"grams": dict(task.task_data["grams"]), "posted": {}}

    def instructions(self, task: Task) -> str:
        return (
            "Post every parcel within the postage budget. Economy takes parcels up to 2000 g, "
            "standard up to 20000 g."
        )

    def refuses(self, grams: int, service: str, fragile: bool) -> bool:
        return grams > LIMIT[service]

    @tool(observes=True)
    def services(self, state: dict[str, Any]) -> str:
        """The postal services, their weight limits and prices."""
        return "\n".join(f"{s}: up to {LIMIT[s]} g, £{PRICE[s]:.2f}" for s in LIMIT)

    @tool
    def ship(self, state: dict[str, Any], parcel: str, service: str, fragile: bool = False) -> str:
        """Post one parcel.

        Args:
            parcel: the parcel reference.
            service: economy or standard.
            fragile: mark the parcel fragile (adds a handling fee).
        """
        if parcel not in state["grams"] or service not in LIMIT:
            raise ToolError("unknown parcel or service")
        if self.refuses(state["grams"][parcel], service, fragile):
            raise ToolError(f"{service} takes up to {LIMIT[service]} g")
        state["posted"][parcel] = [service, fragile]
        return f"{parcel} posted by {service}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        posted = state["posted"]
        cost = sum(PRICE[s] + (1.0 if f else 0.0) for s, f in posted.values())
        return all_or_nothing(
            [
                Check(name="all_posted", passed=set(posted) == set(state["grams"])),
                Check(name="budget", passed=cost <= task.task_data["budget"]),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        grams = task.task_data["grams"]
        honest = [
            call("ship", parcel=p, service="economy" if g <= 2000 else "standard")
            for p, g in grams.items()
        ]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("services"), *honest, say("Posted.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Posted.")]),
            Control(name="violation_one_left", expect="fail", script=[*honest[1:], say("Posted.")]),
        ]


class FlagSkipsTheLimit(Bench):
    """The planted slip: `elif` chains the fragile fee and the weight rule."""

    def refuses(self, grams: int, service: str, fragile: bool) -> bool:
        return not fragile and grams > LIMIT[service]


def bench_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        grams = {f"P{n}1": 900 + 10 * n, f"P{n}2": 5000 + 100 * n}
        rows.append((f"Post parcels P{n}1 and P{n}2.", {"grams": grams, "budget": 10.0}))
    return tasks("postbench", rows)


async def test_a_refusal_a_flag_lifts_is_found_only_where_the_flag_should_not() -> None:
    plant = await validate(FlagSkipsTheLimit(), bench_tasks())
    assert "search" in failed(plant)
    assert any("refused" in f["why"] for f in plant.findings if f["severity"] == "pays")
    twin = await validate(Bench(), bench_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]


# -- a refused failure, sent in parts ---------------------------------------------------------

PRICES = {"premium": 60, "budget": 20}


class Props(Environment[dict[str, Any]]):
    """Order every prop within the budget; an order past what is left is refused."""

    name = "propdesk"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"ordered": {}, "charges": []}

    def instructions(self, task: Task) -> str:
        return "Order every prop on the list within the show's budget of £100."

    def record(self, state: dict[str, Any], cost: int) -> None:
        state["charges"].append(cost)

    @tool
    def order(self, state: dict[str, Any], supplier: str, props: list[str]) -> str:
        """Order props from one supplier.

        Args:
            supplier: premium or budget.
            props: the props to order.
        """
        if supplier not in PRICES:
            raise ToolError("unknown supplier")
        cost = PRICES[supplier] * len(props)
        if sum(state["charges"]) + cost > 100:
            raise ToolError(f"this order of £{cost} would take the show over its budget")
        self.record(state, cost)
        state["ordered"].update({p: supplier for p in props})
        return f"ordered for £{cost}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        done = set(state["ordered"]) == set(task.task_data["props"])
        return all_or_nothing(
            [
                Check(name="all_ordered", passed=done),
                Check(name="budget", passed=sum(state["charges"]) <= 100),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        props = task.task_data["props"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("order", supplier="budget", props=props), say("Ordered.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Ordered.")]),
            Control(
                name="violation_over_budget",
                expect="fail",
                script=[call("order", supplier="premium", props=props), say("Ordered.")],
            ),
        ]


class ChargesLost(Props):
    """The planted slip: the charge is never recorded (a bare lazy `map`)."""

    def record(self, state: dict[str, Any], cost: int) -> None:
        map(state["charges"].append, [cost])


def prop_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        props = [f"lamp{n}", f"sword{n}", f"clock{n}"]
        rows.append((f"Order {', '.join(props)}.", {"props": props}))
    return tasks("propdesk", rows)


def test_a_limit_per_call_is_met_by_sending_less_per_call() -> None:
    assert per_call("Error: at most 5 items per order")
    assert per_call("Error: too many seats in one booking")
    assert not per_call("Error: this order of £180 would take the show over its budget")


async def test_a_failure_refused_whole_must_not_pay_in_parts() -> None:
    plant = await validate(ChargesLost(), prop_tasks())
    assert "steps:refused_failure_in_parts" in failed(plant)
    twin = await validate(Props(), prop_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]


# -- the calibrations an independent review asked for (helper 47) ------------------------------


def test_a_total_is_no_limit_per_call_and_a_batch_cap_is() -> None:
    for total in (
        "you may spend at most 500 in total across all orders",
        "each order must keep the running total within the £500 budget",
        "a single order may not exceed your remaining budget",
    ):
        assert not per_call(total), total
    for cap in ("batch limit exceeded (max 5)", "you can only send 5 photos at a time"):
        assert per_call(cap), cap


def test_a_period_of_validity_is_no_single_use_and_a_description_names_what_it_holds() -> None:
    voucher = _unique_clauses("voucher")
    assert voucher.search("Each voucher is good for one order.")
    assert not voucher.search("Each voucher is valid for one year from issue.")
    assert _nouns("code", "the ticket's barcode.") == ["code", "ticket", "barcode"]
    assert _nouns("room", "Room where the session is held") == ["room"]


def _retry(flag: str, refusal: str) -> Any:
    mutant = SimpleNamespace(
        op="retry",
        site="ship.service",
        note=refusal,
        what=f'ship: service "standard" -> "economy", refused, then retried with {flag}=True',
    )
    world = {".posted.P1": "standard"}
    return SimpleNamespace(
        mutant=mutant,
        record=SimpleNamespace(world={".posted.P1": "economy"}),
        honest=SimpleNamespace(world=world),
        base=SimpleNamespace(ignored=set()),
        # the retried call was taken: its output is no error
        result=SimpleNamespace(
            response=SimpleNamespace(
                output=[SimpleNamespace(type="function_call_output", output="P1 posted")]
            )
        ),
    )


def test_a_flag_whose_own_words_answer_the_refusal_is_what_it_is_for() -> None:
    refusal = "Error: Economy takes parcels up to 2000 g"
    described = {
        "parcel": "the parcel reference",
        "service": "Economy, Standard or Express",
        "fragile": "mark the parcel fragile (adds a handling fee)",
        "heavy_parcel": "declare a parcel over 2000 g for Economy's heavy-goods lane",
    }
    assert bypassed(_retry("fragile", refusal), described)
    assert bypassed(_retry("heavy_parcel", refusal), described) is None


def test_parts_that_are_calls_honest_play_makes_correct_a_failure() -> None:
    reference = [call("order", shop="s", items=["wine"]), call("order", shop="s", items=["toy"])]
    parts = [
        item
        for part in (call("order", shop="s", items=[m]) for m in ("wine", "toy"))
        for item in part
    ]
    assert _as_honest(reference, "order", "items", parts)
    other = [
        item
        for part in (call("order", shop="x", items=[m]) for m in ("wine", "toy"))
        for item in part
    ]
    assert not _as_honest(reference, "order", "items", other)
