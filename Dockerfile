# One image for every proofgym service; the command chooses it:
#   docker run proofgym serve agent|resources|model
#
# Build arguments and secrets, for machines behind a proxy or a private registry:
#   --build-arg BASE_IMAGE=registry.example/python:3.11-slim   the base image
#   --build-arg PIP_INDEX_URL=https://pypi.example/simple        a package index
#   --build-arg PIP_EXTRA_INDEX_URL=...                          a second one
#   --secret id=ca,src=/path/to/ca-bundle.pem                    a CA bundle pip and apt trust
# (compose.yaml passes each from the variable of the same name; see the README.)
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

ARG PIP_INDEX_URL=
ARG PIP_EXTRA_INDEX_URL=
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PROOFGYM_HOST=0.0.0.0

# bubblewrap: the code environment's sandbox (compose.yaml grants it what it needs)
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then \
      echo "Acquire::https::CAInfo \"/run/secrets/ca\";" > /etc/apt/apt.conf.d/99proofgym-ca; \
    fi \
    && apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/* /etc/apt/apt.conf.d/99proofgym-ca
RUN useradd --create-home --uid 10001 proofgym
WORKDIR /app

# Dependencies first, from pyproject.toml alone: editing the code reuses this layer.
# The vllm extra: the tokenizer the gpu profile's token-exact backend needs (no torch).
# constraints.txt: the versions the tests passed with (as `make install` installs them).
COPY pyproject.toml README.md constraints.txt ./
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi; \
    python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
print('\n'.join(p['dependencies'] + p['optional-dependencies']['vllm']))" > /tmp/deps.txt \
    && pip install -c constraints.txt -r /tmp/deps.txt && rm /tmp/deps.txt

COPY proofgym ./proofgym
COPY proofgym_stack ./proofgym_stack
COPY agent_server ./agent_server
COPY resources_servers ./resources_servers
COPY model_interface ./model_interface
COPY sdg ./sdg
COPY interop ./interop
COPY trainers ./trainers
# building the wheel fetches setuptools: behind a proxy it needs the CA bundle too
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi; \
    pip install --no-deps . && mkdir -p /data/sessions /runs /tasks \
    && chown -R proofgym /data /runs

USER proofgym
# Each service listens on PROOFGYM_PORT; /health answers without the bearer token.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=5 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PROOFGYM_PORT', '8000'), timeout=2)"
ENTRYPOINT ["proofgym"]
CMD ["serve", "agent"]
