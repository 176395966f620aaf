"""Local backend: batched against one-at-a-time generation, in one run on this machine.

    .venv/bin/python bench/local_model.py [--model DIR] [--requests 32] [--tokens 32]

Without --model it builds the tiny model. Greedy decoding, so both modes make the same tokens.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_interface.backends.local import LocalGenerator
from model_interface.backends.token_exact import Sampling
from model_interface.tiny_model import build


async def measure(model: Path, requests: int, tokens: int) -> dict[str, float]:
    sequential = LocalGenerator.from_folder(model, max_batch=1, wait_s=0.0)
    batched = LocalGenerator.from_folder(model, max_batch=16, wait_s=0.005)
    prompts = [
        sequential.tokenizer.encode(f"request {i}: write something", add_special_tokens=False)
        for i in range(requests)
    ]
    sampling = Sampling(max_tokens=tokens, temperature=0.0)
    await sequential.generate(prompts[0], sampling, "warm")
    start = time.perf_counter()
    one = await asyncio.gather(*(sequential.generate(p, sampling, "k") for p in prompts))
    t_seq = time.perf_counter() - start
    await batched.generate(prompts[0], sampling, "warm")
    start = time.perf_counter()
    many = await asyncio.gather(*(batched.generate(p, sampling, "k") for p in prompts))
    t_batch = time.perf_counter() - start
    same = sum(a.token_ids == b.token_ids for a, b in zip(one, many, strict=True))
    made = sum(len(g.token_ids) for g in many)
    return {
        "sequential_tok_s": made / t_seq,
        "batched_tok_s": made / t_batch,
        "speedup": t_seq / t_batch,
        "identical": same / requests,
        "largest_batch": max(batched.batch_sizes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path)
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or build(Path(tmp) / "tiny")
        result = asyncio.run(measure(model, args.requests, args.tokens))
    print(f"{args.requests} concurrent requests, {args.tokens} greedy tokens each, {model.name}:")
    print(f"  one at a time: {result['sequential_tok_s']:.0f} tokens/s")
    print(
        f"  batched (largest batch {result['largest_batch']:.0f}): "
        f"{result['batched_tok_s']:.0f} tokens/s, {result['speedup']:.2f}x; "
        f"{result['identical']:.0%} of generations identical to one-at-a-time"
    )


if __name__ == "__main__":
    main()
