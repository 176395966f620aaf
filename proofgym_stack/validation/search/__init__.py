"""The search of `proofgym validate`: mutants of every pass control, judged by general oracles.

Rooms: `values` (what a policy could put in an argument), `mutants` (the grammar), `world`
(the state verify was handed, as a fingerprint), `tracing` (what verify ran, read, raised),
`baseline` (honest play, measured first), `search` (the loop and the oracles), `check` (its
verdict), `shrink` (minimal trajectories), `findings` (one per root cause, with a control to
paste).
"""

from proofgym_stack.validation.search.check import check_search
from proofgym_stack.validation.search.findings import Finding
from proofgym_stack.validation.search.search import DEFAULT_BUDGET

__all__ = ["DEFAULT_BUDGET", "Finding", "check_search"]
