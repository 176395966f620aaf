"""Unsloth on proofgym: load a model with Unsloth, train it with the TRL adapter.

```python
from trainers.unsloth import grpo_trainer, load    # import before trl and transformers
from model_interface.live import LiveModel

model, tokenizer = load("Qwen/Qwen3-0.6B")
trainer = grpo_trainer(model, tokenizer, tasks, agent_url="http://127.0.0.1:8000", steps=100)
with LiveModel(trainer.model, tokenizer, port=8002):   # `proofgym up --model-url` points here
    trainer.train()   # rollouts sample from the model being trained, step after step
```

Unsloth trains on a GPU: without one, `load` raises with a message that says so (for a CPU, use
`trainers.trl` with a plain transformers model). Install with `pip install 'proofgym[unsloth]'`:
the extra lets pip pick the TRL and transformers releases Unsloth pins (trl <= 1.15,
transformers <= 5.17), which `trainers.trl` supports. TRL 1.15's GRPOTrainer itself needs Triton,
which ships with CUDA builds of torch only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proofgym.wire.protocol import Task

NO_GPU = (
    "Unsloth trains on a GPU, and torch sees none here (torch.cuda.is_available() is False). "
    "On a CPU, train with trainers.trl and a transformers model (proofgym learn does)."
)
NOT_INSTALLED = "Unsloth is not installed: pip install 'proofgym[unsloth]' (on a GPU machine)"


def require_gpu() -> None:
    """RuntimeError with NO_GPU unless torch sees a CUDA device."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError(NO_GPU)


def load(
    model_name: str,
    *,
    max_seq_length: int = 4096,
    load_in_4bit: bool = False,
    lora_rank: int = 16,
) -> tuple[Any, Any]:
    """A model and tokenizer from Unsloth's FastLanguageModel, with LoRA adapters to train."""
    require_gpu()
    try:
        from unsloth import FastLanguageModel
    except ImportError:
        raise RuntimeError(NOT_INSTALLED) from None
    model, tokenizer = FastLanguageModel.from_pretrained(
        model_name=model_name, max_seq_length=max_seq_length, load_in_4bit=load_in_4bit
    )
    model = FastLanguageModel.get_peft_model(
        model,
        r=lora_rank,
        lora_alpha=lora_rank,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    )
    return model, tokenizer


def grpo_trainer(
    model: Any,
    tokenizer: Any,
    tasks: Sequence[Task],
    *,
    agent_url: str = "http://127.0.0.1:8000",
    steps: int = 100,
    generations: int = 8,
    learning_rate: float = 5e-6,
    max_completion_length: int = 512,
    output_dir: str = "runs/unsloth",
) -> Any:
    """TRL's GRPOTrainer over proofgym's rollouts for an Unsloth model (see trainers.trl)."""
    from trainers.trl import ProofgymRollouts
    from trainers.trl import grpo_trainer as trainer_for

    return trainer_for(
        model,
        tokenizer,
        ProofgymRollouts(tasks, agent_url=agent_url),
        generations=generations,
        steps=steps,
        output_dir=output_dir,
        learning_rate=learning_rate,
        max_completion_length=max_completion_length,
    )
