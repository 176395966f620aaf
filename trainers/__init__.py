"""Trainer adapters (TRL, NeMo RL, Unsloth): each consumes RunResults and stands alone."""
