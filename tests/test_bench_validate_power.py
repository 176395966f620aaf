"""The two benches that measure `validate`'s power, run small: a mutant loaded in place of a
module is killed by the starter controls, and a buggy grader is found while its sound twin is
not (the full runs: bench/MUTATION.md and bench/GRADERS.md)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.grader_bench import grader_env, tasks  # noqa: E402
from bench.mutation_bench import real, run_worker  # noqa: E402
from proofgym_stack.validation import validate_env  # noqa: E402


def test_a_mutant_module_is_validated_in_place_of_the_real_one() -> None:
    # letters' share rule mutated by hand (the bench draws cosmic-ray's mutants, installed
    # beside the project): the whitespace `continue` becomes `break`
    source = (ROOT / "resources_servers" / "letters" / "env.py").read_text()
    assert "        if c.isspace():\n            continue\n" in source
    mutated = source.replace(
        "        if c.isspace():\n            continue\n",
        "        if c.isspace():\n            break\n",
    )
    mutant = {"file": "resources_servers/letters/env.py", "code": mutated}
    starter = run_worker("letters", mutant, starter=True, timeout=300)
    full = run_worker("letters", mutant, starter=False, timeout=300)
    sound = run_worker("letters", None, starter=False, timeout=300)
    assert not sound["failed"] and sound["rewards"]
    # it survived the starter controls before validate played honest variants (an honest
    # spaced answer was only in the author's full controls); the variant with whitespace
    # around the answer now kills it with the starter controls alone
    assert starter["failed"] == ["honest_variant:surrounding_whitespace"]
    assert "control:alternative" in full["failed"]
    assert real(full["rewards"]) != real(sound["rewards"])


def test_a_buggy_grader_is_found_and_its_sound_twin_is_not() -> None:
    for name, buggy in (("negation_blind", True), ("sound_tokenized", False)):
        report = asyncio.run(validate_env(grader_env(name), tasks(4), sample=4, parallel=8))
        assert report.passed is not buggy, (name, [v.name for v in report.verdicts if not v.passed])
