"""Acting on what honest play looked at and left alone, and the other tool of the same shape.

Two of the blind corpus's misses (batch 04d) took an action honest play deliberately did not:
a museum lent the objects whose condition reports ruled them out, a landing log landed the
closed species honest play released. The first is a look (an observing call) made as the
action honest play took on its siblings; the second is a call made with the sibling tool that
takes the very same arguments, which the grammar never wrote (a tool swap needed a parameter
the call lacked). Where such a mutant pays and the world holds a record naming the thing honest
play left alone, beside the records it wrote, the choice the looking decides is not graded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.other_calls import mutants_of
from proofgym_stack.validation.search.values import Pools
from proofgym_stack.validation.search.world import passed_over
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_a_call_is_made_with_the_sibling_tool_that_takes_the_same_arguments() -> None:
    script = [
        call("inspect", packet="kale"),
        call("give", packet="leek", member="M7"),
        call("keep", packet="kale", reason="old"),
        say("Done."),
    ]
    tools = [
        {"name": "inspect", "parameters": {"properties": {"packet": {"type": "string"}}}},
        {
            "name": "give",
            "parameters": {
                "properties": {"packet": {"type": "string"}, "member": {"type": "string"}}
            },
        },
        {
            "name": "keep",
            "parameters": {
                "properties": {"packet": {"type": "string"}, "reason": {"type": "string"}}
            },
        },
    ]
    swapped = {
        m.what
        for m in mutants_of(script, Pools(tools=tools), "Give the packets.")
        if m.op == "tool_swap"
    }
    # the look made as the action, the member the script's own `give` names filled in
    assert 'inspect made as give({"packet": "kale", "member": "M7"})' in swapped
    # same shapes: both arguments carried over by name
    assert 'give made as keep({"packet": "leek", "reason": "old"})' in swapped


def test_a_record_naming_the_thing_left_alone_beside_the_ones_honest_play_wrote() -> None:
    initial = {".given": "{}"}
    honest = {".given.leek": "'M7'", ".given.bean": "'M7'"}
    acted = {**honest, ".given.kale": "'M7'"}
    assert passed_over(acted, honest, initial, "Kale") == {".given.kale"}
    # a record beside nothing honest play wrote (a note in another drawer) is not this
    elsewhere = {**honest, ".notes.kale": "'looked'"}
    assert passed_over(elsewhere, honest, initial, "kale") == set()
    # a list of records: the member names the thing by value
    honest_list = {".given[0].packet": "'leek'", ".given.#": "1"}
    acted_list = {**honest_list, ".given[1].packet": "'kale'", ".given.#": "2"}
    assert passed_over(acted_list, honest_list, {".given.#": "0"}, "kale") == {".given[].packet"}
    assert passed_over(acted_list, honest_list, {".given.#": "0"}, "chard") == set()
    # a key with dots of its own (an address): the object is `.shares`, not `.shares.ana@kelp`
    honest_dotted = {".shares.ana.novak@kelp.com": "'viewer'"}
    acted_dotted = {**honest_dotted, ".shares.lea@getkelp.com": "'viewer'"}
    found = passed_over(acted_dotted, honest_dotted, {".shares": "{}"}, "lea@getkelp.com")
    assert found == {".shares.lea@getkelp.com"}
    assert passed_over(acted_dotted, honest_dotted, {".shares": "{}"}, "getkelp.com") == set()


# --- a seed library: give the member every requested packet that is still viable ---


class SeedLibrary(Environment[dict[str, Any]]):
    """Give every requested packet that `inspect` shows viable, and nothing else."""

    name = "seedlib"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"given": {}, "viable": dict(task.task_data["viable"])}

    def instructions(self, task: Task) -> str:
        return (
            "inspect(packet) says whether a packet still germinates. give(packet, member) "
            "lends it. Give the member every requested packet that is viable, nothing else."
        )

    @tool(inline=True, observes=True)
    def inspect(self, state: dict[str, Any], packet: str) -> str:
        """Whether a packet is viable.

        Args:
            packet: the packet's name.
        """
        if packet not in state["viable"]:
            raise ToolError(f"no packet {packet!r}")
        return f"{packet}: {'viable' if state['viable'][packet] else 'not viable'}"

    @tool(inline=True)
    def give(self, state: dict[str, Any], packet: str, member: str) -> str:
        """Lend a packet to a member.

        Args:
            packet: the packet's name.
            member: the member's card number.
        """
        if packet not in state["viable"] or packet in state["given"]:
            raise ToolError(f"cannot give {packet!r}")
        state["given"][packet] = member
        return f"{packet} given to {member}"

    def allowed(self, task: Task) -> set[str]:
        d = task.task_data
        return {p for p in d["requested"] if d["viable"][p]}

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        given = state["given"]
        ok = set(given) <= self.allowed(task) and all(
            given.get(p) == d["member"] for p in d["requested"] if d["viable"][p]
        )
        return all_or_nothing([Check(name="the_viable_requested_packets_given", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        looks = [call("inspect", packet=p) for p in d["requested"]]
        gives = [
            call("give", packet=p, member=d["member"]) for p in d["requested"] if d["viable"][p]
        ]
        return [
            Control(name="reference", expect="pass", script=[*looks, *gives, say("Given.")]),
            Control(name="noop_claim", expect="fail", script=[say("Given.")]),
        ]


class RequestedOnly(SeedLibrary):
    """The planted slip: a packet given is checked against the request, not its viability."""

    def allowed(self, task: Task) -> set[str]:
        return set(task.task_data["requested"])


def seed_tasks() -> list[Task]:
    names = ["kale", "leek", "bean", "chard", "pea", "okra", "dill"]
    tasks = []
    for k in range(4):
        requested = [names[(k + j) % 7] for j in range(4)]
        viable = {n: True for n in names}
        viable[requested[(k + 1) % 4]] = False
        member = f"M{k + 3}"
        tasks.append(
            Task(
                task_id=f"seedlib-example-0-{k:05d}",
                env="seedlib",
                responses_create_params={
                    "input": f"Member {member} asks for {', '.join(requested)}. Lend them."
                },
                task_data={"requested": requested, "viable": viable, "member": member},
            )
        )
    return tasks


async def _validate(env: Environment[Any]) -> EnvReport:
    return await validate_env(env, seed_tasks(), parallel=16, sample=4)


async def test_giving_what_the_inspection_ruled_out_is_accused_and_the_sound_library_passes() -> (
    None
):
    bad = await _validate(RequestedOnly())
    found = [f for f in bad.findings if f["severity"] == "pays" and "left alone" in f["why"]]
    assert found, bad.findings
    # the look made as a gift, or one more gift of a packet the request names: either way
    # the packet honest play left alone
    assert {f["site"] for f in found} & {"inspect", "give.packet"}, found
    assert ".given." in found[0]["why"], found[0]
    assert not next(v for v in bad.verdicts if v.name == "search").passed
    good = await _validate(SeedLibrary())
    failed = {v.name for v in good.verdicts if not v.passed} - {"violation_declared"}
    assert not failed, [v for v in good.verdicts if not v.passed]


# --- a harbour: the tool refuses a pontoon the boat does not fit; trying each is honest ---


class Harbour(Environment[dict[str, Any]]):
    """Berth the boat on a pontoon it fits; `berth` refuses one it does not fit."""

    name = "harbour"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"berth": None, "room": dict(task.task_data["room"])}

    def instructions(self, task: Task) -> str:
        return "berth(pontoon) moves the boat there if it fits; it refuses a pontoon too short."

    @tool(inline=True, observes=True)
    def pontoons(self, state: dict[str, Any]) -> str:
        """The pontoons and the metres free on each."""
        return "\n".join(f"{p}: {room} m free" for p, room in state["room"].items())

    @tool(inline=True)
    def berth(self, state: dict[str, Any], pontoon: str) -> str:
        """Berth the boat.

        Args:
            pontoon: A, B, C or D.
        """
        if state["room"].get(pontoon, 0) < 12:
            raise ToolError(f"the boat does not fit on {pontoon!r}")
        state["berth"] = pontoon
        return f"berthed on {pontoon}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        fits = state["berth"] is not None and task.task_data["room"][state["berth"]] >= 12
        return all_or_nothing([Check(name="berthed_where_it_fits", passed=fits)])

    def controls(self, task: Task) -> list[Control]:
        right = next(p for p, room in task.task_data["room"].items() if room >= 12)
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("pontoons"), call("berth", pontoon=right), say("Berthed.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Berthed.")]),
        ]


def harbour_tasks() -> list[Task]:
    tasks = []
    for k in range(4):
        room = {p: 5 for p in "ABCD"}
        room["ABCD"[k]] = 20  # one pontoon fits, another on each task
        tasks.append(
            Task(
                task_id=f"harbour-example-0-{k:05d}",
                env="harbour",
                responses_create_params={"input": "Berth the 12 m yacht Kestrel."},
                task_data={"room": room},
            )
        )
    return tasks


async def test_trying_every_option_the_tool_refuses_until_one_fits_is_no_other_truth() -> None:
    # berth on A, B, C, D in turn passes on every task: the tool steered it to the one that
    # fits, the world it leaves is each task's own honest one
    report = await validate_env(Harbour(), harbour_tasks(), parallel=16, sample=4)
    failed = {v.name for v in report.verdicts if not v.passed} - {"violation_declared"}
    assert "search" not in failed, [v for v in report.verdicts if not v.passed]
