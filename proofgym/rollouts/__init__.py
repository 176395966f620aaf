"""Rollouts at rest: the SQLite store, collecting into it, exporting, profiling, the
viewer, proof certificates, mixes. Imports the wire, serving and clients.
"""
