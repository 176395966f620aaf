"""`proofgym model check`: a model's chat template proven fit for multi-turn RL on the shipped
environments' conversations; planted template bugs named by conversation and turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from model_interface.template_check import check_template
from model_interface.tiny_model import CHAT_TEMPLATE, build
from proofgym_stack.cli import app
from proofgym_stack.model_check import check_model, environment_conversations, first_tasks

#: earlier assistant turns lose their call arguments once more messages follow
RE_RENDERS = CHAT_TEMPLATE.replace(
    '"arguments": {{ c.function.arguments }}}',
    '"arguments": {% if m == messages[-1] %}{{ c.function.arguments }}{% else %}{}{% endif %}}',
)
#: tool calls written in a form the hermes parser does not read
FOREIGN_CALLS = CHAT_TEMPLATE.replace(
    '<tool_call>{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}'
    "</tool_call>",
    "<function={{ c.function.name }}>{{ c.function.arguments }}</function>",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("tiny") / "model")


def _json(output: str) -> dict[str, Any]:
    return json.loads(output[output.index("{") : output.rindex("}") + 1])  # type: ignore[no-any-return]


def test_the_tiny_model_is_fit_on_every_environment(tiny: Path) -> None:
    done = CliRunner().invoke(app, ["model", "check", str(tiny), "--json"])
    assert done.exit_code == 0, done.output
    report = _json(done.stdout)
    assert report["passed"] and not report["failures"]
    counts = report["counts"]
    # every environment's controls, several turns each: each check ran on many turns
    assert counts["append_only"]["passed"] >= 20 and counts["append_only"]["failed"] == 0
    assert counts["tool_calls_round_trip"]["passed"] >= 30
    assert counts["special_tokens"]["failed"] == 0


def test_a_template_that_re_renders_past_turns_is_named_at_the_turn_it_breaks(
    tiny: Path, tmp_path: Path
) -> None:
    planted = tmp_path / "re_renders.jinja"
    planted.write_text(RE_RENDERS)
    runner = CliRunner()
    args = ["model", "check", str(tiny), "--env", "file_edit", "--chat-template", str(planted)]
    done = runner.invoke(app, [*args, "--json"])
    assert done.exit_code == 1
    failures = _json(done.stdout)["failures"]
    first = failures[0]
    assert first["conversation"] == "file_edit/reference" and first["check"] == "append_only"
    assert first["turn"] == 1  # the first turn after one with a call: where it starts
    assert "renders earlier turns differently" in first["detail"]
    assert '"path": "settings.conf"' in first["detail"]  # what was lost, shown
    shown = runner.invoke(app, args)
    said = " ".join(shown.output.split())
    assert "file_edit/reference, turn 1: append_only" in said and "NOT fit" in said


def test_a_template_whose_calls_do_not_parse_back_is_found(tiny: Path) -> None:
    result = asyncio.run(check_model(tiny, envs=["math"], template=FOREIGN_CALLS))
    assert not result.passed
    broken = [f for f in result.template.failures() if f.check == "tool_calls_round_trip"]
    assert broken and broken[0].conversation == "math/alternative"  # the calculator call
    assert "<function=calculator>" in broken[0].detail


class LosesSpecialTokens:
    """A tokenizer whose decode drops special tokens, as a server decoding with
    skip_special_tokens does: ids do not survive the round trip."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return str(self.inner.decode(ids, skip_special_tokens=True))


def test_special_tokens_that_do_not_survive_decoding_are_found(tiny: Path) -> None:
    from transformers import AutoTokenizer

    conversations = asyncio.run(environment_conversations(first_tasks(["letters"])))
    tokenizer = AutoTokenizer.from_pretrained(tiny)
    assert check_template(tokenizer, conversations).passed
    lossy = check_template(LosesSpecialTokens(tokenizer), conversations)
    assert any(f.check == "special_tokens" for f in lossy.failures())


def test_sampled_rollouts_of_the_model_itself_come_back_trainable(tiny: Path) -> None:
    result = asyncio.run(check_model(tiny, envs=["letters", "math"], sample=1, max_tokens=8))
    assert result.sampled == 2 and result.untrainable == [] and result.passed


def test_bad_input_is_refused_with_a_reason(tiny: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    not_model = runner.invoke(app, ["model", "check", str(tmp_path)])
    assert not_model.exit_code == 2 and "not a model folder" in not_model.output
    unknown = runner.invoke(app, ["model", "check", str(tiny), "--env", "nope"])
    assert unknown.exit_code == 2 and "no such environment" in unknown.output
