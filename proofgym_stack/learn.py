"""`proofgym learn`: does a model get a learning signal from an environment in a few hundred
steps? GRPO with TRL through the real services, on a model folder or the tiny model.

The resources server and the agent run as processes; the model interface runs in this process
around the trainer's own model (LiveModel), so every rollout samples from the weights the
optimizer just updated. The answer is the reward curve: mean reward per step, and the means
over the first and the last 10% of steps.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from proofgym.rollouts.learnability import ControlKind, RewardControl, learnability_of
from proofgym.rollouts.mixes import Mix
from proofgym.rollouts.proofs import ProofBook
from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.learn_report import (
    Evaluation,
    LearnResult,
    calls_a_tool,
    diagnose,
    evaluate,
    per_env_curves,
    write_png,
)
from proofgym_stack.learn_warmup import SFT_LEARNING_RATE, warm_up
from proofgym_stack.up import Stack, free_port

__all__ = [
    "Evaluation",
    "LearnConfig",
    "LearnResult",
    "calls_a_tool",
    "evaluate",
    "learn",
    "write_png",
]

#: a learning rate that moves the random tiny model in a few hundred steps; a pretrained
#: model's weights would be wrecked by it
TINY_LEARNING_RATE = 5e-3
PRETRAINED_LEARNING_RATE = 1e-5


def mixed_tasks(mix: Mix, n: int, seed: int) -> tuple[list[Task], list[Task]]:
    """`disjoint_tasks` of each environment of `mix`, `n` split by weight; the reinforced ones
    interleaved in proportion (each next task from the environment furthest behind its share),
    so that no environment has the first steps alone."""
    per_env: dict[str, list[Task]] = {}
    warmup: list[Task] = []
    for env, count in mix.counts(n).items():
        first, second = disjoint_tasks(env, count, seed)
        per_env[env] = first
        warmup += second
    reinforced: list[Task] = []
    taken = dict.fromkeys(per_env, 0)
    while len(reinforced) < sum(len(ts) for ts in per_env.values()):
        env = min(
            (e for e in per_env if taken[e] < len(per_env[e])),
            key=lambda e: ((taken[e] + 1) / len(per_env[e]), mix.envs.index(e)),
        )
        reinforced.append(per_env[env][taken[env]])
        taken[env] += 1
    return reinforced, warmup


def disjoint_tasks(env: str, n: int, seed: int) -> tuple[list[Task], list[Task]]:
    """`n` tasks to reinforce on and `n` others to warm up on: the warm-up never shows the
    policy a reinforced task's solution (it would learn the answers, not the tools). Tasks
    whose data repeats one of the first set are left out of the second."""
    from proofgym_stack.environments import generator
    from sdg.sets import identity_function

    module = generator(env)
    rows = module.generate(2 * n, seed=seed, split="train")
    identity = identity_function(module)  # the generator's own notion of one instance
    seen = {identity(r) for r in rows[:n]}
    second = [r for r in rows[n:] if identity(r) not in seen]
    return [Task.model_validate(r) for r in rows[:n]], [Task.model_validate(r) for r in second]


class LearnConfig(BaseModel):
    """What one learning run trains on and how (a config object, as TRL's are): every knob of
    `learn`, checked when it is built.

    `env` is an environment or a mix (`letters=3,math=1`, `proofgym.rollouts.mixes`): `tasks`
    split by weight, and `per_env` reports each environment's figures. Each step plays
    `groups` tasks `generations` times each and makes one update. `learning_rate` defaults to
    one that suits the model: 5e-3 for the random tiny model, 1e-5 for a model folder
    (pretrained). `sft_steps` > 0 first plays the environment's honest controls on `tasks`
    other tasks (never the reinforced ones) and trains that many supervised steps on the
    passing trajectories, those that use a tool when there are any (teaching a model the
    tools before reinforcing it), at `sft_learning_rate` (default: 5e-3 for the tiny model,
    5e-5 for a model folder). `eval_samples` > 0 plays every reinforced task that many
    times, sampling as GRPO does, before GRPO and after it (`eval_before`, `eval_after`).
    `allow_unproven` trains on environment versions that never passed `validate` (counted).
    `control` (`shuffled` or `random`) then trains the same model again, with the same seeds
    and steps, on rewards shuffled within each group or drawn at random
    (`proofgym.rollouts.learnability`), and compares the two on the real verifier's rewards
    of the last `control_window` of steps (0.1: the last 10%).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str = "letters"
    model_dir: Path | None = None
    steps: int = Field(100, ge=1)
    learning_rate: float | None = Field(None, gt=0)
    generations: int = Field(8, ge=2)
    groups: int = Field(1, ge=1)
    max_completion_length: int = Field(24, ge=4)
    tasks: int = Field(32, ge=1)
    seed: int = 0
    sft_steps: int = Field(0, ge=0)
    sft_learning_rate: float | None = Field(None, gt=0)
    max_steps: int = Field(2, ge=1)
    eval_samples: int = Field(0, ge=0)
    allow_unproven: bool = False
    control: ControlKind | None = None
    control_window: float = Field(0.1, gt=0, le=1)

    def mix(self) -> Mix:
        """The environments trained on, with their weights (MixError for a bad `env`)."""
        return Mix.parse(self.env)

    def rate(self) -> float:
        """The learning rate: the one given, else the default for the model."""
        if self.learning_rate is not None:
            return self.learning_rate
        return TINY_LEARNING_RATE if self.model_dir is None else PRETRAINED_LEARNING_RATE

    def sft_rate(self) -> float:
        """The warm-up's learning rate: the one given, else the default for the model (the
        random tiny model learns nothing in tens of steps at a pretrained model's 5e-5: its
        reasoning-gym answers stayed untagged, tests/test_reasoning_gym_learn.py)."""
        if self.sft_learning_rate is not None:
            return self.sft_learning_rate
        return TINY_LEARNING_RATE if self.model_dir is None else SFT_LEARNING_RATE


def _check(mix: Mix, book: ProofBook, allow_unproven: bool) -> None:
    """Every environment of `mix` exists, and (unless allowed) its current version is proven:
    before a model is loaded or a service started."""
    from proofgym.rollouts.proofs import Identity
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    registry = available_environments(ResourcesSettings())
    unknown = [e for e in mix.envs if e not in registry]
    if unknown:
        raise RuntimeError(
            f"no environment named {', '.join(unknown)} (known: {', '.join(registry)})"
        )
    if not allow_unproven:
        # the services `learn` starts read the same variables: judge and settings included
        settings = ResourcesSettings.from_env()
        for name in mix.envs:
            env = registry[name].from_settings(settings)
            try:
                book.require(Identity.serving(name, env.version(), env.reward_inputs()))
            finally:
                env.shutdown()


class _Kept:
    """Every rollout of a run, stored (with a repeat count per task) when a store is given."""

    def __init__(self, db: Path | None) -> None:
        from proofgym.rollouts.store import RolloutStore

        self.store = RolloutStore(db) if db is not None else None
        self.counts: dict[str, int] = {}

    def __call__(self, results: list[RunResult]) -> None:
        if self.store is None:
            return
        for r in results:
            repeat = self.counts.get(r.task_id, 0)
            self.counts[r.task_id] = repeat + 1
            self.store.put(r, repeat)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def _curve(
    result: LearnResult,
    batches: list[list[RunResult]],
    controlled: bool,
    on_step: Callable[[int, float], None] | None,
) -> Any:
    """A TrainerCallback that records each logged step's reward, seconds and tool-call share
    into `result` (its clock starts at `start()`). In a control run (`controlled`) the reward
    recorded is the verifier's mean over the step's batch, and the one the trainer saw goes to
    `shown_rewards`."""
    import transformers

    class Curve(transformers.TrainerCallback):  # type: ignore[misc]
        last = 0.0

        def start(self) -> None:
            self.last = time.perf_counter()

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs and "reward" in logs:
                now = time.perf_counter()
                result.step_seconds.append(now - self.last)
                self.last = now
                reward = float(logs["reward"])
                if controlled:
                    result.shown_rewards.append(reward)
                    usable = [r.reward for r in batches[-1] if not r.mask_sample]
                    reward = sum(usable) / len(usable) if usable else 0.0
                result.rewards.append(reward)
                if batches:
                    last = batches[-1]
                    result.tool_call_share.append(sum(map(calls_a_tool, last)) / max(1, len(last)))
                if on_step:
                    on_step(len(result.rewards), reward)

    return Curve()


def learn(
    config: LearnConfig | str = "letters",
    *,
    db: Path | None = None,
    on_step: Callable[[int, float], None] | None = None,
    on_phase: Callable[[str], None] | None = None,
    proofs: ProofBook | None = None,
    **knobs: Any,
) -> LearnResult:
    """Train for `config.steps` GRPO steps on the generated tasks of `config.env`; the reward
    curve. `config` may be an environment (or mix) name, with `knobs` the other fields of
    LearnConfig. `db` keeps every rollout (warm-up references and evaluations included) in a
    rollout store; `on_step` is told each step's mean reward, `on_phase` what runs now.

    With `config.control`, a second run trains a fresh copy of the same model with the same
    seeds and steps on the control's rewards (its rollouts in `<db>.control.db`); the result's
    `control` is that run and `learnability` the comparison; `on_step` counts on past `steps`.
    `diagnosis` says why when the reward did not rise (`learn_report.diagnose`).

    `proofs` (default `runs/proofs`): each environment's current version must have passed
    `proofgym validate` there, or UnprovenRollouts is raised before anything trains, unless
    `allow_unproven` (then `unproven` counts the rollouts trained on)."""
    if not isinstance(config, LearnConfig):
        config = LearnConfig(env=config, **knobs)
    elif knobs:
        config = config.model_copy(update=knobs)
    mix = config.mix()
    book = proofs or ProofBook()
    _check(mix, book, config.allow_unproven)
    say = on_phase or (lambda text: None)
    tasks = mixed_tasks(mix, config.tasks, config.seed)
    with tempfile.TemporaryDirectory(prefix="proofgym-learn-") as tmp:
        model_dir = config.model_dir
        if model_dir is None:
            from model_interface.tiny_model import build

            model_dir = build(Path(tmp) / "tiny", seed=config.seed)
        run = (model_dir, tasks, book)
        result, batches = _run(config, run, Path(tmp) / "real", db, None, on_step, say)
        if config.control is not None:
            control = RewardControl(config.control, _reward_ranges(mix), seed=config.seed)
            say(f"control: the same model, seeds and steps on {config.control} rewards")

            def later(n: int, reward: float) -> None:
                if on_step:
                    on_step(config.steps + n, reward)

            where = db.with_suffix(".control.db") if db is not None else None
            result.control, control_batches = _run(
                config, run, Path(tmp) / "control", where, control, later, say
            )
            result.control_seen = control.seen
            result.learnability = learnability_of(
                env=mix.label(),
                model=str(config.model_dir) if config.model_dir else "tiny (untrained)",
                steps=config.steps,
                seed=config.seed,
                kind=config.control,
                real=batches,
                control=control_batches,
                window=config.control_window,
            )
    if result.learnability is not None and len(mix.envs) == 1:
        # evidence about the proven version it trained on: carried by that certificate
        attached = _attach(mix.envs[0], book, result.learnability.section())
        result.learnability_certificate = str(attached) if attached else None
    result.diagnosis = diagnose(batches)
    return result


def _attach(name: str, book: ProofBook, section: dict[str, Any]) -> Path | None:
    """Add `section` to the certificate of `name`'s current version and reward inputs, if
    one covers them (see `ProofBook.attach_learnability`)."""
    from proofgym.rollouts.proofs import Identity
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    registry = available_environments(ResourcesSettings())
    env = registry[name].from_settings(ResourcesSettings.from_env())
    try:
        ident = Identity.serving(name, env.version(), env.reward_inputs())
    finally:
        env.shutdown()
    return book.attach_learnability(ident, section)


def _reward_ranges(mix: Mix) -> dict[str, tuple[float, float]]:
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    registry = available_environments(ResourcesSettings())
    return {env: registry[env].reward_range for env in mix.envs}


def _run(
    config: LearnConfig,
    run: tuple[Path, tuple[list[Task], list[Task]], ProofBook],
    tmp: Path,
    db: Path | None,
    control: RewardControl | None,
    on_step: Callable[[int, float], None] | None,
    say: Callable[[str], None],
) -> tuple[LearnResult, list[list[RunResult]]]:
    """One run from the model at `run` = (model folder, (reinforced, warm-up tasks), proofs),
    the seeds set afresh (a control run starts where the real one did); the result and the
    GRPO batches, one a step. (About 70 lines: one with-block owns the model, the live server
    and the stack, whose order of teardown matters.)"""
    import transformers

    from model_interface.live import LiveModel
    from trainers.trl import ProofgymRollouts

    model_dir, (task_list, warmup_list), book = run
    mix = config.mix()
    transformers.set_seed(config.seed)
    keep = _Kept(db)
    result = LearnResult(
        env=mix.label(),
        steps=config.steps,
        learning_rate=config.rate(),
        eval_samples=config.eval_samples,
        weights=dict(mix.weights),
        control_kind=control.kind if control else None,
    )
    batches: list[list[RunResult]] = []

    def batch(results: list[RunResult]) -> None:
        keep(results)
        batches.append(results)

    rollouts = ProofgymRollouts(
        task_list,
        max_steps=config.max_steps,
        on_results=batch,
        proofs=book,
        allow_unproven=config.allow_unproven,
        reward_control=control,
    )
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir)
    before = [p.detach().clone() for p in model.parameters()]
    start = time.perf_counter()
    try:
        with LiveModel(model, tokenizer, name="policy") as live:
            stack = Stack(
                agent_port=free_port(),
                resources_ports=[free_port()],
                model_url=live.url,
                env={
                    "PROOFGYM_ENVS": json.dumps(mix.envs),
                    "PROOFGYM_MAX_STEPS": str(config.max_steps),
                    **book.agent_env(),  # its rows signed with the key the gate checks
                },
            )
            stack.start()
            rollouts.client.url = stack.agent_url
            try:
                if config.sft_steps > 0:
                    with_client = (model, tokenizer, rollouts.client)
                    out = tmp / "sft"
                    warm_up(config, with_client, warmup_list, keep, book, result, out, say)
                curve = _curve(result, batches, control is not None, on_step)
                trained = (model, tokenizer, rollouts)
                _reinforce(config, trained, task_list, keep, curve, result, tmp, say)
                result.unproven += rollouts.unproven
                result.per_env = per_env_curves([r for b in batches for r in b])
            finally:
                stack.stop()
                rollouts.client.close()
    finally:
        keep.close()
    result.seconds = time.perf_counter() - start
    result.weights_changed = any(
        not bool((a.detach() == b).all()) for a, b in zip(model.parameters(), before, strict=True)
    )
    return result, batches


def _reinforce(
    config: LearnConfig,
    run: tuple[Any, Any, Any],
    tasks: list[Task],
    keep: _Kept,
    curve: Any,
    result: LearnResult,
    tmp: Path,
    say: Callable[[str], None],
) -> None:
    """GRPO on `tasks` with the trainer's model `run` = (model, tokenizer, ProofgymRollouts),
    with the evaluations before and after it when asked (every rollout to `keep`)."""
    model, tokenizer, rollouts = run
    import transformers

    from trainers.trl import grpo_trainer, sampling_of

    trainer = grpo_trainer(
        model,
        tokenizer,
        rollouts,
        generations=config.generations,
        steps=config.steps,
        groups=config.groups,
        callbacks=[curve],
        output_dir=str(tmp / "out"),
        learning_rate=config.rate(),
        lr_scheduler_type="constant",
        max_completion_length=config.max_completion_length,
        temperature=1.0,
        beta=0.0,
        save_strategy="no",
        bf16=False,
        use_cpu=True,
        disable_tqdm=True,
        seed=config.seed,
    )
    if trainer.model is not model:  # the live model must be what trains
        raise RuntimeError("GRPOTrainer wrapped the model: the rollouts would be stale")
    trainer.remove_callback(transformers.PrinterCallback)  # the curve is ours
    sampling = {"model": rollouts.model, **sampling_of(trainer.args)}

    def measure(when: str) -> Evaluation:
        say(f"evaluating {when}: {len(tasks)} tasks x {config.eval_samples}")
        played = rollouts.client.run_batch(
            tasks, config.eval_samples, model_params=sampling, max_steps=config.max_steps
        )
        keep(played)
        return evaluate(played)

    if config.eval_samples:
        result.eval_before = measure("before GRPO")
    say(f"GRPO: {config.steps} steps of {config.groups} x {config.generations} rollouts")
    curve.start()
    trainer.train()
    if config.eval_samples:
        result.eval_after = measure("after GRPO")
