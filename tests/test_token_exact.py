"""Token-exact multi-turn data: rendering, the local backend, the vLLM backend (against a fake
vLLM server built from vLLM's documented answers), and the tiny model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from helpers import tiny_model_rollout
from tiny_policy import CALL

from model_interface.app import build_backend, create_app
from model_interface.rendering import Renderer
from proofgym.clients.http import HttpxTransport
from proofgym.serving.settings import ModelSettings
from proofgym_stack.testing import RoutingTransport
from sdg.file_edit import generate

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir: Path) -> Any:
    return transformers.AutoTokenizer.from_pretrained(tiny_model_dir)


def turn_data(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The token data of each model turn (the items that carry it)."""
    return [i for i in result["response"]["output"] if "generation_token_ids" in i]


async def test_ten_turn_tool_calling_rollout_is_token_exact(tool_calling_model_dir: Path) -> None:
    task = generate(1, seed=3)[0]
    r = await tiny_model_rollout(tool_calling_model_dir, task, max_steps=10)
    result = r.json()
    assert r.status_code == 200 and not result["mask_sample"], result.get("failure_reason")
    turns = turn_data(result)
    assert len(turns) == 10 and result["termination_reason"] == "max_steps"
    calls = [i for i in result["response"]["output"] if i["type"] == "function_call"]
    assert len(calls) == 10 and {c["name"] for c in calls} == {"list_files"}
    previous: list[int] = []
    for turn in turns:
        prompt, gen, logps = (
            turn["prompt_token_ids"],
            turn["generation_token_ids"],
            turn["generation_log_probs"],
        )
        assert prompt[: len(previous)] == previous  # append-only, token for token
        assert len(gen) == len(logps) > 0
        previous = prompt + gen
    assert result["trainable"] is True
    # logprobs equal a teacher-forced recompute by the same model
    model = transformers.AutoModelForCausalLM.from_pretrained(tool_calling_model_dir).eval()
    for turn in (turns[0], turns[-1]):
        prompt, gen = turn["prompt_token_ids"], turn["generation_token_ids"]
        with torch.no_grad():
            logits = model(torch.tensor([prompt + gen])).logits[0].float()
        logp = torch.log_softmax(logits, dim=-1)
        recomputed = [float(logp[len(prompt) + k - 1, t]) for k, t in enumerate(gen)]
        assert recomputed == pytest.approx(turn["generation_log_probs"], abs=1e-3)


async def test_length_and_context_limits_are_incomplete_not_errors(tiny_model_dir: Path) -> None:
    settings = ModelSettings(backend="local", model=str(tiny_model_dir), context_length=64)
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m") as c,
    ):
        cut = (
            await c.post(
                "/v1/responses", json={"input": "hi", "max_output_tokens": 3, "temperature": 1.0}
            )
        ).json()
        assert cut["status"] == "incomplete"
        assert cut["incomplete_details"]["reason"] == "max_output_tokens"
        assert len(cut["output"][-1]["generation_token_ids"]) == 3
        long = await c.post("/v1/responses", json={"input": "word " * 200})
        assert long.status_code == 200 and long.json()["status"] == "incomplete"
        assert long.json()["proofgym_incomplete_reason"] == "context_length"
        bad = await c.post(
            "/v1/responses",
            json={
                "input": [
                    {"type": "message", "role": "user", "content": "hi"},
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": "x",
                        "prompt_token_ids": [1, "two"],
                        "generation_token_ids": [3],
                        "generation_log_probs": [0.0],
                    },
                ]
            },
        )
        assert bad.status_code == 422 and "input[1]" in bad.json()["error"]["message"]
        assert bad.json()["error"]["kind"] == "invalid_token_data"
        mismatch = await c.post(
            "/v1/responses",
            json={
                "input": [
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": "x",
                        "prompt_token_ids": [1],
                        "generation_token_ids": [3, 4],
                        "generation_log_probs": [0.0],
                    }
                ]
            },
        )
        assert mismatch.status_code == 422


def test_renderer_appends_only_the_new_messages(tokenizer: Any) -> None:
    renderer = Renderer(tokenizer)
    tools = [{"type": "function", "name": "list_files", "parameters": {"type": "object"}}]
    first, extends = renderer.prompt("hello", "be brief", tools)
    assert not extends
    gen = renderer.encode(CALL + "<|im_end|>")
    items = [
        {"type": "message", "role": "user", "content": "hello"},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "list_files",
            "arguments": "{}",
            "prompt_token_ids": first,
            "generation_token_ids": gen,
            "generation_log_probs": [0.0] * len(gen),
        },
        {"type": "function_call_output", "call_id": "c1", "output": "a.txt"},
    ]
    second, extends = renderer.prompt(items, "be brief", tools)
    assert extends and second[: len(first) + len(gen)] == first + gen
    tail = tokenizer.decode(second[len(first) + len(gen) :])
    assert (
        tail == "\n<|im_start|>user\n<tool_response>\na.txt\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    )


# ---- vLLM, faked from its documented completions answers -------------------------------


def fake_vllm(
    name: str,
    tokenizer: Any,
    seen: list[tuple[str, dict[str, Any]]],
    text: str = CALL,
    fail: int | None = None,
) -> FastAPI:
    """A stand-in for vLLM's OpenAI server: /v1/completions with token-id prompts and
    `return_token_ids`, answering `text` (cut at max_tokens)."""
    app = FastAPI()

    @app.post("/v1/completions")
    async def completions(request: Request) -> Any:
        body = await request.json()
        seen.append((name, body))
        if fail is not None:
            return _error(fail)
        ids = [*tokenizer.encode(text, add_special_tokens=False), tokenizer.eos_token_id]
        cut = ids[: body["max_tokens"]]
        return {
            "id": "cmpl-1",
            "object": "text_completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "text": tokenizer.decode(cut),
                    "token_ids": cut,
                    "prompt_token_ids": body["prompt"],
                    "finish_reason": "length" if len(cut) < len(ids) else "stop",
                    "logprobs": {
                        "tokens": [f"token_id:{t}" for t in cut],
                        "token_logprobs": [-0.5] * len(cut),
                        "top_logprobs": None,
                        "text_offset": [],
                    },
                }
            ],
            "usage": {"prompt_tokens": len(body["prompt"]), "completion_tokens": len(cut)},
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        seen.append((name, body))
        ids = [*tokenizer.encode("hello", add_special_tokens=False), tokenizer.eos_token_id]
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "prompt_token_ids": [1, 2, 3],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "token_ids": ids,
                    "message": {"role": "assistant", "content": "hello"},
                    "logprobs": {"content": [{"token": "x", "logprob": -0.25} for _ in ids]},
                }
            ],
        }

    return app


def _error(status: int) -> Any:
    from fastapi.responses import JSONResponse

    return JSONResponse({"object": "error", "message": "engine failed"}, status)


def vllm_client(
    apps: dict[str, FastAPI], model_dir: Path, mode: str = "completions", **extra: Any
) -> httpx.AsyncClient:
    settings = ModelSettings(
        backend="vllm",
        model=str(model_dir),
        vllm_mode=mode,  # type: ignore[arg-type]
        base_urls=[f"http://{h}/v1" for h in apps],
        max_retries=1,
        backoff_base_s=0.001,
        **extra,
    )
    transport = HttpxTransport(httpx.AsyncClient(transport=RoutingTransport(apps)))
    app = create_app(settings, build_backend(settings, transport))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m")


async def test_vllm_backend_tool_calls_and_token_data(tiny_model_dir: Path, tokenizer: Any) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    client = vllm_client(
        {"v0": fake_vllm("v0", tokenizer, seen)},
        tiny_model_dir,
        pinned_sampling={"temperature": 1.0},
    )
    out = (await client.post("/v1/responses", json={"input": "go", "temperature": 0.2})).json()
    sent = seen[0][1]
    assert sent["return_token_ids"] is True and isinstance(sent["prompt"][0], int)
    assert sent["temperature"] == 1.0  # pinned on the server for on-policy training
    assert [i["type"] for i in out["output"]] == ["function_call"]
    assert out["output"][0]["name"] == "list_files"
    last = out["output"][-1]
    assert last["prompt_token_ids"] == sent["prompt"]
    assert last["generation_token_ids"][-1] == tokenizer.eos_token_id
    assert len(last["generation_log_probs"]) == len(last["generation_token_ids"])


async def test_vllm_reasoning_and_length_cut(tiny_model_dir: Path, tokenizer: Any) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    app = fake_vllm("v0", tokenizer, seen, text="<think>plan it</think>All done.")
    client = vllm_client({"v0": app}, tiny_model_dir)
    out = (await client.post("/v1/responses", json={"input": "go"})).json()
    assert [i["type"] for i in out["output"]] == ["reasoning", "message"]
    assert out["output"][0]["content"][0]["text"] == "plan it"
    assert out["output"][1]["content"][0]["text"] == "All done."
    cut = (await client.post("/v1/responses", json={"input": "go", "max_output_tokens": 2})).json()
    assert cut["status"] == "incomplete" and len(cut["output"][-1]["generation_token_ids"]) == 2


async def test_vllm_errors(tiny_model_dir: Path, tokenizer: Any) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    broken = vllm_client({"v0": fake_vllm("v0", tokenizer, seen, fail=500)}, tiny_model_dir)
    r = await broken.post("/v1/responses", json={"input": "go"})
    assert r.status_code == 502 and r.json()["error"]["kind"] == "backend_error"
    # a refusal of the request itself is the caller's to fix: 400, not an outage
    refusing = vllm_client({"v0": fake_vllm("v0", tokenizer, seen, fail=400)}, tiny_model_dir)
    r = await refusing.post("/v1/responses", json={"input": "go"})
    assert r.status_code == 400 and r.json()["error"]["kind"] == "backend_refused"
    assert "engine failed" in r.json()["error"]["message"]
    gone = vllm_client({"nowhere": FastAPI()}, tiny_model_dir)
    r = await gone.post("/v1/responses", json={"input": "go"})
    assert r.status_code == 502  # the upstream answered 404: not a vLLM server


async def test_vllm_sticky_routing_over_three_servers(tiny_model_dir: Path, tokenizer: Any) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    apps = {f"v{i}": fake_vllm(f"v{i}", tokenizer, seen) for i in range(3)}
    client = vllm_client(apps, tiny_model_dir)
    for rollout in range(24):
        for _ in range(2):
            await client.post(
                "/v1/responses",
                json={"input": "go"},
                headers={"X-Rollout-Id": f"rollout-{rollout:04d}"},
            )
    per_rollout = [{seen[2 * r][0], seen[2 * r + 1][0]} for r in range(24)]
    assert all(len(s) == 1 for s in per_rollout)
    assert set().union(*per_rollout) == {"v0", "v1", "v2"}


async def test_vllm_chat_mode_keeps_the_ids_vllm_reports(
    tiny_model_dir: Path, tokenizer: Any
) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    client = vllm_client({"v0": fake_vllm("v0", tokenizer, seen)}, tiny_model_dir, mode="chat")
    out = (await client.post("/v1/responses", json={"input": "go"})).json()
    assert seen[0][1]["return_token_ids"] is True and "messages" in seen[0][1]
    assert out["output"][-1]["prompt_token_ids"] == [1, 2, 3]
    assert out["output"][-1]["generation_log_probs"][0] == -0.25


def test_serve_vllm_dry_run_prints_the_flags() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "proofgym_stack.cli",
            "serve",
            "vllm",
            "--model",
            "/models/x",
            "--port",
            "9100",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "vllm.entrypoints.openai.api_server" in done.stdout
    assert "--return-tokens-as-token-ids" in done.stdout and "9100" in done.stdout


def test_tiny_model_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "proofgym_stack.cli", "tiny-model", str(tmp_path / "m")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert (tmp_path / "m" / "tokenizer.json").is_file()
    assert "untrained" in (tmp_path / "m" / "PROOFGYM_README.md").read_text().lower()


async def test_concurrent_requests_are_batched_without_changing_results(
    tiny_model_dir: Path,
) -> None:
    import asyncio

    from model_interface.backends.local import LocalGenerator
    from model_interface.backends.token_exact import Sampling

    generator = LocalGenerator.from_folder(tiny_model_dir, max_batch=8, wait_s=0.05)
    prompts = [
        generator.tokenizer.encode(t, add_special_tokens=False)
        for t in ("a", "hello there", "set version to 2 now", "x y z")
    ]
    greedy = Sampling(max_tokens=8, temperature=0.0)
    alone = [await generator.generate(p, greedy, "k") for p in prompts]
    together = await asyncio.gather(*(generator.generate(p, greedy, "k") for p in prompts))
    assert max(generator.batch_sizes) == 4  # left-padded into one batch
    for one, batched in zip(alone, together, strict=True):
        assert batched.token_ids == one.token_ids
        assert batched.log_probs == pytest.approx(one.log_probs, abs=1e-4)
    await generator.aclose()


def test_serve_model_with_the_local_backend_from_the_command_line(tiny_model_dir: Path) -> None:
    import time

    from proofgym_stack.up import free_port

    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proofgym_stack.cli",
            "serve",
            "model",
            "--backend",
            "local",
            "--model",
            str(tiny_model_dir),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert httpx.get(f"{url}/v1/models").json()["data"][0]["id"] == tiny_model_dir.name
        out = httpx.post(
            f"{url}/v1/responses", json={"input": "hi", "max_output_tokens": 4}, timeout=60
        ).json()
        assert len(out["output"][-1]["generation_token_ids"]) <= 4
    finally:
        proc.terminate()
        proc.wait(20)


HOSTILE_GENERATIONS = [
    '<tool_call>{"name": "list_files", "arguments": ' + "[" * 3000 + "]" * 3000 + "}</tool_call>",
    "<tool_call>" + "{" * 2000 + "}" * 2000 + "</tool_call>",
    '<tool_call>{"name": "list_files", "arguments": {',
    "<think>" + "why " * 500,
]


@pytest.mark.parametrize("text", HOSTILE_GENERATIONS)
async def test_hostile_generations_through_the_vllm_backend_end_as_items(
    tiny_model_dir: Path, tokenizer: Any, text: str
) -> None:
    # what a policy generates goes through the real token path and the tool-call parser: it
    # must come back as content or calls (then scored), never as an error that masks the rollout
    seen: list[tuple[str, dict[str, Any]]] = []
    client = vllm_client({"v0": fake_vllm("v0", tokenizer, seen, text=text)}, tiny_model_dir)
    r = await client.post("/v1/responses", json={"input": "go", "max_output_tokens": 20000})
    assert r.status_code == 200, r.text[:300]
    items = r.json()["output"]
    assert items and {i["type"] for i in items} <= {"message", "function_call", "reasoning"}
    assert items[-1]["generation_token_ids"]  # still token-exact training data
