"""Calling the services: the HTTP client with retries (lean HTTP/1.1 and aiohttp), the
agent and model clients, sticky routing. Imports the wire and serving (the same settings,
deadline header and timeouts the services use).
"""
