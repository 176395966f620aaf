"""Blind batch 2026-12-04c: eight planted environments."""
