"""Blind corpus, batch 2026-12-04b: ten planted environments and their sound twins."""
