"""proofgym: serve reinforcement-learning environments to LLM agents, with proven rewards."""

from proofgym.moved import AUTHOR_MODULES, MOVED, install

VERSION = "0.1.0"
__version__ = VERSION

# The previous release's flat paths (`proofgym.protocol`, `proofgym.testing`, ...) keep
# working for one release, each with a DeprecationWarning naming its new path.
install(MOVED, sorted(AUTHOR_MODULES))
