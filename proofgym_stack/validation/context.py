"""The context every check of `proofgym validate` receives, and the verdict it reports.

Checks (the core checks in `core.py`, the attack modules of this package) import this module
only; the runner imports them and walks its `CHECKS` list: no circle. What one check needs from
another comes to it as an argument (`Check.needs`), not as state on the context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proofgym.serving.settings import AgentSettings
from proofgym.wire.protocol import Control, RunResult, Task
from proofgym_stack.testing import InProcessStack

#: the most steps a run request may ask for (`RunRequest.max_steps`)
MAX_STEPS = 1024


@dataclass
class Verdict:
    """One check of the validation and what it found. A check that could not apply to this
    environment (`applicable` False) passes and says why: never a "pass" that tested nothing."""

    name: str
    passed: bool
    detail: str = ""
    applicable: bool = True

    @property
    def outcome(self) -> str:
        """`pass`, `fail` or `n/a`."""
        if not self.applicable:
            return "n/a"
        return "pass" if self.passed else "fail"


class Context:
    """What every check of one validation receives: the environment, the sampled tasks, the
    in-process services, and every rollout run so far with what it was.

    Attributes a check reads: `env` (the environment), `tasks`, `seed`, `parallel`,
    `margin`, `threshold` (the reward that passes), `controls` (task id -> its controls),
    `solo` ((task id, control) -> that control's rollout, played alone), `results` (every
    rollout, in order), `labels` (rollout id -> what it was), `expected` (rollout id ->
    "pass"/"fail" where known), `scripts` (rollout id -> the script, for those that had to
    fail), `budget` (mutants the search may play). A check runs
    rollouts with `run`, and reports with `verdict` or `not_applicable`.
    """

    def __init__(
        self,
        stack: InProcessStack,
        env: Any,
        tasks: list[Task],
        parallel: int,
        margin: float,
        seed: int,
        budget: int = 200,
    ) -> None:
        self.stack = stack
        self.budget = budget  # mutants the search may play
        self.env = env
        self.tasks = tasks
        self.parallel = parallel
        self.margin = margin
        self.seed = seed
        self.base = f"http://resources/{env.name}"
        self.threshold = env.passing_reward()
        self.results: list[RunResult] = []
        self.labels: dict[str, str] = {}  # rollout id -> what the rollout was (for verdicts)
        self.expected: dict[str, str] = {}  # rollout id -> a control's expected outcome
        #: rollout id -> the script of a rollout that had to fail (what `paid` shows whole)
        self.scripts: dict[str, list[list[dict[str, Any]]]] = {}
        self.controls: dict[str, list[Control]] = {}
        self.solo: dict[tuple[str, str], RunResult] = {}
        self.verdicts: list[Verdict] = []
        #: rollouts played on task data validate made up (a value moved to see whether it
        #: decides the reward): what their verify does is no policy's doing
        self.invented: set[str] = set()

    def passes(self, result: RunResult) -> bool:
        """Whether `result` passes: not masked, and its reward reaches the threshold."""
        return not result.mask_sample and result.reward >= self.threshold - 1e-9

    async def post(self, url: str, body: Any, **kw: Any) -> Any:
        """POST to one of the in-process services; its JSON (RuntimeError unless 200)."""
        r = await self.stack.client.post(url, json=body, **kw)
        if r.status_code != 200:
            raise RuntimeError(f"{url} answered {r.status_code}: {r.text[:300]}")
        return r.json()

    async def run(
        self,
        task: Task,
        script: list[list[dict[str, Any]]],
        label: str = "a rollout",
        expect: str | None = None,
    ) -> RunResult:
        """Play `script` on `task` through the agent; `expect` ("fail": an attack, a negative)
        counts the rollout in the false-positive rate when it is paid a pass."""
        body: dict[str, Any] = {
            "task": task.model_dump(mode="json"),
            "model_params": {"model": "scripted", "script": script},
        }
        # a script is played whole: cut at the agent's step limit, a control's last actions
        # (the violation itself) would never run, and its verdict would be wrong
        default = AgentSettings.model_fields["max_steps"].default
        body["max_steps"] = min(max(len(script) + 1, default), MAX_STEPS)
        result = RunResult.model_validate(await self.post("http://agent/run", body))
        self.results.append(result)
        if not any(t.task_id == task.task_id and t.task_data == task.task_data for t in self.tasks):
            self.invented.add(result.rollout_id)
        self.labels[result.rollout_id] = label
        if expect is not None:
            self.expected[result.rollout_id] = expect
        if expect == "fail":
            self.scripts[result.rollout_id] = script
        return result

    def reference(self, task_id: str) -> Control | None:
        """The task's control of role `reference` (the honest solution attacks start from)."""
        return next((c for c in self.controls.get(task_id, []) if c.role == "reference"), None)

    def reference_result(self, task_id: str) -> RunResult | None:
        """The rollout of the task's reference control, played alone (None without one)."""
        control = self.reference(task_id)
        return None if control is None else self.solo.get((task_id, control.name))

    def verdict(self, name: str, passed: bool, detail: str = "") -> None:
        """Record the verdict of check `name`."""
        self.verdicts.append(Verdict(name, passed, detail))

    def not_applicable(self, name: str, why: str) -> None:
        """Record that check `name` could not apply here, and why."""
        self.verdicts.append(Verdict(name, True, why, applicable=False))
