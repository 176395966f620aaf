"""Interop: proofgym environments played by other ecosystems' clients, and their environments
played (and validated) by proofgym.

- `openenv_server`: `proofgym serve openenv` (OpenEnv's `/ws`, `/mcp`, `/schema` protocol);
- `trl_env`: a TRL `environment_factory` class over that server;
- `nemo_server`: `proofgym serve nemo-gym` (NeMo Gym's resources-server contract);
- `nemo_rows`: task files as rows NeMo Gym's `simple_agent` accepts;
- `bridges`: OpenEnv and NeMo Gym servers as proofgym environments (`PROOFGYM_BRIDGES`);
- `skyrl_env`: a SkyRL `BaseTextEnv` over a proofgym resources server.

The peers' packages are never imported here: every direction speaks the wire protocol.
"""
