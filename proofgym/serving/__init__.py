"""How a service runs: the FastAPI app and its common routes, the request guard, fast
routes, the uvicorn server, settings, deadlines and timeouts. Imports the wire only.
"""
