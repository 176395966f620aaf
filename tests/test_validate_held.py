"""The amount a named thing holds, as a value a policy tries (`search/held.py`).

Read off blind batch 05r's atmcash: honest play moves part of a machine's notes; a policy
reading the listing ("LIBRARY: 1900") tries all of them. Where the verifier then loses the
emptied machine (a zero reading dropped as if it were no reading), the search must find it;
on the sound twin, the same move fails and nothing is accused.
"""

from __future__ import annotations

from openai.types.responses import Response
from test_validate_rules_05r import Fleet, fleet_tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.held import held_numbers
from resources_servers.verifiers.compose import all_or_nothing


def test_the_numbers_printed_beside_the_thing_a_call_names() -> None:
    shown = ["LIBRARY: 1900\nSTATION: 310\nMARKET: 900", "moved 1300: LIBRARY now 600"]
    args = {"from_atm": "LIBRARY", "to_atm": "STATION", "notes": 1300}
    assert held_numbers(1300, args, shown) == [1900]  # the whole, not a part
    # a line naming both of the call's things is a move between them, not a holding
    both = ["LIBRARY: 1900 -> STATION: 310"]
    assert held_numbers(1300, args, both) == []
    # a name is a whole word (`LIBRARY-2` is another machine), and only numbers are tried
    assert held_numbers(1300, args, ["LIBRARY-2: 700"]) == []
    assert held_numbers("1300", args, shown) == [] and held_numbers(True, args, shown) == []
    # a wide table row is no amount of one thing
    assert held_numbers(1300, args, ["LIBRARY 1 2 3 4 5"]) == []
    # a holding is one the part came out of: without the machine printed again at 1900 - 1300
    # the 1900 is some other figure of it
    assert held_numbers(1300, args, shown[:1]) == []
    # read off 05l's apprentice twin: a task's hours beside the day it is put on are no
    # amount the day is a part of
    rota = ["T3 | Safety induction | 4 h | not scheduled", "T3 is on Monday; Monday now has 4 h"]
    assert held_numbers(1, {"task_id": "T3", "day": 1}, rota) == []


class Kept(Fleet):
    """Fleet whose violation leaves the target short, in place of the one that empties a
    donor: the author never tried emptying one."""

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        short = call("move_notes", from_atm="LIBRARY", to_atm=d["target"], notes=100)
        kept = [c for c in super().controls(task) if c.name != "violation_donor_emptied"]
        return [*kept, Control(name="violation_short", expect="fail", script=[short, say("Ok.")])]


class ZeroDropped(Kept):
    """The planted slip: machines are read through `filter(None, ...)`, which drops a
    machine at zero as if it reported nothing."""

    def verify(self, state: dict[str, int], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        others = list(filter(None, (n for k, n in state.items() if k != d["target"])))
        return all_or_nothing(
            [
                Check(name="enough", passed=state.get(d["target"], 0) >= d["need"]),
                Check(name="minimum_kept", passed=all(n >= 500 for n in others)),
            ]
        )


async def test_a_donor_emptied_of_all_it_holds_is_found_only_where_the_zero_is_lost() -> None:
    plant = await validate(ZeroDropped(), fleet_tasks())
    assert "search" in failed(plant)
    finding = next(f for f in plant.findings if f["severity"] == "pays")
    assert finding["site"] == "move_notes.notes", finding
    twin = await validate(Kept(), fleet_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
