"""Resources servers: the base server, the verifier library, the authors' face
(`resources_servers.sdk`), and one folder per environment."""

from proofgym.moved import install

# The math environment's calculator became the verifier library's arithmetic (one release).
_MOVED = {"resources_servers.math.calculator": "resources_servers.verifiers.arithmetic"}
install(_MOVED, authors=list(_MOVED))
