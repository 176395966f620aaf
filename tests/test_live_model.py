"""The live model: a trainer's own model object served as a real model interface from a thread
of the trainer's process. Logprobs equal a fresh forward pass; an in-place weight change (what
an optimizer step does) changes the very next generation; the training mode is left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
import transformers

from model_interface.live import LiveModel


def ask(url: str) -> dict[str, Any]:
    body = {"input": "list the files", "max_output_tokens": 12, "temperature": 0.0}
    r = httpx.post(f"{url}/v1/responses", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return dict(r.json()["output"][-1])


def recompute(model: Any, prompt: list[int], generated: list[int]) -> list[float]:
    with torch.no_grad():
        logits = model(torch.tensor([prompt + generated])).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    return [float(logp[len(prompt) + k - 1, t]) for k, t in enumerate(generated)]


def test_the_live_model_is_the_trainers_model(tiny_model_dir: Path) -> None:
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_model_dir)
    model.train()  # as a trainer holds it
    with LiveModel(model, tokenizer) as live:
        first = ask(live.url)
        assert model.training  # left as it was found
        prompt, generated = first["prompt_token_ids"], first["generation_token_ids"]
        model.eval()
        assert recompute(model, prompt, generated) == pytest.approx(
            first["generation_log_probs"], abs=1e-4
        )
        model.train()
        with torch.no_grad():  # what an optimizer step does: change the weights in place
            for p in model.parameters():
                p.add_(torch.randn_like(p) * 0.05)
        second = ask(live.url)
        assert second["prompt_token_ids"] == prompt
        model.eval()
        again = recompute(model, prompt, second["generation_token_ids"])
        assert again == pytest.approx(second["generation_log_probs"], abs=1e-4)
        assert second["generation_log_probs"] != pytest.approx(
            first["generation_log_probs"], abs=1e-3
        )
    assert not live._thread or not live._thread.is_alive()
