"""The verifier library: state matching, trajectory constraints, claim checks, composition."""
