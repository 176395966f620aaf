"""The search of `validate`: mutants of the pass controls, judged by general oracles.

Each environment here has only a `reference`, a `noop_claim` and one `violation_*` that does
not touch its mistake, so no author's control can catch it: the search must, and must leave
the sound version alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import build_response, final_message, function_calls
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.search.findings import as_control
from proofgym_stack.validation.search.mutants import follow_ups
from proofgym_stack.validation.search.other_calls import mutants_of
from proofgym_stack.validation.search.tracing import VerifyTrace
from proofgym_stack.validation.search.values import Pools, common_prefix
from proofgym_stack.validation.search.world import differences, fingerprint, lost
from resources_servers.base import Environment, ToolError, call, say, tool
from resources_servers.verifiers.claims import claim_check
from resources_servers.verifiers.compose import all_or_nothing

ITEMS = ["bolt", "nut", "gear", "cog", "shim", "pin", "cam", "rod"]


class Picking:
    """One session's picked items."""

    def __init__(self) -> None:
        self.picked: list[str] = []


class Warehouse(Environment[Picking]):
    """Pick every item of the order (a batch call takes a list), nothing else."""

    name = "picks"
    success_words = ("picked",)

    def create_state(self, task: Task, workdir: Path | None) -> Picking:
        return Picking()

    @tool(inline=True)
    def pick(self, state: Picking, items: list[str]) -> str:
        """Pick items off the shelves.

        Args:
            items: the items' names.
        """
        unknown = [i for i in items if i not in ITEMS]
        if unknown:
            raise ToolError(f"no such item: {unknown[0]}")
        state.picked += items
        return f"picked {', '.join(items)}"

    def picked_ok(self, state: Picking, order: list[str]) -> bool:
        return sorted(state.picked) == sorted(order)

    def verify(self, state: Picking, task: Task, response: Response) -> VerifyResult:
        order = task.task_data["order"]
        ok = self.picked_ok(state, order)
        calls = function_calls(response)
        return all_or_nothing(
            [
                Check(name="order_picked", passed=ok),
                Check(name="few_calls", passed=len(calls) <= 6),
                claim_check(final_message(response), achieved=ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        order = task.task_data["order"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("pick", items=order), say("All picked.")],
            ),
            Control(
                name="violation_too_many_calls",
                expect="fail",
                script=[
                    *[call("pick", items=[]) for _ in range(7)],
                    call("pick", items=order),
                    say("Picked."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("All picked.")]),
        ]


class AnyItemPicked(Warehouse):
    """The mistake: `any` where `all` was meant."""

    def picked_ok(self, state: Picking, order: list[str]) -> bool:
        return any(item in state.picked for item in order)


def picking_tasks(n: int = 4) -> list[Task]:
    rows = []
    for k in range(n):
        order = ITEMS[k : k + 3]
        rows.append(
            Task(
                task_id=f"picks-example-0-{k:05d}",
                env="picks",
                responses_create_params={"input": f"Pick the order: {', '.join(order)}."},
                task_data={"order": order},
            )
        )
    return rows


class Quiz(Environment[dict[str, Any]]):
    """Submit the capital of a country with `submit(answer)`."""

    name = "capitals"
    success_words = ("submitted",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"answers": []}

    @tool(inline=True)
    def submit(self, state: dict[str, Any], answer: str) -> str:
        """Submit your answer.

        Args:
            answer: the capital's name.
        """
        state["answers"].append(answer)
        return "submitted"

    def right(self, answer: str, truth: str) -> bool:
        return answer.strip().casefold() == truth.casefold()

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        answers = state["answers"]
        ok = len(answers) == 1 and self.right(answers[0], task.task_data["capital"])
        return all_or_nothing([Check(name="right_capital", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        capital = task.task_data["capital"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("submit", answer=capital), say("Submitted.")],
            ),
            Control(
                name="violation_two_answers",
                expect="fail",
                script=[
                    call("submit", answer="Atlantis"),
                    call("submit", answer=capital),
                    say("Submitted."),
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Submitted.")]),
        ]


class PrefixQuiz(Quiz):
    """The mistake: a prefix match (`startswith`), so "Ber" answers Berlin and Bern."""

    def right(self, answer: str, truth: str) -> bool:
        return truth.casefold().startswith(answer.strip().casefold())


class ExceptPasses(Quiz):
    """The mistake: an `except` branch that passes (an answer too long to compare raises)."""

    def right(self, answer: str, truth: str) -> bool:
        try:
            if len(answer) > 100:
                raise ValueError("too long to compare")
            return answer.strip().casefold() == truth.casefold()
        except ValueError:
            return True


CAPITALS = [
    ("Germany", "Berlin"),
    ("Switzerland", "Bern"),
    ("Bermuda", "Hamilton"),
    ("Peru", "Lima"),
]


def quiz_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"capitals-example-0-{k:05d}",
            env="capitals",
            responses_create_params={"input": f"What is the capital of {country}? Use submit."},
            task_data={"capital": capital},
        )
        for k, (country, capital) in enumerate(CAPITALS)
    ]


class Rates(Environment[dict[str, Any]]):
    """Set the exchange rate that turns `amount` into `target`."""

    name = "rates"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"rate": 1.0}

    @tool(inline=True)
    def set_rate(self, state: dict[str, Any], rate: float) -> str:
        """Set the rate.

        Args:
            rate: the exchange rate.
        """
        state["rate"] = rate
        return f"rate {rate}"

    def ratio(self, state: dict[str, Any], task: Task) -> float:
        if state["rate"] == 0:
            return 0.0
        return task.task_data["target"] / state["rate"]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = abs(self.ratio(state, task) - task.task_data["amount"]) < 1e-6
        return all_or_nothing([Check(name="rate_right", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        rate = task.task_data["target"] / task.task_data["amount"]
        return [
            Control(
                name="reference", expect="pass", script=[call("set_rate", rate=rate), say("Set.")]
            ),
            Control(
                name="violation_wrong",
                expect="fail",
                script=[call("set_rate", rate=rate + 1), say("Set.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Set.")]),
        ]


class DividesByTheRate(Rates):
    """The mistake: a division by a rate the policy can set to 0 (the verify crashes)."""

    def ratio(self, state: dict[str, Any], task: Task) -> float:
        return task.task_data["target"] / state["rate"]


def rate_tasks() -> list[Task]:
    return [
        Task(
            task_id=f"rates-example-0-{k:05d}",
            env="rates",
            responses_create_params={"input": f"Set the rate that turns {a} into {t}."},
            task_data={"amount": a, "target": t},
        )
        for k, (a, t) in enumerate([(10, 25), (4, 10), (8, 2), (5, 30)])
    ]


async def validate(env: Environment[Any], tasks: list[Task]) -> EnvReport:
    return await validate_env(env, tasks, parallel=16, sample=4)


def search_verdict(report: EnvReport) -> str:
    return next(v.outcome for v in report.verdicts if v.name == "search")


def pays(report: EnvReport) -> list[dict[str, Any]]:
    return [f for f in report.findings if f["severity"] == "pays"]


def failing(report: EnvReport) -> list[dict[str, Any]]:
    """The findings that fail `validate`: reward paid, or a failure turned into a mask."""
    return [f for f in report.findings if f["severity"] in ("pays", "masks")]


@pytest.mark.parametrize(
    ("sound", "planted", "tasks", "oracles"),
    [
        (Warehouse, AnyItemPicked, picking_tasks, {"another_world", "another_truth"}),
        (Quiz, PrefixQuiz, quiz_tasks, {"another_truth"}),
        (Quiz, ExceptPasses, quiz_tasks, {"another_truth"}),
        (Rates, DividesByTheRate, rate_tasks, {"fault"}),
    ],
)
async def test_the_search_finds_the_mistake_and_passes_the_sound_version(
    sound: type[Environment[Any]], planted: type[Environment[Any]], tasks: Any, oracles: set[str]
) -> None:
    good = await validate(sound(), tasks())
    assert search_verdict(good) == "pass", [v for v in good.verdicts if v.name == "search"]
    assert not pays(good)
    bad = await validate(planted(), tasks())
    assert search_verdict(bad) == "fail"
    found = failing(bad)
    assert {f["oracle"] for f in found} & oracles, found
    # a verify that raises pays nothing: its rollout is masked, a finding that `masks` (the
    # peer audit counted a crash filed as `pays` a false alarm); every other one pays
    assert all((f["severity"] == "masks") == (f["oracle"] == "fault") for f in found), found
    for f in found:  # every finding comes with a minimal trajectory no longer than the whole
        assert 0 < len(f["minimal"]) <= len(f["whole"])
        assert f["paste"].startswith("Control(name=")


async def test_a_prefix_finding_is_shrunk_to_the_submission_alone() -> None:
    report = await validate(PrefixQuiz(), quiz_tasks())
    truth = next(f for f in pays(report) if f["oracle"] == "another_truth")
    calls = [i for turn in truth["minimal"] for i in turn if i["type"] == "function_call"]
    assert len(calls) == 1 and calls[0]["name"] == "submit"


def test_the_grammar_reaches_list_members_batches_and_every_call() -> None:
    script = [call("pick", items=["bolt", "nut"]), call("pick", items=["gear"]), say("done")]
    ops = {(m.op, m.site) for m in mutants_of(script, Pools(outputs=["picked"]), "Pick.")}
    for expected in [
        ("list_drop", "pick.items"),
        ("list_duplicate", "pick.items"),
        ("split", "pick.items"),
        ("merge", "pick.items"),
        ("call_drop", "pick"),
        ("call_repeat", "pick"),
        ("spray", "pick.items"),
        ("argument", "pick.items"),
        ("message", "message"),
    ]:
        assert expected in ops, expected


def test_the_grammar_reaches_across_calls_other_tools_and_the_answers_edges() -> None:
    script = [
        call("move", src="A1", dst="PACK", qty=3),
        call("move", src="B2", dst="PACK", qty=4),
        say("Answer: 12"),
    ]
    tools = [
        {"name": "move", "parameters": {"properties": {"src": {}, "dst": {}, "qty": {}}}},
        {
            "name": "adjust",
            "parameters": {"properties": {"bin": {"type": "string"}, "qty": {"type": "integer"}}},
        },
    ]
    found = mutants_of(script, Pools(tools=tools), "Move the stock.")
    ops = {m.op for m in found}
    assert {"same_value", "swap_args", "shortcut", "tool_swap", "message"} <= ops
    swapped = [m for m in found if m.op == "tool_swap"]
    assert any('"bin": "PACK"' in m.script[0][0]["arguments"] for m in swapped)
    edges = {m.script[-1][0]["content"] for m in found if m.op == "message"}
    assert {"Answer: nan", "Answer: -12", "Answer: inf"} <= edges
    later = follow_ups(script, 0, ["Z9"])
    assert later and all(m.script[0] == script[0] for m in later)


def test_a_world_fingerprint_sees_nested_changes_and_nothing_else() -> None:
    a, b = Picking(), Picking()
    a.picked, b.picked = ["bolt", "nut"], ["bolt"]
    assert differences(fingerprint(a), fingerprint(b)) == {".picked.#", ".picked[1]"}
    assert differences(fingerprint(a), fingerprint(a)) == set()
    assert lost(fingerprint(b), fingerprint(a)) == {".picked[]"}  # a member dropped: lost
    c = Picking()
    c.picked = ["nut", "bolt", "gear"]  # moved and added to: nothing the honest world held lost
    assert lost(fingerprint(c), fingerprint(a)) == set()


def test_a_connection_in_the_state_is_one_opaque_leaf() -> None:
    import httpx

    class Session:  # a bridge's state: its client's cookie jar is no world the verifier reads
        def __init__(self) -> None:
            self.client = httpx.Client(cookies={"session": "abc"})
            self.row = {"id": 7}

    one, other = Session(), Session()
    other.client.cookies.set("session", "xyz")
    assert fingerprint(one) == {".client": "<Client>", ".row.id": "7"}
    assert differences(fingerprint(one), fingerprint(other)) == set()


def test_a_notice_without_its_closing_full_stop_is_the_same_message() -> None:
    from proofgym_stack.validation.search.mutants import Mutant
    from proofgym_stack.validation.search.search import trimmed_prose

    def cut(old: str, new: str) -> Mutant:
        return Mutant([], "argument", "send.text", "shortened", "cut", (0, 0), ("text",), old, new)

    notice = "The water will be off on Tuesday from nine."
    assert trimmed_prose(cut(notice, notice[:-1]))
    assert not trimmed_prose(cut(notice, notice[: len(notice) // 2]))  # half a notice
    assert not trimmed_prose(cut("CF-7207", "CF-720"))  # an id one character short


def test_common_prefix_and_a_pasteable_control() -> None:
    assert common_prefix(["Berlin", "Bern", "Bermuda"]) == "Ber"
    assert common_prefix(["x"]) == ""
    text = as_control([call("submit", answer="Ber"), say("ok")], "violation_prefix")
    assert "call(\"submit\", answer='Ber')" in text and 'say("ok")' in text


def test_the_cli_default_budget_is_the_searchs() -> None:
    import inspect

    from proofgym_stack.cli_envs import validate as validate_command
    from proofgym_stack.validation.search import DEFAULT_BUDGET

    assert inspect.signature(validate_command).parameters["budget"].default == DEFAULT_BUDGET


def test_each_verify_is_traced_alone_and_an_escape_is_recorded() -> None:
    # one measurement serves every verify of a trace (a new one per call would rescan the
    # interpreter's paths): each record must still hold only its own call's lines
    class Branches(Warehouse):
        def verify(self, state: Picking, task: Task, response: Response) -> VerifyResult:
            if state.picked:
                verdict = all_or_nothing([Check(name="picked", passed=True)])
            else:
                verdict = all_or_nothing([Check(name="picked", passed=False)])
            if "boom" in state.picked:
                raise ValueError("boom")
            return verdict

    env = Branches()
    task = Task(task_id="t", env=env.name, responses_create_params={"input": "x"})
    empty, full, bad = Picking(), Picking(), Picking()
    full.picked, bad.picked = ["bolt"], ["boom"]
    response = build_response([], model="test")
    with VerifyTrace(env) as trace:
        env.verify(empty, task, response)
        env.verify(full, task, response)
        env.verify(empty, task, response)
        with pytest.raises(ValueError):
            env.verify(bad, task, response)
    first, second, third, fourth = trace.records
    assert first.lines and second.lines
    assert first.lines != second.lines and not second.lines <= first.lines
    assert first.lines == third.lines  # not the union of what ran before
    assert fourth.error is not None and fourth.error.startswith("ValueError: boom")
    assert env.verify.__func__ is Branches.verify  # the original is back
