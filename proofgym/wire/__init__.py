"""The wire contract: what crosses between the services and what callers send and
get (protocol types, the error shape, Responses items, token data, JSON limits and codec).
Imports nothing of the other rooms.
"""
