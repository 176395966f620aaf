"""Task generators: one per environment, deterministic by seed, each task self-checked."""
