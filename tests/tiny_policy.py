"""Test helper: teach the tiny model one habit, calling `list_files`, in a few seconds.

An untrained model writes noise and never calls a tool; a 10-turn tool-calling rollout needs a
policy that does. A few hundred steps on rendered conversations of 1 to 12 turns are enough.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

CALL = '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_files",
            "description": "List every file.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
]


def teach_tool_calls(model_dir: Path, out: Path, steps: int = 120, seed: int = 0) -> Path:
    """Fine-tune the model in `model_dir` to answer every turn with the list_files call."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    target = tok.encode(CALL + "<|im_end|>", add_special_tokens=False)
    samples = []
    for _ in range(32):
        turns = rng.randint(0, 11)
        messages = [
            {"role": "system", "content": "You work in a workspace."},
            {"role": "user", "content": f"task {rng.randint(0, 999)}: look around"},
        ]
        for _ in range(turns):
            messages.append({"role": "assistant", "content": CALL})
            files = "\n".join(f"f{rng.randint(0, 99)}.txt" for _ in range(rng.randint(1, 4)))
            messages.append({"role": "tool", "content": files})
        prompt = tok.apply_chat_template(
            messages, tools=TOOLS, add_generation_prompt=True, tokenize=False
        )
        ids = tok.encode(prompt, add_special_tokens=False)
        samples.append((ids, target))
    optim = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        ids, tgt = samples[step % len(samples)]
        x = torch.tensor([ids + tgt])
        labels = torch.tensor([[-100] * len(ids) + tgt])
        loss = model(input_ids=x, labels=labels).loss
        loss.backward()
        optim.step()
        optim.zero_grad()
    model.eval()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / "taught.json").write_text(
        json.dumps({"steps": steps, "final_loss": float(loss.detach())})
    )
    return out
