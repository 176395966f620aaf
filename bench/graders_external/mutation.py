"""Mutants of reasoning-gym's graders: cosmic-ray's operators on each grader's source.

A dataset's grader is its class's `score_answer` and what that calls in the dataset's own
module (methods through `self.` or the class, module-level functions), followed to a fixed
point (`grader_scope`). Every mutation cosmic-ray 8.7.0's operators (`OPERATORS`, used as a
library from its own install: `COSMIC_RAY_SITE`, never the project's venv) can make on a line
of that scope is a candidate (`mutants_of`); the bench draws from them with a fixed seed.

A mutant runs where an `rg_*` environment grades: in the grading worker process. Its preload
file (`preload_file`, passed to the worker with `--preload`) executes the mutated module
under the dataset module's name and registers its classes in reasoning-gym's registry in
place of the real ones (`install_mutant`), so `create_dataset` builds the mutated grader.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import os
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: cosmic-ray's core operators this bench draws from: the set `bench/mutation_bench.py` uses
#: on our own environments, plus the identity swaps (`is None` checks) and `/` to `*`
#: (cosmic-ray has no operator for `in` / `not in`)
OPERATORS = (
    "core/ReplaceComparisonOperator_Eq_NotEq",
    "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceComparisonOperator_Lt_LtE",
    "core/ReplaceComparisonOperator_Gt_GtE",
    "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_Is_IsNot",
    "core/ReplaceComparisonOperator_IsNot_Is",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceUnaryOperator_USub_UAdd",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Div",
    "core/ReplaceBinaryOperator_Div_Mul",
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
ENTRY = "score_answer"


def cosmic_ray() -> Any:
    """cosmic-ray's modules, from its own install beside the project."""
    site = os.environ.get("COSMIC_RAY_SITE", "/work/peers/tools/lib/python3.11/site-packages")
    if site not in sys.path:
        sys.path.append(site)
    import cosmic_ray.ast  # type: ignore[import-not-found]
    import cosmic_ray.mutating  # type: ignore[import-not-found]
    import cosmic_ray.plugins  # type: ignore[import-not-found]

    return cosmic_ray


def _span(node: ast.AST) -> set[int]:
    start = node.lineno  # type: ignore[attr-defined]
    return set(range(start, (node.end_lineno or start) + 1))  # type: ignore[attr-defined]


def grader_scope(source: str, class_name: str, entry: str = ENTRY) -> set[int]:
    """The lines of `class_name.entry` and of every function of the same module it reaches:
    `self.m(...)` and `Cls.m(...)` for methods of classes defined here (the class and its
    bases defined here), `f(...)` for module-level functions. Empty when the class does not
    define `entry` in this source."""
    tree = ast.parse(source)
    functions = {
        n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def methods(name: str, seen: frozenset[str] = frozenset()) -> dict[str, ast.AST]:
        """The methods `name` defines or inherits from classes of this module."""
        node = classes.get(name)
        if node is None or name in seen:
            return {}
        found: dict[str, ast.AST] = {}
        for base in reversed(node.bases):
            if isinstance(base, ast.Name):
                found.update(methods(base.id, seen | {name}))
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                found[item.name] = item
        return found

    own = classes.get(class_name)
    if own is None or not any(isinstance(i, ast.FunctionDef) and i.name == entry for i in own.body):
        return set()
    mine = methods(class_name)
    todo: list[ast.AST] = [mine[entry]]
    done: set[int] = set()
    lines: set[int] = set()
    while todo:
        node = todo.pop()
        if id(node) in done:
            continue
        done.add(id(node))
        lines |= _span(node)
        for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
            func = call.func
            if isinstance(func, ast.Name) and func.id in functions:
                todo.append(functions[func.id])
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                owner = func.value.id
                table = mine if owner in ("self", "cls") else methods(owner)
                if func.attr in table:
                    todo.append(table[func.attr])
    return lines


def candidates(source: str, lines: set[int]) -> list[dict[str, Any]]:
    """Every mutation of `OPERATORS` that starts on one of `lines`: operator, occurrence (the
    operator's count over the whole module, what `mutate_code` takes) and line."""
    cr = cosmic_ray()
    tree = cr.ast.get_ast(source)
    out = []
    for name in OPERATORS:
        operator = cr.plugins.get_operator(name)()
        occurrence = 0
        for node in cr.ast.ast_nodes(tree):
            for start, _ in operator.mutation_positions(node):
                if start[0] in lines:
                    out.append({"operator": name, "occurrence": occurrence, "line": start[0]})
                occurrence += 1
    return out


def mutate(source: str, operator: str, occurrence: int) -> str | None:
    """The source with one mutation applied (None when cosmic-ray applied none)."""
    cr = cosmic_ray()
    code: str | None = cr.mutating.mutate_code(
        source, cr.plugins.get_operator(operator)(), occurrence
    )
    return code


def diff(before: str, after: str) -> str:
    """The changed lines, `-` then `+`, without headers."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return "\n".join(line for line in list(lines)[2:] if not line.startswith("@@"))[:600]


def dataset_source(dataset: str) -> tuple[str, str, str]:
    """(module name, file, class name) of `dataset`'s class (imports reasoning-gym)."""
    from reasoning_gym.factory import DATASETS

    cls = DATASETS[dataset][0]
    module = sys.modules[cls.__module__]
    return cls.__module__, str(module.__file__), cls.__name__


def mutants_of(dataset: str) -> list[dict[str, Any]]:
    """Every candidate mutation of `dataset`'s grader (none when the class inherits
    reasoning-gym's default `score_answer`)."""
    module, path, class_name = dataset_source(dataset)
    source = Path(path).read_text()
    scope = grader_scope(source, class_name)
    return [
        {"dataset": dataset, "module": module, "file": path, "class": class_name, **c}
        for c in candidates(source, scope)
    ]


def install_mutant(module_name: str, path: str, code: str) -> types.ModuleType:
    """Execute `code` as module `module_name` (its relative imports resolved as the real
    one's) and let it register its datasets in reasoning-gym's registry, replacing the real
    classes: `create_dataset` then builds the mutant. The real module stays imported."""
    from reasoning_gym import factory

    original = importlib.import_module(module_name)
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__package__ = original.__package__

    def overwrite(name: str, dataset_cls: Any, config_cls: Any, curriculum_cls: Any = None) -> None:
        factory.DATASETS[name] = (dataset_cls, config_cls)

    real = factory.register_dataset
    factory.register_dataset = overwrite
    try:
        exec(compile(code, path, "exec"), module.__dict__)  # the mutant, on purpose
    finally:
        factory.register_dataset = real
    return module


PRELOAD = """\
import sys
sys.path.insert(0, {root!r})
from bench.graders_external.mutation import install_mutant
with open({code_file!r}, encoding="utf-8") as f:
    install_mutant({module!r}, {path!r}, f.read())
"""


def preload_file(mutant: dict[str, Any], code: str, folder: Path) -> Path:
    """Write the mutated source and the worker's preload file for `mutant` into `folder`;
    the preload file's path (for `GraderPool(preload=...)` or the worker's `--preload`)."""
    folder.mkdir(parents=True, exist_ok=True)
    code_file = folder / f"{mutant['id']}.src.py"
    code_file.write_text(code)
    preload = folder / f"{mutant['id']}.preload.py"
    preload.write_text(
        PRELOAD.format(
            root=str(ROOT), code_file=str(code_file), module=mutant["module"], path=mutant["file"]
        )
    )
    return preload
