"""The peer table's reading of a validation (bench/nemo_gym_table.py): what counts as a finding
about a peer's reward, and what is only the setup here (a judge not served, a control the peer
does not ship, a recorded rollout that does not reproduce)."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/ is no installed package

from bench.nemo_gym_report import Row, classify, findings, markdown, reclassified

JUDGE_503 = (
    "masked (verify_error: the peer masked it (judge_failed): ClientResponseError: 503, "
    "message='Service Unavailable', url='http://127.0.0.1:42863/v1/responses')"
)


def row(**kw: object) -> Row:
    base = Row("demo", tasks=2, passed=["control:reference", "determinism"])
    for key, value in kw.items():
        setattr(base, key, value)
    return base


def test_a_server_whose_reference_passes_is_validated_and_its_holes_are_findings() -> None:
    got = row(
        failed={
            "violation_declared": "no violation control",
            "answer_slot:retracted": "passed: demo-0: reward 1 for '42 ... I do not know'",
            "reward_well_formed": JUDGE_503,
        }
    )
    assert classify(got) == ("validated", "")
    # a control the peer does not ship, and a rollout masked by the judge we do not serve,
    # say nothing about its reward
    assert list(findings(asdict(got))) == ["answer_slot:retracted"]


def test_a_verdict_cut_short_inside_the_judges_url_is_still_the_missing_judge() -> None:
    # the table keeps each verdict's detail shortened: the URL may end mid-path
    cut = "masks fault at message: " + JUDGE_503[: JUDGE_503.index("/v1/") + 8]
    got = row(failed={"search": cut, "negative:prompt_echo": "passed: demo-0: reward 1"})
    assert list(findings(asdict(got))) == ["negative:prompt_echo"]


def test_a_reference_the_missing_judge_masked_is_no_finding() -> None:
    got = row(passed=[], failed={"control:reference": f"demo-0: expected pass, but {JUDGE_503}"})
    status, reason = classify(got)
    assert status == "needs a model" and "model server" in reason


def test_a_reference_that_earns_less_is_not_reproduced() -> None:
    got = row(passed=[], failed={"control:reference": "demo-0: expected pass, got reward 0"})
    assert classify(got)[0] == "reference not reproduced"
    # the server called its judge: the 0 is the judge's absence, not the replay
    stored = asdict(got) | {"status": "reference not reproduced", "model_calls": 3}
    assert reclassified(stored)["status"] == "needs a model"


def test_the_markdown_counts_every_server_once() -> None:
    rows = [
        asdict(row(name="a", status="validated", failed={"negative:prompt_echo": "passed"})),
        asdict(Row("b", status="did not start", reason="ModuleNotFoundError: No module 'x'")),
    ]
    text = markdown({"nemo_gym": "0.7.0", "servers": rows})
    assert "| validated | 1 |" in text and "| did not start | 1 |" in text
    assert "`negative:prompt_echo` (reward hole): passed" in text
    assert "| b | did not start |" in text


def test_the_audit_draws_accusations_of_a_reward_paid_and_reads_them_against_a_later_table() -> (
    None
):
    from bench.nemo_audit import accusations, draw, precision, still_reported

    served = row(
        name="srv",
        status="validated",
        failed={
            "answer_slot:retracted": "passed: srv-0: reward 1",
            # one root cause (a reply with no answer paid) said by two verdicts: one item
            "negative:garbage_text": "passed: srv-0: reward 1",
            "control:noop_claim": "srv-0: expected fail, got reward 1",
            "adversarial:hostile_arguments": "a crash",  # no reward paid: not drawn
            "reward_well_formed": JUDGE_503,
        },
        findings=[
            {"oracle": "another_world", "severity": "pays", "site": "message", "what": "w"},
            {"oracle": "another_path", "severity": "advisory", "site": "x", "what": "p"},
            # a verify that raised on what the mutant sent: a mask, not a reward: not drawn
            {"oracle": "fault", "severity": "masks", "site": "message", "what": "inf"},
            # paid inside validate, not when replayed afresh against the server: not drawn
            {
                "oracle": "another_truth",
                "severity": "pays",
                "site": "m",
                "what": "x",
                "replayed": {"reproduces": False, "saw": "srv-0: reward 0"},
            },
        ],
    )
    whole = "Answer: 42\n\nWait, that is wrong. Scratch that: I do not know the answer."
    said = [[{"type": "message", "content": whole}]]
    served.paid = [
        {"label": "answer slot retracted", "task_id": "srv-0", "reward": 1.0, "script": said},
        {"label": "attack hedged_candidates", "task_id": "srv-0", "reward": 1.0, "script": []},
    ]
    rows = [asdict(served)]
    # the accusation carries its paid rollouts whole, not the detail's tail
    retracted = next(a for a in accusations(rows) if a["finding"] == "answer_slot:retracted")
    assert [p["script"] for p in retracted["paid"]] == [said]
    assert [a["finding"] for a in accusations(rows)] == [
        "a reply with no answer paid: control:noop_claim, negative:garbage_text",
        "answer_slot:retracted",
        "search:another_world@message",
    ]
    audit = draw(rows, 24, judged=[])
    assert audit["drawn"] == 3 and audit["population"] == 3
    for item, judged in zip(audit["items"], ("real", "real", "false alarm"), strict=True):
        item["judgement"] = judged
    assert "2/3 = 0.67" in precision(audit)
    # a later table that no longer accuses the search's finding
    later = asdict(served) | {"findings": []}
    kept = [i["finding"] for i in audit["items"] if still_reported(i, [later])]
    assert sorted(kept) == [
        "a reply with no answer paid: control:noop_claim, negative:garbage_text",
        "answer_slot:retracted",
    ]


def test_a_search_verdict_is_a_reward_hole_only_where_a_finding_pays() -> None:
    from bench.nemo_gym_report import family

    masks = {"findings": [{"oracle": "fault", "severity": "masks", "site": "message"}]}
    pays = {"findings": [*masks["findings"], {"oracle": "another_truth", "severity": "pays"}]}
    assert family("search", masks) == "policy-made mask"
    assert family("search", pays) == "reward hole"
    assert family("answer_slot:denied", masks) == "reward hole"


class _Paying:
    """A bridged environment as `played_through` sees it: pays a final message that holds
    the task's own answer, and a bare "any" on every task (a hole)."""

    reward_range = (0.0, 1.0)

    def create_state(self, task: object, _: object) -> dict[str, object]:
        return {"answer": task}

    def call_external(self, state: object, name: str, args: object) -> str:
        return "ok"

    def verify(self, state: dict[str, object], task: object, response: object) -> object:
        from types import SimpleNamespace

        from proofgym.wire.responses import final_message

        said = final_message(response) or ""  # type: ignore[arg-type]
        paid = said == "any" or said == state["answer"]
        return SimpleNamespace(mask_sample=False, reward=float(paid), failure_reason=None)

    def close_state(self, state: object) -> None:
        pass


def test_a_finding_that_pays_is_replayed_afresh_on_its_task_and_on_the_other_truth() -> None:
    from bench.nemo_gym_table import confirmed

    tasks = {"t-0": "42", "t-1": "7"}

    def finding(said: str) -> dict[str, object]:
        minimal = [[{"type": "message", "role": "assistant", "content": said}]]
        why = "passes on t-1 too, whose truth differs [target t-1]"
        return {"oracle": "another_truth", "task_id": "t-0", "why": why, "minimal": minimal}

    hole = confirmed(_Paying(), tasks, finding("any"))
    assert hole == {"reproduces": True, "saw": "t-0: paid; t-1: paid"}
    # paid on its own task only: the other truth did not reproduce
    own = confirmed(_Paying(), tasks, finding("42"))
    assert own == {"reproduces": False, "saw": "t-0: paid; t-1: reward 0"}
    served = row(status="validated", failed={"search": "pays another_truth at message"})
    served.findings = [{**finding("42"), "severity": "pays", "site": "message", "replayed": own}]
    text = markdown({"nemo_gym": "0.7.0", "servers": [asdict(served)]})
    assert "`another_truth` at `message`: did not pay again (t-0: paid; t-1: reward 0)" in text
