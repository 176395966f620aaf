"""Trainer adapters: each stands alone, imports only the core (and the live model interface),
and talks to the agent over HTTP. `trainers.trl`: TRL's GRPOTrainer."""
