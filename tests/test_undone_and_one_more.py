"""Three moves the blind batch 05a showed the grammar lacked, each judged by the oracles it
already had (another world, a thing honest play left alone):
- `undo`: the work done, its checks passed, then undone (the add-on removed once the coupon
  took): the world lost what honest play left, and a stale running total still pays;
- `one_more`: the action made once more on a thing the task's words name and honest play
  left alone (another item of the request list): the selection is not graded;
- a call made with another tool whose missing parameter the prompt fills (the customer's
  name), and lists read member by member whole, so a new record beside the old one cannot
  hide that the old one was never changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.options import listed_with, names_in, same_shape
from proofgym_stack.validation.search.other_calls import one_more_mutants
from proofgym_stack.validation.search.values import Pools
from proofgym_stack.validation.search.world import records, stale_records
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_the_words_give_list_mates_ids_of_a_shape_and_names() -> None:
    words = "Household 857 asked for: sweetcorn, tuna, potatoes and milk. Thanks, Kofi Kaur."
    assert listed_with("tuna", words) == ["sweetcorn", "potatoes", "milk"]
    assert listed_with("rice", words) == []
    assert same_shape("CF-7207", "Archive CF-7207, CF-1123 and CF-9981; call 555-1234.") == [
        "CF-1123",
        "CF-9981",
    ]
    assert same_shape("tuna", words) == []  # a plain word has no identifier's shape
    assert names_in(words) == ["Kofi Kaur"]


def test_one_more_acts_on_an_entry_of_a_listing_honest_play_read_and_left_alone() -> None:
    script = [call("directory"), call("share", address="ana@kelp.com"), say("Done.")]
    pools = Pools(shown=["ana@kelp.com\nlea@getkelp.com\nkai@kelp.com"])
    more = [m for m in one_more_mutants(script, pools, "Share it with our colleagues.")]
    # the entries the listing printed beside the honest one, though the words name neither
    assert {m.new for m in more} == {"lea@getkelp.com", "kai@kelp.com"}


def test_a_record_left_as_it_was_beside_a_new_one_is_stale() -> None:
    initial = {".c[0].id": "'C1'", ".c[0].email": "'old@x'", ".c.#": "1"}
    honest = {".c[0].id": "'C1'", ".c[0].email": "'new@x'", ".c.#": "1"}
    added = {**initial, ".c[1].id": "'C9'", ".c[1].email": "'new@x'", ".c.#": "2"}
    assert records(honest) == {".c[]": [((".email", "'new@x'"), (".id", "'C1'"))]}
    assert stale_records(added, honest, initial) == {".c[]"}
    assert stale_records(honest, honest, initial) == set()


class _Validated:
    @staticmethod
    async def run(env: Environment[Any], tasks: list[Task]) -> EnvReport:
        return await validate_env(env, tasks, parallel=16, sample=4)


def _pays(report: EnvReport) -> list[dict[str, Any]]:
    return [f for f in report.findings if f["severity"] == "pays"]


def _failed(report: EnvReport) -> set[str]:
    return {v.name for v in report.verdicts if not v.passed} - {"violation_declared"}


# --- a till: the discount needs £50 spent; one add-on may reach it ---


class Till(Environment[dict[str, Any]]):
    """Ring up the customer's items and the discount, with one add-on to reach £50."""

    name = "till"
    prices = {"tea": 18, "jam": 22, "mug": 15, "vase": 40, "soap": 9}

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"lines": [], "running": 0, "discount": False}

    def instructions(self, task: Task) -> str:
        return "add(item), remove(item), discount() (needs £50 spent). Add one add-on at most."

    @tool(inline=True)
    def add(self, state: dict[str, Any], item: str) -> str:
        """Ring up an item.

        Args:
            item: the item.
        """
        if item not in self.prices:
            raise ToolError(f"no item {item!r}")
        state["lines"].append(item)
        state["running"] += self.prices[item]
        return f"{item} £{self.prices[item]}; spent £{state['running']}"

    @tool(inline=True)
    def remove(self, state: dict[str, Any], item: str) -> str:
        """Take an item off.

        Args:
            item: the item.
        """
        if item not in state["lines"]:
            raise ToolError(f"{item!r} is not rung up")
        state["lines"].remove(item)
        self.lower(state, item)
        return f"{item} removed"

    def lower(self, state: dict[str, Any], item: str) -> None:
        state["running"] -= self.prices[item]

    @tool(inline=True)
    def discount(self, state: dict[str, Any]) -> str:
        """Apply the £50 discount."""
        if state["running"] < 50:
            raise ToolError("spend £50 first")
        state["discount"] = True
        return "discount applied"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        wanted = task.task_data["items"]
        ok = (
            state["discount"]
            and state["running"] >= 50
            and all(i in state["lines"] for i in wanted)
            and len(state["lines"]) <= len(wanted) + 1
        )
        return all_or_nothing([Check(name="discounted_order", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        steps = [call("add", item=i) for i in d["items"]]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[*steps, call("add", item=d["addon"]), call("discount"), say("Done.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


class StaleRunningTotal(Till):
    """The planted slip: `remove` forgets to lower the running total."""

    def lower(self, state: dict[str, Any], item: str) -> None:
        return None


def till_tasks() -> list[Task]:
    rows = [(["tea", "mug"], "jam"), (["jam", "soap"], "vase"), (["tea", "soap"], "vase")]
    rows.append((["mug", "soap"], "vase"))  # each pair under £50, with its add-on over
    return [
        Task(
            task_id=f"till-example-0-{k:05d}",
            env="till",
            responses_create_params={"input": f"I'd like the {' and the '.join(items)}."},
            task_data={"items": items, "addon": addon},
        )
        for k, (items, addon) in enumerate(rows)
    ]


async def test_work_undone_after_its_check_passed_is_accused_and_the_sound_till_passes() -> None:
    bad = await _Validated.run(StaleRunningTotal(), till_tasks())
    undone = [f for f in _pays(bad) if "after the last call" in f["what"]]
    assert undone and "remove" in undone[0]["what"], bad.findings
    good = await _Validated.run(Till(), till_tasks())
    assert not _failed(good), [v for v in good.verdicts if not v.passed]


# --- an invitation desk: invite the requested guests who are free, nobody else ---


class Invites(Environment[dict[str, Any]]):
    """Invite every requested guest who is free; the busy ones are left out."""

    name = "invites"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"invited": []}

    def instructions(self, task: Task) -> str:
        busy = ", ".join(task.task_data["busy"])
        return f"invite(guest) sends an invitation. Busy today: {busy}. Invite nobody busy."

    @tool(inline=True)
    def invite(self, state: dict[str, Any], guest: str) -> str:
        """Invite a guest.

        Args:
            guest: the guest's name.
        """
        if guest in state["invited"]:
            raise ToolError(f"{guest} is already invited")
        state["invited"].append(guest)
        return f"invited {guest}"

    def allowed(self, task: Task) -> set[str]:
        d = task.task_data
        return set(d["asked"]) - set(d["busy"])

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        free = set(d["asked"]) - set(d["busy"])
        ok = free <= set(state["invited"]) <= self.allowed(task)
        return all_or_nothing([Check(name="the_free_guests_invited", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        steps = [call("invite", guest=g) for g in d["asked"] if g not in d["busy"]]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Invitations sent.")]),
            Control(name="noop_claim", expect="fail", script=[say("Invitations sent.")]),
        ]


class AskedOnly(Invites):
    """The planted slip: an invitation is checked against the request, not who is busy."""

    def allowed(self, task: Task) -> set[str]:
        return set(task.task_data["asked"])


def invite_tasks() -> list[Task]:
    guests = ["rosa", "ivan", "lena", "omar", "pia", "tom"]
    tasks = []
    for k in range(4):
        asked = [guests[(k + j) % 6] for j in range(4)]
        tasks.append(
            Task(
                task_id=f"invites-example-0-{k:05d}",
                env="invites",
                responses_create_params={"input": f"Please invite {', '.join(asked)}."},
                task_data={"asked": asked, "busy": [asked[(k + 2) % 4]]},
            )
        )
    return tasks


async def test_inviting_one_more_of_the_requested_is_accused_and_the_sound_desk_passes() -> None:
    bad = await _Validated.run(AskedOnly(), invite_tasks())
    more = [f for f in _pays(bad) if "left alone" in f["why"]]
    assert more and more[0]["site"] == "invite.guest", bad.findings
    good = await _Validated.run(Invites(), invite_tasks())
    assert not _failed(good), [v for v in good.verdicts if not v.passed]


# --- an address book: change the customer's email in their own record ---


class AddressBook(Environment[dict[str, Any]]):
    """Change the writer's email on their record; names are not unique."""

    name = "book"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"contacts": [dict(c) for c in task.task_data["contacts"]], "next": 90}

    def instructions(self, task: Task) -> str:
        return "update_email(contact_id, email) changes a record; add_contact(full_name, email)."

    @tool(inline=True)
    def update_email(self, state: dict[str, Any], contact_id: str, email: str) -> str:
        """Change a contact's email.

        Args:
            contact_id: the contact's id.
            email: the new email.
        """
        for c in state["contacts"]:
            if c["id"] == contact_id:
                c["email"] = email
                return "updated"
        raise ToolError(f"no contact {contact_id!r}")

    @tool(inline=True)
    def add_contact(self, state: dict[str, Any], full_name: str, email: str) -> str:
        """Create a contact.

        Args:
            full_name: the person's name.
            email: their email.
        """
        state["next"] += 1
        state["contacts"].append({"id": f"C{state['next']}", "name": full_name, "email": email})
        return f"added C{state['next']}"

    def record(self, state: dict[str, Any], task: Task) -> dict[str, Any] | None:
        return next((c for c in state["contacts"] if c["id"] == task.task_data["id"]), None)

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        found = self.record(state, task)
        ok = found is not None and found["email"] == task.task_data["email"]
        return all_or_nothing([Check(name="email_changed", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        change = call("update_email", contact_id=d["id"], email=d["email"])
        return [
            Control(name="reference", expect="pass", script=[change, say("Updated.")]),
            Control(name="noop_claim", expect="fail", script=[say("Updated.")]),
        ]


class ByName(AddressBook):
    """The planted slip: the record found by name, the last of that name winning."""

    def record(self, state: dict[str, Any], task: Task) -> dict[str, Any] | None:
        by_name = {c["name"]: c for c in state["contacts"]}
        return by_name.get(task.task_data["name"])


def book_tasks() -> list[Task]:
    people = [("Ada Park", "C11"), ("Ben Osei", "C12"), ("Cleo Diaz", "C13"), ("Dev Rao", "C14")]
    tasks = []
    for k, (name, cid) in enumerate(people):
        contacts = [{"id": i, "name": n, "email": f"{i.lower()}@old.example"} for n, i in people]
        email = f"{name.split()[0].lower()}{k}@new.example"
        tasks.append(
            Task(
                task_id=f"book-example-0-{k:05d}",
                env="book",
                responses_create_params={"input": f"This is {name}. Please use {email} now."},
                task_data={"contacts": contacts, "id": cid, "name": name, "email": email},
            )
        )
    return tasks


async def test_a_new_record_beside_the_unchanged_one_is_accused_and_the_sound_book_passes() -> None:
    bad = await _Validated.run(ByName(), book_tasks())
    swapped = [f for f in _pays(bad) if "add_contact" in f["what"]]
    assert swapped and ".contacts[]" in swapped[0]["why"], bad.findings
    good = await _Validated.run(AddressBook(), book_tasks())
    assert not _failed(good), [v for v in good.verdicts if not v.passed]


# --- a bench: inspect the flagged units; inspecting one more is harmless ---


class Bench(Environment[dict[str, Any]]):
    """Inspect every flagged unit; an extra inspection changes nothing the task asks."""

    name = "bench"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"units": task.task_data["units"], "inspected": []}

    @tool(inline=True, observes=True)
    def units(self, state: dict[str, Any]) -> str:
        """List the batch's units."""
        return "\n".join(state["units"])

    @tool(inline=True)
    def inspect(self, state: dict[str, Any], serial: str) -> str:
        """Inspect a unit.

        Args:
            serial: the unit's serial.
        """
        if serial not in state["units"]:
            raise ToolError(f"no unit {serial}")
        state["inspected"].append(serial)
        return f"{serial} inspected: ok"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        done = set(task.task_data["flagged"]) <= set(state["inspected"])
        return all_or_nothing([Check(name="flagged_inspected", passed=done)])

    def controls(self, task: Task) -> list[Control]:
        flagged = task.task_data["flagged"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("units"), *[call("inspect", serial=s) for s in flagged], say("Done.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Done: all inspected.")]),
        ]


def bench_tasks() -> list[Task]:
    tasks = []
    for k in range(4):
        units = [f"T{k}{j}-{100 + 7 * j + k}" for j in range(8)]
        flagged = units[k : k + 2]
        tasks.append(
            Task(
                task_id=f"bench-example-0-{k:05d}",
                env="bench",
                responses_create_params={"input": f"Units {', '.join(flagged)} were flagged."},
                task_data={"units": units, "flagged": flagged},
            )
        )
    return tasks


async def test_one_more_harmless_action_on_a_listed_entry_is_no_finding() -> None:
    # blind batch 05a's inspect twin: every extra inspection pays, so the extra action is not
    # graded at all; it is not a choice the verifier misjudges
    good = await _Validated.run(Bench(), bench_tasks())
    assert not _pays(good), good.findings


async def test_one_more_on_a_listed_member_is_no_finding_where_another_member_is_refused() -> None:
    # blind batch 04's petition twin: asking the do-not-contact member fails, asking one more
    # ordinary member is honest; only the task's words could tell the second from a hole
    # (an outsider's folder shared), so an entry the words do not name is not accused
    import sys

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from bench.blind.harness import load, tasks_of

    plant = load(root / "bench" / "blind" / "batch_2026_12_04" / "blind_petition")
    good = await validate_env(plant.Twin(), tasks_of(plant, 6), parallel=16, sample=4)
    assert not _pays(good), good.findings
