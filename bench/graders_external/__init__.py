"""An external labelled set of graders that measures `proofgym validate`: reasoning-gym's
graders and cosmic-ray mutants of them, labelled by a differential check (README.md)."""
