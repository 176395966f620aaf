"""`proofgym validate`: prove an environment's reward before anyone trains on it.

Public face: `validate_env` (run every check on one environment), `EnvReport` (what it
found), `Verdict` (one check's finding) and `Context` (what each check receives).
"""

from proofgym_stack.validation.context import Context, Verdict
from proofgym_stack.validation.runner import EnvReport, validate_env

__all__ = ["Context", "EnvReport", "Verdict", "validate_env"]
