"""Which reasoning-gym datasets there are, and what identifies the installed release.

Nothing here imports `reasoning_gym`: importing it loads matplotlib, sympy and 106 generators
(1.5 s, about 100 MB), which a resources server that only lists or grades never needs. The
names below are those of the pinned release (`PINNED`); with another release installed they are
read from its own registry instead (`dataset_names`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util

#: the release `constraints.txt` pins (the `rg` extra)
PINNED = "0.1.25"
DISTRIBUTION = "reasoning-gym"
#: environment names are `rg_<dataset>`: the protocol's environment names are `[a-z0-9_]+`
#: (they become URL prefixes, folders under tasks/ and proofs/, and metric labels)
PREFIX = "rg_"

#: every dataset of reasoning-gym 0.1.25 but `composite` (a mix of the others, which needs a
#: list of datasets to exist; `learn`'s mixes do that job here)
DATASETS_0_1_25 = (
    "ab", "acre", "advanced_geometry", "aiw", "arc_1d", "arc_agi", "base_conversion",
    "basic_arithmetic", "bf", "binary_alternation", "binary_matrix", "bitwise_arithmetic",
    "boxnet", "caesar_cipher", "calendar_arithmetic", "chain_sum", "circuit_logic", "codeio",
    "coin_flip", "color_cube_rotation", "complex_arithmetic", "count_bits", "count_primes",
    "countdown", "course_schedule", "cryptarithm", "decimal_arithmetic", "decimal_chain_sum",
    "dice", "emoji_mystery", "family_relationships", "figlet_font", "fraction_simplification",
    "futoshiki", "game_of_life", "game_of_life_halting", "gcd", "graph_color", "group_anagrams",
    "gsm_symbolic", "intermediate_integration", "isomorphic_strings", "jugs", "kakurasu",
    "knight_swap", "knights_knaves", "largest_island", "lcm", "leg_counting",
    "letter_counting", "letter_jumble", "list_functions", "mahjong_puzzle",
    "manipulate_matrix", "maze", "mini_sudoku", "modulo_grid", "n_queens", "needle_haystack",
    "number_filtering", "number_format", "number_sequence", "number_sorting",
    "palindrome_generation", "palindrome_partitioning", "path_star", "polynomial_equations",
    "polynomial_multiplication", "pool_matrix", "power_function", "prime_factorization",
    "products", "propositional_logic", "puzzle24", "quantum_lock", "ransom_note", "rearc",
    "rectangle_count", "rotate_matrix", "rotten_oranges", "rubiks_cube", "rush_hour",
    "self_reference", "sentence_reordering", "shortest_path", "simple_equations",
    "simple_geometry", "simple_integration", "sokoban", "spell_backward", "spiral_matrix",
    "string_insertion", "string_manipulation", "string_splitting", "string_synthesis", "sudoku",
    "survo", "syllogism", "time_intervals", "tower_of_hanoi", "tsumego", "word_ladder",
    "word_sequence_reversal", "word_sorting", "zebra_puzzles",
)  # fmt: skip

#: datasets whose entries carry no `answer` (several answers are right), and the metadata key
#: that holds one right answer, which the reference control states
REFERENCE_IN_METADATA = {
    "graph_color": "possible_answer",
    "propositional_logic": "example_answer",
    "rubiks_cube": "example_correct_answer",
}
#: datasets whose entries carry no right answer at all: no reference control can be built,
#: so `sdg` refuses them (their graders simulate the answer: boxnet's plan, rush_hour's moves)
NO_REFERENCE = frozenset({"boxnet", "rush_hour"})


def installed_version() -> str | None:
    """The installed reasoning-gym release, or None when the `rg` extra is not installed.
    (The package's own `__version__` says 0.1.19 in the 0.1.25 wheel: the distribution's
    metadata is the one to read.)"""
    if importlib.util.find_spec("reasoning_gym") is None:
        return None
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def release_digest() -> str:
    """What identifies the installed reasoning-gym, for the environments' versions: its release
    and a hash of its wheel's RECORD (every file's sha256, as installed), so a release or a
    repackaged wheel with another grader moves every `rg_*` version."""
    dist = importlib.metadata.distribution(DISTRIBUTION)
    record = dist.read_text("RECORD") or ""
    return f"{dist.version}:{hashlib.sha256(record.encode()).hexdigest()[:12]}"


def dataset_names() -> tuple[str, ...]:
    """The datasets of the installed release (empty when none is installed)."""
    version = installed_version()
    if version is None:
        return ()
    if version == PINNED:
        return DATASETS_0_1_25
    from reasoning_gym.factory import DATASETS  # another release: its own registry

    return tuple(sorted(n for n in DATASETS if n != "composite"))


def env_name(dataset: str) -> str:
    """The environment that serves `dataset`."""
    return f"{PREFIX}{dataset}"
