"""The canary `proofgym validate` plants on the host before it attacks an environment.

A random value in a file of the temp dir and in the validating process's environment: no tool
output, check, reward or failure reason may ever show it. Environments that run policy code
ship `exploit_*` controls that hunt for it by these names (types only, no I/O here).
"""

from __future__ import annotations

PREFIX = "pgcanary-"
#: what a canary value looks like, for code that hunts for it
PATTERN = r"pgcanary-[0-9a-f]{16}"
#: the canary file's name in the temp dir, as a glob
FILE_GLOB = "proofgym-canary-*"
#: the environment variable that holds it while validate runs
ENV_VAR = "PROOFGYM_CANARY"
