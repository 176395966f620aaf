"""One service, started without the command line: `python -m proofgym_stack.service_main NAME`.

`proofgym up` (and Ray's actors) start each service this way, so a service process never loads
the CLI's Typer app and every command module: less start-up time and memory per service. `proofgym
serve NAME` is the same code behind the command line's options.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

SERVICES = ("agent", "resources", "model")


class ServiceConfigError(ValueError):
    """Settings this service cannot start with; the message says what to change."""


def build(service: str, overrides: dict[str, Any]) -> tuple[Any, Any]:
    """The ASGI app of `service` and its settings (PROOFGYM_ variables, then `overrides`);
    ServiceConfigError when they are unusable."""
    from proofgym.serving.lean_imports import openai_types_only

    openai_types_only()  # before anything imports openai: a service needs only its types
    from proofgym.serving.server import fit_to_descriptors, token_problem
    from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings

    settings: AgentSettings | ResourcesSettings | ModelSettings
    try:
        if service == "agent":
            from agent_server.app import create_app as agent_app

            settings = fit_to_descriptors(AgentSettings.from_env(**overrides))
            application = agent_app(settings)
        elif service == "resources":
            from proofgym_stack.environments import build_environments
            from resources_servers.base.app import create_app as resources_app

            settings = fit_to_descriptors(ResourcesSettings.from_env(**overrides))
            application = resources_app(settings, build_environments(settings))
        elif service == "model":
            from model_interface.app import create_app as model_app

            settings = fit_to_descriptors(ModelSettings.from_env(**overrides))
            application = model_app(settings)
        else:
            raise ServiceConfigError(
                f"unknown service {service!r}; choose agent, resources, model, vllm, openenv "
                "or nemo-gym"
            )
    except ServiceConfigError:
        raise
    except ValueError as exc:  # pydantic's ValidationError included: bad settings
        raise ServiceConfigError(str(exc)) from None
    problem = token_problem(settings)
    if problem is not None:
        raise ServiceConfigError(problem)
    return application, settings


def run(service: str, overrides: dict[str, Any] | None = None) -> None:
    """Build `service` and serve it until stopped."""
    from proofgym.serving.server import serve

    application, settings = build(service, overrides or {})
    logging.basicConfig(level=settings.log_level.upper())
    serve(application, settings, settings.port)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one argument, the service; settings from PROOFGYM_ variables."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] not in SERVICES:
        print(f"usage: python -m proofgym_stack.service_main {'|'.join(SERVICES)}", file=sys.stderr)
        return 2
    try:
        run(args[0])
    except ServiceConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
