"""The composition root: what wires the services together.

The command line, `proofgym up`, the in-process stack tests use and the validation runner live
here, above the services; `proofgym/` (the core every service shares) imports none of them.
"""
