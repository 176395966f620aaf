"""How a service runs: the FastAPI app and its common routes, the request guard, fast
routes, the uvicorn server, settings, deadlines and timeouts. Imports the wire only.

The previous release's `proofgym.serving` was one module, now `proofgym.serving.server`: its
names (`from proofgym.serving import serve`) still answer here for one release, each with a
DeprecationWarning naming the new path.
"""

from typing import TYPE_CHECKING, Any

#: the names the previous release's `proofgym/serving.py` defined, now in `server.py`
SERVER_NAMES = frozenset(
    {
        "CoalescedWrites",
        "HeaderTimeoutProtocol",
        "LOW_NOFILE",
        "PLACEHOLDER_TOKENS",
        "SERVER_KEEPALIVE_S",
        "fit_to_descriptors",
        "log",
        "raise_nofile",
        "serve",
        "token_problem",
        "tune_gc",
        "unread_bytes",
    }
)

if not TYPE_CHECKING:  # the type checker sees only the real names of the package

    def __getattr__(name: str) -> Any:
        if name not in SERVER_NAMES:
            # also how `from proofgym.serving import settings` finds a submodule not yet loaded
            raise AttributeError(f"module 'proofgym.serving' has no attribute {name!r}")
        import warnings

        from proofgym.moved import moved_message
        from proofgym.serving import server

        old, new = f"proofgym.serving.{name}", f"proofgym.serving.server.{name}"
        warnings.warn(moved_message(old, new), DeprecationWarning, 2)
        return getattr(server, name)
