"""`proofgym validate`: prove an environment's reward before anyone trains on it."""

from proofgym_stack.validation.runner import EnvReport, Verdict, validate_env

__all__ = ["EnvReport", "Verdict", "validate_env"]
