"""The power of `validate`, measured: a mutation score on the shipped environments' verifiers
and tools, with only the controls an author starts with.

    .venv/bin/python bench/mutation_bench.py [--per-env 30] [--envs math,...] [--json OUT]

For each shipped environment, every mutation that cosmic-ray's operators (installed beside
the project: `COSMIC_RAY_SITE` names its site-packages) can make in the environment's own
folder, outside its controls, instructions, task models and settings (what remains is the
verifier, the tools and their helpers), and in the verifier library modules its verify calls,
is listed; `--per-env` of them are drawn at random
with a fixed seed. Each mutant runs in a process of its own, the mutated module loaded in
place of the real one, and is validated as `proofgym validate` does, with the environment's
controls cut to the starter set (`reference`, `noop_claim`, the first `violation_*`):
- **killed**: a verdict failed (or the run timed out);
- **equivalent**: it survived, the full controls pass too, and the real rollouts of the full
  validation (every control's and every generic negative's, what a policy writes) get the
  same rewards as from the unmutated environment: no behaviour a policy meets changed (how
  many of these moved a reward only under an attack's input is counted apart);
- **survived**: it survived and the behaviour changed (a full control failed, or a real
  rollout's reward moved).
The score is killed / (mutants - equivalent). Survivors are listed with their diffs.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENVS = ("code", "file_edit", "game", "letters", "math", "support", "workflow")
#: the verifier library's modules each environment's verify calls: its verifier too
LIBRARY = {
    "code": ("claims", "compose", "trajectory"),
    "file_edit": ("claims", "compose", "state"),
    "math": ("answers", "statements", "arithmetic", "compose"),
    "support": ("answers", "judge", "judge_offline", "statements", "trajectory"),
    "workflow": ("claims", "compose", "state"),
}
#: what is not the verifier or a tool: the controls, the instructions, the models and settings
NOT_MUTATED_FUNCTIONS = frozenset(
    {"controls", "instructions", "from_settings", "__init__", "isolation_probe", "sandbox_mode",
     "controls_for", "judge_inputs", "description"}
)  # fmt: skip
NOT_MUTATED_FILES = frozenset(
    {"task.py", "scripts.py", "__init__.py", "exploits.py", "judge_cases.py"}
)
OPERATORS = (
    "core/ReplaceComparisonOperator_Eq_NotEq",
    "core/ReplaceComparisonOperator_Lt_LtE",
    "core/ReplaceComparisonOperator_Gt_GtE",
    "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceUnaryOperator_USub_UAdd",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Div",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/AddNot",
    "core/NumberReplacer",
    "core/ZeroIterationForLoop",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
    "core/RemoveDecorator",
    "core/ExceptionReplacer",
)


def cosmic_ray() -> Any:
    """cosmic-ray's modules, from its own install (never the project's venv)."""
    site = os.environ.get("COSMIC_RAY_SITE", "/work/peers/tools/lib/python3.11/site-packages")
    if site not in sys.path:
        sys.path.append(site)
    import cosmic_ray.ast
    import cosmic_ray.mutating
    import cosmic_ray.plugins

    return cosmic_ray


def excluded_lines(source: str) -> set[int]:
    """Lines of the functions that are not the verifier or a tool."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
            node.name in NOT_MUTATED_FUNCTIONS
        ):
            lines |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Task"):
            lines |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def mutants_of(env: str) -> list[dict[str, Any]]:
    """Every mutation of the environment's verifier and tools: (file, operator, occurrence,
    line)."""
    cr = cosmic_ray()
    out = []
    folder = ROOT / "resources_servers" / env
    library = ROOT / "resources_servers" / "verifiers"
    own = sorted(folder.glob("*.py"))
    for path in own + [library / f"{name}.py" for name in LIBRARY.get(env, ())]:
        if path.name in NOT_MUTATED_FILES:
            continue
        source = path.read_text()
        skip = excluded_lines(source)
        tree = cr.ast.get_ast(source)
        for name in OPERATORS:
            operator = cr.plugins.get_operator(name)()
            occurrence = 0
            for node in cr.ast.ast_nodes(tree):
                for start, _ in operator.mutation_positions(node):
                    if start[0] not in skip:
                        out.append(
                            {"file": str(path.relative_to(ROOT)), "operator": name,
                             "occurrence": occurrence, "line": start[0]}
                        )  # fmt: skip
                    occurrence += 1
    return out


def mutated_source(mutant: dict[str, Any]) -> str | None:
    cr = cosmic_ray()
    source = (ROOT / mutant["file"]).read_text()
    operator = cr.plugins.get_operator(mutant["operator"])()
    code: str | None = cr.mutating.mutate_code(source, operator, mutant["occurrence"])
    return code


WORKER = r"""
import asyncio, importlib.abc, importlib.util, json, sys
sys.path.insert(0, {root!r})
module_name, path, env_name, starter = {module!r}, {path!r}, {env!r}, {starter!r}
code = sys.stdin.read()

class Mutated(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, target=None, path_=None):
        if name == module_name:
            return importlib.util.spec_from_loader(name, self, origin=path)
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.__file__ = path
        exec(compile(code, path, "exec"), module.__dict__)

if code:
    sys.meta_path.insert(0, Mutated())
from proofgym.serving.settings import ResourcesSettings
from proofgym.rollouts.collect import load_tasks
from resources_servers.base.registry import discover
from proofgym_stack.validation import validate_env
from pathlib import Path

base = discover()[env_name]

class Starter(base):
    def controls(self, task):
        controls = super().controls(task)
        if not starter:
            return controls
        violation = next((c.name for c in controls if c.name.startswith("violation")), None)
        return [c for c in controls if c.name in ("reference", "noop_claim", violation)]

Starter.__name__ = base.__name__
Starter.__module__ = base.__module__  # its version is its folder's, as the real one's
env = Starter.from_settings(ResourcesSettings())
tasks = load_tasks(Path({root!r}) / "tasks" / env_name / "example.jsonl")
report = asyncio.run(validate_env(env, tasks))
print(json.dumps({{
    "failed": [v.name for v in report.verdicts if not v.passed],
    "rewards": [list(r) for r in report.rollouts_seen],
}}))
"""


def run_worker(
    env: str, mutant: dict[str, Any] | None, starter: bool, timeout: float
) -> dict[str, Any]:
    """Validate `env` (mutated by `mutant`, if any) in a process of its own."""
    code = ""
    module = path = ""
    if mutant is not None:
        code = mutant.get("code") or mutated_source(mutant) or ""
        path = str(ROOT / mutant["file"])
        module = mutant["file"].removesuffix(".py").replace("/", ".")
    script = WORKER.format(root=str(ROOT), module=module, path=path, env=env, starter=starter)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], input=code, capture_output=True, text=True,
            timeout=timeout, cwd=ROOT, env={**os.environ, "PROOFGYM_LOG_LEVEL": "error"},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"timeout": True, "failed": ["timeout"], "rewards": []}
    try:
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {"crashed": True, "failed": ["crashed"], "detail": done.stderr[-800:], "rewards": []}


def real(rewards: list[Any]) -> list[Any]:
    """The rollouts a policy writes: the controls' and the generic negatives' (not the
    attacks' made-up inputs)."""
    return [r for r in rewards if str(r[0]).startswith(("control ", "negative "))]


def diff(mutant: dict[str, Any]) -> str:
    before = (ROOT / mutant["file"]).read_text().splitlines()
    after = (mutated_source(mutant) or "").splitlines()
    lines = list(difflib.unified_diff(before, after, lineterm="", n=0))
    return "\n".join(line for line in lines[2:] if not line.startswith("@@"))[:400]


def measure(env: str, per_env: int, seed: int, timeout: float) -> dict[str, Any]:
    every = mutants_of(env)
    rng = random.Random(f"{seed}:{env}")
    drawn = rng.sample(every, min(per_env, len(every)))
    baseline = run_worker(env, None, starter=False, timeout=timeout)
    assert not baseline["failed"], (env, baseline)
    rows = []
    for mutant in drawn:
        start = time.perf_counter()
        starter = run_worker(env, mutant, starter=True, timeout=timeout)
        row = {**mutant, "diff": diff(mutant), "starter_failed": starter["failed"]}
        if starter["failed"]:
            row["outcome"] = "killed"
        else:
            full = run_worker(env, mutant, starter=False, timeout=timeout)
            same = not full["failed"] and real(full["rewards"]) == real(baseline["rewards"])
            row["outcome"] = "equivalent" if same else "survived"
            row["full_failed"] = full["failed"]
            row["attack_rewards_moved"] = same and full["rewards"] != baseline["rewards"]
        row["seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps({"env": env, **{k: v for k, v in row.items() if k != "diff"}}), flush=True)
        rows.append(row)
    killed = sum(r["outcome"] == "killed" for r in rows)
    equivalent = sum(r["outcome"] == "equivalent" for r in rows)
    scored = len(rows) - equivalent
    return {
        "env": env,
        "mutants_available": len(every),
        "mutants": len(rows),
        "killed": killed,
        "equivalent": equivalent,
        "survived": len(rows) - killed - equivalent,
        "equivalent_but_an_attack_reward_moved": sum(
            bool(r.get("attack_rewards_moved")) for r in rows
        ),
        "score": round(killed / scored, 3) if scored else None,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-env", type=int, default=30)
    parser.add_argument("--envs", default=",".join(ENVS))
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results = []
    for env in args.envs.split(","):
        results.append(measure(env, args.per_env, args.seed, args.timeout))
        summary = {k: v for k, v in results[-1].items() if k != "rows"}
        print(json.dumps(summary), flush=True)
        if args.json:
            args.json.write_text(
                json.dumps({"results": results, "seed": args.seed}, indent=1) + "\n"
            )


if __name__ == "__main__":
    main()
