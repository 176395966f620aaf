"""The agent server: runs each rollout as seed_session -> responses_loop -> verify -> close."""
