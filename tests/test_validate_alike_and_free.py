"""Read off blind batch 05q's sound twins: a secret shown in a place that holds other things
than the truth on another task is no leak (a table keyed by every mineral, a fact sheet's
marital status); a world lost only at a counter the extra calls ticked is more of an action;
an option the words list beside the honest one is not "asked for"; tries past a stated cap;
every option of an argument sprayed at once."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from test_validate_policy_moves import tasks
from test_validate_unseen import call, say

from proofgym_stack.validation.alike import shown_not_as_the_truth
from proofgym_stack.validation.leaks import Leak
from proofgym_stack.validation.search.caps import calls_past_cap
from proofgym_stack.validation.search.evidence import ticked_only
from proofgym_stack.validation.search.instead import described_instead

# -- a place that holds other things than the truth ------------------------------------------

TABLE = {
    "magnetite": {"hardness": 6, "streak": "black"},
    "quartz": {"hardness": 7, "streak": "white"},
    "talc": {"hardness": 1, "streak": "white"},
}


def _leak(task_id: str, output: str, tool: str = "table") -> Leak:
    return Leak(task_id, "mineral", "control reference", "", call=(tool, "{}"), output=output)


def _three(outputs: dict[str, list[tuple[str, str]]]) -> tuple[list[Any], Any]:
    rows = [
        (f"Identify specimen {n}.", {"mineral": m})
        for n, m in enumerate(["magnetite", "quartz", "talc"])
    ]
    made = tasks("minerals", rows)
    return made, outputs


def test_a_table_keyed_by_every_option_shows_no_truth() -> None:
    shown = json.dumps(TABLE)
    made, outputs = _three({f"minerals-{n}": [("table", shown)] for n in range(3)})
    assert shown_not_as_the_truth(_leak("minerals-0", shown), made[0], made, outputs)
    # only the task whose truth it is was seen: no evidence either way
    alone = {"minerals-0": [("table", shown)]}
    assert not shown_not_as_the_truth(_leak("minerals-0", shown), made[0], made, alone)
    # another tool's output is no evidence about this one's
    other_tool = {**outputs, "minerals-1": [("notes", shown)], "minerals-2": [("notes", shown)]}
    assert not shown_not_as_the_truth(_leak("minerals-0", shown), made[0], made, other_tool)


def test_a_place_that_holds_each_task_s_truth_is_a_leak() -> None:
    answers = {
        f"minerals-{n}": [("hint", json.dumps({"answer": m}))]
        for n, m in enumerate(["magnetite", "quartz", "talc"])
    }
    made, _ = _three({})
    here = json.dumps({"answer": "magnetite"})
    assert not shown_not_as_the_truth(_leak("minerals-0", here, "hint"), made[0], made, answers)
    # a fact sheet: the same path holds "widowed" for a filer whose truth is another
    facts = {"minerals-1": [("hint", json.dumps({"answer": "widowed"}))]}
    assert shown_not_as_the_truth(_leak("minerals-0", here, "hint"), made[0], made, facts)


def test_in_text_the_label_before_the_value_names_its_place() -> None:
    made, _ = _three({})
    here = "Error: no test 'x' on the bench; reference specimen: magnetite (hardness 6)"
    same = {"minerals-1": [("tick", "Error: no test 'y'; reference specimen: magnetite (6)")]}
    assert shown_not_as_the_truth(_leak("minerals-0", here, "tick"), made[0], made, same)
    told = "the answer is magnetite"
    hint = {"minerals-1": [("tick", "the answer is quartz, not magnetite")]}
    assert not shown_not_as_the_truth(_leak("minerals-0", told, "tick"), made[0], made, hint)


# -- a counter the extra calls ticked ----------------------------------------------------------


def _played(world: dict[str, str], honest: dict[str, str], extra: int) -> Any:
    script = [call("merge", pr=1), say("Merged.")]
    more = [call("approve", pr=1)] * extra
    return SimpleNamespace(
        record=SimpleNamespace(world=world),
        honest=SimpleNamespace(world=honest, control=SimpleNamespace(script=script)),
        mutant=SimpleNamespace(script=[*script[:1], *more, *script[1:]]),
    )


def test_a_counter_the_extra_calls_ticked_is_no_lost_world() -> None:
    assert ticked_only(_played({".seq": "3"}, {".seq": "2"}, 1), {".seq"})
    # past what the extra calls could tick, or down, or not a number: the world lost
    assert not ticked_only(_played({".seq": "4"}, {".seq": "2"}, 1), {".seq"})
    assert not ticked_only(_played({".seq": "1"}, {".seq": "2"}, 1), {".seq"})
    assert not ticked_only(_played({".owner": "'me'"}, {".owner": "'oskar'"}, 1), {".owner"})
    # no call added: whatever moved, the calls honest play made moved it
    assert not ticked_only(_played({".seq": "3"}, {".seq": "2"}, 0), {".seq"})


# -- options the words list ----------------------------------------------------------------------


def test_an_option_the_words_list_beside_the_honest_one_is_not_asked_for() -> None:
    shown = ['[{"id": 104, "crew": "crew_east"}, {"id": 105, "crew": "crew_north"}]']
    listed = "A council lamp gets a crew (dispatch, crews: crew_north, crew_south, crew_east)."
    assert described_instead("crew_east", "crew_north", shown, listed) is None
    described = "Send the crew east team (crew east) to lamp 104."
    assert described_instead("crew_east", "crew_north", shown, described) is not None


# -- tries past a stated cap ---------------------------------------------------------------------


def test_tries_past_the_cap_the_words_state_on_the_tool() -> None:
    words = "Submit with submit_identification. At most 3 submissions per specimen."
    tries = [call("submit_identification", mineral=m) for m in ["talc", "quartz", "mica", "gold"]]
    script = [*tries, say("gold")]
    assert "At most 3 submissions" in (calls_past_cap(script, "submit_identification", words) or "")
    # within the cap, or the extra tries refused by the tool, or a cap on something else
    assert calls_past_cap(script[1:], "submit_identification", words) is None
    refused = frozenset({(0, 0)})
    assert calls_past_cap(script, "submit_identification", words, refused) is None
    hours = "Book the room for at most 3 hours; submit with submit_identification."
    assert calls_past_cap(script, "submit_identification", hours) is None


# -- every option at once --------------------------------------------------------------------------


def test_every_option_the_argument_lists_is_sprayed_after_the_honest_call() -> None:
    from proofgym_stack.validation.search.every_option import every_option, listed
    from proofgym_stack.validation.search.values import Pools

    box = {"type": "string", "description": "single, married_joint or head_of_household."}
    schema = {"name": "tick_box", "parameters": {"properties": {"box": box}}}
    pools = Pools(tools=[schema])
    assert listed(pools, "tick_box", "box", "single") == [
        "single",
        "married_joint",
        "head_of_household",
    ]
    assert listed(pools, "tick_box", "box", "widowed") == []  # not among them: no list of it
    script = [call("tick_box", box="single"), call("submit"), say("Filed.")]
    (m,) = every_option(script, pools)
    ticked = [json.loads(item["arguments"])["box"] for item in m.script[0:3] for item in item]
    assert ticked == ["single", "married_joint", "head_of_household"], m.script
    assert (m.op, m.site, m.source) == ("spray", "tick_box.box", "every_option")
    prose = {"name": "tick_box", "parameters": {"properties": {"box": {"description": "a box"}}}}
    assert every_option(script, Pools(tools=[prose])) == []


async def test_a_spray_that_keeps_only_the_last_option_is_another_option_chosen() -> None:
    from proofgym_stack.validation.search.every_option import overrides

    honest = [call("assign_judge", team="Pixel", judge="Omar"), say("Done.")]
    seen: list[Any] = []

    def spray(world: dict[str, str], last_alone: dict[str, str]) -> Any:
        async def play(task: Any, script: Any, label: str) -> Any:
            seen.append(script)
            return None, SimpleNamespace(world=last_alone)

        p = SimpleNamespace(
            mutant=SimpleNamespace(call_at=(0, 0), leaf=("judge",), new="Sami"),
            honest=SimpleNamespace(control=SimpleNamespace(script=honest)),
            base=SimpleNamespace(task=None, ignored=set()),
            record=SimpleNamespace(world=world),
        )
        return p, play

    p, play = spray({".judge.Pixel": "'Sami'"}, {".judge.Pixel": "'Sami'"})
    assert await overrides(p, play)  # a judge set again and again: the last one kept
    assert json.loads(seen[-1][0][0]["arguments"]) == {"team": "Pixel", "judge": "Sami"}
    ticked = {".boxes.single": "True", ".boxes.joint": "True"}
    p, play = spray(ticked, {".boxes.single": "False", ".boxes.joint": "True"})
    assert not await overrides(p, play)  # every box held at once: not the last alone
