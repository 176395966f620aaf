"""The model interface over a live model: a trainer's policy, served from the trainer's process.

`LiveModel(model, tokenizer).start()` serves the real model interface (the same app and the
same token-exact `local` backend as `proofgym serve model`) from a thread of this process, so
the agent's rollouts sample from the weights the optimizer is updating, step after step, with
no copy and no reload. Generation runs in the model's own precision, and the model's training
mode is left as it was found.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import httpx
import uvicorn

from model_interface.app import create_app
from model_interface.backends.local import LocalGenerator, backend_for
from proofgym.serving.settings import ModelSettings


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LiveModel:
    """A model interface in a thread, over `model` and `tokenizer` (see the module docstring)."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str = "live",
        host: str = "127.0.0.1",
        port: int | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        self.settings = settings or ModelSettings(backend="local", model=name)
        self.generator = LocalGenerator.from_model(model, tokenizer, name=name)
        self.host = host
        self.port = port or _free_port(host)
        app = create_app(self.settings, backend=backend_for(self.generator, self.settings))
        config = uvicorn.Config(
            app, host=host, port=self.port, log_level="warning", loop="asyncio", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Where the model interface answers."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> str:
        """Serve, wait until `/health` answers, and return the URL."""
        self._thread = threading.Thread(target=self._server.run, name="proofgym-live", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self.url
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"the live model interface did not start on {self.url}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop serving (the model itself is untouched)."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> LiveModel:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
