"""proofgym: serve reinforcement-learning environments to LLM agents, with proven rewards."""

VERSION = "0.1.0"
__version__ = VERSION
