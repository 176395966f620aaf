# One image for every proofgym service; the command chooses it:
#   docker run proofgym serve agent|resources|model
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PROOFGYM_HOST=0.0.0.0

# bubblewrap: the code environment's sandbox (compose.yaml grants it what it needs)
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 proofgym
WORKDIR /app
COPY pyproject.toml README.md ./
COPY proofgym ./proofgym
COPY proofgym_stack ./proofgym_stack
COPY agent_server ./agent_server
COPY resources_servers ./resources_servers
COPY model_interface ./model_interface
COPY sdg ./sdg
COPY tasks /tasks
# the vllm extra: the tokenizer the gpu profile's token-exact backend needs (no torch)
RUN pip install ".[vllm]" && mkdir -p /data/sessions /runs && chown -R proofgym /data /runs /tasks

USER proofgym
# Each service listens on PROOFGYM_PORT; /health answers without the bearer token.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=5 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PROOFGYM_PORT', '8000'), timeout=2)"
ENTRYPOINT ["proofgym"]
CMD ["serve", "agent"]
