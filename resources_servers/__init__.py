"""Resources servers: the base server, the verifier library, and one folder per environment."""
