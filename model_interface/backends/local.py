"""The `local` backend: a Hugging Face causal LM in this process (CPU or GPU).

Generation runs in a worker thread, off the event loop; requests that arrive together and
sample alike are generated as one left-padded batch. Logprobs are those of the raw model
distribution (temperature 1, before top-p), as a trainer recomputes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model_interface.backends.token_exact import Generation, Sampling, TokenExactBackend
from model_interface.hermes import PARSERS

log = logging.getLogger("proofgym.model")


@dataclass
class _Job:
    prompt: list[int]
    sampling: Sampling
    future: asyncio.Future[Generation] = field(repr=False)


class LocalGenerator:
    """Batches concurrent requests onto one in-process model.

    Built from a model folder, or (`from_model`) around a model object that something else
    owns, a trainer's live policy: then every generation uses the weights as they are at that
    moment, in the model's own precision, and leaves its training mode as it found it."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str,
        device: str = "cpu",
        max_batch: int = 8,
        wait_s: float = 0.005,
    ) -> None:
        import torch

        self.torch = torch
        self.tokenizer = tokenizer
        self.model = model
        self.device = device
        self.name = name
        self.max_batch = max_batch
        self.wait_s = wait_s
        self.context_length = int(getattr(self.model.config, "max_position_embeddings", 2048))
        self.eos = self.tokenizer.eos_token_id
        self.pad = (
            self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos
        )
        self._queue: asyncio.Queue[_Job] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._lock = threading.Lock()
        self.batch_sizes: list[int] = []  # what ran together, for tests and metrics
        self.abandoned = 0  # generations skipped or stopped early: every caller had gone

    @classmethod
    def from_folder(cls, model_dir: Path, *, device: str = "cpu", **kw: Any) -> LocalGenerator:
        """Load a model folder (weights and tokenizer) onto `device`, for inference only."""
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        model = AutoModelForCausalLM.from_pretrained(model_dir).to(device).eval()  # type: ignore[arg-type]
        return cls(model, tokenizer, name=Path(model_dir).name, device=device, **kw)

    @classmethod
    def from_model(
        cls, model: Any, tokenizer: Any, *, name: str = "live", **kw: Any
    ) -> LocalGenerator:
        """Around a model object owned elsewhere (a trainer's): its device, its precision."""
        device = str(next(model.parameters()).device)
        return cls(model, tokenizer, name=name, device=device, **kw)

    async def generate(
        self, prompt_ids: list[int], sampling: Sampling, route_key: str
    ) -> Generation:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.create_task(self._serve())
        future: asyncio.Future[Generation] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Job(prompt_ids, sampling, future))
        return await future

    async def _serve(self) -> None:
        assert self._queue is not None
        while True:
            jobs = [await self._queue.get()]
            await asyncio.sleep(self.wait_s)  # let concurrent requests join the batch
            while len(jobs) < self.max_batch and not self._queue.empty():
                jobs.append(self._queue.get_nowait())
            waiting = len(jobs)
            jobs = [job for job in jobs if not job.future.done()]  # callers that are gone
            self.abandoned += waiting - len(jobs)
            groups: dict[tuple[float, float], list[_Job]] = {}
            for job in jobs:
                key = (job.sampling.temperature, job.sampling.top_p)
                groups.setdefault(key, []).append(job)
            for group in groups.values():
                self.batch_sizes.append(len(group))
                try:
                    results = await asyncio.to_thread(self._run, group)
                except Exception as exc:  # one broken batch fails its requests, not the server
                    for job in group:
                        if not job.future.done():
                            job.future.set_exception(exc)
                    continue
                for job, result in zip(group, results, strict=True):
                    if not job.future.done():
                        job.future.set_result(result)

    def _run(self, jobs: list[_Job]) -> list[Generation]:
        torch = self.torch
        width = max(len(j.prompt) for j in jobs)
        ids = torch.full((len(jobs), width), self.pad, dtype=torch.long)
        mask = torch.zeros((len(jobs), width), dtype=torch.long)
        for row, job in enumerate(jobs):
            ids[row, width - len(job.prompt) :] = torch.tensor(job.prompt)
            mask[row, width - len(job.prompt) :] = 1
        sampling = jobs[0].sampling
        greedy = sampling.temperature <= 0
        with self._lock, torch.no_grad(), _evaluating(self.model):
            out = self.model.generate(
                input_ids=ids.to(self.device),
                attention_mask=mask.to(self.device),
                max_new_tokens=max(j.sampling.max_tokens for j in jobs),
                do_sample=not greedy,
                temperature=None if greedy else sampling.temperature,
                top_p=None if greedy else sampling.top_p,
                top_k=None,
                output_logits=True,
                return_dict_in_generate=True,
                eos_token_id=self.eos,
                pad_token_id=self.pad,
                stopping_criteria=[_AllGone(jobs, self)],
            )
        results = []
        for row, job in enumerate(jobs):
            tokens: list[int] = []
            logps: list[float] = []
            finish = "length"
            for step, logits in enumerate(out.logits):
                if step >= job.sampling.max_tokens:
                    break
                token = int(out.sequences[row, width + step])
                logp = torch.log_softmax(logits[row].float(), dim=-1)[token]
                tokens.append(token)
                logps.append(float(logp))
                if token == self.eos:
                    finish = "stop"
                    break
            results.append(Generation(tokens, logps, finish))  # type: ignore[arg-type]
        return results

    def models(self) -> list[str]:
        return [self.name]

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
            self._queue = None


class _AllGone:
    """Stops a batch's generation at the next token once every caller in it has gone (their
    requests cancelled: a timed-out judge call, a client that disconnected), so a CPU model
    does not keep generating for nobody while live requests wait behind it."""

    def __init__(self, jobs: list[_Job], generator: LocalGenerator) -> None:
        self.jobs = jobs
        self.generator = generator
        self.stopped = False

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        gone = all(job.future.cancelled() for job in self.jobs)
        if gone and not self.stopped:
            self.stopped = True
            self.generator.abandoned += len(self.jobs)
        torch = self.generator.torch
        return torch.full((input_ids.shape[0],), gone, dtype=torch.bool, device=input_ids.device)


@contextlib.contextmanager
def _evaluating(model: Any) -> Any:
    """Eval mode for one generation, then the mode the model was in (a trainer's is training)."""
    was_training = bool(getattr(model, "training", False))
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def torch_threads(settings: Any) -> int:
    """The threads torch gets: the setting, or half the cores (at least one). torch's own
    default, every core, fights the other services of the stack for them: measured 10x
    slower generation than one thread on a 2-core machine running the whole stack."""
    wanted = getattr(settings, "torch_threads", None)
    return int(wanted) if wanted else max(1, (os.cpu_count() or 1) // 2)


def build_local(model_dir: Path, settings: Any) -> TokenExactBackend:
    """The local backend for a model folder: torch's threads set, the chat template
    replaced when the settings name one, and a warning when the template ignores tools."""
    import torch

    torch.set_num_threads(torch_threads(settings))
    generator = LocalGenerator.from_folder(model_dir, device=settings.device)
    template = getattr(settings, "chat_template", None)
    if template is not None:
        generator.tokenizer.chat_template = Path(template).read_text()
    from model_interface.model_import import template_renders_tools

    if not template_renders_tools(generator.tokenizer):
        log.warning(
            "the chat template of %s ignores tools: no rollout will see a tool. Import the "
            "model with `proofgym model import` (it puts in a template that renders them) or "
            "set PROOFGYM_CHAT_TEMPLATE",
            model_dir,
        )
    return backend_for(generator, settings)


def backend_for(generator: LocalGenerator, settings: Any) -> TokenExactBackend:
    """The token-exact backend over a generator (from a folder, or a live model)."""
    return TokenExactBackend(
        generator.tokenizer,
        generator,
        model=generator.name,
        context_length=settings.context_length or generator.context_length,
        default_max_tokens=settings.default_max_tokens,
        pinned=settings.pinned_sampling,
        parser=PARSERS[getattr(settings, "tool_parser", "hermes")],
    )
