"""A tiny, randomly initialised causal LM and its tokenizer, built locally in seconds.

For tests and the demo only: it is untrained, so it writes noise. It is saved in the standard
Hugging Face format (Llama architecture, a byte-level BPE tokenizer, a ChatML chat template
with Hermes-style tool calls), so transformers and vLLM load it like any model.
"""

from __future__ import annotations

import json
from pathlib import Path

SPECIAL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<tool_response>",
    "</tool_response>",
]

CHAT_TEMPLATE = (
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}"
    "You may call these tools:\n{% for t in tools %}{{ t | tojson }}\n{% endfor %}"
    'Call one as <tool_call>{"name": NAME, "arguments": {...}}</tool_call>.<|im_end|>\n'
    "{% elif messages[0].role == 'system' %}<|im_start|>system\n"
    "{{ messages[0].content }}<|im_end|>\n{% endif %}"
    "{% for m in messages %}"
    "{% if m.role == 'system' and loop.first %}"
    "{% elif m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n"
    "</tool_response><|im_end|>\n"
    "{% elif m.role == 'assistant' %}<|im_start|>assistant\n{{ m.content or '' }}"
    '{% for c in (m.tool_calls or []) %}<tool_call>{"name": "{{ c.function.name }}", '
    '"arguments": {{ c.function.arguments }}}</tool_call>{% endfor %}<|im_end|>\n'
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CORPUS = [
    "You may call these tools. Call one as a tool call with a name and arguments.",
    '{"type": "function", "name": "read_file", "description": "Read a file.", "parameters": '
    '{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}',
    '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>',
    "In the file config/app.conf, set version to 2. Do not change anything else.",
    "Done: set the value. The answer is 42. Answer: 17. The tests pass.",
    "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ {}[]():;,.=+-*/_\"'",
]


def build(
    out: Path,
    *,
    vocab_size: int = 512,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    context: int = 4096,
    seed: int = 0,
) -> Path:
    """Write the tiny model and tokenizer into `out`; return `out`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    out.mkdir(parents=True, exist_ok=True)
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(CORPUS * 20, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=SPECIAL[3:],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=context,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    (out / "PROOFGYM_README.md").write_text(
        "Untrained tiny model built by `proofgym tiny-model`: random weights, for tests and "
        "demos only. It writes noise.\n"
    )
    (out / "proofgym.json").write_text(json.dumps({"untrained": True, "seed": seed}))
    return out
